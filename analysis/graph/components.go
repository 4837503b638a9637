package graph

import (
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/internal/par"
)

// EachComponent calls f(s, i) once for each component comps[i] of g, from
// up to GOMAXPROCS goroutines at once, each with a Searcher of its own,
// and returns when all are done; the largest components are started
// first, so that one big component does not start last. f must touch
// only what belongs to component i (or synchronise): a caller collects
// per component and reports after, in component order, so that the
// result is the same for any number of workers. One component, or one
// worker, runs on the calling goroutine. Each further worker costs a
// Searcher's scratch: O(V) and what its components' searches need.
func EachComponent(g *Graph, comps [][]int32, f func(s *Searcher, i int)) {
	if len(comps) == 0 {
		return
	}
	order := make([]int, len(comps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(comps[b]) - len(comps[a]) })
	first := NewSearcher(g)
	var started atomic.Bool
	par.Each(len(order), 0, func() func(int) {
		s := first
		if started.Swap(true) {
			s = first.fork()
		}
		return func(k int) { f(s, order[k]) }
	})
}

// fork returns a Searcher on the same graph with scratch of its own, for
// another goroutine; the hubs found by NewSearcher are shared, read-only.
func (s *Searcher) fork() *Searcher {
	f := &Searcher{g: s.g, comp: make([]int32, len(s.comp)), hubsOf: s.hubsOf}
	if s.blocked != nil {
		f.blocked = map[int32][]int32{}
	}
	return f
}
