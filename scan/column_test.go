package scan

import (
	"testing"

	"github.com/hindsight-dev/hindsight/workload"
)

// TestCountColumnsFromCatalogue: the count columns are one per anomaly
// type name across the workloads' catalogues (a name two workloads report
// shares its column), and no two names collapse into one column name.
func TestCountColumnsFromCatalogue(t *testing.T) {
	want := map[string]bool{}
	for _, w := range workload.All() {
		for _, e := range w.Types {
			want[e.Name] = true
		}
	}
	if len(CountTypes) != len(want) {
		t.Errorf("%d count columns, want one per name: %d", len(CountTypes), len(want))
	}
	cols := map[string]string{}
	for _, typ := range CountTypes {
		if !want[typ] {
			t.Errorf("count column for %s, which no catalogue has", typ)
		}
		c := CountColumn(typ)
		if other, ok := cols[c]; ok {
			t.Errorf("%s and %s share the column %s", other, typ, c)
		}
		cols[c] = typ
	}
}
