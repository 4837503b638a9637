package analysis

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// extraStats stands for a later workload's counts: one v1 key, one
// optional v1 key, one shared key it must not override, and keys v1 does
// not know.
type extraStats struct {
	Later   int64  `json:"later_count"`
	Polls   int64  `json:"polls"`
	Ops     int64  `json:"ops"`
	LagKey  *Value `json:"worst_realtime_lag_key,omitempty"`
	Comment string `json:"comment"`
}

// TestStatsJSON: every v1 key in its order, 0 where the workload has no
// such count, the optional ones only when set, the shared counts winning
// over a workload's, the workload's other keys last, unescaped (a Value
// escapes itself, as it always did).
func TestStatsJSON(t *testing.T) {
	key := AtomValue(model.StringAtom("k<1>"))
	cases := []struct {
		name string
		s    Stats
		want string
	}{
		{"no workload counts", Stats{Ops: 5, ClientOps: 4, GraphEdges: 2, ElapsedMS: 7},
			`{"ops":5,"client_ops":4,"keys":0,"messages":0,"sends":0,"polls":0,"txns":0,"ok_ops":0,"info_ops":0,"fail_ops":0,` +
				`"open_ops":0,"unpositioned_skipped":0,"graph_vertices":0,"graph_edges":2,"cyclic_components":0,"largest_component":0,` +
				`"worst_realtime_lag_s":0,"elapsed_ms":7}`},
		{"a workload's own counts", Stats{Ops: 5, Own: &extraStats{Later: 3, Polls: 9, Ops: 99, LagKey: &key, Comment: "a&b"}},
			`{"ops":5,"client_ops":0,"keys":0,"messages":0,"sends":0,"polls":9,"txns":0,"ok_ops":0,"info_ops":0,"fail_ops":0,` +
				`"open_ops":0,"unpositioned_skipped":0,"graph_vertices":0,"graph_edges":0,"cyclic_components":0,"largest_component":0,` +
				`"worst_realtime_lag_s":0,"worst_realtime_lag_key":"k\u003c1\u003e","elapsed_ms":0,"later_count":3,"comment":"a&b"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.s); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(b.String()); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if _, err := json.Marshal(Stats{Own: &[]int{1}}); err == nil {
		t.Error("counts that are no JSON object marshal")
	}
}

// TestOwnStats: OwnStats adds the counts once and returns them after;
// OwnOf reads them without adding any.
func TestOwnStats(t *testing.T) {
	var r Result
	if got := OwnOf[extraStats](r.Stats); got.Later != 0 || r.Stats.Own != nil {
		t.Fatalf("OwnOf on no counts: %+v, Own %v", got, r.Stats.Own)
	}
	OwnStats[extraStats](&r).Later++
	OwnStats[extraStats](&r).Later++
	if got := OwnOf[extraStats](r.Stats); got.Later != 2 {
		t.Errorf("later_count %d, want 2", got.Later)
	}
}
