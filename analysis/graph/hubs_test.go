package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// hubPair is one random graph built twice: plain, with every realtime edge
// of its windows made, and with the long windows going through hubs.
type hubPair struct {
	plain, hubbed *Graph
	reach         *Graph // hubbed with Windows.ReachOnly
	n             int
}

// randomHubPair draws n vertices, sparse direct edges of every relation,
// and windows of one sequence (a random order of some vertices) each
// linked to a target outside it, as realtime order is.
func randomHubPair(r *rand.Rand, n int) hubPair {
	rels := []Rel{WW, WR, RW, Process, Realtime}
	type edge struct {
		from, to int32
		rel      Rel
	}
	var direct []edge
	for range n + r.IntN(n) {
		rel := rels[r.IntN(len(rels))]
		if r.IntN(4) == 0 {
			rel |= rels[r.IntN(len(rels))]
		}
		direct = append(direct, edge{int32(r.IntN(n)), int32(r.IntN(n)), rel})
	}
	seq := r.Perm(n)[:n/2+r.IntN(n/2)]
	seq32 := make([]int32, len(seq))
	for i, v := range seq {
		seq32[i] = int32(v)
	}
	type win struct {
		lo, hi int
		target int32
	}
	var wins []win
	for range 1 + r.IntN(6) {
		lo := r.IntN(len(seq))
		hi := lo + 1 + r.IntN(len(seq)-lo)
		if r.IntN(3) > 0 {
			lo = r.IntN(max(1, len(seq)-MinHubWindow-1))
			hi = min(len(seq), lo+MinHubWindow+1+r.IntN(20))
		}
		if len(wins) > 0 && r.IntN(2) == 0 { // a run of windows over one range
			lo, hi = wins[len(wins)-1].lo, wins[len(wins)-1].hi
		}
		target := int32(r.IntN(n))
		if slices.Contains(seq32[lo:hi], target) || slices.ContainsFunc(wins, func(w win) bool { return w.target == target }) {
			continue // one window a target, none holding it, as realtime order is
		}
		wins = append(wins, win{lo, hi, target})
		// pairs the window links that have edges of their own too, which
		// the searches must take for those relations, not for realtime
		for _, u := range seq32[lo:hi] {
			if r.IntN(3) == 0 {
				direct = append(direct, edge{u, target, rels[r.IntN(3)]})
			}
		}
	}
	var b Builder
	for _, e := range direct {
		b.Add(e.from, e.to, e.rel)
	}
	for _, w := range wins {
		for _, u := range seq32[w.lo:w.hi] {
			b.Add(u, w.target, Realtime)
		}
	}
	build := func(reachOnly bool) *Graph {
		ws := Windows{Seq: seq32, ReachOnly: reachOnly}
		for _, w := range wins {
			ws.Add(w.lo, w.hi, w.target)
		}
		hubs, via := ws.Number(int32(n))
		return BuildHubs(n, hubs, via, Edges{Serial: func(add func(from, to int32, rel Rel)) {
			for _, e := range direct {
				add(e.from, e.to, e.rel)
			}
			ws.Emit(add)
		}})
	}
	hubbed, reach := build(false), build(true)
	return hubPair{plain: b.Build(n), hubbed: hubbed, reach: reach, n: n}
}

// hubSpecs adds to typedSpecs the searches hubs change most: union steps
// (the queue's) and steps that may take realtime besides another relation.
var hubSpecs = append(slices.Clone(typedSpecs), []struct {
	name string
	sp   Spec
}{
	{"union G1c-realtime", Spec{Allowed: WW | WR | Realtime, Required: []Rel{WR, Realtime}, Union: true}},
	{"union G0-realtime", Spec{Allowed: WW | Realtime, Required: []Rel{Realtime}, Union: true}},
	{"any realtime", Spec{Allowed: WR | Realtime, Required: []Rel{Realtime}, RW: RWFree}},
	{"realtime only", Spec{Allowed: Realtime, Effective: true}},
}...)

