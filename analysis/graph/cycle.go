package graph

import (
	"slices"
)

// SCC returns the strongly connected components of g that have at least two
// real vertices (a graph without self-loops has a cycle only inside those),
// each sorted ascending, the components ordered by their smallest vertex.
// Hubs (hubs.go) are left out of them: a Searcher puts them back.
//
// It is Pearce's space-efficient variant of Tarjan's algorithm, with an
// explicit stack instead of recursion, so a component of a million
// vertices costs heap, not goroutine stack (pearce).
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
	var comps [][]int32
	pearce(g.N(), whole{g},
		func(members []int32) {
			comp := slices.Clone(members)
			slices.Sort(comp)
			comps = append(comps, comp)
		})
	slices.SortFunc(comps, func(a, b []int32) int { return int(a[0] - b[0]) })
	return comps
}

// pearce calls done with the members of each strongly connected component
// of two or more vertices of the graph view g on vertices 0..n-1: vertex
// v has the edges at positions g.row(v) (a range of a Graph's edges), the
// edge at position e leading to vertex g.to(e) (-1: the edge is left
// out). It is Pearce's variant of Tarjan's algorithm ("A space-efficient
// algorithm for finding strongly connected components", 2016): one number
// a vertex, rindex, does the work of Tarjan's index, low link and
// on-stack flag, and a bit a vertex says whether it is still a root. It
// runs with an explicit stack instead of recursion, so a component of a
// million vertices costs heap, not goroutine stack. O(n + edges) time; 16
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
func pearce[G sccView](n int, g G, done func(members []int32)) {
	rindex := make([]int32, n)
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

// whole is a Graph's own vertices and edges, for pearce.
type whole struct{ g *Graph }

func (w whole) row(v int32) (int32, int32) { return w.g.start[v], w.g.start[v+1] }
func (w whole) to(e int32) int32           { return w.g.target(e) }

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
