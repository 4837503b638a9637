package scan

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hindsight-dev/hindsight/internal/scaling"
)

// TestAnomalyRowsAllocLinear appends n and 10n anomaly rows, each with two
// values and two skipped values, to a builder of the anomalies table and
// requires the bytes allocated to grow at most 15-fold. Appending each
// row's strings with StringBuilder.AppendValues reserved exactly what they
// added, so every row copied the column's data: 100-fold and more.
func TestAnomalyRowsAllocLinear(t *testing.T) {
	key := ":x"
	build := func(n int) uint64 {
		return scaling.Allocated(func() {
			rb := array.NewRecordBuilder(memory.NewGoAllocator(), AnomaliesSchema)
			defer rb.Release()
			for i := range n {
				appendAnomaly(rb, &AnomalyRow{Path: "h.edn", Type: "int-nonmonotonic-poll", Key: &key,
					Values: []string{fmt.Sprint(i), fmt.Sprint(i + 1)}, Skipped: []string{"1", "2"},
					Witness: []int64{int64(i), int64(i + 1)}, Instance: "{}"})
			}
			rec := rb.NewRecordBatch()
			if rec.NumRows() != int64(n) {
				t.Errorf("%d rows, want %d", rec.NumRows(), n)
			}
			rec.Release()
		})
	}
	small, large := build(20_000), build(200_000)
	if large > 15*small {
		t.Errorf("20,000 rows: %d bytes allocated, 200,000 rows: %d: %.1f-fold, want at most 15", small, large, float64(large)/float64(small))
	}
}
