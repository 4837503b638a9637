package queue

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// ackLog is one key's acknowledged offsets with the time each was first
// acknowledged, ascending by offset.
type ackLog struct {
	offs  []int64
	times []int64
	ops   []int32 // rec of the acknowledging send
}

func (a *ackLog) add(off, t int64, r int32) {
	i, ok := slices.BinarySearch(a.offs, off)
	if ok {
		if t < a.times[i] {
			a.times[i], a.ops[i] = t, r
		}
		return
	}
	a.offs = slices.Insert(a.offs, i, off)
	a.times = slices.Insert(a.times, i, t)
	a.ops = slices.Insert(a.ops, i, r)
}

// next returns the index of the smallest acknowledged offset > pos, or -1.
func (a *ackLog) next(pos int64) int {
	i, ok := slices.BinarySearch(a.offs, pos)
	if ok {
		i++
	}
	if i >= len(a.offs) {
		return -1
	}
	return i
}

// lagProc is what the lag computation remembers of one process: its
// assignment, and per key (sorted by key) its position and its open stall.
type lagProc struct {
	assigned  []model.KeyID
	hasAssign bool
	keys      []lagKey
}

// lagKey is one key of a lagProc.
type lagKey struct {
	key     model.KeyID
	hasPos  bool
	pos     int64 // offset of the last read
	inStall bool
	st      stall
}

// find returns the index of k in lp.keys, or where to insert it.
func (lp *lagProc) find(k model.KeyID) (int, bool) {
	lo, hi := 0, len(lp.keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if lp.keys[m].key < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(lp.keys) && lp.keys[lo].key == k
}

// entry returns k's entry, adding it if need be.
func (lp *lagProc) entry(k model.KeyID) *lagKey {
	i, ok := lp.find(k)
	if !ok {
		lp.keys = slices.Insert(lp.keys, i, lagKey{key: k})
	}
	return &lp.keys[i]
}

type stall struct {
	pos              int64
	since, lastTime  int64
	fromRec, lastRec int32
	ackRec           int32
	polls            int
}

// seriesAndStalls computes the unseen-over-time and realtime-lag series
// (spec/queue.md §5), the worst lag, and stalled-consumer.
func (c *checker) seriesAndStalls() {
	if c.opts.Series {
		c.unseenSeries()
	}
	c.lagAndStalls()
}

// unseenSeries computes the unseen count per key after each ok op, as
// change points (spec/queue.md §5).
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
		op := c.op(r.comp)
		for _, k := range slices.Compact(touched) {
			c.res.Series.Unseen = append(c.res.Series.Unseen, analysis.UnseenPoint{
				Time: op.Time, OpIndex: op.Index, Key: k, Count: unseen[k]})
		}
	}

}

