package graph

import (
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/internal/par"
)

// SCC returns the strongly connected components of g that have at least two
// real vertices (a graph without self-loops has a cycle only inside those),
// each sorted ascending, the components ordered by their smallest vertex.
// Hubs (hubs.go) are left out of them: a Searcher puts them back.
//
// It is Pearce's space-efficient variant of Tarjan's algorithm, with an
// explicit stack instead of recursion, so a component of a million
// vertices costs heap, not goroutine stack (pearce), walking only the
// vertices a cycle may go through (acyclicOut).
// Cost: O(V + E) time, O(V) memory.
func (g *Graph) SCC() [][]int32 {
	comps := g.components()
	if g.hubs == 0 {
		return comps
	}
	n := int32(g.Real())
	kept := comps[:0]
	for _, comp := range comps {
		k, _ := slices.BinarySearch(comp, n)
		if k >= 2 {
			kept = append(kept, comp[:k:k])
		}
	}
	return kept
}

// components is SCC with the hubs in the components.
func (g *Graph) components() [][]int32 {
	rindex := make([]int32, g.N())
	if g.hubs == 0 {
		g.acyclicOut(rindex)
	}
	return g.componentsOf(rindex)
}

// componentsOf is components, walking the vertices rindex does not leave
// out (pearce). Where acyclicOut left vertices out, the graph is cut at
// some of them into about sccChunks stretches per core, walked on every
// core at once: a cycle's vertices lie within one run of vertices that
// are not left out (acyclicOut), so no component spans two stretches, and
// an edge from one stretch into another is on no cycle and is not
// followed (chunk). The components are sorted after, so the result does
// not depend on the number of workers.
func (g *Graph) componentsOf(rindex []int32) [][]int32 {
	cuts := sccCuts(rindex, runtime.GOMAXPROCS(0)*sccChunks)
	found := make([][][]int32, len(cuts)-1)
	par.Each(len(cuts)-1, 0, func() func(int) {
		return func(i int) {
			lo, hi := cuts[i], cuts[i+1]
			pearce(rindex[lo:hi], chunk{g, lo, hi}, func(members []int32) {
				comp := make([]int32, len(members))
				for j, v := range members {
					comp[j] = v + lo
				}
				slices.Sort(comp)
				found[i] = append(found[i], comp)
			})
		}
	})
	comps := slices.Concat(found...)
	slices.SortFunc(comps, func(a, b []int32) int { return int(a[0] - b[0]) })
	return comps
}

// sccChunks is how many stretches per core componentsOf aims for, so that
// the cores end at about the same time.
const sccChunks = 4

// sccCuts cuts the vertices 0..n-1 (n the length of rindex) into about
// want stretches, each cut at a vertex acyclicOut left out (it starts the
// next stretch), and returns the stretches' bounds: 0, the cuts, n. A
// graph with no vertex left out is one stretch.
func sccCuts(rindex []int32, want int) []int32 {
	n := int32(len(rindex))
	cuts := []int32{0}
	step := max(n/int32(max(want, 1)), 1)
	for next := step; next < n; next += step {
		for next < n && rindex[next] != leftOut {
			next++
		}
		if next >= n {
			break
		}
		cuts = append(cuts, next)
	}
	return append(cuts, n)
}

// chunk is the vertices lo..hi-1 of a Graph, numbered from 0, for pearce:
// an edge out of them is left out.
type chunk struct {
	g      *Graph
	lo, hi int32
}

func (c chunk) row(v int32) (int32, int32) { return c.g.start[c.lo+v], c.g.start[c.lo+v+1] }
func (c chunk) to(e int32) int32 {
	if t := c.g.target(e); t >= c.lo && t < c.hi {
		return t - c.lo
	}
	return -1
}

