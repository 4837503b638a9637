package graph

import "slices"

// CycleQuery describes the cycles wanted: every edge must carry at least one
// relation of Allowed, and for each relation in Required some edge of the
// cycle must carry it.
type CycleQuery struct {
	Allowed  Rel
	Required []Rel
}

// Searcher finds typed shortest cycles inside components of one graph. It
// keeps its scratch arrays between searches; it is not safe for concurrent
// use.
type Searcher struct {
	g      *Graph
	comp   []int32 // vertex -> position in the component searched + 1 (0: none)
	stamp  []uint32
	parent []int32
	via    []Rel // the relations taken into each state
	gen    uint32
	queue  []int32
	// hubsOf holds, by the smallest vertex of each component, the hubs in
	// it (graphs with hubs only).
	hubsOf map[int32][]int32
	// blocked holds, by hub state, the vertices a hub's expansion passed
	// over because the vertex it stepped from has an edge of its own to
	// them (throughHubs); reset for each search tree.
	blocked map[int32][]int32
	// Steps counts search steps over the Searcher's life: edges taken
	// from a search state, search trees started, and, for each search,
	// the vertices and edges of the component it splits into parts first.
	// Budgets are counted in them (Budget).
	Steps int64
	// sized is the component whose size (search.size) was counted last,
	// by the address of its first vertex and its length, and sizeSteps
	// that size: the searches of one component, one per type, find it
	// once.
	sized     *int32
	sizedLen  int
	sizeSteps int64
	// onPath marks, by local vertex, the vertices of the walk simple
	// checks, those of the call with generation onPathGen.
	onPath    []uint32
	onPathGen uint32
}

// NewSearcher prepares a cycle search on g. With hubs it finds the
// components once more, hubs included, to know the hubs of each.
func NewSearcher(g *Graph) *Searcher {
	s := &Searcher{g: g, comp: make([]int32, g.N())}
	if g.hubs > 0 {
		s.hubsOf = map[int32][]int32{}
		s.blocked = map[int32][]int32{}
		n := int32(g.Real())
		for _, comp := range g.components() {
			if k, _ := slices.BinarySearch(comp, n); k < len(comp) && k > 0 {
				s.hubsOf[comp[0]] = comp[k:]
			}
		}
	}
	return s
}

// ShortestCycle returns a shortest cycle within comp (a strongly connected
// component from SCC) that satisfies q: ShortestTyped with every step
// taking all the relations of q.Allowed its edge carries (Spec.Union), and
// no rw rule.
//
// With one required relation the result is always a simple cycle and the
// shortest one. With two or more, the search keeps only simple cycles and
// returns the shortest one its BFS trees reach, which may not be the shortest
// that exists.
func (s *Searcher) ShortestCycle(comp []int32, q CycleQuery, b *Budget) (best Cycle, found, exhausted bool) {
	return s.ShortestTyped(comp, Spec{Allowed: q.Allowed, Required: q.Required, Union: true}, b)
}

