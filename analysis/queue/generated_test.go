package queue

import (
	"bytes"
	"github.com/hindsight-dev/hindsight/analysis"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
)

// TestGeneratedG1c checks the generator's G1c fault against the checker:
// each injection is one G1c cycle of its two transactions, and nothing
// else is found.
func TestGeneratedG1c(t *testing.T) {
	cfg := gen.Config{Seed: 9, Ops: 60000, Concurrency: 20, Keys: 16, TxnFraction: 0.25,
		InfoRate: 0.01, FailRate: 0.01, Faults: []gen.Fault{{Kind: gen.G1c, Count: 3}}}
	var buf bytes.Buffer
	st, err := gen.Write(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h, p := testhist.Read(t, &buf, "g1c.edn")
	res := Check(h, p, DefaultOptions())
	if !slices.Equal(res.AnomalyTypes, []string{G1c}) {
		t.Fatalf("anomaly types %v, want only G1c", res.AnomalyTypes)
	}
	ins := analysis.InstancesOf[*Instance](res, G1c)
	if len(ins) != 3 || st.Injected(gen.G1c) != 3 {
		t.Fatalf("%d G1c instances of %d injections, want 3", len(ins), st.Injected(gen.G1c))
	}
	for i, in := range st.Injections {
		if got := slices.Sorted(slices.Values(ins[i].Cycle)); !slices.Equal(got, in.Ops) {
			t.Errorf("cycle %v, want the injection's ops %v", ins[i].Cycle, in.Ops)
		}
	}
}
