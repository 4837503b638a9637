package queue

import "github.com/hindsight-dev/hindsight/analysis"

// Instance is one anomaly of the queue workload; types.go says which
// fields each type uses (the others stay nil and out of the JSON). The
// fields appear in the JSON in this order (docs/README.md#json-output).
type Instance struct {
	analysis.Subject
	Value         *analysis.Value  `json:"value,omitempty"`
	Values        []analysis.Value `json:"values,omitempty"`
	Offset        *int64           `json:"offset,omitempty"`
	Offsets       []int64          `json:"offsets,omitempty"`
	Index         *int64           `json:"index,omitempty"`
	MaxReadIndex  *int64           `json:"max_read_index,omitempty"`
	Writer        *int64           `json:"writer,omitempty"`
	MaxRead       *int64           `json:"max_read,omitempty"`
	MaxReadOffset *int64           `json:"max_read_offset,omitempty"`
	Reader        *int64           `json:"reader,omitempty"`
	Op            *int64           `json:"op,omitempty"`
	Ops           []int64          `json:"ops,omitempty"`
	Count         *int64           `json:"count,omitempty"`
	Delta         *int64           `json:"delta,omitempty"`
	Skipped       []analysis.Value `json:"skipped,omitempty"`
	Process       *int64           `json:"process,omitempty"`
	From          *int64           `json:"from,omitempty"`
	To            *int64           `json:"to,omitempty"`
	DurationS     *float64         `json:"duration_s,omitempty"`
	StuckOffset   *int64           `json:"stuck_offset,omitempty"`
	AckedOffset   *int64           `json:"acknowledged_offset,omitempty"`
	Seen          []analysis.Pair  `json:"seen,omitempty"`
	Missing       []analysis.Pair  `json:"missing,omitempty"`
	Reason        string           `json:"reason,omitempty"`
	// CycleFields is set for the cycle types (G0, G1c and their
	// -process and -realtime forms), nil for the others.
	*analysis.CycleFields
	analysis.Evidence
	// SkippedCount is how many values a skip jumped over, set only when
	// Skipped lists just the first of them (MaxSkipped).
	SkippedCount *int64 `json:"skipped_count,omitempty"`
}

// ListedValues returns the values an anomaly row lists (Value, then
// Values) and the values a skip jumped over (analysis.Listed).
func (in *Instance) ListedValues() (values, skipped []analysis.Value) {
	return listed(in.Value, in.Values), in.Skipped
}

// listed is v (when set) followed by vs.
func listed(v *analysis.Value, vs []analysis.Value) []analysis.Value {
	if v == nil {
		return vs
	}
	return append([]analysis.Value{*v}, vs...)
}
