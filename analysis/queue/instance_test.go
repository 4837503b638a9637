package queue

import (
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/abort"
)

// TestExplainOtherShapes: a cycle type's words for an instance with no
// cycle, and any entry's words for another workload's instance, fall
// back to the witness ops instead of failing.
func TestExplainOtherShapes(t *testing.T) {
	in := &Instance{Evidence: analysis.Evidence{Witness: []int64{3, 4}}}
	if got := explainCycle("a G0")(in, nil); !strings.Contains(got, "witness ops 3, 4") {
		t.Errorf("cycle words for no cycle: %q", got)
	}
	other := &abort.Instance{Evidence: analysis.Evidence{Witness: []int64{7}}}
	for _, e := range Catalogue() {
		if got := e.Explain(other, nil); !strings.Contains(got, "witness ops 7") {
			t.Errorf("%s words an abort instance as %q", e.Name, got)
		}
	}
}
