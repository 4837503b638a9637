package queue

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// checkLostAndUnseen reports lost-write, unseen and torn-transaction (after
// checkRecs, which found each key's max reads).
func (c *checker) checkLostAndUnseen() {
	unseen := c.checkLost()
	c.reportUnseen(unseen)
	c.checkTorn()
}

// maxReads finds, per key, the highest first position any ok poll read
// (maxFirst) and a reader of it (maxRead), which maxReader then lowers to
// the lowest-indexed such reader. When the ops' indices ascend
// (c.ordered), the first ok reader of each message (okReader) is its
// lowest-indexed one, and maxReads finds the lowest-indexed reader of the
// values at maxFirst itself: maxReader has nothing to do.
func (c *checker) maxReads() {
	nk := len(c.h.Keys)
	c.maxFirst = filled(nk, -1)
	c.maxRead = filled(nk, -1)
	for m := range c.h.Msgs {
		r := c.okReader[m]
		if r < 0 || c.first[m] < 0 {
			continue
		}
		k := c.h.Msgs[m].Key
		if c.first[m] > c.maxFirst[k] {
			c.maxFirst[k] = c.first[m]
			c.maxRead[k] = r
		} else if c.ordered && c.first[m] == c.maxFirst[k] && r < c.maxRead[k] {
			c.maxRead[k] = r
		}
	}
}

// maxReader names as max_read, per key, the lowest-indexed ok poll that
// read the value at max_read_index, not just the first found: rec ri's
// reads are compared with the reader so far.
func (c *checker) maxReader(ri int32, r *rec, mops []model.Mop) {
	if r.typ != model.OK {
		return
	}
	for mi := range mops {
		for _, kp := range c.h.PollsOf(&mops[mi]) {
			for _, rd := range c.h.ReadsOf(&kp) {
				if c.first[rd.Msg] == c.maxFirst[kp.Key] && c.first[rd.Msg] >= 0 &&
					c.compIdx(ri) < c.compIdx(c.maxRead[kp.Key]) {
					c.maxRead[kp.Key] = ri
				}
			}
		}
	}
}

// checkLost marks and reports lost-write: a committed value never read by
// an ok poll whose last position is at or below its key's highest first
// position an ok poll read. It returns, per key, the values of ok sends no
// ok poll read (unseen's).
func (c *checker) checkLost() [][]model.MsgID {
	maxFirst, maxReader := c.maxFirst, c.maxRead
	c.lost = make([]bool, len(c.h.Msgs))
	unseen := make([][]model.MsgID, len(c.h.Keys))
	var sentOff []int64 // made at the first lost write
	for mi := range c.h.Msgs {
		m := model.MsgID(mi)
		w := c.writer[m]
		if w < 0 || !c.committed[w] || c.okReader[m] >= 0 {
			continue
		}
		k := c.h.Msgs[m].Key
		if c.recs[w].typ == model.OK {
			unseen[k] = append(unseen[k], m)
		}
		if c.last[m] < 0 {
			analysis.OwnStats[Stats](c.res).Unpositioned++
			continue
		}
		if c.last[m] > maxFirst[k] {
			continue
		}
		c.lost[m] = true
		off := c.offsets[k][c.first[m]]
		if sentOff == nil {
			sentOff = c.sentOffsets()
		}
		if o := sentOff[m]; o != model.NoOffset {
			off = o
		}
		c.res.Add(LostWrite, &lostWrite{compactKey: c.compact(k, m, w, maxReader[k]), off: off, index: int64(c.first[m]), maxReadIndex: int64(maxFirst[k]),
			writer: c.compIdx(w), maxRead: c.compIdx(maxReader[k]), maxReadOffset: c.offsets[k][maxFirst[k]]})
	}
	return unseen
}

// reportUnseen reports unseen for each key with values in unseen (by
// key): the values in log order, at most Options.MaxUnseenValues of them.
func (c *checker) reportUnseen(unseen [][]model.MsgID) {
	for k, ms := range unseen {
		if len(ms) == 0 {
			continue
		}
		slices.SortFunc(ms, func(a, b model.MsgID) int {
			if x := cmp.Compare(c.last[a], c.last[b]); x != 0 {
				return x
			}
			return lessCmp(c.h.MsgValue(a), c.h.MsgValue(b))
		})
		in := &Instance{Subject: analysis.Subject{Key: c.keyVal(model.KeyID(k))}, Count: analysis.IntPtr(int64(len(ms)))}
		if len(ms) > c.opts.MaxUnseenValues {
			ms = ms[:c.opts.MaxUnseenValues]
			in.Truncated = true
		}
		var ws []int32
		for _, m := range ms {
			in.Values = append(in.Values, c.msgVal(m))
			ws = append(ws, c.writer[m])
		}
		in.Witness = c.witness(ws...)
		c.res.Add(Unseen, in)
	}
}

