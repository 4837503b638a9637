package par

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
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
			onceEach(t, fmt.Sprintf("GOMAXPROCS=%d n=%d", procs, n), seen)
		}
	}
}

// TestPiecesCoverInOrder checks that Pieces numbers its pieces in order,
// each of the given size but the last, covering every item once, with one
// worker and with several.
func TestPiecesCoverInOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 99, 100, 101, 1000} {
			seen := make([]atomic.Int32, n)
			Pieces(n, 100, func() func(i, lo, hi int) {
				return func(i, lo, hi int) {
					if lo != i*100 || hi != min(n, lo+100) {
						t.Errorf("n=%d: piece %d is [%d, %d)", n, i, lo, hi)
					}
					for j := lo; j < hi; j++ {
						seen[j].Add(1)
					}
				}
			})
			onceEach(t, fmt.Sprintf("GOMAXPROCS=%d n=%d", procs, n), seen)
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
			onceEach(t, fmt.Sprintf("workers=%d n=%d", workers, n), seen)
		}
	}
}

// onceEach fails the test unless every item of seen was counted exactly
// once; run says which run counted them.
func onceEach(t *testing.T, run string, seen []atomic.Int32) {
	t.Helper()
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			t.Fatalf("%s: item %d done %d times", run, i, c)
		}
	}
}

// TestSortFuncMatchesSlices checks that SortFunc sorts like slices.SortFunc
// for one core and several, on lengths around the serial threshold, on
// random, sorted, reversed and few-valued input.
func TestSortFuncMatchesSlices(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	type pair struct{ k, v int }
	cmpPair := func(a, b pair) int { return cmp.Or(cmp.Compare(a.k, b.k), cmp.Compare(a.v, b.v)) }
	rng := rand.New(rand.NewPCG(1, 2))
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, sortSerialBelow - 1, sortSerialBelow, 2*sortSerialBelow + 1, 5*sortSerialBelow + 7} {
			for shape := range 4 {
				s := make([]pair, n)
				for i := range s {
					switch shape {
					case 0:
						s[i] = pair{rng.IntN(n + 1), rng.IntN(3)}
					case 1:
						s[i] = pair{i, 0}
					case 2:
						s[i] = pair{n - i, 0}
					case 3:
						s[i] = pair{rng.IntN(4), i % 7}
					}
				}
				want := slices.Clone(s)
				slices.SortFunc(want, cmpPair)
				SortFunc(s, cmpPair)
				if !slices.Equal(s, want) {
					t.Fatalf("GOMAXPROCS=%d n=%d shape %d: not sorted like slices.SortFunc", procs, n, shape)
				}
			}
		}
	}
}

// BenchmarkSortFunc sorts 1M 24-byte records (the size of rw-register's
// version edges) with SortFunc and with slices.SortFunc.
func BenchmarkSortFunc(b *testing.B) {
	type rec struct{ k, a, _ uint64 } // 24 bytes
	cmpRec := func(x, y rec) int { return cmp.Or(cmp.Compare(x.k, y.k), cmp.Compare(x.a, y.a)) }
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]rec, 1<<20)
	for i := range src {
		src[i] = rec{k: rng.Uint64(), a: uint64(i)}
	}
	s := make([]rec, len(src))
	for _, bc := range []struct {
		name string
		sort func([]rec, func(x, y rec) int)
	}{{"par", SortFunc[[]rec]}, {"slices", slices.SortFunc[[]rec]}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				copy(s, src)
				bc.sort(s, cmpRec)
			}
		})
	}
}

