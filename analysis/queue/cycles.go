package queue

import (
	"fmt"
	"slices"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// buildGraph builds the dependency graph of spec/queue.md §4 on the send,
// poll and txn records. It returns the graph and, per vertex, its record.
func (c *checker) buildGraph() (*graph.Graph, []int32) {
	var vrec []int32
	for ri, r := range c.recs {
		if r.vertex >= 0 {
			vrec = append(vrec, int32(ri))
		}
	}
	// at[pos] says which vertex an op line starts (v+1: its invocation) or
	// completes ok (-(v+1)); 0 for neither.
	at := make([]int32, len(c.h.Ops))
	for _, ri := range vrec {
		r := c.recs[ri]
		at[r.inv] = r.vertex + 1
		if r.typ == model.OK {
			at[r.comp] = -(r.vertex + 1)
		}
	}
	emit := func(add func(from, to int32, rel graph.Rel)) {
		// wr: writer -> reader
		for _, ri := range vrec {
			r := c.recs[ri]
			if r.comp == r.inv {
				continue
			}
			for _, m := range c.mops(ri) {
				for _, kp := range c.h.PollsOf(&m) {
					for _, rd := range c.h.ReadsOf(&kp) {
						if w := c.writer[rd.Msg]; w >= 0 && c.recs[w].vertex >= 0 {
							add(c.recs[w].vertex, r.vertex, graph.WR)
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
					w1, w2 := c.writer[kept[p-1]], c.writer[kept[p]]
					if w1 >= 0 && w2 >= 0 && c.recs[w1].vertex >= 0 && c.recs[w2].vertex >= 0 {
						add(c.recs[w1].vertex, c.recs[w2].vertex, graph.WW)
					}
				}
			}
		}
		// process order
		lastOf := map[int32]int32{}
		for _, ri := range vrec {
			p := c.op(c.recs[ri].comp).Process
			if prev, ok := lastOf[p]; ok {
				add(c.recs[prev].vertex, c.recs[ri].vertex, graph.Process)
			}
			lastOf[p] = ri
		}
		// realtime, sparse: a frontier of ok completions not yet superseded
		var frontier []int32
		preds := map[int32][]int32{} // in-flight ok vertex -> frontier at its invocation
		var free [][]int32           // spent preds slices, reused
		for i := range c.h.Ops {
			if a := at[i]; a > 0 {
				v := a - 1
				for _, f := range frontier {
					add(f, v, graph.Realtime)
				}
				if c.recs[vrec[v]].typ == model.OK {
					var buf []int32
					if n := len(free); n > 0 {
						buf, free = free[n-1], free[:n-1]
					}
					preds[v] = append(buf[:0], frontier...)
				}
				continue
			}
			if a := at[i]; a < 0 {
				v := -a - 1
				pv := preds[v]
				frontier = slices.DeleteFunc(frontier, func(f int32) bool { return slices.Contains(pv, f) })
				delete(preds, v)
				free = append(free, pv)
				frontier = append(frontier, v)
			}
		}
	}
	g := graph.BuildFunc(len(vrec), emit)
	return g, vrec
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
	g, vrec := c.buildGraph()
	st := &c.res.Stats
	st.GraphVertices, st.GraphEdges = int64(g.N()), int64(g.E())
	comps := g.SCC()
	st.Components = int64(len(comps))
	s := graph.NewSearcher(g)
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
