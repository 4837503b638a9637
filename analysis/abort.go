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

// AbortPair is what an abort pair instance says beyond the shared fields
// (Instance.AbortPair; analysis/abort's types.go says which each type uses).
type AbortPair struct {
	// P and N are the pair's polls, Class its class.
	P     *PollRef `json:"p"`
	N     *PollRef `json:"n"`
	Class string   `json:"class"`

	// CommittedPosition is the topic's committed position before N, and
	// CommittedBy the committed poll that set it; nil before the topic's
	// first commit.
	CommittedPosition *int64 `json:"committed_position,omitempty"`
	CommittedBy       *int64 `json:"committed_by,omitempty"`

	// ResumePoint is the resume point N resumed at (abort-rewind-further),
	// ResumedFrom the poll that made it one.
	ResumePoint *int64 `json:"resume_point,omitempty"`
	ResumedFrom *int64 `json:"resume_point_op,omitempty"`

	// Rebalance says whether a rebalance came with the pair, and
	// RebalanceEvents lists them.
	Rebalance       bool             `json:"rebalance"`
	RebalanceEvents []RebalanceEvent `json:"rebalance_events,omitempty"`

	// Gap is, for an advance, how many offsets lie between P and N.
	Gap *int64 `json:"gap,omitempty"`
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
	// AbortAsked: the poll was asked to abort (:abort? true); an aborted
	// poll without it failed by a definite error.
	AbortAsked bool `json:"abort_asked,omitempty"`
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
