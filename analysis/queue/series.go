package queue

import (
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

// add returns the offset's index, and whether the acknowledgement changed
// anything (a new offset, or an earlier time for one).
func (a *ackLog) add(off, t int64, r int32) (int, bool) {
	i, ok := slices.BinarySearch(a.offs, off)
	if !ok {
		return -1, false // cannot happen: every ok send's offset is listed
	}
	if a.acked[i] {
		if t < a.times[i] {
			a.times[i], a.ops[i] = t, r
			return i, true
		}
		return i, false
	}
	a.acked[i], a.times[i], a.ops[i] = true, t, r
	a.count++
	for j := i + 1; j < len(a.tree); j += j & -j {
		a.tree[j]++
	}
	a.maxAt = max(a.maxAt, i)
	return i, true
}

// acknowledgedBelow is the number of acknowledged offsets with index below j.
func (a *ackLog) acknowledgedBelow(j int) int32 {
	var before int32
	for x := j; x > 0; x -= x & -x {
		before += a.tree[x]
	}
	return before
}

// kth returns the index of the k-th acknowledged offset, 1 <= k <= count.
func (a *ackLog) kth(k int32) int {
	at := 0
	for step := 1 << (bits.Len(uint(len(a.tree)-1)) - 1); step > 0; step >>= 1 {
		if at+step < len(a.tree) && a.tree[at+step] < k {
			at += step
			k -= a.tree[at]
		}
	}
	return at
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
	return a.kth(a.acknowledgedBelow(j) + 1)
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
// (docs/queue.md#unseen), the worst lag, and stalled-consumer.
func (c *checker) seriesAndStalls() {
	if c.opts.Series {
		c.unseenSeries()
	}
	c.lagAndStalls()
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
		op := c.op(r.comp)
		for _, k := range slices.Compact(touched) {
			c.res.Series.Unseen.Append(analysis.UnseenPoint{
				Time: op.Time, OpIndex: op.Index, Key: k, Count: unseen[k]})
		}
	}

}
