package txn

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"

	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/testhist"
)

// TestRealtimeThroughHubs: a read that misses an append completed before it
// began is found whether the realtime edge is made (20 txns at once) or
// kept through hubs (200 at once), with the same witness shape, and the
// graph counts the realtime edges the hubs stand for.
func TestRealtimeThroughHubs(t *testing.T) {
	for _, n := range []int{20, 200} {
		l := concurrentBatches(n, 3)
		h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "batches.edn")
		res := CheckListAppend(h, p, DefaultOptions())
		if fmt.Sprint(res.AnomalyTypes) != "[G-single-item-realtime]" {
			t.Fatalf("n=%d: anomaly types %v (%v)", n, res.AnomalyTypes, res.UnknownReasons)
		}
		in := analysis.InstancesOf[*Instance](res, "G-single-item-realtime")[0]
		if len(in.Steps) != 2 || in.Steps[0].Rel != "realtime" || in.Steps[1].Rel != "rw" {
			t.Errorf("n=%d: steps %+v, want append -realtime-> read -rw-> append", n, in.Steps)
		}
		// n² realtime pairs, plus the rw edge of the stale read
		if want := int64(n*n + 1); res.Stats.GraphEdges != want {
			t.Errorf("n=%d: graph_edges %d, want %d", n, res.Stats.GraphEdges, want)
		}
		if res.Stats.GraphVertices != int64(2*n) {
			t.Errorf("n=%d: graph_vertices %d, want %d (hubs are no ops)", n, res.Stats.GraphVertices, 2*n)
		}
	}
	if 20 > graph.MinHubWindow || 200 <= graph.MinHubWindow {
		t.Fatalf("the sizes no longer straddle graph.MinHubWindow (%d)", graph.MinHubWindow)
	}
}

// TestOrderBudget: n txns writing one key at once, then n reading it at
// once, give --linearizable-keys n² candidate version edges, and n txns at
// one position of --transaction-order followed by n at the next give
// --transaction-order n²; past the budget the source is left out for the
// key, with an unknown reason, instead of made (and below it, made).
func TestOrderBudget(t *testing.T) {
	for _, tc := range []struct {
		n    int
		left bool
	}{{100, false}, {3000, true}} {
		var l testhist.Lines
		for p := range tc.n {
			l.Op("invoke", p, "txn", fmt.Sprintf("[[:w :x %d]]", p))
		}
		for p := range tc.n {
			l.Op("ok", p, "txn", fmt.Sprintf("[[:w :x %d]]", p))
		}
		for p := range tc.n {
			l.Op("invoke", p, "txn", "[[:r :x nil]]")
		}
		for p := range tc.n {
			l.Op("ok", p, "txn", fmt.Sprintf("[[:r :x %d]]", tc.n-1))
		}
		h, pairing := testhist.Read(t, bytes.NewReader(l.Bytes()), "order.edn")
		lin := DefaultOptions()
		lin.LinearizableKeys = true
		order := DefaultOptions()
		order.TransactionOrder = map[int64]int64{}
		for i := range int64(tc.n) {
			order.TransactionOrder[int64(tc.n)+i] = i % 2 // the writers (by completion): two positions
		}
		for name, opts := range map[string]Options{"linearizable-keys": lin, "transaction-order": order} {
			res := CheckRWRegister(h, pairing, opts)
			pairs := tc.n * tc.n // every writer before every reader
			if name == "transaction-order" {
				pairs /= 4 // half the writers before the other half
			}
			want := fmt.Sprintf("rw-register: %s would order the values of key :x by %d pairs", name, pairs)
			found := false
			for _, r := range res.UnknownReasons {
				found = found || strings.HasPrefix(r, want)
			}
			if found != tc.left {
				t.Errorf("n=%d %s: reasons %q; want one starting %q: %v", tc.n, name, res.UnknownReasons, want, tc.left)
			}
			if tc.left && res.Verdict != analysis.Unknown {
				t.Errorf("n=%d %s: verdict %v, want unknown", tc.n, name, res.Verdict)
			}
		}
	}
}
