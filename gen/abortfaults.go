package gen

import (
	"fmt"
	"strconv"
)

// AbortFaultKind names one kind of misbehaviour WriteAbort can inject into
// an abort history; each produces exactly one instance of the anomaly type
// of docs/abort.md it is named after, bad under both contracts.
type AbortFaultKind uint8

// Abort fault kinds, in the order of AbortFaultKinds and of the summary.
const (
	// CommittedRedelivery: a poll starts one record below its topic's
	// committed position and commits (committed-redelivery).
	CommittedRedelivery AbortFaultKind = iota
	// AbortOther: after a poll of two records aborts, the consumer resumes
	// at its second record (abort-other).
	AbortOther
	// NonmonotonicPoll: a committed poll of three records lists its last
	// two offsets swapped (int-nonmonotonic-poll); its first offset, which
	// classes its pair with the poll before, stays first.
	NonmonotonicPoll
	numAbortFaultKinds
)

var abortFaultNames = []string{"committed-redelivery", "abort-other", "int-nonmonotonic-poll"}

// String returns the kind's command-line name, e.g. "abort-other", which
// is also the anomaly type it produces.
func (k AbortFaultKind) String() string {
	if k < numAbortFaultKinds {
		return abortFaultNames[k]
	}
	return "AbortFaultKind(" + strconv.Itoa(int(k)) + ")"
}

// AbortFaultKinds lists every abort fault kind, in order.
func AbortFaultKinds() []AbortFaultKind { return allKinds(numAbortFaultKinds) }

// ParseAbortFaultKind reads a kind name as printed by AbortFaultKind.String.
func ParseAbortFaultKind(s string) (AbortFaultKind, error) {
	return parseKind[AbortFaultKind](abortFaultNames, "abort fault", s)
}

// AbortFault asks WriteAbort for Count injections of Kind.
type AbortFault = Injections[AbortFaultKind]

// ParseAbortFault reads "kind" (one injection) or "kind=count".
func ParseAbortFault(s string) (AbortFault, error) { return parseFault(s, ParseAbortFaultKind) }

// AbortInjection records one fault WriteAbort carried out.
type AbortInjection struct {
	Fault   AbortFaultKind
	Topic   string
	Process int64
	// Op is the :index of the completion of the poll the anomaly names
	// last: the redelivering poll, the poll after the aborted one, or the
	// nonmonotonic poll.
	Op int64
}

// String describes the injection in one line.
func (in AbortInjection) String() string {
	return fmt.Sprintf("%s topic=%s process=%d op=%d", in.Fault, in.Topic, in.Process, in.Op)
}

// Injected is how many faults of kind k were injected.
func (s *AbortStats) Injected(k AbortFaultKind) int {
	return countKind(s.Injections, k, func(in AbortInjection) AbortFaultKind { return in.Fault })
}

// faultFor decides whether the poll of w on t now completing carries the
// due fault, and returns it: each kind needs a poll that can show it.
func (s *asim) faultFor(w *aworker, t *atopic) (AbortFaultKind, bool) {
	k, ok := s.faults.peek(s.lines)
	if !ok || w.awaitNext {
		return 0, false
	}
	avail := len(t.recs) - t.pos
	switch k {
	case CommittedRedelivery:
		ok = w.hasPrev && t.okCommitted >= 1 && !w.abortAsked
	case AbortOther:
		ok = w.abortAsked && avail >= 2
	case NonmonotonicPoll:
		ok = !w.abortAsked && avail >= 3
	}
	if ok {
		s.faults.due(s.lines)
	}
	return k, ok
}
