package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPointsSorted sorts Points of up to four chunks, in random order
// with repeats, and checks that Sorted yields every point once, in order.
func TestPointsSorted(t *testing.T) {
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
		ps.Sorted(func(a, b int) int { return a - b }, func(x int) { got = append(got, x) })
		if !slices.Equal(got, all) {
			t.Fatalf("n=%d: Sorted is not the points in order", n)
		}
	}
}