// lagAndStalls computes realtime lag at every ok poll (kept in the series
// only with Options.Series), the worst lag, and stalled-consumer. It walks
// the history by position, so acks count only before a poll's invocation.
func (c *checker) lagAndStalls() {
	nk := len(c.h.Keys)
	compRec := make([]int32, len(c.h.Ops))
	for i := range compRec {
		compRec[i] = -1
	}
	invRec := make([]int32, len(c.h.Ops))
	for i := range invRec {
		invRec[i] = -1
	}
	for ri, r := range c.recs {
		if r.comp != r.inv {
			compRec[r.comp] = int32(ri)
		}
		invRec[r.inv] = int32(ri)
	}
	acks := make([]ackLog, nk)
	procs := make([]lagProc, len(c.procIDs))
	worst := int64(-1)
	var keys []model.KeyID // keys sampled at one poll, reused
	threshold := c.opts.StallThreshold.Nanoseconds()
	closeStall := func(proc int32, k model.KeyID, s *stall) {
		if s.polls < 2 || s.lastTime-s.since < threshold || threshold <= 0 {
			return
		}
		in := analysis.Instance{
			Key: c.keyVal(k), Process: analysis.I(int64(proc)),
			From: analysis.I(c.compIdx(s.fromRec)), To: analysis.I(c.compIdx(s.lastRec)),
			DurationS: analysis.F(float64(s.lastTime-s.since) / 1e9),
			Witness:   c.witness(s.fromRec, s.lastRec, s.ackRec),
		}
		in.StuckOffset = analysis.I(s.pos) // -1: nothing read yet
		if a := &acks[k]; len(a.offs) > 0 {
			in.AckedOffset = analysis.I(a.offs[len(a.offs)-1])
		}
		c.res.Add(StalledConsumer, in)
	}
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		if !op.IsClient() {
			continue
		}
		if op.Type == model.Invoke {
			ri := invRec[i]
			if ri < 0 || c.recs[ri].typ != model.OK || op.Time == model.NoTime {
				continue
			}
			comp := c.op(c.recs[ri].comp)
			if comp.F != model.FPoll && comp.F != model.FTxn {
				continue
			}
			lp := &procs[c.recs[ri].proc]
			keys = keys[:0]
			hasPoll := false
			for _, m := range c.h.MopsOf(comp) {
				if m.Kind != model.MopPoll {
					continue
				}
				hasPoll = true
				for _, kp := range c.h.PollsOf(&m) {
					if !slices.Contains(keys, kp.Key) {
						keys = append(keys, kp.Key)
					}
					if rs := c.h.ReadsOf(&kp); len(rs) > 0 {
						e := lp.entry(kp.Key)
						e.pos, e.hasPos = rs[len(rs)-1].Offset(), true
					}
				}
			}
			if !hasPoll {
				continue
			}
			if lp.hasAssign {
				for _, k := range lp.assigned {
					if !slices.Contains(keys, k) {
						keys = append(keys, k)
					}
				}
			} else {
				for j := range lp.keys {
					if k := lp.keys[j].key; lp.keys[j].hasPos && !slices.Contains(keys, k) {
						keys = append(keys, k)
					}
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				pos := int64(-1)
				j, found := lp.find(k)
				var e *lagKey
				if found {
					e = &lp.keys[j]
					if e.hasPos {
						pos = e.pos
					}
				}
				lag := int64(0)
				a := &acks[k]
				aj := a.next(pos)
				if aj >= 0 {
					lag = op.Time - a.times[aj]
				}
				if c.opts.Series {
					c.res.Series.Lag = append(c.res.Series.Lag, analysis.LagPoint{
						Time: op.Time, OpIndex: comp.Index, Process: op.Process, Key: k, LagNS: lag, Offset: pos})
				}
				if lag > worst {
					worst = lag
					c.res.Stats.WorstLagS = float64(lag) / 1e9
					c.res.Stats.WorstLagProcess = analysis.I(int64(op.Process))
					c.res.Stats.WorstLagKey = c.keyVal(k)
					c.res.Stats.WorstLagOp = analysis.I(comp.Index)
				}
				if e != nil && e.inStall && (e.st.pos != pos || lag <= 0) {
					closeStall(op.Process, k, &e.st)
					e.inStall = false
				}
				if lag > 0 {
					if e == nil {
						e = lp.entry(k)
					}
					if !e.inStall {
						e.inStall = true
						e.st = stall{pos: pos, since: op.Time, fromRec: ri, ackRec: a.ops[aj]}
					}
					e.st.lastTime, e.st.lastRec = op.Time, ri
					e.st.polls++
				}
			}
			continue
		}
		ri := compRec[i]
		if ri < 0 {
			continue
		}
		switch op.F {
		case model.FAssign, model.FSubscribe:
			if op.Type == model.Fail {
				continue
			}
			lp := &procs[c.recs[ri].proc]
			lp.hasAssign = true
			lp.assigned = c.h.KeysOf(op)
			for j := range lp.keys {
				if e := &lp.keys[j]; e.hasPos && !slices.Contains(lp.assigned, e.key) {
					e.hasPos = false
				}
			}
		case model.FSend, model.FTxn:
			if op.Type != model.OK || op.Time == model.NoTime {
				continue
			}
			for _, m := range c.h.MopsOf(op) {
				if m.Kind == model.MopSend && m.Done && m.Offset != model.NoOffset {
					acks[m.Key].add(m.Offset, op.Time, ri)
				}
			}
		}
	}
	// close open stalls in a fixed order: by process id, then key
	order := make([]int32, len(procs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(c.procIDs[a], c.procIDs[b]) })
	for _, p := range order {
		lp := &procs[p]
		for j := range lp.keys {
			if e := &lp.keys[j]; e.inStall {
				closeStall(c.procIDs[p], e.key, &e.st)
			}
		}
	}
}