// acyclicOut marks in rindex, for pearce, the vertices that no cycle goes
// through by a test that looks at each edge once, in order, on every
// core: pearce then walks the others only.
//
// Call an edge u → w with w < u a back edge, and the vertices w..u its
// span. A cycle goes down from its highest vertex to its lowest and back
// up, and at each point x between them some step of it goes down past x,
// from above x to x or below: a back edge whose span holds x. So every
// vertex of a cycle lies in the span of a back edge, and a vertex in no
// span is on no cycle. Leaving those out changes no component of two or
// more vertices: each lies within the vertices that remain, with the
// paths between its members. The test holds whatever the numbering; it
// pays where most edges go up, as in a transactional history, whose
// vertices are numbered in completion order: realtime and process edges
// always go up, and the data edges go down only between txns that ran at
// the same time. On histgen's 1M-txn histories (989,813 vertices, about
// 4.9M edges) 1,121 rw-register vertices lay in a span, and 280,595
// list-append ones (spans of up to 595 vertices); the search went from
// about 60 ms (nearly all of the "txn cycles" phase of HINDSIGHT_PHASES)
// to 13-18 ms (rw-register) and 25-32 ms (list-append), and the whole
// checks from 1.06 to 1.01 s and from 1.56 to 1.50 s (medians of ten
// runs by bench/ab.sh, 2026-12-07). A graph with hubs (hubs.go) is
// walked whole: its hubs are numbered after every real vertex, so their
// edges would be back edges spanning most of the graph. The queue's
// dependency graph finds the same spans before it builds any graph
// (analysis/queue's depGraph.census), so the graphs of its stretches,
// every vertex in a span, gain nothing here; on bench/bench.sh's
// 1.39M-op histories they hold about 1,000 vertices in all, so the scan
// costs them nothing either.
//
// rindex must be zero; a vertex left out gets leftOut, above any number
// pearce gives, so that it never visits it and no edge to it lowers a
// vertex's number.
func (g *Graph) acyclicOut(rindex []int32) {
	n := len(rindex)
	// first, per vertex w: one more than the highest u of a back edge
	// u → w (0: none)
	par.EachRange(n, 1<<14, func(lo, hi int) {
		for u := int32(lo); u < int32(hi); u++ {
			for _, a := range g.arcs[g.start[u]:g.start[u+1]] {
				if w := a.To(); w < u {
					raise(&rindex[w], u+1)
				}
			}
		}
	})
	// then, sweeping up: reach is one more than the highest end of a span
	// that starts at or below v, so v is in a span when reach > v
	var reach int32
	for v := range int32(n) {
		reach = max(reach, rindex[v])
		if reach > v {
			rindex[v] = 0
		} else {
			rindex[v] = leftOut
		}
	}
}

// leftOut is the rindex of a vertex pearce does not walk (acyclicOut).
const leftOut = math.MaxInt32

// raise sets *p to v if v is larger, atomically (back edges into one
// vertex may be found on two cores at once).
func raise(p *int32, v int32) {
	for {
		old := atomic.LoadInt32(p)
		if old >= v || atomic.CompareAndSwapInt32(p, old, v) {
			return
		}
	}
}

// pearce calls done with the members of each strongly connected component
// of two or more vertices of the graph view g on vertices 0..n-1, n the
// length of rindex, which is zero except at the vertices acyclicOut left
// out: vertex v has the edges at positions g.row(v) (a range of a Graph's
// edges), the edge at position e leading to vertex g.to(e) (-1: the edge
// is left out). It is Pearce's variant of Tarjan's algorithm ("A
// space-efficient algorithm for finding strongly connected components",
// 2016): one number a vertex, rindex, does the work of Tarjan's index,
// low link and on-stack flag, and a bit a vertex says whether it is still
// a root. It runs with an explicit stack instead of recursion, so a
// component of a million vertices costs heap, not goroutine stack. O(n + edges) time; 16
// bytes a vertex at most (24 with Tarjan's own: the SCC pass is one of the
// peaks of a large transactional check's heap).
//
// g is a value of a small struct type, so that each view gets code of its
// own with row and to inlined; as function values they were three calls
// an edge, and done one a vertex (BenchmarkSCC: 30 -> 26 ms).
//
// rindex is 0 for a vertex not visited yet; while a vertex is being
// walked or waits on the stack, the smallest visit number it reaches
// (numbers count up from 1 and are reused once a component is done); once
// its component is done, that component's number, counting down from n,
// above every visit number in use.
func pearce[G sccView](rindex []int32, g G, done func(members []int32)) {
	n := len(rindex)
	notRoot := make([]uint64, (n+63)/64)
	// the vertices waiting for their component, and the stack of calls (a
	// vertex and its next edge; the row's end is looked up again at each
	// step, not kept: 4 bytes a vertex, 90 MB at 22M list-append txns):
	// sized once, since a depth-first walk along realtime order can hold
	// most of the graph (grown by append, their copies and fresh pages
	// took half to three quarters of the time: BenchmarkSCC)
	stack := make([]int32, 0, n)
	type frame struct{ v, next int32 }
	call := make([]frame, 0, n)
	index, comp := int32(1), int32(n)
	visit := func(v int32) {
		rindex[v] = index
		index++
		a, _ := g.row(v)
		call = append(call, frame{v, a})
	}
	for root := range int32(n) {
		if rindex[root] != 0 {
			continue
		}
		visit(root)
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if _, end := g.row(v); f.next < end {
				w := g.to(f.next)
				f.next++
				switch {
				case w < 0:
				case rindex[w] == 0:
					visit(w)
				case rindex[w] < rindex[v]:
					rindex[v] = rindex[w]
					notRoot[v>>6] |= 1 << (v & 63)
				}
				continue
			}
			// v is finished: its caller takes what it reaches
			call = call[:len(call)-1]
			if len(call) > 0 {
				if u := call[len(call)-1].v; rindex[v] < rindex[u] {
					rindex[u] = rindex[v]
					notRoot[u>>6] |= 1 << (u & 63)
				}
			}
			if notRoot[v>>6]&(1<<(v&63)) != 0 {
				stack = append(stack, v)
				continue
			}
			// v is the root of a component: it and the vertices above
			// it on the stack, those whose number is not below its own
			i := len(stack)
			for i > 0 && rindex[stack[i-1]] >= rindex[v] {
				i--
			}
			stack = append(stack, v)
			members := stack[i:]
			index -= int32(len(members))
			for _, w := range members {
				rindex[w] = comp
			}
			comp--
			if len(members) > 1 {
				done(members)
			}
			stack = stack[:i]
		}
	}
}

