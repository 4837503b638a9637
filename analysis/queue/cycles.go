package queue

import (
	"fmt"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// buildGraph builds the dependency graph of spec/queue.md §4 on the send,
// poll and txn records, every edge of it. It returns the graph and, per
// vertex, its record. cycles works on the same graph held as a depGraph,
// which makes only the edges inside cyclic components; the tests check
// one against the other.
//
// Realtime edges are sparse: from the frontier of ok completions not yet
// superseded to each invocation. A completion supersedes the members that
// were in the frontier at its invocation, which are those that entered it
// before (members leave, never return): the frontier is a window of the ok
// vertices in completion order, from which a completion removes a prefix.
// So each vertex's out-degree is known before any edge is made (the
// invocations while it was in the window, its reads by others, its next
// op), and the graph is built in one pass over the edges.
func (c *checker) buildGraph() (*graph.Graph, []int32) {
	var vrec []int32
	for ri, r := range c.recs {
		if r.vertex >= 0 {
			vrec = append(vrec, int32(ri))
		}
	}
	// the vertex of each message's writer, or -1
	wv := make([]int32, len(c.writer))
	for m, w := range c.writer {
		wv[m] = -1
		if w >= 0 {
			wv[m] = c.recs[w].vertex
		}
	}
	// Out-degree bounds: reads of each writer's messages (its own included),
	// ww, process and realtime edges.
	bound := make([]int32, len(vrec))
	for _, ri := range vrec {
		if r := &c.recs[ri]; r.comp != r.inv {
			for _, m := range c.mops(ri) {
				for _, kp := range c.h.PollsOf(&m) {
					for _, rd := range c.h.ReadsOf(&kp) {
						if w := wv[rd.Msg]; w >= 0 {
							bound[w]++
						}
					}
				}
			}
		}
	}
	if c.opts.WWDeps {
		for _, kept := range c.kept {
			for p := 1; p < len(kept); p++ {
				if w1, w2 := wv[kept[p-1]], wv[kept[p]]; w1 >= 0 && w2 >= 0 {
					bound[w1]++
				}
			}
		}
	}
	lastOf := filled(len(c.procIDs), -1) // vertex
	for _, ri := range vrec {
		r := &c.recs[ri]
		if prev := lastOf[r.proc]; prev >= 0 {
			bound[prev]++
		}
		lastOf[r.proc] = r.vertex
	}
	var win realtimeWindow
	nok := 0
	for _, ri := range vrec {
		if c.recs[ri].typ == model.OK {
			nok++
		}
	}
	win.order, win.entry, win.inv = make([]int32, 0, nok), make([]int32, 0, nok), make([]int32, 0, nok)
	win.walk(c, func(v int32) {}, func(f int32, n int32) { bound[f] += n })

	emit := func(add func(from, to int32, rel graph.Rel)) {
		// wr: writer -> reader
		for _, ri := range vrec {
			r := &c.recs[ri]
			if r.comp == r.inv {
				continue
			}
			mops := c.mops(ri)
			for mi := range mops {
				if mops[mi].Kind != model.MopPoll {
					continue
				}
				for _, kp := range c.h.PollsOf(&mops[mi]) {
					for _, rd := range c.h.ReadsOf(&kp) {
						if w := wv[rd.Msg]; w >= 0 {
							add(w, r.vertex, graph.WR)
						}
					}
				}
			}
		}
		// ww: writer of each listed value -> writer of the one listed at the
		// next position (values sharing a position get none: package doc)
		if c.opts.WWDeps {
			for _, kept := range c.kept {
				for p := 1; p < len(kept); p++ {
					if w1, w2 := wv[kept[p-1]], wv[kept[p]]; w1 >= 0 && w2 >= 0 {
						add(w1, w2, graph.WW)
					}
				}
			}
		}
		// process order
		lastOf := filled(len(c.procIDs), -1) // vertex
		for _, ri := range vrec {
			r := &c.recs[ri]
			if prev := lastOf[r.proc]; prev >= 0 {
				add(prev, r.vertex, graph.Process)
			}
			lastOf[r.proc] = r.vertex
		}
		// realtime
		win.walk(c, func(v int32) {
			for _, f := range win.members() {
				add(f, v, graph.Realtime)
			}
		}, nil)
	}
	g := graph.BuildBounded(len(vrec), bound, emit)
	return g, vrec
}

// realtimeWindow is the frontier of buildGraph: ok vertices in completion
// order, those from head on being in the frontier.
type realtimeWindow struct {
	order []int32 // vertices
	entry []int32 // op position of each one's completion
	inv   []int32 // invocations seen when it entered
	head  int
}

func (w *realtimeWindow) members() []int32 { return w.order[w.head:] }

// walk goes through the history's op lines, calling invoked at each
// vertex's invocation (the frontier then holds its realtime predecessors)
// and, with left non-nil, left(f, n) for each vertex f leaving the frontier
// (or still in it at the end), n being the invocations it saw.
func (w *realtimeWindow) walk(c *checker, invoked func(v int32), left func(f, n int32)) {
	w.order, w.entry, w.inv, w.head = w.order[:0], w.entry[:0], w.inv[:0], 0
	invs := int32(0)
	for i, ri := range c.events() {
		if ri < 0 {
			continue
		}
		r := &c.recs[ri]
		if r.vertex < 0 {
			continue
		}
		if int32(i) == r.inv {
			invoked(r.vertex)
			invs++
			continue
		}
		if r.typ == model.OK {
			v := r.vertex
			// the members that were in the frontier at v's invocation leave
			inv := r.inv
			for w.head < len(w.order) && w.entry[w.head] < inv {
				if left != nil {
					left(w.order[w.head], invs-w.inv[w.head])
				}
				w.head++
			}
			w.order = append(w.order, v)
			w.entry = append(w.entry, int32(i))
			w.inv = append(w.inv, invs)
		}
	}
	if left != nil {
		for ; w.head < len(w.order); w.head++ {
			left(w.order[w.head], invs-w.inv[w.head])
		}
	}
}

type cycleType struct {
	name string
	// extra is the relation beyond ww/wr that the type needs (0: none).
	extra graph.Rel
	g1c   bool
}

var cycleTypes = []cycleType{
	{G0, 0, false}, {G0Process, graph.Process, false}, {G0Realtime, graph.Realtime, false},
	{G1c, 0, true}, {G1cProcess, graph.Process, true}, {G1cRealtime, graph.Realtime, true},
}

// cycles finds, per strongly connected component, one shortest cycle of each
// type, under the cycle budget.
func (c *checker) cycles() {
	d := c.newDepGraph()
	st := &c.res.Stats
	edges, stretches := d.census()
	st.GraphVertices, st.GraphEdges = int64(len(d.vrec)), edges
	comps := d.scc(stretches)
	st.Components = int64(len(comps))
	if len(comps) == 0 {
		return
	}
	vrec := d.vrec
	s := graph.NewSearcher(d.inside(comps))
	for _, comp := range comps {
		st.LargestComponent = max(st.LargestComponent, int64(len(comp)))
		var deadline time.Time
		if c.opts.CycleBudget > 0 {
			deadline = time.Now().Add(c.opts.CycleBudget)
		}
		exhausted := false
		for _, ct := range cycleTypes {
			if !ct.g1c && !c.opts.WWDeps {
				continue // no ww edges, no G0
			}
			var queries []graph.CycleQuery
			var allowedFlags []bool
			if ct.g1c {
				req := []graph.Rel{graph.WR}
				if ct.extra != 0 {
					req = append(req, ct.extra)
				}
				queries = append(queries, graph.CycleQuery{Allowed: graph.WR | ct.extra, Required: req})
				allowedFlags = append(allowedFlags, false)
				if c.opts.WWDeps {
					queries = append(queries, graph.CycleQuery{Allowed: graph.WW | graph.WR | ct.extra, Required: req})
					allowedFlags = append(allowedFlags, true)
				}
			} else {
				q := graph.CycleQuery{Allowed: graph.WW | ct.extra}
				if ct.extra != 0 {
					q.Required = []graph.Rel{ct.extra}
				}
				queries = append(queries, q)
				allowedFlags = append(allowedFlags, false)
			}
			for qi, q := range queries {
				cyc, found, ex := s.ShortestCycle(comp, q, deadline)
				if ex {
					exhausted = true
				}
				if found {
					in := c.cycleInstance(cyc, vrec)
					in.Allowed = allowedFlags[qi]
					c.res.Add(ct.name, in)
					break
				}
				if ex {
					break
				}
			}
		}
		if exhausted {
			c.res.UnknownReasons = append(c.res.UnknownReasons, fmt.Sprintf(
				"cycle search ran out of its budget (%s) in a component of %d ops starting at op %d; cycles may be missing",
				c.opts.CycleBudget, len(comp), c.compIdx(vrec[comp[0]])))
		}
	}
}

// cycleInstance turns a cycle of vertices into an instance, rotated to its
// lowest op index, with every step explained.
func (c *checker) cycleInstance(cyc graph.Cycle, vrec []int32) analysis.Instance {
	n := len(cyc.Vertices)
	m := 0
	for i, v := range cyc.Vertices {
		if c.compIdx(vrec[v]) < c.compIdx(vrec[cyc.Vertices[m]]) {
			m = i
		}
	}
	var in analysis.Instance
	var recs []int32
	for j := range n {
		i := (m + j) % n
		u, v := vrec[cyc.Vertices[i]], vrec[cyc.Vertices[(i+1)%n]]
		in.Cycle = append(in.Cycle, c.compIdx(u))
		in.Steps = append(in.Steps, c.explainStep(u, v, cyc.Rels[i]))
		recs = append(recs, u)
	}
	in.Witness = c.witness(recs...)
	return in
}

// explainStep says why the edge u -> v exists: for wr, which value of which
// key v read from u; for ww, which two consecutive values of a key u and v
// wrote. Process and realtime edges need no key.
func (c *checker) explainStep(u, v int32, rel graph.Rel) analysis.Step {
	st := analysis.Step{From: c.compIdx(u), To: c.compIdx(v), Rel: rel.String()}
	if rel&graph.WR != 0 {
		for _, m := range c.mops(v) {
			for _, kp := range c.h.PollsOf(&m) {
				for _, rd := range c.h.ReadsOf(&kp) {
					if c.writer[rd.Msg] == u {
						st.Key, st.Value = c.keyVal(kp.Key), c.msgValP(rd.Msg)
						st.Offsets = []int64{rd.Offset()}
						return st
					}
				}
			}
		}
	}
	if rel&graph.WW != 0 {
		for _, m := range c.mops(u) {
			if m.Kind != model.MopSend || c.first[m.Msg] < 0 {
				continue
			}
			kept := c.kept[m.Key]
			for p := c.first[m.Msg]; p <= c.last[m.Msg] && int(p)+1 < len(kept); p++ {
				if kept[p] == m.Msg && c.writer[kept[p+1]] == v {
					st.Key = c.keyVal(m.Key)
					st.Values = []analysis.Value{c.msgVal(m.Msg), c.msgVal(kept[p+1])}
					st.Offsets = []int64{c.offsets[m.Key][p], c.offsets[m.Key][p+1]}
					return st
				}
			}
		}
	}
	return st
}
