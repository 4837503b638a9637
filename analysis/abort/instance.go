package abort

import "github.com/hindsight-dev/hindsight/analysis"

// Instance is one anomaly of the abort workload (types.go says which
// fields each type uses). Its fields appear in the JSON in this order
// (docs/README.md#json-output): the pair's fields only for pair types.
type Instance struct {
	analysis.Subject
	Offsets []int64 `json:"offsets,omitempty"`
	Index   *int64  `json:"index,omitempty"`
	Op      *int64  `json:"op,omitempty"`
	Process *int64  `json:"process,omitempty"`
	// Pair holds the fields of a pair instance; nil for
	// int-nonmonotonic-poll. Its fields appear as the instance's own.
	*Pair
	analysis.Evidence
}

// InstanceCycle returns nil: the abort workload has no cycles.
func (*Instance) InstanceCycle() *analysis.CycleFields { return nil }

// Pair is what a pair instance says beyond the topic, process and
// witness (Instance.Pair).
type Pair struct {
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

// PollRef is one poll of a pair (Pair.P, Pair.N): its invocation and
// completion, process, outcome and the offsets it read, in the order it
// listed them.
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

// RebalanceEvent is one consumer-group rebalance event a pair carries
// (Pair.RebalanceEvents): the op whose :rebalance-log logged it, whether
// it came before or during that op, its :type and :keys.
type RebalanceEvent struct {
	Op   int64            `json:"op"`
	When string           `json:"when"`
	Type *analysis.Value  `json:"type,omitempty"`
	Keys []analysis.Value `json:"keys,omitempty"`
}
