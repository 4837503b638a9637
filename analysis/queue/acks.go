package queue

import (
	"math/bits"
	"slices"

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
	tree  fenwick // counts acked
	count int32   // offsets acknowledged so far
	maxAt int     // index of the highest acknowledged offset
}

// newAckLog returns the ackLog of a key whose ok sends acknowledge offs
// (ascending, distinct), none acknowledged yet.
func newAckLog(offs []int64) ackLog {
	n := len(offs)
	return ackLog{offs: offs, times: make([]int64, n), ops: make([]int32, n), acked: make([]bool, n),
		tree: make(fenwick, n+1), maxAt: -1}
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
	a.tree.add(i, 1)
	a.maxAt = max(a.maxAt, i)
	return i, true
}

// next returns the index of the smallest acknowledged offset > pos, or -1.
func (a *ackLog) next(pos int64) int {
	if a.count == 0 || a.offs[a.maxAt] <= pos {
		return -1
	}
	return a.tree.kth(a.tree.prefix(firstAbove(a.offs, pos)) + 1)
}

// highest returns the highest acknowledged offset, and false when none is.
func (a *ackLog) highest() (int64, bool) {
	if a.count == 0 {
		return 0, false
	}
	return a.offs[a.maxAt], true
}

// firstAbove returns the index of the first of offs (ascending) above pos,
// or len(offs).
//
// Written out rather than slices.BinarySearchFunc: it runs at every poll of
// every held key, and the closure's indirect call per step was a tenth of
// a crash-heavy 1.39M-op check's CPU (profile).
func firstAbove(offs []int64, pos int64) int {
	lo, hi := 0, len(offs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if offs[m] <= pos {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// acknowledges reports whether m is a completed send with an offset: in an
// ok op, the offset the send acknowledged.
func acknowledges(m *model.Mop) bool {
	return m.Kind == model.MopSend && m.Done && m.Offset() != model.NoOffset
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
				if acknowledges(&m) {
					f(m.Key, m.Offset())
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

// fenwick is a Fenwick tree of counts over positions 0..len-2.
type fenwick []int32

// add adds d at position i.
func (f fenwick) add(i int, d int32) {
	for j := i + 1; j < len(f); j += j & -j {
		f[j] += d
	}
}

// prefix is the sum over positions below i.
func (f fenwick) prefix(i int) int32 {
	var s int32
	for j := i; j > 0; j -= j & -j {
		s += f[j]
	}
	return s
}

// kth returns the position at which the prefix sum first reaches k >= 1.
func (f fenwick) kth(k int32) int {
	at := 0
	for step := 1 << (bits.Len(uint(len(f)-1)) - 1); step > 0; step >>= 1 {
		if at+step < len(f) && f[at+step] < k {
			at += step
			k -= f[at]
		}
	}
	return at
}
