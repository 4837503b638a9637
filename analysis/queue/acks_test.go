package queue

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFirstAbove compares firstAbove with a linear scan on sorted offsets
// with repeats, gaps and the extremes.
func TestFirstAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		offs := make([]int64, r.IntN(40))
		for i := range offs {
			offs[i] = r.Int64N(30) - 5
		}
		slices.Sort(offs)
		for _, pos := range []int64{math.MinInt64, -6, -5, 0, 3, 24, 25, math.MaxInt64} {
			want := len(offs)
			for i, o := range offs {
				if o > pos {
					want = i
					break
				}
			}
			if got := firstAbove(offs, pos); got != want {
				t.Fatalf("firstAbove(%v, %d) = %d, want %d", offs, pos, got, want)
			}
		}
	}
}

// TestMergeSorted merges random chunks, some empty, and checks the result
// is every element once, in order.
func TestMergeSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		chunks := make([][]int, r.IntN(8))
		var all []int
		for i := range chunks {
			chunks[i] = make([]int, r.IntN(20))
			for j := range chunks[i] {
				chunks[i][j] = r.IntN(50)
			}
			all = append(all, chunks[i]...)
		}
		slices.Sort(all)
		var got []int
		mergeSorted(chunks, func(a, b int) int { return a - b }, func(x int) { got = append(got, x) })
		if !slices.Equal(got, all) {
			t.Fatalf("merged %v, want %v", got, all)
		}
	}
}
