package graph

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/graph/topo"
)

func randomGraph(r *rand.Rand, n, e int) *Graph {
	var b Builder
	for range e {
		u, v := r.Int32N(int32(n)), r.Int32N(int32(n))
		b.Add(u, v, Rel(1)<<r.IntN(4))
	}
	return b.Build(n)
}

// gonumSCC is what gonum's TarjanSCC finds in g, in SCC's form: the
// components of two or more vertices, each sorted, by their first vertex.
func gonumSCC(g *Graph) [][]int32 {
	var want [][]int32
	for _, c := range topo.TarjanSCC(g) {
		if len(c) < 2 {
			continue
		}
		var ids []int32
		for _, node := range c {
			ids = append(ids, int32(node.ID()))
		}
		slices.Sort(ids)
		want = append(want, ids)
	}
	slices.SortFunc(want, func(a, b []int32) int { return int(a[0] - b[0]) })
	return want
}

func TestSCCMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + r.IntN(40)
		g := randomGraph(r, n, r.IntN(3*n))
		want := gonumSCC(g)
		got := g.SCC()
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d: SCC = %v, gonum says %v", trial, got, want)
		}
	}
}

// forwardGraph is a graph whose edges mostly go up, as a transactional
// history's do (acyclicOut): a chain through every vertex, up edges, and
// one edge in back down a short way, so that only some vertices are in a
// back edge's span.
func forwardGraph(r *rand.Rand, n, e, back int) *Graph {
	var b Builder
	for v := int32(0); v+1 < int32(n); v++ {
		b.Add(v, v+1, Realtime)
	}
	for range e {
		u := r.Int32N(int32(n))
		w := u + 1 + r.Int32N(8)
		if r.IntN(back) == 0 {
			w = u - 1 - r.Int32N(6)
		}
		if w >= 0 && w < int32(n) {
			b.Add(u, w, Rel(1)<<r.IntN(4))
		}
	}
	return b.Build(n)
}

// wholeSCC is what components finds when pearce walks every vertex, as
// it did before acyclicOut.
func wholeSCC(g *Graph) [][]int32 { return g.componentsOf(make([]int32, g.N())) }

// TestSCCForwardGraphsMatchGonum: on graphs whose edges mostly go up,
// where acyclicOut leaves vertices out, the components are gonum's.
func TestSCCForwardGraphsMatchGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	left := 0
	for trial := range 300 {
		n := 2 + r.IntN(120)
		g := forwardGraph(r, n, r.IntN(3*n), 1+r.IntN(30))
		want := gonumSCC(g)
		if got := g.SCC(); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d: SCC = %v, gonum says %v", trial, got, want)
		}
		rindex := make([]int32, n)
		g.acyclicOut(rindex)
		for _, x := range rindex {
			if x == leftOut {
				left++
			}
		}
	}
	if left == 0 {
		t.Fatal("acyclicOut left no vertex out of any graph: the test tests nothing")
	}
}

// TestAcyclicOut: exactly the vertices in no back edge's span are left
// out.
func TestAcyclicOut(t *testing.T) {
	var b Builder
	for v := int32(0); v < 9; v++ {
		b.Add(v, v+1, Realtime)
	}
	b.Add(5, 3, WR) // span 3..5
	b.Add(8, 7, RW) // span 7..8
	b.Add(4, 2, WW) // span 2..4, overlapping the first
	g := b.Build(10)
	rindex := make([]int32, 10)
	g.acyclicOut(rindex)
	var out []int32
	for v, x := range rindex {
		if x == leftOut {
			out = append(out, int32(v))
		} else if x != 0 {
			t.Fatalf("vertex %d: rindex %d, want 0 or leftOut", v, x)
		}
	}
	if want := []int32{0, 1, 6, 9}; !slices.Equal(out, want) {
		t.Fatalf("left out %v, want %v", out, want)
	}
	if got, want := g.SCC(), [][]int32{{2, 3, 4, 5}, {7, 8}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("SCC = %v, want %v", got, want)
	}
}

