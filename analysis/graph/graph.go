// Package graph is the dependency graph of docs/README.md#cycles: a
// compact, immutable directed graph whose edges carry a set of
// relations (ww, wr, rw, process, realtime), its strongly connected
// components, and a typed shortest-cycle search.
//
// The graph is stored as compressed sparse rows (one 32-bit word per edge,
// its target and its relations packed: Arc) because histories of a million
// operations give several million edges; a map-of-maps graph (gonum's
// simple.DirectedGraph) costs over a hundred bytes an edge. *Graph implements gonum's
// graph.Directed, so gonum's algorithms run on it unchanged; the tests check
// the iterative SCC here (Pearce's variant of Tarjan's) against gonum's
// topo.TarjanSCC. Gonum has no
// search for the shortest cycle whose edges are restricted to some relations
// and must include others, so that search is written here (ShortestCycle).
package graph

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/internal/par"

	gg "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
)

// Rel is a set of relations, as bits.
type Rel uint8

// Relations between operations.
const (
	// WW: the source wrote a value, the target wrote the next value of the
	// same key's version order.
	WW Rel = 1 << iota
	// WR: the target read a value the source wrote.
	WR
	// Process: the target is the next op of the source's process.
	Process
	// Realtime: the source completed before the target was invoked.
	Realtime
	// RW: the source read a version of a key, the target wrote the next
	// version of that key (an anti-dependency; transactional workloads).
	RW
)

