package txn

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/consistency"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// specFor is the typed search of a cycle anomaly type: the base type's
// relations and rw rule, plus the variant relation for -process and
// -realtime forms, which must be taken at least once. Steps take their
// edges' effective relations, so a found cycle classifies as its type.
func specFor(t consistency.CycleType, prec *graph.Precedence) graph.Spec {
	sp := graph.Spec{Effective: true, Precedence: prec}
	switch t.Base {
	case G0:
		sp.Allowed = graph.WW
	case G1c:
		sp.Allowed, sp.Required = graph.WW|graph.WR, []graph.Rel{graph.WR}
	case GSingleItem:
		sp.Allowed, sp.RW = graph.WW|graph.WR, graph.RWSingle
	case GNonadjacentItem:
		sp.Allowed, sp.RW, sp.MinRW = graph.WW|graph.WR, graph.RWNonadjacent, 2
	case G2Item:
		sp.Allowed, sp.RW = graph.WW|graph.WR, graph.RWAdjacent
	}
	if t.Variant != 0 {
		sp.Allowed |= t.Variant
		sp.Required = append(sp.Required, t.Variant)
	}
	return sp
}

// projectionSpec searches for any cycle in a cycle-exists projection: steps
// may take any relation the projection keeps, and under a sequential
// extension an rw step only right after a kept one. The first cycle found
// will do (the shortest through the first start that has one): it is
// evidence, and usually made redundant by a typed witness.
func projectionSpec(p consistency.Projection, prec *graph.Precedence) graph.Spec {
	sp := graph.Spec{Allowed: p.Keep &^ graph.RW, FirstFound: true, Precedence: prec}
	switch {
	case p.Keep&graph.RW != 0:
		sp.RW = graph.RWFree
	case p.Extend&graph.RW != 0:
		sp.RW, sp.MinRW = graph.RWNonadjacent, 0
	}
	return sp
}

// classify names a cycle by the relations its steps took, as Elle's cycle
// explainer does: by the number of rw steps (one: G-single-item; more:
// G2-item when two are consecutive, counting around, else
// G-nonadjacent-item), else G1c with a wr step, else G0; then -realtime
// with a realtime step, else -process with a process step.
func classify(rels []graph.Rel) string {
	var rw, wr, ww, process, realtime int
	adjacent := false
	for i, r := range rels {
		switch r {
		case graph.RW:
			rw++
			if rels[(i+1)%len(rels)] == graph.RW {
				adjacent = true
			}
		case graph.WR:
			wr++
		case graph.WW:
			ww++
		case graph.Process:
			process++
		case graph.Realtime:
			realtime++
		}
	}
	var base string
	switch {
	case rw == 1:
		base = GSingleItem
	case rw > 1 && adjacent:
		base = G2Item
	case rw > 1:
		base = GNonadjacentItem
	case wr > 0:
		base = G1c
	default:
		base = G0
	}
	switch {
	case realtime > 0:
		return base + "-realtime"
	case process > 0:
		return base + "-process"
	}
	return base
}

// cycles searches every strongly connected component of g, in Elle's way
// (elle.txn cycle-cases-in-scc) with hindsight's search: first the
// cycle-exists projections of every model, which rule out the cycle types
// their models forbid when they hold no cycle; then each cycle type the
// models make findable, in severity order, skipping those implied by a
// type already found in the component; one shortest witness per type and
// component. All of it under one budget per component, counted in search
// steps (graph.Budget), so where it runs out depends on the graph alone;
// when it does, the component gets a cycle-search-timeout and, as Elle
// does, some cycle of the component as a fallback witness, classified by
// its steps.
//
// The components are searched in parallel, each on its own, and what each
// found is reported after, in component order, so the result is the same
// for any number of workers.
func (c *checker) cycles(g *graph.Graph) {
	types, err := consistency.SearchTypes(c.opts.models(), c.opts.Anomalies)
	if err != nil {
		return // finish reports the bad option
	}
	comps := g.SCC()
	st := &c.res.Stats
	st.Components = int64(len(comps))
	found := make([]compCycles, len(comps))
	graph.EachComponent(g, comps, func(s *graph.Searcher, i int) {
		found[i] = c.searchComponent(s, comps[i], types)
	})
	for i, comp := range comps {
		st.LargestComponent = max(st.LargestComponent, int64(len(comp)))
		f := &found[i]
		for _, fc := range f.found {
			in := c.cycleInstance(fc.cyc)
			if fc.proj != nil {
				in.Not, in.Subgraph = fc.proj.Not(), subgraphText(*fc.proj)
				in.SCCSize = analysis.IntPtr(int64(len(comp)))
				in.SCC = c.compIndices(comp)
			}
			c.add(fc.name, in)
		}
		if f.timedOut {
			c.timeout(comp, f)
		}
	}
}

