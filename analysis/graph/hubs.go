package graph

import (
	"encoding/binary"
	"slices"
)

// This file keeps realtime order sparse. Real-time order links every txn
// of a frontier (the ok txns completed and not yet superseded) to each txn
// invoked while it holds; n txns running at once and n more invoked after
// them make n² edges. Here a frontier that is a window of one sequence
// (the ok vertices in completion order, from which completions remove a
// prefix) reaches the invoked vertex through hubs instead: vertices of the
// graph that stand for no op, one for each inner node of a segment tree
// over the sequence. Each sequence vertex has an edge to its tree parent,
// each hub to its own parent, and a window [lo, hi) reaches its target
// from the O(log n) tree nodes that cover it, so the graph keeps
// O(n + invocations · log n) edges for what would be their product.
//
// A hub only passes realtime order on: u reaches v through hubs exactly
// when u → v is a realtime edge, and every edge into, out of and between
// hubs carries Realtime alone. Each vertex has at most one edge to a hub
// and the hubs form a forest, so the hubs a vertex reaches are a chain.
// SCC hides the hubs and the searches step through them in one realtime
// step, so no cycle, explanation or witness ever names one (see
// Searcher).

// MinHubWindow is the longest window linked to its target directly; longer
// windows go through hubs. Below it hubs would save little, and histories
// that never run this many txns at once keep the plain graph.
const MinHubWindow = 32

// Windows links windows of one sequence of vertices to targets (see the
// comment at the top of hubs.go). Set Seq and Add every window, then call
// Number, then Emit inside the emitter of Build or BuildHubs (which
// calls it twice). The zero value is ready for use.
type Windows struct {
	// Seq is the sequence the windows are ranges of (vertices; each vertex
	// of a graph may be in one sequence only).
	Seq []int32
	// ReachOnly says the graph is only asked what reaches what (SCC) and
	// never searched: a run of windows over one range then goes through
	// one more hub, linked from the tree once and to each target of the
	// run, so that n ops invoked after the same n completions cost O(n)
	// edges, not O(n log n). Such a hub has other hubs among its
	// predecessors' successors, which the searches' one-chain walk does
	// not follow.
	ReachOnly bool
	// packed holds the windows in the order added, each as its lo, hi
	// and target less the previous window's, zigzag varints: a frontier
	// moves forward a little at a time and txns are invoked in about the
	// order their vertices are numbered, so a window takes 3 to 5 bytes
	// where three int32s take 12. They are alive at a transactional
	// check's peak, the graph's build, and read in order only.
	packed []byte
	n      int     // windows added
	last   window  // the last window added
	long   bool    // some window is longer than MinHubWindow
	share  []int32 // ReachOnly: per window, its run's hub, or -1
	base   int32   // the first hub's vertex
	used   bool    // some window goes through hubs
}

// window links Seq[lo:hi] to target.
type window struct{ lo, hi, target int32 }

// Grow makes room for n more windows of the usual size, so that n calls
// of Add allocate once when their windows are that small.
func (w *Windows) Grow(n int) { w.packed = slices.Grow(w.packed, 4*n) }

// Add notes that every vertex of Seq[lo:hi] is to be linked to target (an
// empty window is dropped).
func (w *Windows) Add(lo, hi int, target int32) {
	if lo >= hi {
		return
	}
	x := window{int32(lo), int32(hi), target}
	w.packed = binary.AppendVarint(w.packed, int64(x.lo)-int64(w.last.lo))
	w.packed = binary.AppendVarint(w.packed, int64(x.hi)-int64(w.last.hi))
	w.packed = binary.AppendVarint(w.packed, int64(x.target)-int64(w.last.target))
	w.n, w.last = w.n+1, x
	w.long = w.long || hi-lo > MinHubWindow
}

// all yields the windows in the order they were added, with their
// numbers. Cost: O(windows).
func (w *Windows) all(yield func(int, window) bool) {
	var x window
	b := w.packed
	for i := range w.n {
		d, k := binary.Varint(b)
		x.lo, b = x.lo+int32(d), b[k:]
		d, k = binary.Varint(b)
		x.hi, b = x.hi+int32(d), b[k:]
		d, k = binary.Varint(b)
		x.target, b = x.target+int32(d), b[k:]
		if !yield(i, x) {
			return
		}
	}
}

// Number numbers the hub vertices from base on. It returns how many there
// are (0 when every window is short) and how many of the windows' edges
// go through them, for BuildHubs.
func (w *Windows) Number(base int32) (hubs int, viaHubs int64) {
	w.base, w.used = base, w.long && len(w.Seq) >= 2
	if !w.used {
		return 0, 0
	}
	hubs = len(w.Seq) - 1
	if w.ReachOnly {
		w.share = make([]int32, w.n)
	}
	var last window
	for i, x := range w.all { // one pass: decoding the windows is most of it
		viaHubs += w.link(x, func(int32, int32, Rel) {})
		if !w.ReachOnly {
			continue
		}
		w.share[i] = -1
		if x.hi-x.lo <= MinHubWindow {
			continue
		}
		if hubs == len(w.Seq)-1 || x.lo != last.lo || x.hi != last.hi {
			hubs++ // a new run: its own hub, the last one
		}
		w.share[i], last = base+int32(hubs)-1, x
	}
	return hubs, viaHubs
}

