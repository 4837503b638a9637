package queue

import (
	"bytes"
	"fmt"
	"github.com/hindsight-dev/hindsight/analysis"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/scaling"
	"github.com/hindsight-dev/hindsight/internal/testhist"
)

// TestRealtimeThroughHubs: the cycle of concurrentBatches, whose realtime
// steps come from a frontier of n ops, is found the same whether its edges
// are made (n = 20) or kept through hubs (n = 200), and the graph counts
// every realtime edge the hubs stand for.
func TestRealtimeThroughHubs(t *testing.T) {
	var shapes []string
	for _, n := range []int{20, 200} {
		l := concurrentBatches(n, true)
		h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "batches.edn")
		res := Check(h, p, DefaultOptions())
		var rels []string
		for _, typ := range res.AnomalyTypes {
			for _, in := range analysis.InstancesOf[*Instance](res, typ) {
				var steps []string
				for _, st := range in.Steps {
					steps = append(steps, st.Rel)
				}
				rels = append(rels, fmt.Sprintf("%s %v", typ, steps))
			}
		}
		shapes = append(shapes, fmt.Sprint(rels))
		if len(rels) == 0 {
			t.Fatalf("n=%d: no cycle found (%v %v)", n, res.Verdict, res.AnomalyTypes)
		}
		// graph_edges counts what the plain graph (buildGraph) holds
		c := check(h, p, DefaultOptions())
		g, _ := c.buildGraph()
		if res.Stats.GraphEdges != int64(g.E()) {
			t.Errorf("n=%d: graph_edges %d, the plain graph has %d", n, res.Stats.GraphEdges, g.E())
		}
	}
	if shapes[0] != shapes[1] {
		t.Errorf("anomalies differ: %s with edges made, %s through hubs", shapes[0], shapes[1])
	}
	t.Log(shapes[1])
	if 20 > graph.MinHubWindow || 200 <= graph.MinHubWindow {
		t.Fatalf("the sizes no longer straddle graph.MinHubWindow (%d)", graph.MinHubWindow)
	}
}

// TestStretchAllocs: the graph of a stretch where n ops run at once, then n
// more, grows about tenfold from n to 10n (hubs), not a hundredfold.
func TestStretchAllocs(t *testing.T) {
	var alloc [2]uint64
	for j, n := range []int{300, 3000} {
		l := concurrentBatches(n, false)
		h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "batches.edn")
		d := check(h, p, DefaultOptions()).newDepGraph()
		_, stretches := d.census()
		if len(stretches) != 1 || stretches[0][1]-stretches[0][0] < int32(2*n) {
			t.Fatalf("n=%d: stretches %v, want one over every op", n, stretches)
		}
		alloc[j] = scaling.Allocated(func() { d.scc(stretches) })
	}
	if ratio := float64(alloc[1]) / float64(alloc[0]); ratio > scaling.MaxGrowth {
		t.Errorf("stretch graph: %d bytes at n=300, %d at 3000: %.1f-fold, want at most %v", alloc[0], alloc[1], ratio, scaling.MaxGrowth)
	}
}
