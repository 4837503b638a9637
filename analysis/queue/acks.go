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
	// full is how many offsets from the first are all acknowledged: a
	// consumer's next offset usually lies among them, and then it is the
	// next acknowledged one, with no walk in the tree
	full int
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
	i := firstAbove(a.offs, off) - 1 // the last offset <= off
	if i < 0 || a.offs[i] != off {
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
	for a.full < len(a.acked) && a.acked[a.full] {
		a.full++
	}
	return i, true
}

// next returns the index of the smallest acknowledged offset > pos, or
// -1. above is firstAbove(a.offs, pos) when the caller has it, or -1.
func (a *ackLog) next(pos int64, above int) int {
	if a.count == 0 || a.offs[a.maxAt] <= pos {
		return -1
	}
	j := above
	if j < 0 {
		j = firstAbove(a.offs, pos)
	}
	if j < a.full {
		return j
	}
	return a.tree.kth(a.tree.prefix(j) + 1)
}

// highest returns the highest acknowledged offset, and false when none is.
func (a *ackLog) highest() (int64, bool) {
	if a.count == 0 {
		return 0, false
	}
	return a.offs[a.maxAt], true
}

// firstAbove returns the index of the first of offs (ascending, distinct)
// above pos, or len(offs).
//
// A key's offsets are distinct integers, so the i-th is at least offs[0]
// + i and at most offs[n-1] - (n-1-i): the answer lies between
// n - (offs[n-1] - pos) and pos - offs[0] + 1, a range as wide as the
// gaps between the offsets, and none wide where the offsets are dense
// (a broker assigns them one after the other). The binary search runs
// over that range only. It runs at every poll of every held key: written
// out rather than slices.BinarySearchFunc, whose closure's indirect call
// per step was a tenth of a crash-heavy 1.39M-op check's CPU (profile).
func firstAbove(offs []int64, pos int64) int {
	n := len(offs)
	if n == 0 || pos < offs[0] {
		return 0
	}
	if pos >= offs[n-1] {
		return n
	}
	// offs[0] <= pos < offs[n-1]: the differences fit in a uint64
	lo, hi := 0, n
	if d := uint64(pos) - uint64(offs[0]); d < uint64(n-1) {
		hi = int(d) + 1
	}
	if d := uint64(offs[n-1]) - uint64(pos); d < uint64(n) {
		lo = n - int(d)
	}
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

// firstAboveNear is firstAbove(offs, pos), searched from hint, the answer
// of an earlier search over the same offs: a consumer's position moves on
// by a few offsets between two samples of its key, so the answer is at
// or just after the hint. A window around the hint widens, by doubling
// steps, until it holds the answer, which firstAbove then finds in it:
// a few cache lines next to each other. firstAbove's binary search over
// all of a key's offsets missed the cache at nearly every probe: it was
// the largest single item of a crash-heavy 1.39M-op check's profile (6 %
// of its CPU), whose keys have about 90,000 offsets each. Any hint gives
// the same answer; a far one costs O(log n).
func firstAboveNear(offs []int64, pos int64, hint int) int {
	n := len(offs)
	if hint <= 0 || hint > n {
		return firstAbove(offs, pos)
	}
	lo, hi := hint, hint // the answer lies in [lo, hi] once both loops end
	for step := 1; lo > 0 && offs[lo-1] > pos; step *= 2 {
		lo = max(0, lo-step)
	}
	for step := 1; hi < n && offs[hi] <= pos; step *= 2 {
		hi = min(n, hi+step)
	}
	return lo + firstAbove(offs[lo:hi], pos)
}

// acknowledges reports whether m is a completed send with an offset: in an
// ok op, the offset the send acknowledged.
func acknowledges(m *model.Mop) bool {
	return m.Done && m.HasOffset()
}

// keyAcks holds the keys' ackLogs: one each for the keys that an ok send
// acknowledged an offset of, numbered densely from 1, while every other key
// shares logs[0], which is empty and never written (only ok sends' keys
// get an acknowledgement, add). A poll may list keys nobody sent to
// (garbage, or another test's topics): a log each for them, with a copy
// per lag part (lagparts.go) and a lagIndex per part, came to about 500
// bytes a key, half of the peak of a check of one poll of 500k such keys.
// The shared log is one of logs, not a log of its own beside them, so that
// finding a key's log takes no branch on the lag's hot path.
type keyAcks struct {
	at   []int32 // per key: the index of its log in logs, 0 for none
	logs []ackLog
}

// of returns key k's ackLog.
func (a *keyAcks) of(k model.KeyID) *ackLog { return &a.logs[a.at[k]] }

// ackLogs makes each key's ackLog, over the offsets its ok sends
// acknowledge. O(sends log sends).
func (c *checker) ackLogs() keyAcks {
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
					f(m.Key, c.h.Offset(&m))
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
	acks := keyAcks{at: make([]int32, nk), logs: []ackLog{newAckLog(nil)}}
	for k := range nk {
		offs := all[start[k]:start[k+1]:start[k+1]]
		if len(offs) == 0 {
			continue // logs[0]
		}
		slices.Sort(offs)
		acks.at[k] = int32(len(acks.logs))
		acks.logs = append(acks.logs, newAckLog(slices.Compact(offs)))
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