// What torn-transaction makes of each value an op sent (tornState.kinds).
const (
	tornNeither byte = iota
	tornSeen         // read by an ok poll
	tornMissing      // lost and never polled, or aborted and never seen
)

// tornState is checkTorn's room for one rec, reused from rec to rec.
type tornState struct {
	proofs []int32
	sent   []model.MsgID
	kinds  []byte  // per sent value: tornSeen, tornMissing or tornNeither
	met    []int32 // rec+1 that last sent the message: once per rec
}

// checkTorn reports torn-transaction: a committed or failed op some of
// whose values were seen and others are missing (tornKinds says which).
func (c *checker) checkTorn() {
	st := tornState{met: make([]int32, len(c.h.Msgs))}
	for ri, r := range c.recs {
		rr := int32(ri)
		if !c.committed[rr] && r.typ != model.Fail {
			continue
		}
		nSeen, nMissing := c.tornKinds(rr, &st)
		if nSeen == 0 || nMissing == 0 {
			continue
		}
		var seen, missing []analysis.Pair
		for i, m := range st.sent {
			pair := analysis.Pair{*c.keyVal(c.h.Msgs[m].Key), c.msgVal(m)}
			switch st.kinds[i] {
			case tornSeen:
				seen = append(seen, pair)
			case tornMissing:
				missing = append(missing, pair)
			}
		}
		reason := "lost"
		if r.typ == model.Fail {
			reason = "aborted"
		}
		c.res.Add(TornTransaction, &Instance{
			Op: analysis.IntPtr(c.compIdx(rr)), Seen: seen, Missing: missing, Reason: reason,
			Evidence: analysis.Evidence{Witness: c.witness(st.proofs...)},
		})
	}
}

// tornKinds classifies the values rec rr wrote (in st.sent and st.kinds,
// each once, with the proofs of those seen and missing in st.proofs) and
// returns how many were seen and how many are missing.
func (c *checker) tornKinds(rr int32, st *tornState) (nSeen, nMissing int) {
	r := &c.recs[rr]
	st.proofs = append(st.proofs[:0], rr)
	st.sent = st.sent[:0]
	st.kinds = st.kinds[:0]
	for _, m := range c.mops(rr) {
		if m.Kind != model.MopSend || st.met[m.Msg] == rr+1 || c.writer[m.Msg] != rr {
			continue
		}
		st.met[m.Msg] = rr + 1
		st.sent = append(st.sent, m.Msg)
		kind := tornNeither
		switch {
		case c.okReader[m.Msg] >= 0:
			kind = tornSeen
			st.proofs = append(st.proofs, c.okReader[m.Msg])
		case c.committed[rr] && c.lost[m.Msg] && !c.anyRead[m.Msg]:
			kind = tornMissing
			st.proofs = append(st.proofs, c.maxRead[m.Key])
		case r.typ == model.Fail && !c.anyRead[m.Msg] && c.last[m.Msg] < 0:
			kind = tornMissing
		}
		st.kinds = append(st.kinds, kind)
		switch kind {
		case tornSeen:
			nSeen++
		case tornMissing:
			nMissing++
		}
	}
	return nSeen, nMissing
}

// sentOffsets returns, for each message, the offset its writer's ok send
// of it acknowledged (the last such send in the writer's op), or
// model.NoOffset: one pass over the sends, where looking through the
// writer's micro-ops for each lost message would cost O(sends²) on one op
// sending many.
func (c *checker) sentOffsets() []int64 {
	off := make([]int64, len(c.h.Msgs))
	for i := range off {
		off[i] = model.NoOffset
	}
	for ri := range c.recs {
		for _, mo := range c.mops(int32(ri)) {
			if acknowledges(&mo) && c.writer[mo.Msg] == int32(ri) {
				off[mo.Msg] = c.h.Offset(&mo)
			}
		}
	}
	return off
}
