package queue

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFirstAbove compares firstAbove, and firstAboveNear from every hint
// in range and beside it, with a linear scan on distinct
// sorted offsets (as ackLog keeps them): dense runs, gaps, and runs at
// either extreme of int64 (where the bounds' differences would overflow
// an int64), at every offset, beside it, and at the extremes.
func TestFirstAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		offs := make([]int64, r.IntN(40))
		next := r.Int64N(30) - 5
		switch i % 4 {
		case 1:
			next = math.MinInt64 + r.Int64N(3)
		case 2:
			next = math.MaxInt64 - 100 + r.Int64N(3)
		}
		for j := range offs {
			offs[j] = next
			if r.IntN(4) == 0 && next < math.MaxInt64-10 { // a gap
				next += 1 + r.Int64N(5)
			}
			next++
		}
		if i%4 == 3 && len(offs) > 1 { // the extremes in one key
			offs[0], offs[len(offs)-1] = math.MinInt64, math.MaxInt64
		}
		positions := []int64{math.MinInt64, math.MaxInt64, -6, 0, 25}
		for _, o := range offs {
			positions = append(positions, o, o-1, o+1) // wrapping at the extremes is fine: more positions
		}
		for _, pos := range positions {
			want := len(offs)
			for j, o := range offs {
				if o > pos {
					want = j
					break
				}
			}
			if got := firstAbove(offs, pos); got != want {
				t.Fatalf("firstAbove(%v, %d) = %d, want %d", offs, pos, got, want)
			}
			// from every hint, in range or not
			for hint := -2; hint <= len(offs)+2; hint++ {
				if got := firstAboveNear(offs, pos, hint); got != want {
					t.Fatalf("firstAboveNear(%v, %d, %d) = %d, want %d", offs, pos, hint, got, want)
				}
			}
		}
	}
}