// node is the vertex of segment tree node i: inner nodes 1..m-1 are hubs,
// nodes m..2m-1 the sequence's vertices.
func (w *Windows) node(i int) int32 {
	m := len(w.Seq)
	if i >= m {
		return w.Seq[i-m]
	}
	return w.base + int32(i) - 1
}

// Emit adds the edges from each vertex of the sequence and each hub to its
// parent hub, and what links each window to its target with relation
// Realtime.
func (w *Windows) Emit(add func(from, to int32, rel Rel)) {
	if w.used {
		for i := 2; i < 2*len(w.Seq); i++ {
			add(w.node(i), w.node(i/2), Realtime)
		}
	}
	for i, x := range w.all {
		if w.share == nil || w.share[i] < 0 {
			w.link(x, add)
			continue
		}
		if i == 0 || w.share[i-1] != w.share[i] {
			w.link(window{x.lo, x.hi, w.share[i]}, add) // the run's first: the tree to its hub
		}
		add(w.share[i], x.target, Realtime)
	}
}

// link emits the edges of one window: the edges themselves for a short
// window, else edges from the tree nodes that cover it. It returns how
// many of the window's vertices reach the target through a hub.
func (w *Windows) link(x window, add func(from, to int32, rel Rel)) (viaHubs int64) {
	lo, hi := int(x.lo), int(x.hi)
	if !w.used || hi-lo <= MinHubWindow {
		for _, u := range w.Seq[lo:hi] {
			add(u, x.target, Realtime)
		}
		return 0
	}
	m := len(w.Seq)
	viaHubs = int64(hi - lo)
	for l, r := lo+m, hi+m; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			if l >= m {
				viaHubs--
			}
			add(w.node(l), x.target, Realtime)
			l++
		}
		if r&1 == 1 {
			r--
			if r >= m {
				viaHubs--
			}
			add(w.node(r), x.target, Realtime)
		}
	}
	return viaHubs
}

// BuildHubs is Build for a graph of real vertices 0..real-1 and hubs
// real..real+hubs-1 (numbered by Windows), whose hub paths stand for
// viaHubs realtime edges (the sum of Number's counts, for Edges); nil
// where Build returns nil.
func BuildHubs(real, hubs int, viaHubs int64, e Edges) *Graph {
	g := Build(real+hubs, e)
	if g != nil {
		g.hubs, g.viaHubs = int32(hubs), viaHubs
	}
	return g
}

// Real is the number of vertices that are not hubs: 0..Real()-1.
func (g *Graph) Real() int { return g.N() - int(g.hubs) }

// IsHub reports whether v is a hub.
func (g *Graph) IsHub(v int32) bool { return g.hubs > 0 && int(v) >= g.Real() }

// Edges is the number of edges between real vertices the graph stands
// for: its merged edges between them plus the realtime edges its hubs
// stand for, each pair counted once. Without hubs it is E. Cost: O(E log²
// V) with hubs.
func (g *Graph) Edges() int64 {
	if g.hubs == 0 {
		return int64(g.E())
	}
	n := int32(g.Real())
	e := g.viaHubs
	for u := range n {
		for _, a := range g.Out(u) {
			v := a.To()
			if v >= n {
				continue
			}
			e++
			if g.viaHub(u, v) {
				e-- // also a hub path: counted among viaHubs
			}
		}
	}
	return e
}

// hubOf returns the hub v has an edge to, or -1. Rows are sorted by target
// and hubs come after the real vertices, so it is the row's last target.
func (g *Graph) hubOf(v int32) int32 {
	if g.hubs == 0 {
		return -1
	}
	a, b := g.start[v], g.start[v+1]
	if a < b && g.IsHub(g.target(b-1)) {
		return g.target(b - 1)
	}
	return -1
}

// viaHub reports whether real vertex u reaches real vertex v through hubs,
// which makes u → v a realtime edge. O(log V · log degree).
func (g *Graph) viaHub(u, v int32) bool {
	for h := g.hubOf(u); h >= 0; h = g.hubOf(h) {
		if _, ok := findArc(g.Out(h), v); ok {
			return true
		}
	}
	return false
}

// hasDirect reports whether u has an edge of its own to v.
func (g *Graph) hasDirect(u, v int32) bool {
	_, ok := findArc(g.Out(u), v)
	return ok
}

// Frontier is the realtime frontier of Elle's realtime graph, kept as a
// window: the ok completions so far, in order, of which the last few (from
// a head on) are not yet superseded. An op completed before another was
// invoked precedes it in real time; the frontier at an invocation holds
// the nearest such ops, and linking only those keeps realtime order a
// transitive reduction. A completion supersedes the members that were in
// the frontier at its invocation (they reach later ops through it), which
// are those that completed before it was invoked: members leave in the
// order they joined, so the frontier is always a window of the
// completions, and Windows can link it to an invoked op through hubs.
type Frontier struct {
	since []int32 // the op position of each completion
	head  int     // the first member not superseded
}

// Grow makes room for n more completions, so that n calls of Complete
// allocate once.
func (f *Frontier) Grow(n int) { f.since = slices.Grow(f.since, n) }

// Complete notes the ok completion at op position at of an op invoked at
// position inv: the members that completed before inv leave the frontier,
// and it joins.
func (f *Frontier) Complete(inv, at int32) {
	for f.head < len(f.since) && f.since[f.head] < inv {
		f.head++
	}
	f.since = append(f.since, at)
}

// Window is the frontier now, as positions [lo, hi) of the completions in
// the order Complete saw them.
func (f *Frontier) Window() (lo, hi int) { return f.head, len(f.since) }
