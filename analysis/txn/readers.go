package txn

import (
	"iter"
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/par"
)

// readerIndex holds, for each state of a key (list-append: the element a
// read ended in; rw-register: the value read; then, for each key k, its
// initial state at len(Msgs)+k), the vertex recs whose external read of the
// key saw it, in history order, each once: CSR, O(states + reads).
type readerIndex struct {
	start []int32
	recs  []int32
}

// build fills the index over n states from the caller's items 0..items-1
// (reads, or vertices): each(lo, hi, f) calls f for every external read of
// items lo..hi-1, with the state it saw and its rec, and must be
// deterministic. build calls it for ranges of items on every core, twice
// (count, then fill, each read's place taken atomically), then sorts each
// row by rec (history order) and keeps a rec that read a state more than
// once once (graph.CompactRows). The index does not depend on the
// ranges. O(states + reads log reads) at worst; rows are short.
func (ix *readerIndex) build(n, items int, each func(lo, hi int, f func(st, r int32))) {
	ix.start = make([]int32, n+1)
	par.EachRange(items, 1<<12, func(lo, hi int) {
		each(lo, hi, func(st, _ int32) { atomic.AddInt32(&ix.start[st+1], 1) })
	})
	for i := 1; i <= n; i++ {
		ix.start[i] += ix.start[i-1]
	}
	recs := make([]int32, ix.start[n])
	// each row's start is its fill cursor too (no second array of a
	// counter a state, 110 MB at 22M list-append txns), put back once the
	// rows are full (graph.CursorsToStarts)
	par.EachRange(items, 1<<12, func(lo, hi int) {
		each(lo, hi, func(st, r int32) { recs[atomic.AddInt32(&ix.start[st], 1)-1] = r })
	})
	graph.CursorsToStarts(ix.start)
	w := graph.CompactRows(ix.start, nil, func() func(v int, a, b, w int32) int32 {
		return func(_ int, a, b, w int32) int32 {
			if row := recs[a:b]; !slices.IsSorted(row) {
				slices.Sort(row)
			}
			first := w
			for i := a; i < b; i++ {
				if w > first && recs[w-1] == recs[i] {
					continue // the same txn read the state twice
				}
				recs[w] = recs[i]
				w++
			}
			return w
		}
	}, func(dst, src, k int32) { copy(recs[dst:dst+k], recs[src:src+k]) })
	ix.recs = recs[:w]
}

// of returns the readers of state st.
func (ix *readerIndex) of(st int32) []int32 { return ix.recs[ix.start[st]:ix.start[st+1]] }

// vertexRecs yields each vertex rec (ok and info txns) with its vertex, in
// history order.
func (c *checker) vertexRecs() iter.Seq2[int32, int32] {
	return func(yield func(r, v int32) bool) {
		for r := range c.recs {
			if v := c.recs[r].vertex; v >= 0 && !yield(int32(r), v) {
				return
			}
		}
	}
}
