package queue

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// ackLog is one key's acknowledged offsets, each with the time it was
// first acknowledged and its send. It is laid over the key's offsets known
// in advance (every ok send's), with a Fenwick tree counting those
// acknowledged so far, so that acknowledging an offset (in order or not)
// and finding the first one acknowledged after a position both cost
// O(log n): inserting into a sorted list would cost O(n) an ack, O(n²) for
// a key whose offsets are acknowledged in decreasing order.
type ackLog struct {
	offs  []int64 // the offsets ok sends acknowledge, ascending, distinct
	times []int64 // per offset: when it was first acknowledged
	ops   []int32 // per offset: the rec of that send
	acked []bool
	tree  []int32 // Fenwick tree over acked (1-based)
	count int32   // offsets acknowledged so far
	maxAt int     // index of the highest acknowledged offset
}

func newAckLog(offs []int64) ackLog {
	n := len(offs)
	return ackLog{offs: offs, times: make([]int64, n), ops: make([]int32, n), acked: make([]bool, n),
		tree: make([]int32, n+1), maxAt: -1}
}

func (a *ackLog) add(off, t int64, r int32) {
	i, ok := slices.BinarySearch(a.offs, off)
	if !ok {
		return // cannot happen: every ok send's offset is listed
	}
	if a.acked[i] {
		if t < a.times[i] {
			a.times[i], a.ops[i] = t, r
		}
		return
	}
	a.acked[i], a.times[i], a.ops[i] = true, t, r
	a.count++
	for j := i + 1; j < len(a.tree); j += j & -j {
		a.tree[j]++
	}
	a.maxAt = max(a.maxAt, i)
}

// next returns the index of the smallest acknowledged offset > pos, or -1.
func (a *ackLog) next(pos int64) int {
	if a.count == 0 || a.offs[a.maxAt] <= pos {
		return -1
	}
	j, _ := slices.BinarySearchFunc(a.offs, pos, func(o, p int64) int {
		if o <= p {
			return -1
		}
		return 1
	}) // the first offset > pos
	var before int32 // acknowledged offsets below j
	for x := j; x > 0; x -= x & -x {
		before += a.tree[x]
	}
	// the (before+1)-th acknowledged offset: descend the tree
	k, at := before+1, 0
	for step := 1 << (bits.Len(uint(len(a.tree)-1)) - 1); step > 0; step >>= 1 {
		if at+step < len(a.tree) && a.tree[at+step] < k {
			at += step
			k -= a.tree[at]
		}
	}
	return at
}

// ackLogs makes each key's ackLog, over the offsets its ok sends
// acknowledge. O(sends log sends).
func (c *checker) ackLogs() []ackLog {
	nk := len(c.h.Keys)
	start := make([]int32, nk+1)
	each := func(f func(k model.KeyID, off int64)) {
		for i := range c.h.Ops {
			op := &c.h.Ops[i]
			if op.Type != model.OK || op.F != model.FSend && op.F != model.FTxn {
				continue
			}
			for _, m := range c.h.MopsOf(op) {
				if m.Kind == model.MopSend && m.Done && m.Offset != model.NoOffset {
					f(m.Key, m.Offset)
				}
			}
		}
	}
	each(func(k model.KeyID, _ int64) { start[k+1]++ })
	for k := range nk {
		start[k+1] += start[k]
	}
	all := make([]int64, start[nk])
	fill := slices.Clone(start[:nk])
	each(func(k model.KeyID, off int64) {
		all[fill[k]] = off
		fill[k]++
	})
	acks := make([]ackLog, nk)
	for k := range nk {
		offs := all[start[k]:start[k+1]:start[k+1]]
		slices.Sort(offs)
		acks[k] = newAckLog(slices.Compact(offs))
	}
	return acks
}

// lagProc is what the lag computation remembers of one process: its
// assignment, and per key its position and its open stall.
type lagProc struct {
	assigned  []model.KeyID
	hasAssign bool
	keys      []lagKey // in order of first use
	idx       []int32  // key -> 1 + its index in keys, for few keys (denseKeys)
	idxMap    map[model.KeyID]int32
}

// lagKey is one key of a lagProc.
type lagKey struct {
	key     model.KeyID
	hasPos  bool
	pos     int64 // offset of the last read
	inStall bool
	st      stall
}

