package queue

import (
	"fmt"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// realtimeWindow is the realtime frontier of the dependency graph
// (graph.Frontier) over order, the ok vertices in completion order.
type realtimeWindow struct {
	order []int32 // vertices
	fr    graph.Frontier
}

func (w *realtimeWindow) members() []int32 {
	lo, hi := w.fr.Window()
	return w.order[lo:hi]
}

// walk goes through the history's op lines, calling invoked at each
// vertex's invocation (the frontier then holds its realtime predecessors).
func (w *realtimeWindow) walk(c *checker, invoked func(v int32)) {
	w.order, w.fr = w.order[:0], graph.Frontier{}
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
			continue
		}
		if r.typ == model.OK {
			w.fr.Complete(r.inv, int32(i))
			w.order = append(w.order, r.vertex)
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
// type, under the cycle budget (counted in search steps, graph.Budget, so
// that where it runs out depends on the graph alone). The components are
// searched in parallel and reported after, in component order, so the
// result is the same for any number of workers.
func (c *checker) cycles() {
	d := c.newDepGraph()
	st := &c.res.Stats
	edges, stretches := d.census()
	st.GraphVertices, st.GraphEdges = int64(len(d.vrec)), edges
	comps := d.scc(stretches)
	st.Components = int64(len(comps))
	if d.tooLarge > 0 {
		c.res.UnknownReasons = append(c.res.UnknownReasons, graph.TooLarge(d.tooLarge))
	}
	if len(comps) == 0 {
		return
	}
	vrec := d.vrec
	found := make([]compCycles, len(comps))
	in := d.inside(comps)
	if in == nil {
		c.res.UnknownReasons = append(c.res.UnknownReasons, graph.TooLarge(len(vrec)))
		return
	}
	graph.EachComponent(in, comps, func(s *graph.Searcher, i int) {
		found[i] = c.searchComponent(s, comps[i])
	})
	for i, comp := range comps {
		st.LargestComponent = max(st.LargestComponent, int64(len(comp)))
		for _, fc := range found[i].found {
			in := c.cycleInstance(fc.cyc, vrec)
			in.Allowed = fc.allowed
			c.res.Add(fc.name, in)
		}
		if found[i].exhausted {
			c.res.UnknownReasons = append(c.res.UnknownReasons, fmt.Sprintf(
				"cycle search ran out of its budget (%s) in a component of %d ops starting at op %d; cycles may be missing",
				graph.BudgetText(c.opts.CycleBudget), len(comp), c.compIdx(vrec[comp[0]])))
		}
	}
}

// compCycles is what the cycle search found in one component, before it
// becomes instances.
type compCycles struct {
	found     []foundCycle
	exhausted bool
}

// foundCycle is one cycle found, with its type and whether it needed ww
// edges (--ww-deps).
type foundCycle struct {
	name    string
	cyc     graph.Cycle
	allowed bool
}

// searchComponent runs cycles' search on one component with searcher s,
// under a budget of its own. It only reads c's options, so that
// components can be searched at once.
func (c *checker) searchComponent(s *graph.Searcher, comp []int32) compCycles {
	var f compCycles
	budget := graph.BudgetFor(c.opts.CycleBudget)
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
			cyc, found, ex := s.ShortestCycle(comp, q, budget)
			if ex {
				f.exhausted = true
			}
			if found {
				f.found = append(f.found, foundCycle{name: ct.name, cyc: cyc, allowed: allowedFlags[qi]})
				break
			}
			if ex {
				break
			}
		}
	}
	return f
}

// cycleInstance turns a cycle of vertices into an instance, rotated to its
// lowest op index, with every step explained.
func (c *checker) cycleInstance(cyc graph.Cycle, vrec []int32) *Instance {
	n := len(cyc.Vertices)
	m := 0
	for i, v := range cyc.Vertices {
		if c.compIdx(vrec[v]) < c.compIdx(vrec[cyc.Vertices[m]]) {
			m = i
		}
	}
	in := &Instance{CycleFields: &analysis.CycleFields{}}
	var recs []int32
	for j := range n {
		i := (m + j) % n
		u, v := vrec[cyc.Vertices[i]], vrec[cyc.Vertices[(i+1)%n]]
		in.Cycle = append(in.Cycle, c.compIdx(u))
		st, contra := c.explainStep(u, v, cyc.Rels[i])
		in.Steps = append(in.Steps, st)
		recs = append(recs, u)
		recs = append(recs, contra...)
	}
	in.SetProof(nil)
	in.Witness = c.witness(recs...)
	return in
}

// explainStep says why the edge u -> v exists: for wr, which value of which
// key v read from u; for ww, which two consecutive values of a key u and v
// wrote. Process and realtime edges need no key. It also returns the recs
// that contest a ww step's order (contest), for the witness.
func (c *checker) explainStep(u, v int32, rel graph.Rel) (analysis.Step, []int32) {
	st := analysis.Step{From: c.compIdx(u), To: c.compIdx(v), Rel: rel.String()}
	if rel&graph.WR != 0 {
		for _, m := range c.mops(v) {
			for _, kp := range c.h.PollsOf(&m) {
				for _, rd := range c.h.ReadsOf(&kp) {
					if c.writer[rd.Msg] == u {
						st.Key, st.Value = c.keyVal(kp.Key), c.msgValP(rd.Msg)
						st.Offsets = []int64{rd.Offset()}
						return st, nil
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
					return st, c.contest(&st, m.Key, p)
				}
			}
		}
	}
	return st, nil
}

// conflictObs is one value observed at a position that inconsistent-offsets
// found holding more than one, and the op (completion index) that observed
// it there.
type conflictObs struct {
	msg model.MsgID
	rec int32
}

// contest marks a ww step between the values kept at positions p and p+1
// of key k as Contested when inconsistent-offsets found another value at
// either position: the log order the step rests on is then the one the
// checker kept (the value observed first), which the ops that observed the
// other values there contradict (docs/queue.md, "Proofs"). An edge between
// positions no op disputes is proven by the offsets themselves.
func (c *checker) contest(st *analysis.Step, k model.KeyID, p int32) []int32 {
	var recs []int32
	for _, q := range []int32{p, p + 1} {
		for _, o := range c.conflicts[[2]int32{int32(k), q}] {
			if op := c.compIdx(o.rec); o.msg != c.kept[k][q] && !slices.Contains(st.ContradictedBy, op) {
				st.ContradictedBy = append(st.ContradictedBy, op)
				recs = append(recs, o.rec)
			}
		}
	}
	if len(st.ContradictedBy) > 0 {
		st.Contested = true
		slices.Sort(st.ContradictedBy)
	}
	return recs
}
