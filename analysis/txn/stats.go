package txn

// Stats are the transactional workloads' own counts
// (analysis.Stats.Own; analysis.OwnStats): Messages is the number of distinct values written
// (list elements or register values), Txns the number of transactions.
type Stats struct {
	Messages int64 `json:"messages"`
	Txns     int64 `json:"txns"`
}