// String lists the relations joined by "+", in the order ww, wr, rw,
// process, realtime.
func (r Rel) String() string {
	var parts []string
	for _, x := range []struct {
		r Rel
		n string
	}{{WW, "ww"}, {WR, "wr"}, {RW, "rw"}, {Process, "process"}, {Realtime, "realtime"}} {
		if r&x.r != 0 {
			parts = append(parts, x.n)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

type edge struct {
	from, to int32
	rel      Rel
}

// Builder collects edges; Build turns them into a Graph. It is the simple
// reference construction (tests check BuildFunc against it); the queue
// checker uses BuildFunc, which needs no edge list.
type Builder struct {
	edges []edge
}

// Add records the edge from → to with relation rel. Self-loops are dropped.
func (b *Builder) Add(from, to int32, rel Rel) {
	if from == to {
		return
	}
	b.edges = append(b.edges, edge{from, to, rel})
}

// Len is the number of edges added so far (before merging).
func (b *Builder) Len() int { return len(b.edges) }

// Build returns the graph on vertices 0..n-1. Parallel edges are merged into
// one edge carrying the union of their relations. Cost: O(E log E).
func (b *Builder) Build(n int) *Graph {
	es := b.edges
	b.edges = nil
	// edges equal in this order (one pair, other relations) are merged
	// below whatever their order, so the graph is the same on any number
	// of cores
	par.SortFunc(es, func(x, y edge) int {
		if x.from != y.from {
			return int(x.from - y.from)
		}
		return int(x.to - y.to)
	})
	g := &Graph{start: make([]int32, n+1)}
	g.arcs = make([]Arc, 0, len(es))
	for i := 0; i < len(es); {
		e := es[i]
		r := e.rel
		j := i + 1
		for ; j < len(es) && es[j].from == e.from && es[j].to == e.to; j++ {
			r |= es[j].rel
		}
		g.arcs = append(g.arcs, MakeArc(e.to, r))
		g.start[e.from+1]++
		i = j
	}
	for v := 1; v <= n; v++ {
		g.start[v] += g.start[v-1]
	}
	return g
}

// BuildFunc builds the graph on vertices 0..n-1 from a deterministic edge
// generator, without materialising an edge list: emit is called twice, once
// to count each vertex's out-degree and once to fill the rows, then each row
// is sorted and its parallel edges merged (relations or-ed). Self-loops are
// dropped. Memory is the graph itself (4 bytes an edge plus 4 a vertex);
// Builder needs 12 bytes an edge more, and sorts all edges at once.
func BuildFunc(n int, emit func(add func(from, to int32, rel Rel))) *Graph {
	return Build(n, Edges{Serial: emit})
}

// AddFunc adds an edge to a graph being built.
type AddFunc = func(from, to int32, rel Rel)

// Edges generates a graph's edges for Build, deterministically (Build
// calls each function twice: to count, then to fill): Range(lo, hi, add)
// adds the edges of items [lo, hi) of Items items (an emitter's own units:
// transactions, keys), and is called for disjoint ranges from several
// goroutines at once; Serial, if not nil, adds the rest, on one goroutine
// that runs beside the ranges, so neither may write what the other reads.
// Either may be nil.
type Edges struct {
	Items  int
	Range  func(lo, hi int, add AddFunc)
	Serial func(add AddFunc)
}

// minItems is the fewest items of Edges.Range a worker is given.
const minItems = 256

// each calls add for every edge of e: the ranges on every core, and the
// serial rest on a goroutine of its own beside them (a realtime order's
// hub edges, rw-register's version-order edges: about a third of the
// graph's build ran on one core while they came after the ranges). add
// takes a counter of its own for each vertex's row, which it bumps (by 1)
// with bump: atomically when the ranges and the rest run at once, plainly
// when either runs alone.
func (e Edges) each(add func(from, to int32, r Rel, bump func(*int32) int32)) {
	shared := func(from, to int32, r Rel) { add(from, to, r, bumpShared) }
	own := func(from, to int32, r Rel) { add(from, to, r, bumpOwn) }
	ranges := func(f AddFunc) { par.EachRange(e.Items, minItems, func(lo, hi int) { e.Range(lo, hi, f) }) }
	switch hasRanges := e.Range != nil && e.Items > 0; {
	case hasRanges && e.Serial != nil:
		var g par.Group
		g.Go(func() { e.Serial(shared) })
		ranges(shared)
		g.Wait()
	case hasRanges:
		ranges(shared)
	case e.Serial != nil:
		e.Serial(own)
	}
}

// bumpShared and bumpOwn add 1 to *c and return the value before.
func bumpShared(c *int32) int32 { return atomic.AddInt32(c, 1) - 1 }

func bumpOwn(c *int32) int32 { *c++; return *c - 1 }

// Build builds the graph on vertices 0..n-1 from the edges e generates,
// as BuildFunc does, with e's ranges emitted on every core. Rows are
// sorted and merged after they are filled, so the graph does not depend on
// the order in which edges arrive, nor on the number of workers. It
// returns nil when n is more than MaxVertices (TooLarge says so), or when
// e emitted other edges in its second pass than in its first.
func Build(n int, e Edges) *Graph {
	if n > MaxVertices {
		return nil
	}
	start := make([]int32, n+1)
	e.each(func(from, to int32, _ Rel, bump func(*int32) int32) {
		if from != to {
			bump(&start[from+1])
		}
	})
	return fill(start, e)
}

// fill builds the graph on vertices 0..n-1 (n = len(start)-1) whose
// out-degrees start[1:] holds, with one pass of e, then sorts each row by
// target and merges its parallel edges (relations or-ed), compacting in
// place. One array of n+1 int32s is each row's start and, while the rows
// fill, the row's next free slot (CursorsToStarts puts the starts back):
// the build's arrays are alive at a transactional check's peak, and a
// second one would cost 4 bytes a vertex, hubs included (170 MB at 22M
// list-append txns). Each row's degree is kept up to 255 in a byte, so
// that a fill pass that gave a row another number of edges than the count
// pass is caught; fill then returns nil, as for more edges than the count
// gave in all.
func fill(start []int32, e Edges) *Graph {
	n := len(start) - 1
	deg := make([]uint8, n)
	for v := range n {
		deg[v] = uint8(min(start[v+1], math.MaxUint8))
		start[v+1] += start[v]
	}
	total := start[n]
	arcs := make([]Arc, total)
	var over atomic.Bool
	e.each(func(from, t int32, r Rel, bump func(*int32) int32) {
		if from == t {
			return
		}
		slot := bump(&start[from])
		if slot >= total {
			over.Store(true)
			return
		}
		arcs[slot] = MakeArc(t, r)
	})
	if over.Load() || !filledAsCounted(start, deg) {
		return nil
	}
	CursorsToStarts(start)
	w := mergeRows(start, arcs)
	return &Graph{start: start, arcs: slices.Clip(arcs[:w])}
}

// filledAsCounted reports whether each row got as many edges as the count
// pass gave it (deg, up to 255; a row of 255 or more, at least 255) and
// the last row ended at the end: start holds each row's cursor after the
// fill, so row v filled start[v-1] (0 for row 0) up to start[v].
func filledAsCounted(start []int32, deg []uint8) bool {
	prev := int32(0)
	for v, d := range deg {
		got := start[v] - prev
		if got < int32(d) || d < math.MaxUint8 && got != int32(d) {
			return false
		}
		prev = start[v]
	}
	return prev == start[len(deg)]
}

// mergeRows sorts each row of arcs by target and merges its parallel
// edges (relations or-ed), with CompactRows: one row function per worker.
// Every row is full (it ends where the next starts).
func mergeRows(start []int32, arcs []Arc) int32 {
	return CompactRows(start, nil, func() func(v int, a, b, w int32) int32 {
		return func(_ int, a, b, w int32) int32 {
			sortRow(arcs[a:b])
			first := w
			for i := a; i < b; i++ {
				if w > first && arcs[w-1].To() == arcs[i].To() {
					arcs[w-1] |= arcs[i] & relMask
					continue
				}
				arcs[w] = arcs[i]
				w++
			}
			return w
		}
	}, func(dst, src, n int32) {
		copy(arcs[dst:dst+n], arcs[src:src+n])
	})
}

// sortRow sorts a row's arcs, which sorts them by target (arcs of one
// target are merged after, in any order). A row is usually a sorted run
// followed by a few more arcs (an emitter that goes through the targets in
// order for one relation, then adds others): only a row out of order is
// sorted, the rest by insertion when it is short.
func sortRow(row []Arc) {
	k := 1
	for k < len(row) && row[k-1] <= row[k] {
		k++
	}
	if k >= len(row) {
		return
	}
	if len(row)-k > 24 {
		slices.Sort(row)
		return
	}
	for i := k; i < len(row); i++ {
		a := row[i]
		j := i
		for ; j > 0 && row[j-1] > a; j-- {
			row[j] = row[j-1]
		}
		row[j] = a
	}
}

// findArc returns the position in row (sorted, as Out returns it) of the
// arc to v, and whether there is one. O(log len(row)).
func findArc(row []Arc, v int32) (int, bool) {
	return slices.BinarySearchFunc(row, v, func(a Arc, v int32) int { return cmp.Compare(a.To(), v) })
}

// Arc is one edge of a Graph's row: its target and its relations in one
// word, the target above relBits, so that sorting a row's arcs sorts them
// by target. 4 bytes an edge where a target and a Rel apart took 5 (at 22M
// list-append transactions the graph has about 133M edges: 133 MB less at
// the check's peak); the price is MaxVertices.
type Arc uint32

const (
	relBits = 5 // Rel's five relations
	relMask = 1<<relBits - 1
)

// MaxVertices is the most vertices a Graph has, hubs included: a target
// has 32-relBits bits. Build returns nil for a larger n.
const MaxVertices = 1 << (32 - relBits)

// TooLarge is the unknown reason of a check that could not build a graph
// of n vertices: more than MaxVertices.
func TooLarge(n int) string {
	return fmt.Sprintf("a graph of %d vertices is more than the %d hindsight's graphs hold; its cycles were not searched", n, MaxVertices)
}

// MakeArc is the arc to t with relations r.
func MakeArc(t int32, r Rel) Arc { return Arc(uint32(t)<<relBits | uint32(r)&relMask) }

// To is the arc's target.
func (a Arc) To() int32 { return int32(a >> relBits) }

// Rel is the arc's relations.
func (a Arc) Rel() Rel { return Rel(a & relMask) }

// Graph is an immutable directed graph with relation-labelled edges on
// vertices 0..N()-1.
type Graph struct {
	start []int32
	arcs  []Arc
	// reverse adjacency, built on first use by To.
	rstart, rfrom []int32
	// hubs are the last hubs vertices (hubs.go); viaHubs counts the
	// realtime edges they stand for.
	hubs    int32
	viaHubs int64
}

// N is the number of vertices.
func (g *Graph) N() int { return len(g.start) - 1 }

// E is the number of (merged) edges, hub edges included (Edges counts
// the edges between real vertices the graph stands for).
func (g *Graph) E() int { return len(g.arcs) }

// Out returns v's outgoing edges, sorted by target. The slice aliases the
// graph: do not modify it.
func (g *Graph) Out(v int32) []Arc {
	return g.arcs[g.start[v]:g.start[v+1]]
}

// target is the target of the edge at position e of the graph's arcs.
func (g *Graph) target(e int32) int32 { return g.arcs[e].To() }

// RelBetween returns the relations of the edge u → v, or 0; between real
// vertices of a graph with hubs, Realtime too when u reaches v through
// hubs (hubs.go).
func (g *Graph) RelBetween(u, v int32) Rel {
	var r Rel
	out := g.Out(u)
	if i, ok := findArc(out, v); ok {
		r = out[i].Rel()
	}
	if g.hubs > 0 && r&Realtime == 0 && !g.IsHub(u) && !g.IsHub(v) && g.viaHub(u, v) {
		r |= Realtime
	}
	return r
}

// Edge is an edge of a Graph as a gonum graph.Edge.
type Edge struct {
	F, T gg.Node
	Rel  Rel
}

// From returns the source node.
func (e Edge) From() gg.Node { return e.F }

// To returns the target node.
func (e Edge) To() gg.Node { return e.T }

// ReversedEdge returns the edge with its ends swapped.
func (e Edge) ReversedEdge() gg.Edge { return Edge{F: e.T, T: e.F, Rel: e.Rel} }

func (g *Graph) has(id int64) bool { return id >= 0 && id < int64(g.N()) }

// Node returns the node with the given id, or nil (gonum graph.Graph).
func (g *Graph) Node(id int64) gg.Node {
	if !g.has(id) {
		return nil
	}
	return simple.Node(id)
}

// Nodes returns all nodes (gonum graph.Graph).
func (g *Graph) Nodes() gg.Nodes {
	ns := make([]gg.Node, g.N())
	for i := range ns {
		ns[i] = simple.Node(i)
	}
	return iterator.NewOrderedNodes(ns)
}

// From returns the nodes reached from id (gonum graph.Graph).
func (g *Graph) From(id int64) gg.Nodes {
	if !g.has(id) {
		return gg.Empty
	}
	out := g.Out(int32(id))
	ns := make([]gg.Node, len(out))
	for i, a := range out {
		ns[i] = simple.Node(a.To())
	}
	return iterator.NewOrderedNodes(ns)
}

// To returns the nodes with an edge to id (gonum graph.Directed).
func (g *Graph) To(id int64) gg.Nodes {
	if !g.has(id) {
		return gg.Empty
	}
	if g.rstart == nil {
		g.buildReverse()
	}
	return idNodes(g.rfrom[g.rstart[id]:g.rstart[id+1]])
}

// HasEdgeBetween reports an edge in either direction (gonum graph.Graph).
func (g *Graph) HasEdgeBetween(x, y int64) bool {
	return g.HasEdgeFromTo(x, y) || g.HasEdgeFromTo(y, x)
}

// HasEdgeFromTo reports an edge u → v (gonum graph.Directed).
func (g *Graph) HasEdgeFromTo(u, v int64) bool {
	return g.has(u) && g.has(v) && g.RelBetween(int32(u), int32(v)) != 0
}

// Edge returns the edge u → v, or nil (gonum graph.Graph).
func (g *Graph) Edge(u, v int64) gg.Edge {
	if !g.HasEdgeFromTo(u, v) {
		return nil
	}
	return Edge{F: simple.Node(u), T: simple.Node(v), Rel: g.RelBetween(int32(u), int32(v))}
}

func (g *Graph) buildReverse() {
	n := g.N()
	g.rstart = make([]int32, n+1)
	for _, a := range g.arcs {
		g.rstart[a.To()+1]++
	}
	for v := 1; v <= n; v++ {
		g.rstart[v] += g.rstart[v-1]
	}
	g.rfrom = make([]int32, len(g.arcs))
	fill := slices.Clone(g.rstart[:n])
	for u := 0; u < n; u++ {
		for _, a := range g.Out(int32(u)) {
			t := a.To()
			g.rfrom[fill[t]] = int32(u)
			fill[t]++
		}
	}
}

func idNodes(ids []int32) gg.Nodes {
	ns := make([]gg.Node, len(ids))
	for i, id := range ids {
		ns[i] = simple.Node(id)
	}
	return iterator.NewOrderedNodes(ns)
}

var _ gg.Directed = (*Graph)(nil)
