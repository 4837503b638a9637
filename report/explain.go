// Package report turns analysis results into what people and programs read:
// a text summary, the stable JSON of spec/results.md, and (html.go) a
// self-contained HTML page. It never searches the history for anomalies
// again: every sentence is built from an instance's own fields, with the
// history consulted only to name an op's process and outcome.
//
// All functions here are pure: they return strings or write to the writer
// they are given.
package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// OpInfo describes an op for explanations.
type OpInfo struct {
	Process int32
	Type    model.OpType
	F       string
}

// OpLookup finds an op by its :index; ok is false when it is unknown.
type OpLookup func(index int64) (info OpInfo, ok bool)

// HistoryLookup returns an OpLookup over h (model.IndexMap: free for a
// history in index order).
func HistoryLookup(h *model.History) OpLookup {
	if h == nil {
		return nil
	}
	return IndexLookup(h, model.NewIndexMap(h))
}

// IndexLookup returns an OpLookup over h through an IndexMap already built.
func IndexLookup(h *model.History, idx *model.IndexMap) OpLookup {
	return func(index int64) (OpInfo, bool) {
		i := idx.Pos(index)
		if i < 0 {
			return OpInfo{}, false
		}
		op := &h.Ops[i]
		f := op.F.String()
		if op.F == model.FOther {
			f = h.FNameOf(op)
		}
		return OpInfo{Process: op.Process, Type: op.Type, F: f}, true
	}
}

// MaxListed is how many values an explanation lists before eliding.
const MaxListed = 8

func val(v *analysis.Value) string {
	if v == nil {
		return "?"
	}
	return v.String()
}

func vals(vs []analysis.Value) string {
	var parts []string
	for i, v := range vs {
		if i == MaxListed {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-MaxListed))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, ", ")
}

// skippedVals lists a skip's skipped values, counting those the instance
// left out (SkippedCount) in the elision.
func skippedVals(in *analysis.Instance) string {
	vs := in.Skipped
	more := len(vs) - MaxListed
	if in.SkippedCount != nil {
		more = int(*in.SkippedCount) - MaxListed
	}
	if more <= 0 {
		return vals(vs)
	}
	var parts []string
	for _, v := range vs[:min(MaxListed, len(vs))] {
		parts = append(parts, v.String())
	}
	return strings.Join(append(parts, fmt.Sprintf("… (%d more)", more)), ", ")
}

func ints(xs []int64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, strconv.FormatInt(x, 10))
	}
	return strings.Join(parts, ", ")
}

func i64(p *int64) string {
	if p == nil {
		return "?"
	}
	return strconv.FormatInt(*p, 10)
}

// opName names an op with its process when known: "op 12 (process 3)".
func opName(lookup OpLookup, idx int64) string {
	if lookup != nil {
		if in, ok := lookup(idx); ok && in.Process != model.NoProcess {
			return fmt.Sprintf("op %d (process %d)", idx, in.Process)
		}
	}
	return fmt.Sprintf("op %d", idx)
}

