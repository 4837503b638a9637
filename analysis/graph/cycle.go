package graph

import (
	"slices"
	"time"
)

// SCC returns the strongly connected components of g that have at least two
// vertices (a graph without self-loops has a cycle only inside those), each
// sorted ascending, the components ordered by their smallest vertex.
//
// It is Tarjan's algorithm with an explicit stack instead of recursion, so a
// component of a million vertices costs heap, not goroutine stack.
// Cost: O(V + E) time, O(V) memory.
func (g *Graph) SCC() [][]int32 {
	n := g.N()
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = unvisited
	}
	var stack []int32 // Tarjan's stack of vertices
	type frame struct {
		v    int32
		next int32 // next edge position to look at
	}
	var call []frame
	var comps [][]int32
	next := int32(0)
	for root := int32(0); root < int32(n); root++ {
		if index[root] != unvisited {
			continue
		}
		call = append(call, frame{root, g.start[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.next < g.start[v+1] {
				w := g.to[f.next]
				f.next++
				if index[w] == unvisited {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, g.start[w]})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			// v is finished.
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				if low[v] < low[u] {
					low[u] = low[v]
				}
			}
			if low[v] == index[v] {
				i := len(stack) - 1
				for stack[i] != v {
					i--
				}
				members := stack[i:]
				for _, w := range members {
					onStack[w] = false
				}
				if len(members) > 1 {
					comp := slices.Clone(members)
					slices.Sort(comp)
					comps = append(comps, comp)
				}
				stack = stack[:i]
			}
		}
	}
	slices.SortFunc(comps, func(a, b []int32) int { return int(a[0] - b[0]) })
	return comps
}

// CycleQuery describes the cycles wanted: every edge must carry at least one
// relation of Allowed, and for each relation in Required some edge of the
// cycle must carry it.
type CycleQuery struct {
	Allowed  Rel
	Required []Rel
}

// Searcher finds typed shortest cycles inside components of one graph. It
// keeps its scratch arrays between searches; it is not safe for concurrent
// use.
type Searcher struct {
	g      *Graph
	comp   []int32 // vertex -> component number + 1 (0: none)
	stamp  []uint32
	parent []int32
	via    []Rel // ShortestTyped: the relation taken into each state
	gen    uint32
	queue  []int32
	// Steps counts BFS edge expansions over the Searcher's life.
	Steps int64
}

// NewSearcher prepares a cycle search on g.
func NewSearcher(g *Graph) *Searcher {
	return &Searcher{g: g, comp: make([]int32, g.N())}
}

// Cycle is a cycle of vertices v0 → v1 → … → v0 (the first vertex is not
// repeated at the end), with the relations each edge vi → vi+1 was taken
// for (restricted to the query's Allowed set).
type Cycle struct {
	Vertices []int32
	Rels     []Rel
}

