package queue

import (
	"slices"

	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// depGraph is the dependency graph of buildGraph without its edge list.
// A large history has millions of edges (mostly wr, one per read) but few
// of its vertices are on a cycle, so the graph is kept as what its edges
// come from, and walked backwards: the predecessors of a vertex are its
// process's previous op, the realtime frontier at its invocation (a run of
// the ok vertices in completion order), the writers of what it read (the
// history's own reads) and, under --ww-deps, the writers of the values
// listed before its own (the one list held here). The strongly connected
// components of the reversed graph are those of the graph, and only the
// edges inside them are made, as a graph.Graph for the cycle search: the
// same searches on the same edges as on buildGraph's graph, in a fraction
// of its memory. The tests check both against buildGraph.
type depGraph struct {
	c    *checker
	vrec []int32 // rec of each vertex
	wv   []int32 // per message: the vertex of its writer, or -1
	prev []int32 // per vertex: the previous vertex of its process, or -1
	// The realtime predecessors of vertex v are order[rtLo[v]:rtHi[v]]:
	// order lists the ok vertices in completion order.
	order      []int32
	ordPos     []int32 // per vertex: its position in order, or -1
	rtLo, rtHi []int32
	// Under --ww-deps, the ww predecessors of v are wwFrom[wwStart[v]:wwStart[v+1]].
	wwStart, wwFrom []int32
	// tooLarge is the most vertices of a stretch's graph that scc could
	// not build (more than graph.MaxVertices), or 0
	tooLarge int
}

// newDepGraph gathers what the edges come from (see buildGraph for the
// edges themselves).
func (c *checker) newDepGraph() *depGraph {
	d := &depGraph{c: c}
	for ri, r := range c.recs {
		if r.vertex >= 0 {
			d.vrec = append(d.vrec, int32(ri))
		}
	}
	n := len(d.vrec)
	d.wv = make([]int32, len(c.writer))
	for m, w := range c.writer {
		d.wv[m] = -1
		if w >= 0 {
			d.wv[m] = c.recs[w].vertex
		}
	}
	d.prev = make([]int32, n)
	lastOf := filled(len(c.procIDs), -1)
	for v, ri := range d.vrec {
		r := &c.recs[ri]
		d.prev[v] = lastOf[r.proc]
		lastOf[r.proc] = int32(v)
	}
	if c.opts.WWDeps {
		// the rows of wwFrom: each write's vertex w2, its predecessor w1
		d.wwStart, d.wwFrom = graph.Rows(n, func(f func(w2, w1 int32)) {
			for _, kept := range c.kept {
				for p := 1; p < len(kept); p++ {
					if w1, w2 := d.wv[kept[p-1]], d.wv[kept[p]]; w1 >= 0 && w2 >= 0 {
						f(w2, w1)
					}
				}
			}
		})
	}
	// the realtime frontier, as buildGraph's walk keeps it
	d.rtLo, d.rtHi = make([]int32, n), make([]int32, n)
	nok := 0
	for _, ri := range d.vrec {
		if c.recs[ri].typ == model.OK {
			nok++
		}
	}
	win := realtimeWindow{order: make([]int32, 0, nok)}
	win.walk(c, func(v int32) {
		lo, hi := win.fr.Window()
		d.rtLo[v], d.rtHi[v] = int32(lo), int32(hi)
	})
	d.order = win.order
	d.ordPos = filled(n, -1)
	for i, v := range d.order {
		d.ordPos[v] = int32(i)
	}
	c.ev = nil // the op positions' recs: nothing needs them any more
	return d
}

// eachDataPred calls f for each predecessor u of vertex v (u -> v an
// edge of buildGraph's graph, before merging; self-loops included), with
// its relation, but for the realtime ones: those are a window of order,
// order[rtLo[v]:rtHi[v]], which census counts and scc and inside link
// through hubs (graph.Windows), never one by one.
func (d *depGraph) eachDataPred(v int32, f func(u int32, rel graph.Rel)) {
	if u := d.prev[v]; u >= 0 {
		f(u, graph.Process)
	}
	c := d.c
	if r := &c.recs[d.vrec[v]]; r.comp != r.inv {
		mops := c.h.MopsOf(c.op(r.comp))
		for mi := range mops {
			for _, kp := range c.h.PollsOf(&mops[mi]) {
				for _, rd := range c.h.ReadsOf(&kp) {
					if u := d.wv[rd.Msg]; u >= 0 {
						f(u, graph.WR)
					}
				}
			}
		}
	}
	if d.wwStart != nil {
		for _, u := range d.wwFrom[d.wwStart[v]:d.wwStart[v+1]] {
			f(u, graph.WW)
		}
	}
}

// census counts the edges of buildGraph's graph (each vertex's distinct
// predecessors other than itself: the realtime ones are distinct, and the
// others are counted once each, less those among the realtime ones) and
// finds the stretches of vertices where cycles can be.
//
// Vertices are numbered in completion order, and process and realtime
// edges go from a vertex to a later one; only a wr or ww edge u -> v with
// u > v goes back. A cycle (indeed any closed walk) from its lowest vertex
// lo to its highest hi and back crosses every point between them
// downwards, by backward edges whose spans [v, u] therefore cover [lo, hi]
// and overlap or touch one another. So every cycle lies, with its edges,
// inside one stretch: a maximal union of overlapping or touching spans of
// backward edges. Histories have few backward edges (an op that read a
// value before its send completed), so the stretches hold few vertices.
// (graph.Graph.SCC makes the same cut, on a graph already built.)
func (d *depGraph) census() (edges int64, stretches [][2]int32) {
	n := len(d.vrec)
	ordPos := d.ordPos
	seen := make([]int32, n) // v+1 when counted for v
	reach := int32(-1)       // the highest source of a backward edge so far
	var lo int32             // the current stretch starts there, if reach >= 0
	for v := range int32(n) {
		rlo, rhi := d.rtLo[v], d.rtHi[v]
		edges += int64(rhi - rlo) // distinct, and always from earlier vertices
		back := int32(-1)         // the highest source of a backward edge into v
		d.eachDataPred(v, func(u int32, rel graph.Rel) {
			if u == v || seen[u] == v+1 {
				return
			}
			seen[u] = v + 1
			if p := ordPos[u]; p < rlo || p >= rhi {
				edges++ // not also a realtime edge
			}
			back = max(back, u)
		})
		if back > v {
			if v > reach {
				if reach >= 0 {
					stretches = append(stretches, [2]int32{lo, reach})
				}
				lo = v
			}
			reach = max(reach, back)
		}
	}
	if reach >= 0 {
		stretches = append(stretches, [2]int32{lo, reach})
	}
	return edges, stretches
}

// scc returns the strongly connected components of buildGraph's graph
// with at least two vertices, as graph.Graph.SCC does (each sorted, the
// components by their smallest vertex), from the stretches census found:
// each stretch's edges are made into a graph of their own, whose
// components, with the stretch's first vertex added back, are the ones
// inside it. A stretch is usually a few vertices; at worst (one backward
// edge across the whole history) it is every vertex, and its graph as
// large as buildGraph's, less the realtime edges hubs stand for.
func (d *depGraph) scc(stretches [][2]int32) [][]int32 {
	var comps [][]int32
	for _, st := range stretches {
		lo, hi := st[0], st[1]
		// the ok vertices of the stretch are a run of order
		plo, _ := slices.BinarySearch(d.order, lo)
		phi, _ := slices.BinarySearch(d.order, hi+1)
		rt := graph.Windows{Seq: slices.Clone(d.order[plo:phi]), ReachOnly: true} // for SCC only
		for i := range rt.Seq {
			rt.Seq[i] -= lo
		}
		for v := lo; v <= hi; v++ {
			wlo, whi := max(d.rtLo[v], int32(plo)), min(d.rtHi[v], int32(phi))
			rt.Add(int(wlo)-plo, int(whi)-plo, v-lo)
		}
		hubs, viaHubs := rt.Number(hi - lo + 1)
		g := graph.BuildHubs(int(hi-lo+1), hubs, viaHubs, graph.Edges{
			Items: int(hi - lo + 1),
			Range: func(a, b int, add graph.AddFunc) {
				for v := lo + int32(a); v < lo+int32(b); v++ {
					d.eachDataPred(v, func(u int32, rel graph.Rel) {
						if u >= lo && u <= hi {
							add(u-lo, v-lo, rel)
						}
					})
				}
			},
			Serial: rt.Emit,
		})
		if g == nil {
			d.tooLarge = max(d.tooLarge, int(hi-lo+1)+hubs)
			continue
		}
		for _, comp := range g.SCC() {
			for i := range comp {
				comp[i] += lo
			}
			comps = append(comps, comp)
		}
	}
	return comps
}

// inside returns the graph on all of buildGraph's vertices that holds
// only the edges inside the components comps (from scc): what the cycle
// search of a component looks at, with the same relations (the realtime
// ones through hubs where the component runs many ops at once).
func (d *depGraph) inside(comps [][]int32) *graph.Graph {
	n := int32(len(d.vrec))
	compOf := filled(int(n), -1)
	ordPos := d.ordPos
	links := make([]graph.Windows, len(comps))
	hubs, viaHubs := int32(0), int64(0)
	for ci, comp := range comps {
		rt := &links[ci]
		var pos []int32 // the positions in order of the component's ok vertices (rt.Seq)
		for _, v := range comp {
			compOf[v] = int32(ci)
			if ordPos[v] >= 0 {
				rt.Seq, pos = append(rt.Seq, v), append(pos, ordPos[v])
			}
		}
		for _, v := range comp {
			wlo, _ := slices.BinarySearch(pos, d.rtLo[v])
			whi, _ := slices.BinarySearch(pos, d.rtHi[v])
			rt.Add(wlo, whi, v)
		}
		h, via := rt.Number(n + hubs)
		hubs, viaHubs = hubs+int32(h), viaHubs+via
	}
	return graph.BuildHubs(int(n), int(hubs), viaHubs, graph.Edges{
		Items: len(comps),
		Range: func(lo, hi int, add graph.AddFunc) {
			for ci := lo; ci < hi; ci++ {
				for _, v := range comps[ci] {
					d.eachDataPred(v, func(u int32, rel graph.Rel) {
						if compOf[u] == int32(ci) {
							add(u, v, rel)
						}
					})
				}
			}
		},
		Serial: func(add graph.AddFunc) {
			for i := range links {
				links[i].Emit(add)
			}
		},
	})
}