// TestSCCLargeForwardGraph: on a graph large enough that acyclicOut's
// scan runs on every core, SCC finds what a walk of every vertex finds.
func TestSCCLargeForwardGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 1 << 18
	g := forwardGraph(r, n, 3*n, 50)
	got, want := g.SCC(), wholeSCC(g)
	if len(want) < 100 {
		t.Fatalf("only %d components: the graph is not the shape meant", len(want))
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("SCC found %d components, the whole walk %d", len(got), len(want))
	}
}

func TestSCCLongChainIsOneComponent(t *testing.T) {
	const n = 200000
	var b Builder
	for i := int32(0); i < n; i++ {
		b.Add(i, (i+1)%n, WR)
	}
	comps := b.Build(n).SCC()
	if len(comps) != 1 || len(comps[0]) != n {
		t.Fatalf("got %d components, want one of %d", len(comps), n)
	}
}

// bruteShortest enumerates simple cycles by DFS and returns the shortest
// length satisfying q (0: none).
func bruteShortest(g *Graph, q CycleQuery) int {
	n := g.N()
	best := 0
	var path []int32
	onPath := make([]bool, n)
	var dfs func(start, v int32, flags []uint32)
	full := uint32(1)<<len(q.Required) - 1
	flagsOf := func(r Rel) uint32 {
		var f uint32
		for i, x := range q.Required {
			if r&x != 0 {
				f |= 1 << i
			}
		}
		return f
	}
	dfs = func(start, v int32, flags []uint32) {
		for _, a := range g.Out(v) {
			w, r := a.To(), a.Rel()&q.Allowed
			if r == 0 {
				continue
			}
			nf := flags[len(flags)-1] | flagsOf(r)
			if w == start {
				if nf == full && (best == 0 || len(path) < best) {
					best = len(path)
				}
				continue
			}
			if w < start || onPath[w] {
				continue
			}
			onPath[w] = true
			path = append(path, w)
			dfs(start, w, append(flags, nf))
			path = path[:len(path)-1]
			onPath[w] = false
		}
	}
	for s := int32(0); s < int32(n); s++ {
		onPath[s] = true
		path = append(path[:0], s)
		dfs(s, s, []uint32{0})
		onPath[s] = false
	}
	return best
}

func TestShortestCycleMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	queries := []CycleQuery{
		{Allowed: WW},
		{Allowed: WW | WR, Required: []Rel{WR}},
		{Allowed: WW | WR | Process, Required: []Rel{WR, Process}},
		{Allowed: WW | Realtime, Required: []Rel{Realtime}},
	}
	misses := 0
	for trial := range 3000 {
		n := 2 + r.IntN(9)
		g := randomGraph(r, n, r.IntN(4*n))
		s := NewSearcher(g)
		for qi, q := range queries {
			want := bruteShortest(g, q)
			got := 0
			for _, comp := range g.SCC() {
				c, ok, ex := s.ShortestCycle(comp, q, nil)
				if ex {
					t.Fatal("exhausted without a deadline")
				}
				if !ok {
					continue
				}
				// the cycle must be real and satisfy the query
				var seen Rel
				for i, v := range c.Vertices {
					w := c.Vertices[(i+1)%len(c.Vertices)]
					rel := g.RelBetween(v, w) & q.Allowed
					if rel == 0 || rel != c.Rels[i] {
						t.Fatalf("trial %d query %d: step %d->%d has rel %v, cycle says %v", trial, qi, v, w, rel, c.Rels[i])
					}
					seen |= rel
				}
				for _, req := range q.Required {
					if seen&req == 0 {
						t.Fatalf("trial %d query %d: cycle %v lacks %v", trial, qi, c.Vertices, req)
					}
				}
				if len(slices.Compact(slices.Sorted(slices.Values(c.Vertices)))) != len(c.Vertices) {
					t.Fatalf("cycle %v is not simple", c.Vertices)
				}
				if slices.Min(c.Vertices) != c.Vertices[0] {
					t.Fatalf("cycle %v not rotated to its smallest vertex", c.Vertices)
				}
				if got == 0 || len(c.Vertices) < got {
					got = len(c.Vertices)
				}
			}
			if len(q.Required) > 1 {
				// heuristic for two required relations: never shorter than
				// the true shortest, and found whenever one exists.
				if (got == 0) != (want == 0) || got < want {
					misses++
					if got != 0 && got < want {
						t.Fatalf("trial %d query %d: found %d, shorter than brute force %d", trial, qi, got, want)
					}
				}
				continue
			}
			if got != want {
				t.Fatalf("trial %d query %d: shortest cycle %d, brute force %d", trial, qi, got, want)
			}
		}
	}
	t.Logf("two-relation queries that missed a cycle brute force found: %d", misses)
	if misses > 0 {
		t.Errorf("%d two-relation cycles missed", misses)
	}
}