func opTyped(lookup OpLookup, idx int64) string {
	if lookup != nil {
		if in, ok := lookup(idx); ok {
			return fmt.Sprintf("op %d (process %d, %s %s)", idx, in.Process, in.Type, in.F)
		}
	}
	return fmt.Sprintf("op %d", idx)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Explain says in plain words what one instance of typ shows. lookup may be
// nil; with it, ops are named with their process.
func Explain(typ string, in *analysis.Instance, lookup OpLookup) string {
	key := val(in.Key)
	op := func(p *int64) string {
		if p == nil {
			return "an op"
		}
		return opName(lookup, *p)
	}
	switch typ {
	case "inconsistent-offsets":
		return fmt.Sprintf("key %s: offset %s (position %s of the version order) holds %d different values: %s (observed by ops %s).",
			key, i64(in.Offset), i64(in.Index), len(in.Values), vals(in.Values), ints(in.Ops))
	case "duplicate":
		return fmt.Sprintf("key %s: value %s sits at %s offsets: %s.", key, val(in.Value), i64(in.Count), ints(in.Offsets))
	case "G1a":
		return fmt.Sprintf("key %s: %s read value %s at offset %s, but %s, which sent it, failed: an aborted read.",
			key, op(in.Reader), val(in.Value), i64(in.Offset), op(in.Writer))
	case "precommitted-read":
		return fmt.Sprintf("key %s: %s read value %s, which it sent itself, before it had committed.",
			key, op(in.Op), val(in.Value))
	case "lost-write":
		return fmt.Sprintf("key %s: value %s, sent at offset %s by %s, was never read, though %s read past it (offset %s).",
			key, val(in.Value), i64(in.Offset), op(in.Writer), op(in.MaxRead), i64(in.MaxReadOffset))
	case "unseen":
		n := int64(0)
		if in.Count != nil {
			n = *in.Count
		}
		return fmt.Sprintf("key %s: %d %s acknowledged by ok sends %s never read by any ok poll: %s.",
			key, n, plural(n, "value", "values"), plural(n, "was", "were"), vals(in.Values))
	case "poll-skip":
		last, next := "?", "?"
		if len(in.Values) == 2 {
			last, next = in.Values[0].String(), in.Values[1].String()
		}
		return fmt.Sprintf("key %s: process %s's op %d read up to %s; its next poll, op %d, started at %s, %s positions on, skipping %s.%s",
			key, i64(in.Process), in.Ops[0], last, in.Ops[1], next, i64(in.Delta), skippedVals(in), allowedNote(in))
	case "nonmonotonic-poll":
		return fmt.Sprintf("key %s: process %s's op %d ended at value %s, but its next poll, op %d, started at %s, %s.%s",
			key, i64(in.Process), in.Ops[0], in.Values[0].String(), in.Ops[1], in.Values[1].String(), backwards(in.Delta), allowedNote(in))
	case "nonmonotonic-send":
		return fmt.Sprintf("key %s: process %s sent %s (op %d), then %s (op %d), which landed %s.",
			key, i64(in.Process), in.Values[0].String(), in.Ops[0], in.Values[1].String(), in.Ops[1], backwards(in.Delta))
	case "int-poll-skip":
		return fmt.Sprintf("key %s: %s read %s then %s, skipping %s in between.",
			key, op(in.Op), in.Values[0].String(), in.Values[1].String(), skippedVals(in))
	case "int-nonmonotonic-poll":
		return fmt.Sprintf("key %s: %s read %s then %s, %s.",
			key, op(in.Op), in.Values[0].String(), in.Values[1].String(), backwards(in.Delta))
	case "int-send-skip":
		return fmt.Sprintf("key %s: %s sent %s then %s, and %s landed between them (allowed: other producers' writes interleave).",
			key, op(in.Op), in.Values[0].String(), in.Values[1].String(), skippedVals(in))
	case "int-nonmonotonic-send":
		return fmt.Sprintf("key %s: %s sent %s then %s, and the second landed %s.",
			key, op(in.Op), in.Values[0].String(), in.Values[1].String(), backwards(in.Delta))
	case "G0", "G0-process", "G0-realtime", "G1c", "G1c-process", "G1c-realtime":
		return ExplainCycle(typ, in, lookup)
	case "garbage-read":
		return fmt.Sprintf("key %s: %s read value %s at offset %s, which no op in the history ever sent.",
			key, op(in.Reader), val(in.Value), i64(in.Offset))
	case "torn-transaction":
		what := "lost (never read by any poll, though values after it were)"
		if in.Reason == "aborted" {
			what = "never seen anywhere (the op failed, yet part of it took effect)"
		}
		return fmt.Sprintf("%s sent %s as one unit: %s %s read, but %s %s: its effects were not atomic.",
			opTyped(lookup, derefOr(in.Op)), pairs(append(append([]analysis.Pair{}, in.Seen...), in.Missing...)),
			pairs(in.Seen), plural(int64(len(in.Seen)), "was", "were"), pairs(in.Missing), plural(int64(len(in.Missing)), "was", "were")+" "+what)
	case "stalled-consumer":
		d := 0.0
		if in.DurationS != nil {
			d = *in.DurationS
		}
		stuck := "before reading anything"
		if in.StuckOffset != nil && *in.StuckOffset >= 0 {
			stuck = "at offset " + i64(in.StuckOffset)
		}
		return fmt.Sprintf("key %s: process %s polled again and again from op %s to op %s (%.1f s) and stayed %s, while offsets up to %s had been acknowledged.",
			key, i64(in.Process), i64(in.From), i64(in.To), d, stuck, i64(in.AckedOffset))
	}
	return fmt.Sprintf("%s: witness ops %s", typ, ints(in.Witness))
}

func derefOr(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func pairs(ps []analysis.Pair) string {
	var parts []string
	for i, p := range ps {
		if i == MaxListed {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(ps)-MaxListed))
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
	return fmt.Sprintf("%d %s back", -*d, plural(-*d, "position", "positions"))
}

func allowedNote(in *analysis.Instance) string {
	if in.Allowed {
		return " Allowed here: the process subscribed, and a rebalance may move a consumer."
	}
	return ""
}

// ExplainStep says why one edge of a cycle exists.
func ExplainStep(st analysis.Step, lookup OpLookup) string {
	from, to := opName(lookup, st.From), opName(lookup, st.To)
	var parts []string
	for _, rel := range strings.Split(st.Rel, "+") {
		switch rel {
		case "wr":
			off := ""
			if len(st.Offsets) == 1 {
				off = fmt.Sprintf(" at offset %d", st.Offsets[0])
			}
			parts = append(parts, fmt.Sprintf("%s read value %s of key %s%s, written by %s", to, val(st.Value), val(st.Key), off, from))
		case "ww":
			if len(st.Values) == 2 {
				off := ""
				if len(st.Offsets) == 2 {
					off = fmt.Sprintf(" (offsets %d, %d)", st.Offsets[0], st.Offsets[1])
				}
				parts = append(parts, fmt.Sprintf("%s wrote %s to key %s, and the next value there%s is %s, written by %s%s",
					from, st.Values[0].String(), val(st.Key), off, st.Values[1].String(), to, queueContest(st)))
			} else {
				parts = append(parts, fmt.Sprintf("%s wrote the value of key %s just before %s's", from, val(st.Key), to))
			}
		case "process":
			parts = append(parts, fmt.Sprintf("%s is the next op of the same process after %s", to, from))
		case "realtime":
			parts = append(parts, fmt.Sprintf("%s completed before %s was invoked", from, to))
		}
	}
	return strings.Join(parts, "; and ")
}

// queueContest says that a queue ww step rests on a log order that other
// observations of the same offsets contradict ("" when none does).
func queueContest(st analysis.Step) string {
	if !st.Contested {
		return ""
	}
	who := "another op"
	switch n := len(st.ContradictedBy); {
	case n == 1:
		who = fmt.Sprintf("op %d", st.ContradictedBy[0])
	case n > 1:
		who = "ops " + ints(st.ContradictedBy)
	}
	return fmt.Sprintf(", an assumed order: %s observed another value at one of these offsets", who)
}

var cycleMeaning = map[string]string{
	"G0":           "the writes of these ops are ordered differently on different keys, a G0 (write cycle)",
	"G0-process":   "with process order, the writes form a cycle, a G0-process",
	"G0-realtime":  "with realtime order, the writes form a cycle, a G0-realtime",
	"G1c":          "each op saw the effect of the next, all the way round, a G1c cycle",
	"G1c-process":  "with process order, each op saw the effect of the next, all the way round, a G1c-process cycle",
	"G1c-realtime": "with realtime order, each op depends on the next, all the way round, a G1c-realtime cycle: some op saw the future",
}

// ExplainCycle explains a cycle instance step by step.
func ExplainCycle(typ string, in *analysis.Instance, lookup OpLookup) string {
	var sb strings.Builder
	for i, st := range in.Steps {
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(ExplainStep(st, lookup))
	}
	sb.WriteString(": ")
	sb.WriteString(cycleMeaning[typ])
	if in.Allowed {
		sb.WriteString(" (allowed with --ww-deps: the cycle needs a write-write edge, and Kafka's transactional writes are not isolated)")
	}
	sb.WriteString(".")
	return sb.String()
}