// compCycles is what the cycle search found in one component, before it
// becomes instances: the cycles, in the order found, and, when the budget
// ran out, the type it was looking for, the types searched before, and a
// fallback cycle.
type compCycles struct {
	found    []foundCycle
	timedOut bool
	current  string
	searched []string
	fallback graph.Cycle
}

// foundCycle is one cycle found, named by the type (or projection) it
// was searched for.
type foundCycle struct {
	name string
	cyc  graph.Cycle
	proj *consistency.Projection // for a cycle-exists projection's cycle
}

// searchComponent runs cycles' search on one component with searcher s.
// It touches nothing of c but the options and precedence it reads, so
// that components can be searched at once.
func (c *checker) searchComponent(s *graph.Searcher, comp []int32, types []consistency.CycleType) compCycles {
	var f compCycles
	budget := graph.BudgetFor(c.opts.CycleBudget)
	all := consistency.Projections()
	found := consistency.CycleExists(all, func(p consistency.Projection) bool {
		if f.timedOut {
			return false
		}
		f.current = p.Anomaly()
		cyc, ok, ex := s.ShortestTyped(comp, projectionSpec(p, c.prec), budget)
		if ex {
			f.timedOut = true
		}
		if !ok {
			return false
		}
		f.found = append(f.found, foundCycle{name: p.Anomaly(), cyc: cyc, proj: &p})
		return true
	})
	skip := consistency.Set{}
	if !f.timedOut {
		skip = consistency.ImpossibleCycleTypes(all, found)
	}
	for _, t := range types {
		if f.timedOut {
			break
		}
		if skip.Has(t.Name) {
			continue
		}
		f.current = t.Name
		cyc, ok, ex := s.ShortestTyped(comp, specFor(t, c.prec), budget)
		if ex {
			f.timedOut = true
		}
		if ok {
			f.found = append(f.found, foundCycle{name: t.Name, cyc: cyc})
			for im := range consistency.ImpliedAnomalies(t.Name) {
				skip[im] = struct{}{}
			}
		}
		if !f.timedOut {
			f.searched = append(f.searched, t.Name)
		}
	}
	if f.timedOut {
		f.fallback = s.AnyCycle(comp, c.prec)
	}
	return f
}

// timeout records that the search of comp ran out of its budget while
// looking for f.current, after searching for the types in f.searched, and
// adds f's fallback cycle of the component (classified by its steps)
// unless the search found that very cycle.
func (c *checker) timeout(comp []int32, f *compCycles) {
	var notFound []string
	for _, t := range f.searched {
		if len(c.res.Anomalies[t]) == 0 {
			notFound = append(notFound, t)
		}
	}
	in := &Instance{SpecType: f.current, DoesNotContain: notFound, SCCSize: analysis.IntPtr(int64(len(comp)))}
	if notFound == nil {
		in.DoesNotContain = []string{}
	}
	in.Witness = c.witness(c.vrec[comp[0]])
	c.add(CycleSearchTimeout, in)
	c.unknownReason("%s: the cycle search ran out of its budget (%s) in a component of %d txns starting at op %d, "+
		"while looking for %s; cycles of later types may be missing", CycleSearchTimeout, graph.BudgetText(c.opts.CycleBudget),
		len(comp), c.idx(c.vrec[comp[0]]), f.current)
	// the fallback shows the component's cycles when the search found
	// none; one it found already (a ring whose one cycle was found before
	// the budget ran out looking for a shorter one) is not reported twice
	for _, fc := range f.found {
		if fc.cyc.SameAs(f.fallback) {
			return
		}
	}
	c.add(classify(f.fallback.Rels), c.cycleInstance(f.fallback))
}

