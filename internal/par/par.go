// Package par runs the independent pieces of an analysis pass on every
// core. The passes that use it collect what each piece finds and report
// it afterwards in a fixed order, so that their results never depend on
// the number of workers.
package par

import (
	"runtime"
	"sync/atomic"
)

// Each hands the items 0..n-1 out, one at a time, to up to workers
// goroutines (GOMAXPROCS when workers <= 0), and returns when all are
// done. Each goroutine first calls start, on itself, for the function it
// calls on each item it takes: the place for a worker's own scratch. One
// worker, or fewer than two items, runs on the calling goroutine.
func Each(n, workers int, start func() func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers <= 1 {
		if n > 0 {
			do := start()
			for i := range n {
				do(i)
			}
		}
		return
	}
	var next atomic.Int64
	var g Group
	for range workers {
		g.Go(func() {
			do := start()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				do(i)
			}
		})
	}
	g.Wait()
}

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
	Pieces(n, max(minRange, n/(8*workers)), func() func(i, lo, hi int) {
		return func(_, lo, hi int) { f(lo, hi) }
	})
}

// Pieces cuts [0, n) into pieces of size items (the last may be shorter),
// numbered from 0, and calls the function start returned, on the worker
// that takes it, with each piece's number and range, from up to GOMAXPROCS
// goroutines at once (start runs once per worker: the place for its
// scratch). The pieces do not depend on the number of workers, so a pass
// that keeps what each piece finds by its number and reports it in that
// order gives the same result on any number of cores.
func Pieces(n, size int, start func() func(i, lo, hi int)) {
	Each((n+size-1)/size, 0, func() func(int) {
		do := start()
		return func(i int) { do(i, i*size, min(n, (i+1)*size)) }
	})
}

// Stream computes f(i) for i in 0..n-1 on up to GOMAXPROCS goroutines and
// hands each result to use, in order of i, on the calling goroutine: the
// shape of an encoder whose pieces can be built at once but must be
// written one after the other. At most two results per worker are
// computed ahead of use, so memory stays bounded whatever n is; a value
// use is done with comes back to f as reuse, for its buffers. One worker,
// or fewer than two items, runs everything on the calling goroutine.
func Stream[T any](n int, f func(i int, reuse T) T, use func(i int, v T)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		var v T
		for i := range n {
			v = f(i, v)
			use(i, v)
		}
		return
	}
	// A worker takes a token (a value to reuse) before it takes an item,
	// and use gives the token back after the item's result: with window
	// tokens, item i starts only once item i-window is used, so slot
	// i%window is free when i's result is put in it.
	window := 2 * workers
	tokens := make(chan T, window)
	slots := make([]chan T, window)
	for s := range slots {
		slots[s] = make(chan T, 1)
		var zero T
		tokens <- zero
	}
	// A panic in f is caught per item, so that every slot is filled and
	// nothing waits for ever: the item's slot gets the zero value, the
	// items after it are skipped, use is not called again, and the panic
	// is raised again here once the workers are done (Group).
	var next atomic.Int64
	var g Group
	for range workers {
		g.Go(func() {
			for v := range tokens {
				i := int(next.Add(1)) - 1
				if i >= n {
					tokens <- v
					return
				}
				slots[i%window] <- guard(&g, func() T { return f(i, v) })
			}
		})
	}
	for i := range n {
		v := <-slots[i%window]
		if !g.Failed() {
			use(i, v)
		}
		tokens <- v
	}
	g.Wait()
}