func TestShortestCycleBudgetExhausts(t *testing.T) {
	// A big ring of ww edges with one wr edge: finding the G1c cycle needs a
	// long walk; a small budget must stop it and say so, at the same step
	// every time, and a budget big enough must find the cycle.
	const n = 50000
	var b Builder
	for i := int32(0); i < n; i++ {
		rel := WW
		if i == n/2 {
			rel = WR
		}
		b.Add(i, (i+1)%n, rel)
		b.Add(i, (i+7)%n, WW)
	}
	g := b.Build(n)
	comps := g.SCC()
	s := NewSearcher(g)
	q := CycleQuery{Allowed: WW | WR, Required: []Rel{WR}}
	var spent []int64
	for range 2 {
		b := NewBudget(1000)
		before := s.Steps
		_, found, ex := s.ShortestCycle(comps[0], q, b)
		if !ex || found {
			t.Fatalf("search with a budget of 1000 steps: found %v, exhausted %v; want exhausted, nothing found", found, ex)
		}
		if !b.Exhausted() {
			t.Fatal("the budget is not spent after the search ran out of it")
		}
		spent = append(spent, s.Steps-before)
	}
	if spent[0] != spent[1] || spent[0] < 1000 {
		t.Fatalf("two searches under the same budget took %v steps; want the same number, at least 1000", spent)
	}
	if _, _, ex := s.ShortestCycle(comps[0], q, NewBudget(1)); !ex {
		t.Fatal("a spent budget let a search run")
	}
	// The first tree closes the cycle; the later ones, looking for a
	// shorter one, may run out.
	if c, found, _ := s.ShortestCycle(comps[0], q, NewBudget(1_000_000)); !found || len(c.Vertices) < 3 {
		t.Fatalf("with a million steps: found %v, cycle %v", found, c.Vertices)
	}
}

func TestRelString(t *testing.T) {
	if got := (WR | Realtime | RW).String(); got != "wr+rw+realtime" {
		t.Fatalf("got %q", got)
	}
}

// testEdge is an edge of a random test graph.
type testEdge struct {
	u, v int32
	rel  Rel
}

// randomEdges returns m random edges on n vertices, each with one of the
// first rels relations.
func randomEdges(r *rand.Rand, n, m, rels int) []testEdge {
	es := make([]testEdge, m)
	for i := range es {
		es[i] = testEdge{r.Int32N(int32(n)), r.Int32N(int32(n)), Rel(1) << r.IntN(rels)}
	}
	return es
}

// builderGraph is the graph of es on n vertices as Builder makes it: the
// reference the other constructions are compared with.
func builderGraph(n int, es []testEdge) *Graph {
	var b Builder
	for _, x := range es {
		b.Add(x.u, x.v, x.rel)
	}
	return b.Build(n)
}

// sameGraph reports whether a and b have the same rows, targets and relations.
func sameGraph(a, b *Graph) bool {
	return slices.Equal(a.start, b.start) && slices.Equal(a.arcs, b.arcs)
}