// sccView is a graph as pearce walks it.
type sccView interface {
	row(v int32) (lo, hi int32)
	to(e int32) int32
}

// AnyCycle returns some cycle of comp, a strongly connected component from
// SCC, found by walking from its first vertex along the first edge that
// stays in the component until a vertex repeats (Elle's fallback-cycle,
// for a search that ran out of budget). An edge of the vertex's own comes
// before a realtime step through its hubs. Steps take their edges'
// effective relations (in precedence prec). O(|comp| + E_comp).
func (s *Searcher) AnyCycle(comp []int32, prec *Precedence) Cycle {
	t := s.begin(comp, Spec{Allowed: WW | WR | Process | Realtime, RW: RWFree, Union: true})
	defer t.end()
	at := map[int32]int{}
	var path []int32
	var rels []Rel
	for v := comp[0]; ; {
		if i, ok := at[v]; ok {
			return Cycle{Vertices: path[i:], Rels: rels[i:]}
		}
		at[v] = len(path)
		path = append(path, v)
		w, r := t.next(v)
		rels = append(rels, prec.Effective(r))
		v = w
	}
}

// next is the first vertex of the component after v, and the relations of
// the step.
func (t *search) next(v int32) (int32, Rel) {
	g := t.s.g
	for _, a := range g.Out(v) {
		if w := a.To(); t.s.comp[w] != 0 && w != v && !g.IsHub(w) {
			return w, a.Rel()
		}
	}
	for h := g.hubOf(v); h >= 0 && t.s.comp[h] != 0; h = g.hubOf(h) {
		for _, a := range g.Out(h) {
			if w := a.To(); t.s.comp[w] != 0 && !g.IsHub(w) {
				return w, Realtime
			}
		}
	}
	return v, 0 // not reached in a strongly connected component
}

// Cycle is a cycle of vertices v0 → v1 → … → v0 (the first vertex is not
// repeated at the end), with the relations each edge vi → vi+1 was taken
// for (restricted to the query's Allowed set).
type Cycle struct {
	Vertices []int32
	Rels     []Rel
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

// SameAs says whether c and d are one cycle, perhaps started at another
// vertex: the same vertices in the same circular order, each edge taken for
// the same relations. Vertices of a cycle are distinct, so one pass does.
func (c Cycle) SameAs(d Cycle) bool {
	n := len(c.Vertices)
	if n != len(d.Vertices) || n == 0 {
		return n == len(d.Vertices)
	}
	off := slices.Index(d.Vertices, c.Vertices[0])
	if off < 0 {
		return false
	}
	for i := range n {
		j := (i + off) % n
		if c.Vertices[i] != d.Vertices[j] || c.Rels[i] != d.Rels[j] {
			return false
		}
	}
	return true
}
