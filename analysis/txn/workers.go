package txn

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// minRange is the fewest items eachRange gives a worker: below it, the
// cost of starting one outweighs the work.
const minRange = 64

// eachRange calls f on ranges [lo, hi) that together cover [0, n) once,
// from up to GOMAXPROCS goroutines at once, and returns when all are done.
// The ranges are handed out in small pieces (several per worker), so a
// range of costly items does not leave the other workers idle. f must
// touch only the entries of its own range (or synchronise): what a caller
// reports from the work it collects per item and reports after, in item
// order, so the result is the same for any number of workers. Small n, or
// one worker, runs f(0, n) on the calling goroutine.
func eachRange(n int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers <= 1 || n < 2*minRange {
		f(0, n)
		return
	}
	piece := max(minRange, n/(8*workers))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(piece))) - piece
				if lo >= n {
					return
				}
				f(lo, min(n, lo+piece))
			}
		}()
	}
	wg.Wait()
}
