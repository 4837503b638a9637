package txn

import (
	"iter"
	"slices"
)

// readerIndex holds, for each state of a key (list-append: the element a
// read ended in; rw-register: the value read; then, for each key k, its
// initial state at len(Msgs)+k), the vertex recs whose external read of the
// key saw it, in history order, each once: CSR, O(states + reads).
type readerIndex struct {
	start []int32
	recs  []int32
}

// build fills the index over n states. each calls f for every external
// read, with the state it saw and its rec, recs in history order, and must
// be deterministic: build calls it twice (count, then fill). A rec that
// read a state more than once is kept once.
func (ix *readerIndex) build(n int, each func(f func(st, r int32))) {
	ix.start = make([]int32, n+1)
	each(func(st, _ int32) { ix.start[st+1]++ })
	for i := 1; i <= n; i++ {
		ix.start[i] += ix.start[i-1]
	}
	ix.recs = make([]int32, ix.start[n])
	fill := slices.Clone(ix.start[:n])
	each(func(st, r int32) {
		// the same txn may read a state twice; keep it once
		if fill[st] > ix.start[st] && ix.recs[fill[st]-1] == r {
			return
		}
		ix.recs[fill[st]] = r
		fill[st]++
	})
	// compact rows shortened by repeats
	w := int32(0)
	for st := 0; st < n; st++ {
		a, b := ix.start[st], fill[st]
		ix.start[st] = w
		w += int32(copy(ix.recs[w:], ix.recs[a:b]))
	}
	ix.start[n] = w
	ix.recs = ix.recs[:w]
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
