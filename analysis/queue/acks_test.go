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
