package txn

import (
	"sort"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds list-append's readers index: for each state a read can
// end in, the vertex txns whose external read of its key ended there. The
// write-read and read-write edges are drawn from it (edges).

// readers indexes, for each state, the vertex txns whose external read of
// the key ended in it (keys with duplicate appends left out): the state of
// each read is found on every core (readStates), then indexed on every
// core too.
func (la *listAppend) readers() {
	c := la.c
	st := la.readStates()
	la.byState.build(len(c.h.Msgs)+len(c.h.Keys), len(la.reads), func(lo, hi int, f func(st, r int32)) {
		for i := lo; i < hi; i++ {
			if st[i] >= 0 {
				f(st[i], la.reads[i].rec)
			}
		}
	})
}

// readStates returns, for each read of reads, the state it ended in when
// it is external and its key has no duplicate appends, else -1. Ranges of
// reads run on every core, each with marks from the pool. O(reads + the
// micro-ops of their txns).
func (la *listAppend) readStates() []int32 {
	c := la.c
	st := make([]int32, len(la.reads))
	par.EachRange(len(la.reads), 1<<14, func(lo, hi int) {
		// whole recs to a range: where a rec's reads start is counted
		// from its first micro-op
		lo, hi = la.recBoundary(lo), la.recBoundary(hi)
		first := la.marksPool.Get().(*marks)
		defer la.marksPool.Put(first)
		var mops []model.Mop
		var ext []bool
		last, extOf := int32(-1), int32(-1) // the rec of mops, and of ext
		j := 0                              // where the next read's micro-op is sought
		for i := lo; i < hi; i++ {
			rd := &la.reads[i]
			st[i] = -1
			if rd.rec != last {
				mops, last, j = c.mops(rd.rec), rd.rec, 0
			}
			m := la.nextRead(rd.rec, mops, j) // rd's micro-op
			j = m + 1
			if la.dupKey[rd.key] {
				continue
			}
			if extOf != rd.rec {
				ext, extOf = externalsWith(first, mops, ext), rd.rec
			}
			if ext[m] {
				st[i] = la.state(rd.key, la.list(rd))
			}
		}
	})
	return st
}

// recBoundary returns the first position at or after x in reads where a
// rec's reads begin (len(reads) when none does): reads are in history
// order, so the first whose rec differs from the one before x. A binary
// search, so that a txn of many reads costs each range O(log reads).
func (la *listAppend) recBoundary(x int) int {
	if x == 0 || x >= len(la.reads) {
		return x
	}
	prev := la.reads[x-1].rec
	return x + sort.Search(len(la.reads)-x, func(i int) bool { return la.reads[x+i].rec != prev })
}

// nextRead returns the position of the first micro-op of rec r at or after
// j that recordReads made a read of: mops are r's, and the reads of a rec
// are recorded in the order of its micro-ops.
func (la *listAppend) nextRead(r int32, mops []model.Mop, j int) int {
	for ; j < len(mops); j++ {
		if _, ok := la.elems(r, &mops[j]); ok {
			return j
		}
	}
	return j // not reached: every read of reads has its micro-op
}

func (la *listAppend) readersOf(st int32) []int32 { return la.byState.of(st) }

// built drops the readers index: only edges reads it.
func (la *listAppend) built() { la.byState = readerIndex{} }
