package abort

// Stats are the abort workload's own counts (analysis.Stats.Own; analysis.OwnStats).
type Stats struct {
	Polls int64 `json:"polls"`
}
