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
	// the vertex of each message's writer, or -1
	wv := make([]int32, len(c.writer))
	for m, w := range c.writer {
		wv[m] = -1
		if w >= 0 {
			wv[m] = c.recs[w].vertex
		}
	}
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
					w1, w2 := wv[kept[p-1]], wv[kept[p]]
					if w1 >= 0 && w2 >= 0 {
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
		// realtime, sparse: a frontier of ok completions not yet superseded
		var frontier []int32
		preds := make([][]int32, len(c.procIDs)) // frontier at the invocation of the process's in-flight ok vertex
		inPreds := make([]uint32, len(vrec))     // stamp: the vertex is in the preds being removed
		stamp := uint32(0)
		for i := range c.h.Ops {
			a := at[i]
			if a > 0 {
				v := a - 1
				for _, f := range frontier {
					add(f, v, graph.Realtime)
				}
				if r := &c.recs[vrec[v]]; r.typ == model.OK {
					preds[r.proc] = append(preds[r.proc][:0], frontier...)
				}
				continue
			}
			if a < 0 {
				v := -a - 1
				pv := preds[c.recs[vrec[v]].proc]
				stamp++
				for _, f := range pv {
					inPreds[f] = stamp
				}
				frontier = slices.DeleteFunc(frontier, func(f int32) bool { return inPreds[f] == stamp })
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