// ShortestTyped returns a shortest simple cycle within comp (a strongly
// connected component from SCC) that satisfies sp, and the relation each of
// its steps took (Cycle.Rels holds one relation a step). It first splits
// comp into the strongly connected components of the edges sp can use at
// all and keeps the starts that lie in one holding the relations the cycle
// needs (a linear test that rules most types out at once); then it
// searches breadth-first from each start over states (vertex, required
// relations taken, rw state), bounded by the shortest cycle found so far.
// The search spends its steps from b (nil: no limit) and stops when b is
// spent; exhausted then says the answer may not be the shortest, or that
// one may exist though none was found. Since the budget counts steps, not
// time, where a search stops depends on the graph alone. Cycles are
// rotated to start at their smallest vertex.
//
// Under the rules that fix a rotation (RWSingle and RWAdjacent start on an
// rw step; RWNonadjacent ends on a non-rw step) and with two required
// relations, a closed walk that repeats a vertex is not a cycle and is
// passed over, so the result is the shortest simple cycle the search trees
// reach, which is the shortest that exists in all but contrived graphs.
//
// The hubs of comp's component (hubs.go) are searched with it: a path from
// u through hubs to v is one realtime step u → v, taken only where u has
// no edge of its own to v (that edge, realtime included, stands for the
// pair), so cycles name real vertices only.
//
// Cost: O(|comp| + E_comp) for the split; then O(starts · S · (|comp| +
// E_comp)) time in the worst case, S = 2^len(Required) · (6 under
// RWNonadjacent, else 1), pruned by the best length found; O(|comp| · S)
// scratch memory. Hubs add their vertices and edges to comp's, and
// O(log V) to each step that could also be realtime.
func (s *Searcher) ShortestTyped(comp []int32, sp Spec, b *Budget) (best Cycle, found, exhausted bool) {
	if b.Exhausted() {
		return Cycle{}, false, true
	}
	base := s.Steps
	defer func() { b.spend(s.Steps - base) }()
	limit := b.limit(base)
	t := s.begin(comp, sp)
	defer t.end()
	if s.sized != &comp[0] || s.sizedLen != len(comp) {
		s.sized, s.sizedLen, s.sizeSteps = &comp[0], len(comp), t.size()
	}
	s.Steps += s.sizeSteps
	starts := t.starts()
	if len(starts) == 0 {
		return Cycle{}, false, false
	}
	t.alloc()
	removable := (sp.RW == RWNone || sp.RW == RWFree) && t.nreq <= 1
	bestLen := len(comp) + 1
	for _, start := range starts {
		if bestLen == 2 {
			break // no cycle is shorter than two edges
		}
		if s.comp[start] == 0 {
			continue
		}
		closed, ex := t.tree(start, bestLen, limit)
		if closed >= 0 {
			if path := s.path(closed); len(path) < bestLen {
				bestLen, found = len(path), true
				best = t.cycle(path)
			}
		}
		if ex {
			exhausted = true
			break
		}
		if found && sp.FirstFound {
			break
		}
		// With at most one required relation and no rw rule that fixes a
		// rotation, every cycle through start has been weighed: later
		// trees need not pass through it.
		if removable {
			s.comp[start] = 0
		}
	}
	if !found {
		return Cycle{}, false, exhausted
	}
	best.rotateToSmallest()
	return best, true, exhausted
}

// search is the state of one ShortestTyped call.
type search struct {
	s     *Searcher
	sp    Spec
	comp  []int32 // the component's vertices, then its hubs
	nreal int     // how many of comp are real vertices
	part  []int32 // per position in comp: its part (partition), or -1
	nreq  int
	rwn   int32 // rw states
	S     int32 // states per vertex
	full  int32 // all required relations taken

	// the tree being searched
	start    int32
	sp0      int32 // start's part
	closed   int32 // the state a closing step left, or -1
	closeRel Rel
}

// begin marks comp and its hubs in s.comp and splits them into parts.
func (s *Searcher) begin(comp []int32, sp Spec) *search {
	t := &search{s: s, sp: sp, comp: comp, nreal: len(comp), nreq: len(sp.Required)}
	if hubs := s.hubsOf[comp[0]]; len(hubs) > 0 {
		t.comp = append(slices.Clip(comp), hubs...)
	}
	t.rwn = int32(sp.rwStates())
	t.S = int32(1<<t.nreq) * t.rwn
	t.full = int32(1)<<t.nreq - 1
	for i, v := range t.comp {
		s.comp[v] = int32(i) + 1
	}
	t.part = s.partition(t.comp, func(r Rel) bool { o, rw := sp.options(r); return o != 0 || rw })
	return t
}

// size is the number of vertices and edges of the component (hubs
// included): the work of splitting it, in search steps. ShortestTyped
// counts it for every search but finds it once per component.
func (t *search) size() int64 {
	g := t.s.g
	n := int64(len(t.comp))
	for _, v := range t.comp {
		n += int64(g.start[v+1] - g.start[v])
	}
	return n
}

// end unmarks what begin marked.
func (t *search) end() {
	for _, v := range t.comp {
		t.s.comp[v] = 0
	}
}

func (t *search) local(v int32) int32 { return t.s.comp[v] - 1 }

