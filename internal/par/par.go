// Package par runs the independent pieces of an analysis pass on every
// core. The passes that use it collect what each piece finds and report
// it afterwards in a fixed order, so that their results never depend on
// the number of workers.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// EachRange calls f on ranges [lo, hi) that together cover [0, n) once,
// from up to GOMAXPROCS goroutines at once, and returns when all are done.
// The ranges are handed out in small pieces (several per worker, at least
// minRange items each), so a range of costly items does not leave the
// other workers idle. f must touch only what belongs to its own range (or
// synchronise). Fewer than 2·minRange items, or one worker, runs f(0, n)
// on the calling goroutine.
func EachRange(n, minRange int, f func(lo, hi int)) {
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
