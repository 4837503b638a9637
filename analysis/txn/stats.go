package txn

// Stats are the transactional workloads' own counts
// (analysis.Stats.Own; analysis.OwnStats): Messages is the number of
// distinct (key, value) pairs the history holds, list elements or register
// values, written or only read (a garbage read's values count), Txns the
// number of transactions.
type Stats struct {
	Messages int64 `json:"messages"`
	Txns     int64 `json:"txns"`
}