// TestHubsStandForTheirEdges checks that a graph whose long windows go
// through hubs is, to everything that reads it, the graph with those edges
// made: the same components, relations between vertices and edge count,
// and cycle searches that find the same cycles' lengths, each cycle one of
// the plain graph's.
func TestHubsStandForTheirEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	withHubs, mismatches, shared := 0, 0, 0
	for trial := range 300 {
		p := randomHubPair(r, 40+r.IntN(80))
		if p.hubbed.hubs > 0 {
			withHubs++
		}
		if got, want := p.hubbed.Edges(), int64(p.plain.E()); got != want {
			t.Fatalf("trial %d: Edges %d, plain graph has %d", trial, got, want)
		}
		for u := range int32(p.n) {
			for v := range int32(p.n) {
				if got, want := p.hubbed.RelBetween(u, v), p.plain.RelBetween(u, v); got != want {
					t.Fatalf("trial %d: RelBetween(%d, %d) = %v, plain %v", trial, u, v, got, want)
				}
			}
		}
		comps := p.plain.SCC()
		if got := p.hubbed.SCC(); !slices.EqualFunc(got, comps, slices.Equal) {
			t.Fatalf("trial %d: components %v, plain %v", trial, got, comps)
		}
		if got := p.reach.SCC(); !slices.EqualFunc(got, comps, slices.Equal) {
			t.Fatalf("trial %d: components %v with shared hubs, plain %v", trial, got, comps)
		}
		if p.reach.N() > p.hubbed.N() {
			shared++
		}
		sp, sh := NewSearcher(p.plain), NewSearcher(p.hubbed)
		for _, ts := range hubSpecs {
			for _, comp := range comps {
				want, wok, _ := sp.ShortestTyped(comp, ts.sp, nil)
				got, gok, ex := sh.ShortestTyped(comp, ts.sp, nil)
				if ex {
					t.Fatal("exhausted without a deadline")
				}
				if gok {
					if err := checkCycle(p.plain, got, ts.sp); err != nil {
						t.Fatalf("trial %d %s: %v", trial, ts.name, err)
					}
					for i, v := range got.Vertices {
						if p.hubbed.IsHub(v) || got.Rels[i]&^p.plain.RelBetween(v, got.Vertices[(i+1)%len(got.Vertices)]) != 0 {
							t.Fatalf("trial %d %s: cycle %v %v is not the plain graph's", trial, ts.name, got.Vertices, got.Rels)
						}
					}
				}
				exact := (ts.sp.RW == RWNone || ts.sp.RW == RWFree) && len(ts.sp.Required) <= 1
				if gok != wok || len(got.Vertices) != len(want.Vertices) {
					// Rotation-fixed rules with a required relation may pass
					// over a cycle one search tree order reaches and another
					// does not (see ShortestTyped); the rest must agree.
					if exact {
						t.Errorf("trial %d %s: found %v length %d, plain graph %v length %d",
							trial, ts.name, gok, len(got.Vertices), wok, len(want.Vertices))
					}
					mismatches++
				}
			}
		}
		if len(comps) > 0 {
			c1 := NewSearcher(p.hubbed).AnyCycle(comps[0], &DefaultPrecedence)
			for i, v := range c1.Vertices {
				if p.plain.RelBetween(v, c1.Vertices[(i+1)%len(c1.Vertices)]) == 0 {
					t.Fatalf("trial %d: AnyCycle %v steps off the graph", trial, c1.Vertices)
				}
			}
		}
	}
	t.Logf("%d of 300 graphs with hubs; %d searches of another length", withHubs, mismatches)
	if shared < 50 {
		t.Errorf("only %d of 300 graphs had shared hubs", shared)
	}
	if withHubs < 100 {
		t.Errorf("only %d of 300 graphs had hubs", withHubs)
	}
	if mismatches > 5 {
		t.Errorf("%d searches found another length than on the plain graph", mismatches)
	}
}

