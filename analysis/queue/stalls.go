package queue

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// stall is a run of one process's polls of one key at which its position
// stood at pos and its lag stayed above zero: from the poll of rec fromRec
// (time since) to that of lastRec (time lastTime), polls polls in all,
// ackRec the send whose acknowledgement it lagged behind first.
type stall struct {
	pos              int64
	since, lastTime  int64
	fromRec, lastRec int32
	ackRec           int32
	polls            int
}

// closedStall is a stall closed at the poll at history position hp.
type closedStall struct {
	hp       int32
	proc     int32
	key      model.KeyID
	st       stall
	acked    int64 // the key's highest acknowledged offset then
	hasAcked bool
}

// stallAt moves the stall of entry e (of process proc, at position pos)
// on at its explicit sample at poll pr, of lag lag, aj being the index of
// its next acknowledged offset in a: it closes an open stall whose
// position moved or whose lag fell to zero (keeping it if reportable: the
// others would be dropped when reported), and opens or extends one while
// the lag is positive.
func (ls *lagState) stallAt(e *lagKey, pr *lagPollRec, proc int32, pos int64, a *ackLog, aj int, lag int64) {
	if e.inStall && (e.st.pos != pos || lag <= 0) {
		if ls.c.reportable(&e.st) {
			x := closedStall{hp: pr.hp, proc: proc, key: e.key, st: e.st}
			x.acked, x.hasAcked = a.highest()
			ls.closed = append(ls.closed, x)
		}
		e.inStall = false
	}
	if lag > 0 {
		if !e.inStall {
			e.inStall = true
			e.st = stall{pos: pos, since: pr.time, fromRec: pr.rec, ackRec: a.ops[aj]}
		}
		e.st.lastTime, e.st.lastRec = pr.time, pr.rec
		e.st.polls++
	}
}

// reportStalls reports stalled-consumer for the stalls lagAndStalls found:
// first those closed during the history, in the order a walk sampling every
// key at every poll would close them (by poll, then key), then those still
// open, by process id, then key.
func (c *checker) reportStalls(states []*lagState, acks keyAcks) {
	var closed []closedStall
	for _, ls := range states {
		closed = append(closed, ls.closed...)
	}
	slices.SortFunc(closed, func(a, b closedStall) int {
		return cmp.Or(cmp.Compare(a.hp, b.hp), cmp.Compare(a.key, b.key))
	})
	for i := range closed {
		x := &closed[i]
		c.reportStall(x.proc, x.key, &x.st, x.acked, x.hasAcked)
	}
	var open []*lagKey
	for _, p := range c.procsByID() {
		open = open[:0]
		for _, ls := range states {
			for j := range ls.procs[p].keys {
				if e := &ls.procs[p].keys[j]; e.inStall {
					open = append(open, e)
				}
			}
		}
		slices.SortFunc(open, func(a, b *lagKey) int { return cmp.Compare(a.key, b.key) })
		for _, e := range open {
			acked, hasAcked := acks.of(e.key).highest()
			c.reportStall(c.procIDs[p], e.key, &e.st, acked, hasAcked)
		}
	}
}

// reportable reports whether stall s is one reportStall reports: it
// spans two polls or more and lasted at least Options.StallThreshold (a
// threshold of 0 or less reports none). lagAndStalls keeps only these of
// the stalls it closes: a crash-heavy history closes one at nearly every
// poll of every key.
func (c *checker) reportable(s *stall) bool {
	threshold := c.opts.StallThreshold.Nanoseconds()
	return s.polls >= 2 && s.lastTime-s.since >= threshold && threshold > 0
}

// reportStall reports stall s of process proc on key k as stalled-consumer
// when it spans two polls or more and lasted at least
// Options.StallThreshold; acked is the key's highest acknowledged offset
// when the stall closed, if hasAcked.
func (c *checker) reportStall(proc int32, k model.KeyID, s *stall, acked int64, hasAcked bool) {
	if !c.reportable(s) {
		return
	}
	in := &Instance{
		Subject: analysis.Subject{Key: c.keyVal(k)}, Process: analysis.IntPtr(int64(proc)),
		From: analysis.IntPtr(c.compIdx(s.fromRec)), To: analysis.IntPtr(c.compIdx(s.lastRec)),
		DurationS: analysis.FloatPtr(float64(s.lastTime-s.since) / 1e9),
		Evidence:  analysis.Evidence{Witness: c.witness(s.fromRec, s.lastRec, s.ackRec)},
	}
	in.StuckOffset = analysis.IntPtr(s.pos) // -1: nothing read yet
	if hasAcked {
		in.AckedOffset = analysis.IntPtr(acked)
	}
	c.res.Add(StalledConsumer, in)
}

// procsByID returns the dense numbers of the history's processes
// (checker.procIDs) in the order of their process ids, the order in which
// open stalls are closed. Cost: O(p log p) for p processes.
func (c *checker) procsByID() []int32 {
	order := make([]int32, len(c.procIDs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(c.procIDs[a], c.procIDs[b]) })
	return order
}
