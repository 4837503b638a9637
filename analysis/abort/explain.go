package abort

import (
	"fmt"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

// This file puts each abort instance into words, from the instance's own
// fields (the history is consulted through lookup only to name an op's
// process). Catalogue binds each function to its type.

type lookup = catalog.OpLookup

// pollWords describes a pair's poll: "op 7 (process 0, aborted) read 3..5".
func pollWords(p *PollRef) string {
	if p == nil {
		return "a poll"
	}
	return fmt.Sprintf("op %d (process %d, %s) read %s", p.Op, p.Process, p.Outcome, offsetRange(p.Offsets))
}

// offsetRange lists offsets, eliding the middle of a long list.
func offsetRange(offs []int64) string {
	if len(offs) <= catalog.MaxListed {
		return "[" + strings.ReplaceAll(catalog.Ints(offs), ",", "") + "]"
	}
	return fmt.Sprintf("[%d %d … %d] (%d offsets)", offs[0], offs[1], offs[len(offs)-1], len(offs))
}

// rebalanceWords says whether a rebalance came with the pair.
func rebalanceWords(in *Instance) string {
	if !in.Rebalance {
		return "no rebalance came with it"
	}
	ops := []int64{}
	for _, e := range in.RebalanceEvents {
		if len(ops) == 0 || ops[len(ops)-1] != e.Op {
			ops = append(ops, e.Op)
		}
	}
	return fmt.Sprintf("%d rebalance %s came with it (%s %s)", len(in.RebalanceEvents),
		catalog.Plural(int64(len(in.RebalanceEvents)), "event", "events"), catalog.Plural(int64(len(ops)), "op", "ops"), catalog.Ints(ops))
}

// what says what the pair shows, by type.
func what(in *Instance) string {
	first := "?"
	if in.N != nil && len(in.N.Offsets) > 0 {
		first = fmt.Sprint(in.N.Offsets[0])
	}
	switch {
	case in.CommittedPosition != nil && in.N != nil && len(in.N.Offsets) > 0 && in.N.Offsets[0] < *in.CommittedPosition:
		return fmt.Sprintf("it starts at %s, below the committed position %d (set by op %s): records a committed transaction consumed are delivered again",
			first, *in.CommittedPosition, catalog.I64(in.CommittedBy))
	case in.P != nil && in.P.Outcome == Unknown:
		return "the first poll's outcome is unknown, so the pair is not judged"
	}
	switch in.Class {
	case Advance:
		return fmt.Sprintf("it starts past everything the aborted poll read (a gap of %s): the aborted records are not delivered again%s",
			catalog.I64(in.Gap), allowedNote(in))
	case Rewind:
		return "it starts where the aborted poll started: the aborted records are delivered again"
	case RewindFurther:
		if in.ResumePoint != nil {
			return fmt.Sprintf("it starts before the aborted poll, at the resume point %d made by op %s",
				*in.ResumePoint, catalog.I64(in.ResumedFrom))
		}
		return "it starts before the aborted poll, but at no resume point: records between are skipped or redelivered without a reason any contract gives"
	}
	return "it starts inside the aborted poll's range, past its first offset: some aborted records are skipped while others are delivered again"
}

func allowedNote(in *Instance) string {
	if in.Allowed {
		return " (allowed under the kafka contract)"
	}
	return ""
}

// explainAnyPair words an instance of a pair type, compact or not.
func explainAnyPair(in analysis.Instance, l lookup) string {
	if x := AsInstance(in); x != nil {
		return explainPair(x, l)
	}
	return catalog.Fallback("instance", in)
}

// explainPair words an instance of any pair type.
func explainPair(in *Instance, _ lookup) string {
	if in.Pair == nil {
		return ""
	}
	return fmt.Sprintf("topic %s: %s; the next poll, %s, makes a pair of class %s: %s; %s.",
		catalog.Val(in.Key), pollWords(in.P), pollWords(in.N), in.Class, what(in), rebalanceWords(in))
}

func explainIntNonmonotonicPoll(in *Instance, l lookup) string {
	at := "?"
	if in.Index != nil && *in.Index > 0 && int(*in.Index) < len(in.Offsets) {
		at = fmt.Sprintf("%d then %d", in.Offsets[*in.Index-1], in.Offsets[*in.Index])
	}
	return fmt.Sprintf("topic %s: %s read offsets %s, which go backwards or repeat (%s).",
		catalog.Val(in.Key), catalog.OpName(l, derefOr(in.Op)), offsetRange(in.Offsets), at)
}

func derefOr(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}
