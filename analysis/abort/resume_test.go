package abort

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSearch compares search with slices.BinarySearch on sorted slices
// without repeats, dense, sparse and mixed, for values in and around
// them, from starting points near the answer and anywhere (out of range
// included).
func TestSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := rng.IntN(40)
		xs := make([]int64, 0, n)
		v := int64(rng.IntN(10)) - 5
		for range n {
			xs = append(xs, v)
			switch trial % 3 {
			case 0:
				v++
			case 1:
				v += 1 + int64(rng.IntN(3))
			default:
				v += 1 + int64(rng.IntN(1000))*int64(rng.IntN(2))
			}
		}
		// every value, its neighbours, and values in the gaps and beyond
		xsToTry := []int64{v, v + 1, v + 50}
		for _, x := range xs {
			xsToTry = append(xsToTry, x-2, x-1, x, x+1, x+2, x-int64(rng.IntN(2000)))
		}
		for _, x := range xsToTry {
			wi, wok := slices.BinarySearch(xs, x)
			at := rng.IntN(n+3) - 1
			if rng.IntN(2) == 0 {
				at = wi + rng.IntN(5) - 2
			}
			from := at
			if gi, gok := search(xs, x, &at); gi != wi || gok != wok || at != wi {
				t.Fatalf("search(%v, %d, from %d) = %d, %v, at %d; want %d, %v", xs, x, from, gi, gok, at, wi, wok)
			}
		}
	}
}
