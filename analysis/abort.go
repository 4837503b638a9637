package analysis

// The abort workload's count of its pairs of polls (analysis/abort), a
// field of every Result (nil, and left out, for other workloads). Its
// instances' own fields are analysis/abort's Instance.

// PairCount is one row of an abort result's count table
// (Result.PairCounts): how many pairs of polls had a first poll P of this
// outcome and this class, and how many of them came with a consumer-group
// rebalance.
type PairCount struct {
	// Outcome is P's: "committed", "aborted" or "unknown".
	Outcome string `json:"outcome"`
	// Class is the pair's: "advance", "rewind", "rewind-further" or
	// "other".
	Class         string `json:"class"`
	Pairs         int64  `json:"pairs"`
	WithRebalance int64  `json:"with_rebalance"`
}