// inPart says whether w is in the part the current tree searches.
func (t *search) inPart(w int32) bool {
	return t.s.comp[w] != 0 && t.part[t.local(w)] == t.sp0
}

func (t *search) reqBits(r Rel) int32 {
	var f int32
	for i, x := range t.sp.Required {
		if r&x != 0 {
			f |= 1 << i
		}
	}
	return f
}

// starts returns the vertices to search from: those in a part that holds
// every required relation (and an rw step, if the rule needs one) on an
// edge inside it; under a rule that starts on an rw step, only tails of rw
// edges.
func (t *search) starts() []int32 {
	s, g, sp := t.s, t.s.g, &t.sp
	needRW := sp.RW == RWSingle || sp.RW == RWAdjacent || sp.RW == RWNonadjacent && sp.MinRW > 0
	partHas := map[int32]int32{} // part -> required bits seen (bit nreq: rw)
	var starts []int32
	for i, v := range t.comp[:t.nreal] {
		p := t.part[i]
		if p < 0 {
			continue
		}
		for _, a := range g.Out(v) {
			w := a.To()
			if s.comp[w] == 0 || t.part[t.local(w)] != p {
				continue
			}
			o, rw := sp.options(a.Rel())
			bits := t.reqBits(o)
			if rw {
				bits |= t.reqBits(RW) | 1<<t.nreq
			}
			partHas[p] |= bits
			if rw && sp.startsOnRW() && (len(starts) == 0 || starts[len(starts)-1] != v) {
				starts = append(starts, v)
			}
		}
	}
	want := t.full
	if needRW {
		want |= 1 << t.nreq
	}
	okPart := func(p int32) bool { return p >= 0 && partHas[p]&want == want }
	if !sp.startsOnRW() {
		for i, v := range t.comp[:t.nreal] {
			if okPart(t.part[i]) {
				starts = append(starts, v)
			}
		}
		return starts
	}
	return slices.DeleteFunc(starts, func(v int32) bool { return !okPart(t.part[t.local(v)]) })
}

// alloc sizes the scratch arrays for comp's states.
func (t *search) alloc() {
	s := t.s
	nstates := len(t.comp) * int(t.S)
	if cap(s.stamp) < nstates {
		s.stamp = make([]uint32, nstates)
		s.parent = make([]int32, nstates)
		s.gen = 0
	}
	if cap(s.via) < nstates {
		s.via = make([]Rel, nstates)
	}
	s.stamp, s.parent, s.via = s.stamp[:nstates], s.parent[:nstates], s.via[:nstates]
}

// tree searches breadth-first from start for a cycle shorter than
// bestLen steps, and returns the state its closing step left (-1: none),
// and whether the Searcher's step count reached limit before it was done.
func (t *search) tree(start int32, bestLen int, limit int64) (closed int32, exhausted bool) {
	s := t.s
	s.Steps++
	s.gen++
	if s.gen == 0 { // wrapped: clear stamps
		clear(s.stamp)
		s.gen = 1
	}
	clear(s.blocked)
	t.start, t.sp0, t.closed = start, t.part[t.local(start)], -1
	st0 := t.local(start) * t.S
	s.stamp[st0], s.parent[st0], s.via[st0] = s.gen, -1, 0
	s.queue = append(s.queue[:0], st0)
	depth, levelEnd := 0, 1
	for qi := 0; qi < len(s.queue) && t.closed < 0; qi++ {
		if qi == levelEnd {
			depth++
			levelEnd = len(s.queue)
		}
		if depth+1 >= bestLen {
			break
		}
		if s.Steps >= limit {
			return t.closed, true
		}
		t.expand(s.queue[qi], depth)
	}
	return t.closed, false
}

