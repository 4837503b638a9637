package queue

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// checkAllReads runs checkReads on every rec.
func (c *checker) checkAllReads() {
	done := make([]int32, len(c.h.Msgs)) // rec+1 that last met the message: once per rec
	for i := range c.recs {
		r := &c.recs[i]
		c.checkReads(int32(i), r, c.mops(int32(i)), done)
	}
}

// checkReads reports G1a, precommitted-read and garbage-read in the reads
// of rec ri, whose micro-ops are mops; done[m] == ri+1 marks a message
// met in this rec already.
func (c *checker) checkReads(ri int32, r *rec, mops []model.Mop, done []int32) {
	if r.comp == r.inv {
		return
	}
	stamp := ri + 1
	reader := c.compIdx(ri)
	for mi := range mops {
		m := &mops[mi]
		if m.Kind != model.MopPoll {
			continue
		}
		for _, kp := range c.h.PollsOf(m) {
			for _, rd := range c.h.ReadsOf(&kp) {
				if done[rd.Msg] == stamp {
					continue
				}
				done[rd.Msg] = stamp
				w := c.writer[rd.Msg]
				switch {
				case w < 0:
					c.res.Add(GarbageRead, &garbageRead{compactKey: c.compact(kp.Key, rd.Msg, ri),
						off: rd.Offset(), reader: reader})
				case w == ri:
					c.res.Add(PrecommittedRead, &Instance{
						Op: analysis.IntPtr(reader), Subject: analysis.Subject{Key: c.keyVal(kp.Key)}, Value: c.msgValP(rd.Msg),
						Evidence: analysis.Evidence{Witness: c.witness(ri)},
					})
				case r.typ == model.OK && c.recs[w].typ == model.Fail:
					c.res.Add(G1a, &Instance{
						Subject: analysis.Subject{Key: c.keyVal(kp.Key)}, Value: c.msgValP(rd.Msg), Offset: analysis.IntPtr(rd.Offset()),
						Reader: analysis.IntPtr(reader), Writer: analysis.IntPtr(c.compIdx(w)),
						Evidence: analysis.Evidence{Witness: c.witness(w, ri)},
					})
				}
			}
		}
	}
}
