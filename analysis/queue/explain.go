package queue

import (
	"fmt"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

// This file puts each queue anomaly instance into words, from the
// instance's own fields (the history is consulted through lookup only to
// name an op's process). Catalogue binds each function to its type.

type lookup = catalog.OpLookup

// opOf names the op p points to with its process, "an op" for none.
func opOf(l lookup, p *int64) string {
	if p == nil {
		return "an op"
	}
	return catalog.OpName(l, *p)
}

func explainInconsistentOffsets(in *Instance, _ lookup) string {
	return fmt.Sprintf("key %s: offset %s (position %s of the version order) holds %d different values: %s (observed by ops %s).",
		catalog.Val(in.Key), catalog.I64(in.Offset), catalog.I64(in.Index), len(in.Values), catalog.Vals(in.Values), catalog.Ints(in.Ops))
}

func explainDuplicate(in *Instance, _ lookup) string {
	return fmt.Sprintf("key %s: value %s sits at %s offsets: %s.", catalog.Val(in.Key), catalog.Val(in.Value), catalog.I64(in.Count), catalog.Ints(in.Offsets))
}

func explainG1a(in *Instance, l lookup) string {
	return fmt.Sprintf("key %s: %s read value %s at offset %s, but %s, which sent it, failed: an aborted read.",
		catalog.Val(in.Key), opOf(l, in.Reader), catalog.Val(in.Value), catalog.I64(in.Offset), opOf(l, in.Writer))
}

func explainPrecommittedRead(in *Instance, l lookup) string {
	return fmt.Sprintf("key %s: %s read value %s, which it sent itself, before it had committed.",
		catalog.Val(in.Key), opOf(l, in.Op), catalog.Val(in.Value))
}

func explainLostWrite(in *Instance, l lookup) string {
	return fmt.Sprintf("key %s: value %s, sent at offset %s by %s, was never read, though %s read past it (offset %s).",
		catalog.Val(in.Key), catalog.Val(in.Value), catalog.I64(in.Offset), opOf(l, in.Writer), opOf(l, in.MaxRead), catalog.I64(in.MaxReadOffset))
}

func explainUnseen(in *Instance, _ lookup) string {
	n := int64(0)
	if in.Count != nil {
		n = *in.Count
	}
	return fmt.Sprintf("key %s: %d %s acknowledged by ok sends %s never read by any ok poll: %s.",
		catalog.Val(in.Key), n, catalog.Plural(n, "value", "values"), catalog.Plural(n, "was", "were"), catalog.Vals(in.Values))
}

func explainPollSkip(in *Instance, _ lookup) string {
	last, next := "?", "?"
	if len(in.Values) == 2 {
		last, next = in.Values[0].String(), in.Values[1].String()
	}
	return fmt.Sprintf("key %s: process %s's op %d read up to %s; its next poll, op %d, started at %s, %s positions on, skipping %s.%s",
		catalog.Val(in.Key), catalog.I64(in.Process), in.Ops[0], last, in.Ops[1], next, catalog.I64(in.Delta), skippedVals(in), allowedNote(in))
}

func explainNonmonotonicPoll(in *Instance, _ lookup) string {
	return fmt.Sprintf("key %s: process %s's op %d ended at value %s, but its next poll, op %d, started at %s, %s.%s",
		catalog.Val(in.Key), catalog.I64(in.Process), in.Ops[0], in.Values[0].String(), in.Ops[1], in.Values[1].String(), backwards(in.Delta), allowedNote(in))
}

func explainNonmonotonicSend(in *Instance, _ lookup) string {
	return fmt.Sprintf("key %s: process %s sent %s (op %d), then %s (op %d), which landed %s.",
		catalog.Val(in.Key), catalog.I64(in.Process), in.Values[0].String(), in.Ops[0], in.Values[1].String(), in.Ops[1], backwards(in.Delta))
}

// withinOp words an instance of the int-* types, two consecutive values
// of one op on one key: "key K: OP VERB A then B, WHAT.".
func withinOp(in *Instance, l lookup, verb, what string) string {
	return fmt.Sprintf("key %s: %s %s %s then %s, %s.",
		catalog.Val(in.Key), opOf(l, in.Op), verb, in.Values[0].String(), in.Values[1].String(), what)
}

func explainIntPollSkip(in *Instance, l lookup) string {
	return withinOp(in, l, "read", "skipping "+skippedVals(in)+" in between")
}

func explainIntNonmonotonicPoll(in *Instance, l lookup) string {
	return withinOp(in, l, "read", backwards(in.Delta))
}

func explainIntSendSkip(in *Instance, l lookup) string {
	return withinOp(in, l, "sent", "and "+skippedVals(in)+" landed between them (allowed: other producers' writes interleave)")
}

func explainIntNonmonotonicSend(in *Instance, l lookup) string {
	return withinOp(in, l, "sent", "and the second landed "+backwards(in.Delta))
}

func explainGarbageRead(in *Instance, l lookup) string {
	return fmt.Sprintf("key %s: %s read value %s at offset %s, which no op in the history ever sent.",
		catalog.Val(in.Key), opOf(l, in.Reader), catalog.Val(in.Value), catalog.I64(in.Offset))
}

func explainTornTransaction(in *Instance, l lookup) string {
	what := "lost (never read by any poll, though values after it were)"
	if in.Reason == "aborted" {
		what = "never seen anywhere (the op failed, yet part of it took effect)"
	}
	op := int64(-1)
	if in.Op != nil {
		op = *in.Op
	}
	return fmt.Sprintf("%s sent %s as one unit: %s %s read, but %s %s: its effects were not atomic.",
		catalog.OpTyped(l, op), pairs(append(append([]analysis.Pair{}, in.Seen...), in.Missing...)),
		pairs(in.Seen), catalog.Plural(int64(len(in.Seen)), "was", "were"), pairs(in.Missing), catalog.Plural(int64(len(in.Missing)), "was", "were")+" "+what)
}

func explainStalledConsumer(in *Instance, _ lookup) string {
	d := 0.0
	if in.DurationS != nil {
		d = *in.DurationS
	}
	stuck := "before reading anything"
	if in.StuckOffset != nil && *in.StuckOffset >= 0 {
		stuck = "at offset " + catalog.I64(in.StuckOffset)
	}
	return fmt.Sprintf("key %s: process %s polled again and again from op %s to op %s (%.1f s) and stayed %s, while offsets up to %s had been acknowledged.",
		catalog.Val(in.Key), catalog.I64(in.Process), catalog.I64(in.From), catalog.I64(in.To), d, stuck, catalog.I64(in.AckedOffset))
}

func pairs(ps []analysis.Pair) string {
	var parts []string
	for i, p := range ps {
		if i == catalog.MaxListed {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(ps)-catalog.MaxListed))
			break
		}
		parts = append(parts, p[1].String()+" to key "+p[0].String())
	}
	return strings.Join(parts, ", ")
}

