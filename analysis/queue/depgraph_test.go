package queue

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// sameGraph checks depGraph, which cycles uses, against the graph
// buildGraph makes: the edge count, the components, and every edge inside
// a component with its relations. It returns the number of components,
// and whether the graph of their insides has hubs.
func sameGraph(t *testing.T, c *checker) (int, bool) {
	t.Helper()
	g, vrec := c.buildGraph()
	d := c.newDepGraph()
	if !slices.Equal(d.vrec, vrec) {
		t.Fatalf("vertices differ")
	}
	edges, stretches := d.census()
	if edges != int64(g.E()) {
		t.Errorf("census counts %d edges, the graph has %d", edges, g.E())
	}
	for i, st := range stretches {
		if st[0] >= st[1] || i > 0 && st[0] <= stretches[i-1][1] {
			t.Errorf("stretches %v: not disjoint, ascending spans", stretches)
			break
		}
	}
	want := g.SCC()
	comps := d.scc(stretches)
	if !slices.EqualFunc(comps, want, slices.Equal) {
		t.Fatalf("components %v, want %v", comps, want)
	}
	if len(comps) == 0 {
		return 0, false
	}
	sub := d.inside(comps)
	for _, comp := range comps {
		for _, v := range comp {
			var wantTo []int32
			var wantRel []graph.Rel
			for _, a := range g.Out(v) {
				if _, ok := slices.BinarySearch(comp, a.To()); ok {
					wantTo, wantRel = append(wantTo, a.To()), append(wantRel, a.Rel())
				}
			}
			if sub.Real() == sub.N() { // no hubs: the very rows
				var gotTo []int32
				var gotRel []graph.Rel
				for _, a := range sub.Out(v) {
					gotTo, gotRel = append(gotTo, a.To()), append(gotRel, a.Rel())
				}
				if !slices.Equal(gotTo, wantTo) || !slices.Equal(gotRel, wantRel) {
					t.Errorf("vertex %d: edges %v %v inside its component, want %v %v", v, gotTo, gotRel, wantTo, wantRel)
				}
				continue
			}
			// hubs stand for realtime edges: every pair of the component
			for _, u := range comp {
				want := graph.Rel(0)
				if i, ok := slices.BinarySearch(wantTo, u); ok {
					want = wantRel[i]
				}
				if got := sub.RelBetween(v, u); got != want {
					t.Fatalf("vertex %d -> %d: %v inside its component, want %v", v, u, got, want)
				}
			}
		}
	}
	return len(comps), sub.Real() < sub.N()
}

// chain builds n ok transactions of one process, one after the other, the
// i-th sending value i and reading value i+1 (the last reads nothing): the
// process, realtime and wr edges between neighbours make one component.
func chain(t testing.TB, n int) (*model.History, model.Pairing) {
	b := model.NewBuilder("chain")
	k := b.Key(model.IntAtom(0))
	msg := func(i int) model.MsgID { return b.Msg(k, b.Value(model.IntAtom(int64(i)))) }
	for i := range n {
		b.Add(int64(2*i), int64(2*i), model.Op{Type: model.Invoke, Process: 0, F: model.FTxn})
		mops := []model.Mop{b.Send(k, msg(i), int64(i))}
		if i+1 < n {
			mops = append(mops, b.Spanned(model.Mop{Kind: model.MopPoll, Done: true}, b.StorePolls(
				model.KeyPoll{Key: k, Reads: b.StoreReads(model.NewRead(int64(i+1), msg(i+1)))})))
		}
		b.Add(int64(2*i+1), int64(2*i+1), model.Op{Type: model.OK, Process: 0, F: model.FTxn,
			Mops: b.StoreMops(mops...)})
	}
	h := b.History()
	return h, testhist.Pair(t, h)
}

// TestDepGraphMatchesBuildGraph runs sameGraph on generated histories with
// every fault (with and without ww edges), on a ring that is one big
// component, and on the specification fixtures.
func TestDepGraphMatchesBuildGraph(t *testing.T) {
	var faults []gen.Fault
	for _, k := range gen.FaultKinds() {
		faults = append(faults, gen.Fault{Kind: k, Count: 3})
	}
	total := 0
	for _, seed := range []int64{1, 2, 3} {
		for _, ww := range []bool{false, true} {
			t.Run(fmt.Sprintf("generated seed %d ww %v", seed, ww), func(t *testing.T) {
				cfg := gen.Config{Seed: seed, Ops: 30000, Concurrency: 12, Keys: 6, TxnFraction: 0.3,
					InfoRate: 0.03, FailRate: 0.02, Faults: faults}
				h, p := testhist.Queue(t, cfg)
				opts := DefaultOptions()
				opts.WWDeps = ww
				n, _ := sameGraph(t, check(h, p, opts))
				total += n
			})
		}
	}
	if total == 0 {
		t.Errorf("no generated history had a cyclic component: the comparison of their edges ran on nothing")
	}
	t.Run("chain", func(t *testing.T) {
		h, p := chain(t, 200)
		c := check(h, p, DefaultOptions())
		if n, _ := sameGraph(t, c); n != 1 {
			t.Errorf("%d components in the chain, want 1", n)
		}
	})
	t.Run("batches through hubs", func(t *testing.T) {
		l := concurrentBatches(300, true)
		h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "batches.edn")
		if n, hubs := sameGraph(t, check(h, p, DefaultOptions())); n != 1 || !hubs {
			t.Errorf("%d components, hubs %v; want 1 component searched through hubs", n, hubs)
		}
	})
	t.Run("ring", func(t *testing.T) {
		h, p := ring(t, 300)
		c := check(h, p, DefaultOptions())
		if n, _ := sameGraph(t, c); n != 1 {
			t.Errorf("%d components in the ring, want 1", n)
		}
	})
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "*.edn"))
	if len(files) == 0 {
		t.Fatalf("no fixtures in %s", fixturesDir)
	}
	for _, f := range files {
		for _, ww := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s ww %v", filepath.Base(f), ww), func(t *testing.T) {
				h, p := testhist.File(t, f)
				opts := DefaultOptions()
				opts.WWDeps = ww
				sameGraph(t, check(h, p, opts))
			})
		}
	}
}
