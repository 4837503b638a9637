package abort

import "fmt"

// Anomaly types of the abort workload. Every pair of polls gets exactly
// one of the first six, the first that applies, or none when its first
// poll committed and it is not a committed-redelivery (docs/abort.md).
// Their instances use Key (the topic), Process, P, N, Class,
// CommittedPosition and CommittedBy (when the topic had a commit before
// N), Rebalance and RebalanceEvents, Gap (an advance), ResumePoint and
// ResumedFrom (abort-rewind-further), and Witness.
const (
	// CommittedRedelivery: N starts below the topic's committed position:
	// records a committed transaction consumed are delivered again.
	CommittedRedelivery = "committed-redelivery"
	// UnknownOutcomePair: P's outcome is unknown (info): not judged.
	UnknownOutcomePair = "unknown-outcome-pair"
	// AbortAdvance: P aborted and N starts after everything P read.
	AbortAdvance = "abort-advance"
	// AbortRewind: P aborted and N starts where P started.
	AbortRewind = "abort-rewind"
	// AbortRewindFurther: P aborted and N starts before P, at a resume
	// point.
	AbortRewindFurther = "abort-rewind-further"
	// AbortOther: P aborted and N starts inside P's range, or before it
	// at no resume point.
	AbortOther = "abort-other"
	// IntNonmonotonicPoll: a poll's offsets do not strictly increase. Its
	// instance uses Key, Process, Op, Offsets (the poll's) and Index (the
	// position of the first offset not above the one before it).
	IntNonmonotonicPoll = "int-nonmonotonic-poll"
)

// Contract is what the user expects of a consumer after an abort: the
// verdict on abort-advance (--abort-contract).
type Contract uint8

// Contracts.
const (
	// ContractKafka: the consumer keeps its position across an abort; only a
	// rebalance sends it back (KAFKA-17582). abort-advance is allowed.
	ContractKafka Contract = iota
	// ContractRewind: an abort returns the consumer to where the aborted
	// transaction began. abort-advance is bad.
	ContractRewind
)

// ContractNames are the names --abort-contract takes, in Contract order.
var ContractNames = []string{"kafka", "rewind"}

// String returns "kafka" or "rewind".
func (c Contract) String() string {
	if int(c) < len(ContractNames) {
		return ContractNames[c]
	}
	return fmt.Sprintf("Contract(%d)", c)
}

// ParseContract reads a contract's name; "" is the default,
// ContractKafka.
func ParseContract(s string) (Contract, error) {
	switch s {
	case "", "kafka":
		return ContractKafka, nil
	case "rewind":
		return ContractRewind, nil
	}
	return ContractKafka, fmt.Errorf("--abort-contract must be kafka or rewind, not %q", s)
}

// IsBad reports whether an instance of typ makes a history invalid under
// contract c.
func IsBad(typ string, c Contract) bool {
	switch typ {
	case CommittedRedelivery, AbortOther, IntNonmonotonicPoll:
		return true
	case AbortAdvance:
		return c == ContractRewind
	}
	return false
}