// expand takes every step from state cur, at depth depth, until one
// closes the cycle.
func (t *search) expand(cur int32, depth int) {
	g := t.s.g
	v := t.comp[cur/t.S]
	for _, a := range g.Out(v) {
		w := a.To()
		if !t.inPart(w) {
			continue
		}
		if g.IsHub(w) {
			t.throughHubs(cur, v, w, depth)
		} else {
			r := a.Rel()
			if g.hubs > 0 && r&Realtime == 0 && t.realtimeMatters(r) && g.viaHub(v, w) {
				r |= Realtime // the pair is also linked through hubs
			}
			t.step(cur, w, r, depth)
		}
		if t.closed >= 0 {
			return
		}
	}
}

// realtimeMatters says whether an edge with relations r offers other steps
// when it is realtime too.
func (t *search) realtimeMatters(r Rel) bool {
	o1, rw1 := t.sp.options(r)
	o2, rw2 := t.sp.options(r | Realtime)
	return o1 != o2 || rw1 != rw2
}

// step takes the edge from state cur to w, with relations r, in each way
// the spec allows.
func (t *search) step(cur, w int32, r Rel, depth int) {
	o, rw := t.sp.options(r)
	if o != 0 {
		t.take(cur, w, o, depth)
	}
	if rw && t.closed < 0 {
		t.take(cur, w, RW, depth)
	}
}

// take takes one step from state cur to w as relation taken: it closes the
// cycle when w is the start, else reaches w's state.
func (t *search) take(cur, w int32, taken Rel, depth int) {
	flags, rwst := (cur%t.S)/t.rwn, (cur%t.S)%t.rwn
	nrw, ok := t.sp.stepRW(rwst, depth, taken == RW)
	if !ok {
		return
	}
	t.arrive(cur, w, taken, flags|t.reqBits(taken), nrw, depth)
}

// arrive is a step from state cur reaching w, as relation taken, with
// required relations nf and rw state nrw.
func (t *search) arrive(cur, w int32, taken Rel, nf, nrw int32, depth int) {
	s := t.s
	s.Steps++
	if w == t.start {
		// With two or more required relations the search can reach start
		// by a walk that passes a vertex twice, which is two cycles.
		if nf == t.full && t.sp.closes(nrw, depth) && s.simple(cur, t.S) {
			t.closed, t.closeRel = cur, taken
		}
		return
	}
	ns := t.local(w)*t.S + nf*t.rwn + nrw
	if s.stamp[ns] == s.gen {
		return
	}
	s.stamp[ns], s.parent[ns], s.via[ns] = s.gen, cur, taken
	s.queue = append(s.queue, ns)
}

// throughHubs takes the realtime steps from state cur (of vertex v) through
// hub h and the chain of hubs above it, each to a vertex of the current
// part that v has no edge of its own to. A hub is expanded once per tree
// and state after the step; a vertex passed over because of v's own edge
// waits in s.blocked for a later vertex that reaches the hub without one.
func (t *search) throughHubs(cur, v, h int32, depth int) {
	s, g := t.s, t.s.g
	o, _ := t.sp.options(Realtime)
	if o == 0 {
		return
	}
	flags, rwst := (cur%t.S)/t.rwn, (cur%t.S)%t.rwn
	nrw, ok := t.sp.stepRW(rwst, depth, false)
	if !ok {
		return
	}
	nf := flags | t.reqBits(o)
	for ; h >= 0 && t.inPart(h); h = g.hubOf(h) {
		hs := t.local(h)*t.S + nf*t.rwn + nrw
		if s.stamp[hs] != s.gen {
			s.stamp[hs] = s.gen
			for _, a := range g.Out(h) {
				x := a.To()
				if g.IsHub(x) || !t.inPart(x) {
					continue
				}
				if g.hasDirect(v, x) {
					s.blocked[hs] = append(s.blocked[hs], x)
					continue
				}
				if t.arrive(cur, x, o, nf, nrw, depth); t.closed >= 0 {
					return
				}
			}
			continue
		}
		waiting := s.blocked[hs]
		kept := waiting[:0]
		for i, x := range waiting {
			if g.hasDirect(v, x) {
				kept = append(kept, x)
				continue
			}
			if t.arrive(cur, x, o, nf, nrw, depth); t.closed >= 0 {
				s.blocked[hs] = append(kept, waiting[i+1:]...)
				return
			}
		}
		s.blocked[hs] = kept
	}
}
