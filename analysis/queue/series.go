package queue

import (
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// events returns, for each op position, the rec it invokes or completes, or
// -1 (checker.ev, made once).
func (c *checker) events() []int32 {
	if c.ev == nil {
		c.ev = filled(len(c.h.Ops), -1)
		for ri, r := range c.recs {
			c.ev[r.inv], c.ev[r.comp] = int32(ri), int32(ri)
		}
	}
	return c.ev
}

// unseenSeries computes the unseen count per key after each ok op, as
// change points (docs/queue.md#unseen).
func (c *checker) unseenSeries() {
	nk := len(c.h.Keys)
	sentOK := make([]bool, len(c.h.Msgs))
	readOK := make([]bool, len(c.h.Msgs))
	unseen := make([]int32, nk)
	var touched []model.KeyID
	for ri, r := range c.recs {
		if r.typ != model.OK {
			continue
		}
		touched = touched[:0]
		for _, m := range c.mops(int32(ri)) {
			switch m.Kind {
			case model.MopSend:
				if !sentOK[m.Msg] {
					sentOK[m.Msg] = true
					if !readOK[m.Msg] {
						unseen[m.Key]++
						touched = append(touched, m.Key)
					}
				}
			case model.MopPoll:
				for _, kp := range c.h.PollsOf(&m) {
					for _, rd := range c.h.ReadsOf(&kp) {
						if !readOK[rd.Msg] {
							readOK[rd.Msg] = true
							if sentOK[rd.Msg] {
								unseen[kp.Key]--
								touched = append(touched, kp.Key)
							}
						}
					}
				}
			}
		}
		slices.Sort(touched)
		t := c.h.Time(int(r.comp))
		for _, k := range slices.Compact(touched) {
			c.res.Series.Unseen.Append(analysis.UnseenPoint{
				Time: t, OpIndex: c.idx(r.comp), Key: k, Count: unseen[k]})
		}
	}

}
