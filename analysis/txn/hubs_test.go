package txn

import (
	"bytes"
	"fmt"
	"testing"

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
		in := res.Anomalies["G-single-item-realtime"][0]
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
