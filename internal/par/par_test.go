package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestEachRangeCoversOnce checks that every item is visited exactly once,
// with one worker and with several, for sizes around the split threshold.
func TestEachRangeCoversOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 127, 128, 129, 1000, 100_003} {
			seen := make([]atomic.Int32, n)
			EachRange(n, 64, func(lo, hi int) {
				if lo < 0 || hi > n || lo >= hi && n > 0 {
					t.Errorf("n=%d: bad range [%d, %d)", n, lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("GOMAXPROCS=%d n=%d: item %d visited %d times", procs, n, i, c)
				}
			}
		}
	}
}
