package queue

// The realtime lag as it was computed before lag.go, sampling every held
// key at every poll explicitly: O(polls × held keys). It is the reference
// TestLagReference compares lag.go with.

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// refLagProc is what the lag computation remembers of one process: its
// assignment, and per key its position and its open stall.
type refLagProc struct {
	assigned  []model.KeyID
	hasAssign bool
	keys      []refLagKey // in order of first use
	index     keyIndex    // key -> its index in keys
}

// refLagKey is one key of a refLagProc.
type refLagKey struct {
	key     model.KeyID
	hasPos  bool
	pos     int64 // offset of the last read
	inStall bool
	st      stall
}

// get returns k's entry, or nil; nk is the history's number of keys.
func (lp *refLagProc) get(k model.KeyID, nk int) *refLagKey {
	if i := lp.index.get(k, nk); i >= 0 {
		return &lp.keys[i]
	}
	return nil
}

// entry returns k's entry, adding it if need be.
func (lp *refLagProc) entry(k model.KeyID, nk int) *refLagKey {
	if e := lp.get(k, nk); e != nil {
		return e
	}
	lp.keys = append(lp.keys, refLagKey{key: k})
	i := int32(len(lp.keys) - 1)
	lp.index.set(k, nk, i)
	return &lp.keys[i]
}

// lagAndStalls computes realtime lag at every ok poll (kept in the series
// only with Options.Series), the worst lag, and stalled-consumer. It walks
// the history by position, so acks count only before a poll's invocation.
func (c *checker) refLagAndStalls() {
	nk := len(c.h.Keys)
	ev := c.events()
	acks := c.ackLogs()
	procs := make([]refLagProc, len(c.procIDs))
	worst := int64(-1)
	var worstProc int32
	var worstKey model.KeyID
	var worstOp int64
	var keys []model.KeyID // keys sampled at one poll, reused
	inKeys := make([]uint32, nk)
	stamp := uint32(0)
	closeStall := func(proc int32, k model.KeyID, s *stall) {
		acked, hasAcked := acks.of(k).highest()
		c.reportStall(proc, k, s, acked, hasAcked)
	}
	c.lagEvents(ev, func(hp int32, op *model.Op, ri int32) {
		opTime := c.h.Time(int(hp))
		if ri < 0 || c.recs[ri].typ != model.OK || opTime == model.NoTime {
			return
		}
		comp := c.op(c.recs[ri].comp)
		if comp.F != model.FPoll && comp.F != model.FTxn {
			return
		}
		lp := &procs[c.recs[ri].proc]
		keys = keys[:0]
		stamp++
		hasPoll := false
		mops := c.h.MopsOf(comp)
		for mi := range mops {
			if mops[mi].Kind != model.MopPoll {
				continue
			}
			hasPoll = true
			for _, kp := range c.h.PollsOf(&mops[mi]) {
				if inKeys[kp.Key] != stamp {
					inKeys[kp.Key] = stamp
					keys = append(keys, kp.Key)
				}
				if rs := c.h.ReadsOf(&kp); len(rs) > 0 {
					e := lp.entry(kp.Key, nk)
					e.pos, e.hasPos = rs[len(rs)-1].Offset(), true
				}
			}
		}
		if !hasPoll {
			return
		}
		if lp.hasAssign {
			for _, k := range lp.assigned {
				if inKeys[k] != stamp {
					inKeys[k] = stamp
					keys = append(keys, k)
				}
			}
		} else {
			for j := range lp.keys {
				if k := lp.keys[j].key; lp.keys[j].hasPos && inKeys[k] != stamp {
					inKeys[k] = stamp
					keys = append(keys, k)
				}
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			pos := int64(-1)
			e := lp.get(k, nk)
			if e != nil && e.hasPos {
				pos = e.pos
			}
			lag := int64(0)
			a := acks.of(k)
			aj := a.next(pos, -1)
			if aj >= 0 {
				lag = opTime - a.times[aj]
			}
			if c.opts.Series {
				c.res.Series.Lag.Append(analysis.LagPoint{
					Time: opTime, OpIndex: c.idx(c.recs[ri].comp), Process: op.Process, Key: k, LagNS: lag})
			}
			if lag > worst {
				worst, worstProc, worstKey, worstOp = lag, op.Process, k, c.idx(c.recs[ri].comp)
			}
			if e != nil && e.inStall && (e.st.pos != pos || lag <= 0) {
				closeStall(op.Process, k, &e.st)
				e.inStall = false
			}
			if lag > 0 {
				if e == nil {
					e = lp.entry(k, nk)
				}
				if !e.inStall {
					e.inStall = true
					e.st = stall{pos: pos, since: opTime, fromRec: ri, ackRec: a.ops[aj]}
				}
				e.st.lastTime, e.st.lastRec = opTime, ri
				e.st.polls++
			}
		}
	}, func(ri int32, op *model.Op) {
		lp := &procs[c.recs[ri].proc]
		lp.hasAssign = true
		lp.assigned = c.h.KeysOf(int(c.recs[ri].comp))
		for j := range lp.keys {
			if e := &lp.keys[j]; e.hasPos && !slices.Contains(lp.assigned, e.key) {
				e.hasPos = false
			}
		}
	}, func(ri int32, op *model.Op) {
		opTime := c.h.Time(int(c.recs[ri].comp))
		if op.Type != model.OK || opTime == model.NoTime {
			return
		}
		for _, m := range c.h.MopsOf(op) {
			if m.Done && m.HasOffset() {
				acks.of(m.Key).add(c.h.Offset(&m), opTime, ri) //nolint
			}
		}
	})
	if worst >= 0 {
		analysis.OwnStats[Stats](c.res).WorstLagS = float64(worst) / 1e9
		analysis.OwnStats[Stats](c.res).WorstLagProcess = analysis.IntPtr(int64(worstProc))
		analysis.OwnStats[Stats](c.res).WorstLagKey = c.keyVal(worstKey)
		analysis.OwnStats[Stats](c.res).WorstLagOp = analysis.IntPtr(worstOp)
	}
	// close open stalls in a fixed order: by process id, then key
	var open []*refLagKey
	for _, p := range c.procsByID() {
		open = open[:0]
		for j := range procs[p].keys {
			if e := &procs[p].keys[j]; e.inStall {
				open = append(open, e)
			}
		}
		slices.SortFunc(open, func(a, b *refLagKey) int { return cmp.Compare(a.key, b.key) })
		for _, e := range open {
			closeStall(c.procIDs[p], e.key, &e.st)
		}
	}
}