// denseKeys is the most keys for which a lagProc indexes its keys by an
// array (4 bytes a key per process) rather than a map.
const denseKeys = 1024

// get returns k's entry, or nil; nk is the history's number of keys.
func (lp *lagProc) get(k model.KeyID, nk int) *lagKey {
	var i int32
	if nk <= denseKeys {
		if lp.idx == nil {
			return nil
		}
		i = lp.idx[k]
	} else {
		i = lp.idxMap[k]
	}
	if i == 0 {
		return nil
	}
	return &lp.keys[i-1]
}

// entry returns k's entry, adding it if need be.
func (lp *lagProc) entry(k model.KeyID, nk int) *lagKey {
	if e := lp.get(k, nk); e != nil {
		return e
	}
	lp.keys = append(lp.keys, lagKey{key: k})
	i := int32(len(lp.keys))
	if nk <= denseKeys {
		if lp.idx == nil {
			lp.idx = make([]int32, nk)
		}
		lp.idx[k] = i
	} else {
		if lp.idxMap == nil {
			lp.idxMap = map[model.KeyID]int32{}
		}
		lp.idxMap[k] = i
	}
	return &lp.keys[i-1]
}

type stall struct {
	pos              int64
	since, lastTime  int64
	fromRec, lastRec int32
	ackRec           int32
	polls            int
}

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
			c.res.Series.Unseen.Append(analysis.UnseenPoint{
				Time: op.Time, OpIndex: op.Index, Key: k, Count: unseen[k]})
		}
	}

}

// lagAndStalls computes realtime lag at every ok poll (kept in the series
// only with Options.Series), the worst lag, and stalled-consumer. It walks
// the history by position, so acks count only before a poll's invocation.
func (c *checker) lagAndStalls() {
	nk := len(c.h.Keys)
	ev := c.events()
	acks := c.ackLogs()
	procs := make([]lagProc, len(c.procIDs))
	worst := int64(-1)
	var worstProc int32
	var worstKey model.KeyID
	var worstOp int64
	var keys []model.KeyID // keys sampled at one poll, reused
	inKeys := make([]uint32, nk)
	stamp := uint32(0)
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
		if a := &acks[k]; a.count > 0 {
			in.AckedOffset = analysis.I(a.offs[a.maxAt])
		}
		c.res.Add(StalledConsumer, in)
	}
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		if !op.IsClient() {
			continue
		}
		if op.Type == model.Invoke {
			ri := ev[i]
			if ri < 0 || c.recs[ri].typ != model.OK || op.Time == model.NoTime {
				continue
			}
			comp := c.op(c.recs[ri].comp)
			if comp.F != model.FPoll && comp.F != model.FTxn {
				continue
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
				continue
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
				a := &acks[k]
				aj := a.next(pos)
				if aj >= 0 {
					lag = op.Time - a.times[aj]
				}
				if c.opts.Series {
					c.res.Series.Lag.Append(analysis.LagPoint{
						Time: op.Time, OpIndex: comp.Index, Process: op.Process, Key: k, LagNS: lag, Offset: pos})
				}
				if lag > worst {
					worst, worstProc, worstKey, worstOp = lag, op.Process, k, comp.Index
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
						e.st = stall{pos: pos, since: op.Time, fromRec: ri, ackRec: a.ops[aj]}
					}
					e.st.lastTime, e.st.lastRec = op.Time, ri
					e.st.polls++
				}
			}
			continue
		}
		ri := ev[i] // a completion: never an open invocation's rec
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
	if worst >= 0 {
		c.res.Stats.WorstLagS = float64(worst) / 1e9
		c.res.Stats.WorstLagProcess = analysis.I(int64(worstProc))
		c.res.Stats.WorstLagKey = c.keyVal(worstKey)
		c.res.Stats.WorstLagOp = analysis.I(worstOp)
	}
	// close open stalls in a fixed order: by process id, then key
	order := make([]int32, len(procs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(c.procIDs[a], c.procIDs[b]) })
	var open []*lagKey
	for _, p := range order {
		open = open[:0]
		for j := range procs[p].keys {
			if e := &procs[p].keys[j]; e.inStall {
				open = append(open, e)
			}
		}
		slices.SortFunc(open, func(a, b *lagKey) int { return cmp.Compare(a.key, b.key) })
		for _, e := range open {
			closeStall(c.procIDs[p], e.key, &e.st)
		}
	}
}
