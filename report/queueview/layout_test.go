package queueview

import (
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/model"
)

// TestWorstLagSummary: a history in which no ok poll had a :time has no
// realtime lag to speak of, and the summaries say so instead of "0s";
// one with a sample gives its lag, and the HTML facts where it was.
func TestWorstLagSummary(t *testing.T) {
	none := &analysis.Result{Stats: analysis.Stats{Own: &queue.Stats{}}}
	if got := (Layout{}).Summary(none); !strings.Contains(got, "worst realtime lag not measured (no ok poll with a :time);") {
		t.Errorf("no sample: %q", got)
	}
	p, op := int64(3), int64(42)
	some := &analysis.Result{Stats: analysis.Stats{Own: &queue.Stats{WorstLagS: 1.5, WorstLagProcess: &p, WorstLagOp: &op,
		WorstLagKey: analysis.AtomValuePtr(model.IntAtom(7))}}}
	if got := (Layout{}).Summary(some); !strings.Contains(got, "worst realtime lag 1.5s;") {
		t.Errorf("a sample of 1.5 s: %q", got)
	}
	if got := worstLagFact(t, some); got != "1.5s (process 3, key 7, op 42)" {
		t.Errorf("HTML fact %q", got)
	}
	if got := worstLagFact(t, none); got != "not measured (no ok poll with a :time)" {
		t.Errorf("HTML fact without a sample %q", got)
	}
}

// worstLagFact is the value of the HTML facts' "worst realtime lag",
// which must be there.
func worstLagFact(t *testing.T, r *analysis.Result) string {
	t.Helper()
	for _, f := range statFacts(r) {
		if f.Label == "worst realtime lag" {
			return f.Value
		}
	}
	t.Fatal(`no "worst realtime lag" among the HTML facts`)
	return ""
}