func TestBuildFuncMatchesBuilder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		n := 1 + r.IntN(30)
		es := randomEdges(r, n, r.IntN(5*n), 4)
		got := BuildFunc(n, func(add func(int32, int32, Rel)) {
			for _, x := range es {
				add(x.u, x.v, x.rel)
			}
		})
		if !sameGraph(got, builderGraph(n, es)) {
			t.Fatalf("BuildFunc and Builder disagree on %v", es)
		}
	}
}

// TestBuildRangesMatchesBuilder builds graphs whose edges come in ranges
// emitted on four workers at once, with a serial rest, and checks each
// against Builder's: the order edges arrive in must not show.
func TestBuildRangesMatchesBuilder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(m int) { compactMinRows = m }(compactMinRows)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 60 {
		// half of the graphs have their rows sorted and compacted in
		// pieces of a few rows (compactRows), the others in one
		compactMinRows = []int{1 << 14, 1 + r.IntN(40)}[i%2]
		n := 1 + r.IntN(3000)
		es := randomEdges(r, n, 1+r.IntN(20*n), 5)
		split := r.IntN(len(es) + 1) // es[:split] in ranges, the rest serially
		got := Build(n, Edges{
			Items: split,
			Range: func(lo, hi int, add AddFunc) {
				for _, x := range es[lo:hi] {
					add(x.u, x.v, x.rel)
				}
			},
			Serial: func(add AddFunc) {
				for _, x := range es[split:] {
					add(x.u, x.v, x.rel)
				}
			},
		})
		if !sameGraph(got, builderGraph(n, es)) {
			t.Fatalf("n=%d, %d edges (%d in ranges), pieces of %d rows: Build and Builder disagree", n, len(es), split, compactMinRows)
		}
	}
}

// TestSortRow sorts rows made of a sorted run and a shuffled rest, of many
// lengths, and checks that each comes out sorted by target with its
// relations still beside their targets.
func TestSortRow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		n := r.IntN(120)
		run := r.IntN(n + 1)
		row := make([]Arc, n)
		for i := range row {
			row[i] = MakeArc(r.Int32N(50), Rel(1)<<r.IntN(5))
		}
		slices.SortFunc(row[:run], func(a, b Arc) int { return int(a.To() - b.To()) })
		want := slices.Sorted(slices.Values(row))
		sortRow(row)
		if !slices.IsSortedFunc(row, func(a, b Arc) int { return int(a.To() - b.To()) }) || !slices.Equal(slices.Sorted(slices.Values(row)), want) {
			t.Fatalf("row of %d edges (run %d): got %v", n, run, row)
		}
	}
}

// TestArcKeepsTargetAndRelations packs the extreme targets with every set
// of relations, and checks that Build refuses more vertices than an arc
// can name.
func TestArcKeepsTargetAndRelations(t *testing.T) {
	for _, v := range []int32{0, 1, 12345, MaxVertices - 1} {
		for r := Rel(0); r <= WW|WR|Process|Realtime|RW; r++ {
			if a := MakeArc(v, r); a.To() != v || a.Rel() != r {
				t.Fatalf("MakeArc(%d, %v) = %d: target %d, relations %v", v, r, a, a.To(), a.Rel())
			}
		}
	}
	if MakeArc(5, RW) <= MakeArc(4, WW|WR|Process|Realtime|RW) {
		t.Fatal("arcs do not sort by target first")
	}
	if g := Build(MaxVertices+1, Edges{}); g != nil {
		t.Fatalf("Build(MaxVertices+1) = a graph of %d vertices, want nil", g.N())
	}
}