// cycleInstance turns a cycle of vertices into an instance rotated to its
// lowest op index, every step explained.
func (c *checker) cycleInstance(cyc graph.Cycle) *Instance {
	n := len(cyc.Vertices)
	m := 0
	for i, v := range cyc.Vertices {
		if c.idx(c.vrec[v]) < c.idx(c.vrec[cyc.Vertices[m]]) {
			m = i
		}
	}
	in := &Instance{CycleFields: &analysis.CycleFields{}}
	var recs []int32
	for j := range n {
		i := (m + j) % n
		u, v := c.vrec[cyc.Vertices[i]], c.vrec[cyc.Vertices[(i+1)%n]]
		in.Cycle = append(in.Cycle, c.idx(u))
		st := c.step(u, v, cyc.Rels[i])
		in.Steps = append(in.Steps, st)
		recs = append(recs, u)
		if r := c.recOfIndex(st.OrderOp); r >= 0 {
			recs = append(recs, r) // the read (list-append) or txn (rw-register's wfr-keys) that showed the step's order
		}
		for k := range st.OrderOps { // rw-register: the two txns behind the step's version order
			if r := c.recOfIndex(&st.OrderOps[k]); r >= 0 {
				recs = append(recs, r)
			}
		}
		for k := range st.ContradictedBy { // the reads that contest the step's order
			if r := c.recOfIndex(&st.ContradictedBy[k]); r >= 0 {
				recs = append(recs, r)
			}
		}
	}
	in.SetProof(c.inf.orderOp)
	for _, a := range in.Assumes { // the read whose order each assumption takes
		if r := c.recOfIndex(a.OrderOp); r >= 0 {
			recs = append(recs, r)
		}
	}
	in.Witness = c.witness(recs...)
	return in
}

// recOfIndex finds the rec whose completion (or open invocation) has op
// index *idx, or -1 (also for nil).
func (c *checker) recOfIndex(idx *int64) int32 {
	if idx == nil {
		return -1
	}
	if c.index == nil {
		c.index = model.NewIndexMap(c.h)
	}
	pos := c.index.Pos(*idx)
	if pos < 0 {
		return -1
	}
	// recs are in the order of their completions (records), so a
	// completion's rec is found without the position table, which the
	// cycle search, the check's memory peak, goes without
	if r, ok := slices.BinarySearchFunc(c.recs, int32(pos), func(rc rec, p int32) int { return cmp.Compare(rc.comp, p) }); ok {
		return int32(r)
	}
	return c.recAtPos()[pos] // an invocation's index: rare
}

// step explains the edge from rec u to rec v taken as rel.
func (c *checker) step(u, v int32, rel graph.Rel) analysis.Step {
	if rel == graph.Process || rel == graph.Realtime {
		return c.orderStep(u, v, rel)
	}
	return c.inf.explain(u, v, rel)
}

// compIndices lists the op indices of a component's txns, sorted.
func (c *checker) compIndices(comp []int32) []int64 {
	ids := make([]int64, len(comp))
	for i, v := range comp {
		ids[i] = c.idx(c.vrec[v])
	}
	slices.Sort(ids)
	return ids
}

// subgraphText describes a projection: "ww+wr+realtime, extended by rw".
func subgraphText(p consistency.Projection) string {
	s := p.Keep.String()
	if p.Extend != 0 {
		s += ", extended by " + p.Extend.String()
	}
	return s
}
