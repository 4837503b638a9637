package txn

import (
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
)

// TestExplainCycleNoCycle: ExplainCycle of an instance with no cycle
// names its witness ops instead of failing.
func TestExplainCycleNoCycle(t *testing.T) {
	in := &Instance{Evidence: analysis.Evidence{Witness: []int64{3, 4}}}
	if got := ExplainCycle(ListAppend, G1c, in, nil); !strings.Contains(got, "witness ops 3, 4") {
		t.Errorf("words for no cycle: %q", got)
	}
}