// ShortestCycle returns a shortest cycle within comp (a strongly connected
// component from SCC) that satisfies q, trying every vertex of comp as a
// start by breadth-first search over (vertex, required-relations-seen)
// states. The search stops at the deadline (zero: none); exhausted then says
// that the answer, if any, may not be the shortest, and that no answer does
// not mean there is none. Cycles are rotated to start at their smallest
// vertex.
//
// With one required relation the result is always a simple cycle and the
// shortest one. With two or more, the search keeps only simple cycles and
// returns the shortest one its BFS trees reach, which may not be the shortest
// that exists.
//
// Cost: O(|comp| · (|comp| + E_comp) · 2^len(Required)) time in the worst
// case, pruned by the best length found so far; O(|comp| · 2^len(Required))
// scratch memory.
func (s *Searcher) ShortestCycle(comp []int32, q CycleQuery, deadline time.Time) (best Cycle, found, exhausted bool) {
	g := s.g
	nreq := len(q.Required)
	full := uint32(1)<<nreq - 1
	nstates := len(comp) << nreq
	if cap(s.stamp) < nstates {
		s.stamp = make([]uint32, nstates)
		s.parent = make([]int32, nstates)
		s.gen = 0
	}
	s.stamp, s.parent = s.stamp[:nstates], s.parent[:nstates]
	// local index of each vertex of comp
	local := func(v int32) int32 { return s.comp[v] - 1 }
	for i, v := range comp {
		s.comp[v] = int32(i) + 1
	}
	defer func() {
		for _, v := range comp {
			s.comp[v] = 0
		}
	}()
	flagsOf := func(r Rel) uint32 {
		var f uint32
		for i, x := range q.Required {
			if r&x != 0 {
				f |= 1 << i
			}
		}
		return f
	}
	bestLen := len(comp) + 1
	checkEvery := int64(0)
	for si, start := range comp {
		if bestLen == 2 {
			break // no cycle is shorter than two edges
		}
		s.gen++
		if s.gen == 0 { // wrapped: clear stamps
			clear(s.stamp)
			s.gen = 1
		}
		st0 := int32(si) << nreq
		s.stamp[st0] = s.gen
		s.parent[st0] = -1
		s.queue = append(s.queue[:0], st0)
		depth, levelEnd := 0, 1
		foundHere := int32(-1)
		for qi := 0; qi < len(s.queue) && foundHere < 0; qi++ {
			if qi == levelEnd {
				depth++
				levelEnd = len(s.queue)
			}
			if depth+1 >= bestLen {
				break
			}
			st := s.queue[qi]
			v := comp[st>>nreq]
			flags := uint32(st) & full
			to, rel := g.Out(v)
			for i, w := range to {
				r := rel[i] & q.Allowed
				if r == 0 || s.comp[w] == 0 {
					continue
				}
				s.Steps++
				checkEvery++
				nf := flags | flagsOf(r)
				if w == start {
					// Close the cycle if it has every required relation
					// and is simple: with two or more required relations
					// the BFS can reach start by a walk that passes a
					// vertex twice, which is two cycles, not one.
					if nf == full && s.simple(st, int32(1)<<nreq) {
						foundHere = st
						break
					}
					continue
				}
				ns := local(w)<<nreq | int32(nf)
				if s.stamp[ns] == s.gen {
					continue
				}
				s.stamp[ns] = s.gen
				s.parent[ns] = st
				s.queue = append(s.queue, ns)
			}
			if checkEvery >= 4096 {
				checkEvery = 0
				if past(deadline) {
					exhausted = true
					break
				}
			}
		}
		if foundHere >= 0 {
			if path := s.path(foundHere); len(path) < bestLen {
				bestLen = len(path)
				best = Cycle{Vertices: make([]int32, len(path))}
				for i, st := range path {
					best.Vertices[i] = comp[st>>nreq]
				}
				found = true
			}
		}
		if exhausted {
			break
		}
		// With at most one required relation every cycle through start has
		// been weighed: later searches need not pass through it, and the
		// shortest cycle is still found, from the first of its vertices in
		// comp's order. (With two, the search keeps only simple cycles and
		// may need start again to find one.)
		if nreq <= 1 {
			s.comp[start] = 0
		}
	}
	if !found {
		return Cycle{}, false, exhausted
	}
	n := len(best.Vertices)
	best.Rels = make([]Rel, n)
	for i := range n {
		best.Rels[i] = g.RelBetween(best.Vertices[i], best.Vertices[(i+1)%n]) & q.Allowed
	}
	best.rotateToSmallest()
	return best, true, exhausted
}

// rotateToSmallest rotates c to start at its smallest vertex.
func (c *Cycle) rotateToSmallest() {
	m := 0
	for i, v := range c.Vertices {
		if v < c.Vertices[m] {
			m = i
		}
	}
	c.Vertices = append(c.Vertices[m:], c.Vertices[:m]...)
	c.Rels = append(c.Rels[m:], c.Rels[:m]...)
}

// past reports whether a deadline (zero: none) has passed.
func past(deadline time.Time) bool { return !deadline.IsZero() && time.Now().After(deadline) }

// path returns the search states from the start to st, following parents.
func (s *Searcher) path(st int32) []int32 {
	var p []int32
	for ; st >= 0; st = s.parent[st] {
		p = append(p, st)
	}
	slices.Reverse(p)
	return p
}

// simple reports whether the search path ending in state st visits each
// vertex once; a state is a local vertex times S plus what else the search
// tracks. Paths are short (bounded by the best cycle so far), so a
// quadratic check is fine.
func (s *Searcher) simple(st, S int32) bool {
	var vs []int32
	for ; st >= 0; st = s.parent[st] {
		v := st / S
		if slices.Contains(vs, v) {
			return false
		}
		vs = append(vs, v)
	}
	return true
}
