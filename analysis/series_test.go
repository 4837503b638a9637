package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPointsDrain drains Points of up to four chunks, in random order
// with repeats, and checks that Drain yields every point once, in order,
// and leaves the Points empty.
func TestPointsDrain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 100, pointsChunk, pointsChunk + 1, 3*pointsChunk + 17} {
		var ps Points[int]
		all := make([]int, n)
		for i := range all {
			all[i] = r.IntN(n/2 + 1)
			ps.Append(all[i])
		}
		slices.Sort(all)
		got := make([]int, 0, n)
		ps.Drain(func(a, b int) int { return a - b }, func(x int) { got = append(got, x) })
		if !slices.Equal(got, all) {
			t.Fatalf("n=%d: Drain is not the points in order", n)
		}
		if ps.Len() != 0 || len(ps.chunks) != 0 {
			t.Fatalf("n=%d: Drain left %d points in %d chunks", n, ps.Len(), len(ps.chunks))
		}
	}
}
