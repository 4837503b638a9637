package analysis

// The fields of the abort workload's results (analysis/abort): its pairs
// of polls, counted and, for each instance, described. Every other
// workload leaves them nil, and the JSON leaves them out.

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

// PollRef is one poll of an abort pair (Instance.P, Instance.N): its
// invocation and completion, process, outcome and the offsets it read, in
// the order it listed them.
type PollRef struct {
	// Invoke is the invocation's index; Op the completion's (the
	// invocation's, for a poll that never completed).
	Invoke  *int64  `json:"invoke,omitempty"`
	Op      int64   `json:"op"`
	Process int64   `json:"process"`
	Outcome string  `json:"outcome"`
	Offsets []int64 `json:"offsets"`
}

// RebalanceEvent is one consumer-group rebalance event an abort pair
// carries (Instance.RebalanceEvents): the op whose :rebalance-log logged
// it, whether it came before or during that op, its :type and :keys.
type RebalanceEvent struct {
	Op   int64   `json:"op"`
	When string  `json:"when"`
	Type *Value  `json:"type,omitempty"`
	Keys []Value `json:"keys,omitempty"`
}
