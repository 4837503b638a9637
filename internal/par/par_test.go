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

// TestEachStartsPerWorker checks that every item is done once, by a
// function its own worker's start returned, and that start runs at most
// once per worker.
func TestEachStartsPerWorker(t *testing.T) {
	for _, workers := range []int{1, 3} {
		for _, n := range []int{0, 1, 2, 500} {
			var starts atomic.Int32
			seen := make([]atomic.Int32, n)
			Each(n, workers, func() func(int) {
				starts.Add(1)
				return func(i int) { seen[i].Add(1) }
			})
			if s := int(starts.Load()); s > workers || n > 0 && s == 0 {
				t.Errorf("workers=%d n=%d: start ran %d times", workers, n, s)
			}
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("workers=%d n=%d: item %d done %d times", workers, n, i, c)
				}
			}
		}
	}
}