// TestEachComponentSameResults searches a graph of many components, small
// rings and a big one, under a budget the big one runs out of, with one
// worker and with four: each component's result, and the steps it took,
// must be the same.
func TestEachComponentSameResults(t *testing.T) {
	var b Builder
	n := int32(0)
	ring := func(size int32, wrAt int32) {
		for i := int32(0); i < size; i++ {
			rel := WW
			if i == wrAt {
				rel = WR
			}
			b.Add(n+i, n+(i+1)%size, rel)
			if size > 10 {
				b.Add(n+i, n+(i+7)%size, WW)
			}
		}
		n += size
	}
	for i := range int32(40) {
		ring(2+i%5, i%2)
	}
	ring(20000, 10000)
	g := b.Build(int(n))
	comps := g.SCC()
	if len(comps) != 41 {
		t.Fatalf("%d components, want 41", len(comps))
	}
	q := CycleQuery{Allowed: WW | WR, Required: []Rel{WR}}
	type result struct {
		c         Cycle
		found, ex bool
		steps     int64
	}
	run := func(procs int) []result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out := make([]result, len(comps))
		EachComponent(g, comps, func(s *Searcher, i int) {
			before := s.Steps
			c, found, ex := s.ShortestCycle(comps[i], q, NewBudget(20000))
			out[i] = result{c, found, ex, s.Steps - before}
		})
		return out
	}
	one, four := run(1), run(4)
	exhausted, found := 0, 0
	for i := range comps {
		if !reflect.DeepEqual(one[i], four[i]) {
			t.Errorf("component %d (%d vertices): one worker %+v, four %+v", i, len(comps[i]), one[i], four[i])
		}
		if one[i].ex {
			exhausted++
		}
		if one[i].found {
			found++
		}
	}
	if exhausted != 1 || found < 20 {
		t.Errorf("%d components ran out of the budget (want the big one), %d found a cycle (want the small ones with a wr edge)", exhausted, found)
	}
}

// TestBuildCatchesAnEmitterThatChanges gives Build emitters whose second
// pass (the fill) differs from the first (the count): an edge moved to
// another row, one more, one less. Build must refuse each (nil), and build
// rows of more than 255 edges (whose degree fill keeps only as "255 or
// more") like Builder.
func TestBuildCatchesAnEmitterThatChanges(t *testing.T) {
	base := []testEdge{{0, 1, WW}, {0, 2, WR}, {2, 3, RW}, {3, 0, WW}, {4, 1, Process}, {5, 4, Realtime}}
	changes := map[string]func([]testEdge) []testEdge{
		"an edge moved to another row": func(es []testEdge) []testEdge { es[2].u = 1; return es },
		"one edge more":                func(es []testEdge) []testEdge { return append(es, testEdge{1, 2, WW}) },
		"one edge less":                func(es []testEdge) []testEdge { return es[1:] },
		"a row's edge to itself":       func(es []testEdge) []testEdge { es[4].v = es[4].u; return es },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			pass := 0
			g := BuildFunc(6, func(add func(int32, int32, Rel)) {
				pass++
				es := slices.Clone(base)
				if pass == 2 {
					es = change(es)
				}
				for _, x := range es {
					add(x.u, x.v, x.rel)
				}
			})
			if g != nil {
				t.Fatalf("built a graph of %d edges from an emitter whose fill pass differs from its count", g.E())
			}
		})
	}
	// rows of 255 edges and more, beside small ones
	r := rand.New(rand.NewPCG(9, 10))
	n := 700
	var es []testEdge
	for _, u := range []int32{3, 200, 699} {
		for range 255 + r.IntN(400) {
			es = append(es, testEdge{u, int32(r.IntN(n)), Rel(1 << r.IntN(5))})
		}
	}
	es = append(es, randomEdges(r, n, 2000, 5)...)
	r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	got := BuildFunc(n, func(add func(int32, int32, Rel)) {
		for _, x := range es {
			add(x.u, x.v, x.rel)
		}
	})
	if got == nil || !sameGraph(got, builderGraph(n, es)) {
		t.Fatalf("rows of 255 edges and more: Build (%v) and Builder disagree", got != nil)
	}
}