func backwards(d *int64) string {
	if d == nil {
		return "out of order"
	}
	if *d == 0 {
		return "at the same position again"
	}
	return fmt.Sprintf("%d %s back", -*d, catalog.Plural(-*d, "position", "positions"))
}

func allowedNote(in *Instance) string {
	if in.Allowed {
		return " Allowed here: the process subscribed, and a rebalance may move a consumer."
	}
	return ""
}

// ExplainStep says why one edge of a queue cycle exists.
func ExplainStep(st analysis.Step, l catalog.OpLookup) string {
	from, to := catalog.OpName(l, st.From), catalog.OpName(l, st.To)
	var parts []string
	for _, rel := range strings.Split(st.Rel, "+") {
		switch rel {
		case "wr":
			off := ""
			if len(st.Offsets) == 1 {
				off = fmt.Sprintf(" at offset %d", st.Offsets[0])
			}
			parts = append(parts, fmt.Sprintf("%s read value %s of key %s%s, written by %s", to, catalog.Val(st.Value), catalog.Val(st.Key), off, from))
		case "ww":
			if len(st.Values) == 2 {
				off := ""
				if len(st.Offsets) == 2 {
					off = fmt.Sprintf(" (offsets %d, %d)", st.Offsets[0], st.Offsets[1])
				}
				parts = append(parts, fmt.Sprintf("%s wrote %s to key %s, and the next value there%s is %s, written by %s%s",
					from, st.Values[0].String(), catalog.Val(st.Key), off, st.Values[1].String(), to, contest(st)))
			} else {
				parts = append(parts, fmt.Sprintf("%s wrote the value of key %s just before %s's", from, catalog.Val(st.Key), to))
			}
		case "process":
			parts = append(parts, fmt.Sprintf("%s is the next op of the same process after %s", to, from))
		case "realtime":
			parts = append(parts, fmt.Sprintf("%s completed before %s was invoked", from, to))
		}
	}
	return strings.Join(parts, "; and ")
}

// contest says that a ww step rests on a log order that other
// observations of the same offsets contradict ("" when none does).
func contest(st analysis.Step) string {
	if !st.Contested {
		return ""
	}
	who := "another op"
	switch n := len(st.ContradictedBy); {
	case n == 1:
		who = fmt.Sprintf("op %d", st.ContradictedBy[0])
	case n > 1:
		who = "ops " + catalog.Ints(st.ContradictedBy)
	}
	return fmt.Sprintf(", an assumed order: %s observed another value at one of these offsets", who)
}

// explainCycle returns the explainer of a cycle type: each step, then
// what the cycle means (the end of a sentence).
func explainCycle(meaning string) func(*Instance, lookup) string {
	return func(in *Instance, l lookup) string {
		if in.CycleFields == nil { // not a cycle: no steps to word
			return catalog.Fallback("cycle", in)
		}
		var sb strings.Builder
		for i, st := range in.Steps {
			if i > 0 {
				sb.WriteString("; ")
			}
			sb.WriteString(ExplainStep(st, l))
		}
		sb.WriteString(": ")
		sb.WriteString(meaning)
		if in.Allowed {
			sb.WriteString(" (allowed with --ww-deps: the cycle needs a write-write edge, and Kafka's transactional writes are not isolated)")
		}
		sb.WriteString(".")
		return sb.String()
	}
}

// skippedVals lists a skip's skipped values as catalog.Vals does, counting
// in the elision those the instance left out (SkippedCount, MaxSkipped).
func skippedVals(in *Instance) string {
	if in.SkippedCount == nil || int(*in.SkippedCount) <= len(in.Skipped) {
		return catalog.Vals(in.Skipped)
	}
	vs := in.Skipped[:min(catalog.MaxListed, len(in.Skipped))]
	more := int(*in.SkippedCount) - len(vs)
	return strings.Join([]string{catalog.Vals(vs), fmt.Sprintf("… (%d more)", more)}, ", ")
}
