package page

import (
	"fmt"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

// ProofNote says what a cycle instance rests on when it is not proven
// from the history alone: "assumes the order of key 568 (from op 12's
// read), which op 7568 contradicts", or "rests on the version order given
// by --wfr-keys"; "" for a proven instance or one that is no cycle.
func ProofNote(ai analysis.Instance) string {
	in := ai.InstanceCycle()
	if in == nil {
		return ""
	}
	switch in.Proof {
	case analysis.Assumes:
		parts := make([]string, len(in.Assumes))
		for i, a := range in.Assumes {
			from := ""
			if a.OrderOp != nil {
				from = fmt.Sprintf(" (from op %d's read)", *a.OrderOp)
			}
			parts[i] = fmt.Sprintf("the order of key %s%s, which %s", catalog.Val(a.Key), from, catalog.Contradict(a.ContradictedBy))
		}
		return "not proven: assumes " + strings.Join(parts, "; and ")
	case analysis.Given:
		names := make([]string, len(in.Given))
		for i, g := range in.Given {
			names[i] = "--" + g
		}
		return "rests on the version order given by " + strings.Join(names, " and ")
	}
	return ""
}

// ProvenNote says how many of a type's cycle instances are proven, its
// numbers written by num (Decimal for the text output, Thousands for the
// page): "2 of 3 proven" ("" when the type has no cycle instances).
func ProvenNote(r *analysis.Result, typ string, num func(int64) string) string {
	n, ok := r.ProvenCycles[typ]
	if !ok {
		return ""
	}
	return num(n) + " of " + num(int64(len(r.Anomalies[typ]))) + " proven"
}
