package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRows: each row holds its items in the order given, whatever the
// order of the rows in the pairs, and empty rows are empty.
func TestRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + rng.IntN(8)
		pairs := make([][2]int32, rng.IntN(30))
		for i := range pairs {
			pairs[i] = [2]int32{int32(rng.IntN(n)), int32(rng.IntN(100))}
		}
		start, items := Rows(n, func(f func(row, item int32)) {
			for _, p := range pairs {
				f(p[0], p[1])
			}
		})
		if len(start) != n+1 || int(start[n]) != len(pairs) || len(items) != len(pairs) {
			t.Fatalf("trial %d: start %v, %d items, want %d rows of %d pairs", trial, start, len(items), n, len(pairs))
		}
		for r := range n {
			var want []int32
			for _, p := range pairs {
				if p[0] == int32(r) {
					want = append(want, p[1])
				}
			}
			if got := items[start[r]:start[r+1]]; !slices.Equal(got, want) {
				t.Fatalf("trial %d: row %d is %v, want %v", trial, r, got, want)
			}
		}
	}
}