// TestStreamInOrderAndBounded checks that Stream hands every result to
// use once, in order, with the value f computed for that item, that the
// values come back for reuse, and that no more than two items per worker
// are computed ahead of use.
func TestStreamInOrderAndBounded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 7, 1000} {
			var started, used atomic.Int64
			var reused atomic.Int64
			next := 0
			Stream(n, func(i int, reuse []int) []int {
				if ahead := started.Add(1) - used.Load(); ahead > int64(2*procs) {
					t.Errorf("GOMAXPROCS=%d n=%d: %d items computed ahead of use", procs, n, ahead)
				}
				if cap(reuse) > 0 {
					reused.Add(1)
				}
				return append(reuse[:0], i, i*i)
			}, func(i int, v []int) {
				if i != next || len(v) != 2 || v[0] != i || v[1] != i*i {
					t.Fatalf("GOMAXPROCS=%d n=%d: use(%d, %v) after item %d", procs, n, i, v, next-1)
				}
				next++
				used.Add(1)
			})
			if next != n {
				t.Errorf("GOMAXPROCS=%d n=%d: use saw %d items", procs, n, next)
			}
			if n > 4*procs && reused.Load() == 0 {
				t.Errorf("GOMAXPROCS=%d n=%d: no value came back for reuse", procs, n)
			}
		}
	}
}

// caught runs f and returns what it panicked with, nil if nothing.
func caught(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// TestPanicsReachTheCaller checks that a panic on a worker goroutine of
// Group, Each, Pieces, Stream and SortFunc is raised again on the calling
// goroutine (as a *Panic holding the value, or, for a panic on the calling
// goroutine itself, as it was) instead of ending the process;
// and that Stream, whose consumer waits for every item in turn, neither
// hangs nor hands use anything after the panic.
func TestPanicsReachTheCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	check := func(name string, p any) {
		t.Helper()
		pp, ok := p.(*Panic)
		if !ok || pp.Value != "boom" || len(pp.Stack) == 0 {
			t.Errorf("%s: recovered %v, want a *Panic of \"boom\" with its stack", name, p)
		}
	}
	check("Group", caught(func() {
		var g Group
		g.Go(func() {})
		g.Go(func() { panic("boom") })
		g.Wait()
	}))
	check("Each", caught(func() {
		Each(100, 4, func() func(int) {
			return func(i int) {
				if i == 37 {
					panic("boom")
				}
			}
		})
	}))
	check("Pieces", caught(func() {
		Pieces(1000, 10, func() func(i, lo, hi int) {
			return func(i, _, _ int) {
				if i == 50 {
					panic("boom")
				}
			}
		})
	}))
	for _, at := range []int{0, 1, 500, 999} {
		used := 0
		check(fmt.Sprintf("Stream, panic at item %d", at), caught(func() {
			Stream(1000, func(i int, _ int) int {
				if i == at {
					panic("boom")
				}
				return i
			}, func(i, v int) {
				if v != i {
					t.Errorf("Stream: use(%d, %d) after a panic", i, v)
				}
				used++
			})
		}))
		if used > at {
			t.Errorf("Stream, panic at item %d: use saw %d items", at, used)
		}
	}
	big := make([]int, 1<<17)
	for i := range big {
		big[i] = len(big) - i
	}
	// SortFunc sorts one half on the calling goroutine: the panic may
	// come from either
	p := caught(func() {
		SortFunc(big, func(a, b int) int {
			if a == 12345 {
				panic("boom")
			}
			return cmp.Compare(a, b)
		})
	})
	if p != "boom" {
		check("SortFunc", p)
	}
}

// TestScratches checks that every worker's scratch is kept once: the
// items each worker counted in its own add up to all of them, and there
// are no more scratches than workers.
func TestScratches(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		var own Scratches[*int]
		const n = 10_000
		Each(n, 0, func() func(int) {
			c := own.New(new(int))
			return func(int) { *c++ }
		})
		sum := 0
		for _, c := range own.All() {
			sum += *c
		}
		if sum != n || len(own.All()) == 0 || len(own.All()) > procs {
			t.Errorf("GOMAXPROCS=%d: %d items counted in %d scratches, want %d in 1 to %d", procs, sum, len(own.All()), n, procs)
		}
	}
}