// TestWindowsEdges checks the size hubs promise: n txns completed, then n
// more invoked, are n - 1 hubs and O(n log n) edges (each window is
// covered by at most 2 log₂ n tree nodes), not n².
func TestWindowsEdges(t *testing.T) {
	const n = 1000
	seq := make([]int32, n)
	for i := range seq {
		seq[i] = int32(i)
	}
	ws := Windows{Seq: seq}
	for v := range int32(n) {
		ws.Add(0, n, n+v)
	}
	hubs, via := ws.Number(2 * n)
	g := BuildHubs(2*n, hubs, via, Edges{Serial: ws.Emit})
	if hubs != n-1 || g.E() > 2*n+n*2*10 || g.Edges() != n*n {
		t.Errorf("hubs %d, edges %d, standing for %d; want %d hubs, at most %d edges, standing for %d",
			hubs, g.E(), g.Edges(), n-1, 2*n+n*2*10, n*n)
	}
}

// TestHubsRedeliverBlocked: v and w share a hub into x; v has an edge of
// its own to x (wr, which names the pair), w has none. A search for a cycle
// of realtime steps alone expands the hub from v first and must still let
// w reach x through it: x → w → x.
func TestHubsRedeliverBlocked(t *testing.T) {
	const x, v, w, m = 0, 1, 2, 40
	seq := make([]int32, m)
	for i := range seq {
		seq[i] = int32(i + 1) // v, w, then fillers
	}
	ws := Windows{Seq: seq}
	ws.Add(0, m, x)
	hubs, via := ws.Number(m + 1)
	g := BuildHubs(m+1, hubs, via, Edges{Serial: func(add func(from, to int32, rel Rel)) {
		add(x, v, Realtime)
		add(x, w, Realtime)
		add(v, x, WR)
		ws.Emit(add)
	}})
	comps := g.SCC()
	if len(comps) != 1 || !slices.Equal(comps[0], []int32{x, v, w}) {
		t.Fatalf("components %v, want [[0 1 2]]", comps)
	}
	c, ok, _ := NewSearcher(g).ShortestTyped(comps[0], Spec{Allowed: Realtime, Effective: true}, nil)
	if !ok || !slices.Equal(c.Vertices, []int32{x, w}) || !slices.Equal(c.Rels, []Rel{Realtime, Realtime}) {
		t.Errorf("cycle %v %v (found %v), want [0 2] [realtime realtime]", c.Vertices, c.Rels, ok)
	}
}

// TestWindowsKeepEveryWindow adds windows in every order (growing, going
// back, far apart, at the ends of int32) and wants each back, in order,
// from the packed form; empty windows are dropped.
func TestWindowsKeepEveryWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var w Windows
	var want []window
	add := func(lo, hi int, target int32) {
		w.Add(lo, hi, target)
		if lo < hi {
			want = append(want, window{int32(lo), int32(hi), target})
		}
	}
	lo, hi := 0, 1
	for range 5000 {
		switch rng.IntN(4) {
		case 0: // a frontier moving on
			lo += rng.IntN(3)
			hi = max(hi+rng.IntN(3), lo+1)
			add(lo, hi, int32(rng.IntN(1000)))
		case 1: // anywhere
			a, b := rng.IntN(math.MaxInt32), rng.IntN(math.MaxInt32)
			add(min(a, b), max(a, b), int32(rng.Int32()))
		case 2: // empty
			add(hi, lo, 7)
		default: // the extremes
			add(0, math.MaxInt32, math.MaxInt32)
			add(math.MaxInt32-1, math.MaxInt32, 0)
		}
	}
	var got []window
	for i, x := range w.all {
		if i != len(got) {
			t.Fatalf("window %d numbered %d", len(got), i)
		}
		got = append(got, x)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d windows back, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []window) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
