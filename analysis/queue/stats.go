package queue

import "github.com/hindsight-dev/hindsight/analysis"

// Stats are the queue workload's own counts (analysis.Stats.Own; analysis.OwnStats).
type Stats struct {
	Messages int64 `json:"messages"`
	Sends    int64 `json:"sends"`
	Polls    int64 `json:"polls"`
	Txns     int64 `json:"txns"`
	// Unpositioned counts comparisons skipped because a value was never
	// observed in the log (the package doc, "What stays unpositioned").
	Unpositioned int64   `json:"unpositioned_skipped"`
	WorstLagS    float64 `json:"worst_realtime_lag_s"`
	// WorstLag* say where the worst lag was seen (process, key, poll op).
	WorstLagProcess *int64          `json:"worst_realtime_lag_process,omitempty"`
	WorstLagKey     *analysis.Value `json:"worst_realtime_lag_key,omitempty"`
	WorstLagOp      *int64          `json:"worst_realtime_lag_op,omitempty"`
}
