package txn

import (
	"fmt"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/model"
)

// This file puts each anomaly instance of the transactional workloads
// (list-append, rw-register) into words: each non-cycle instance in a
// sentence, and each cycle the way Elle does, step by step ("op 3 < op
// 5, because ..."), every ww and rw step naming the read that showed its
// version order. Catalogue binds each type to its explanation.

// cutMopText is mopText of in's Mop, saying when it lists only the first
// of the read's elements (MopElements, MaxMopElements).
func cutMopText(in *Instance) string {
	if in.MopElements == nil {
		return mopText(in.Mop)
	}
	return fmt.Sprintf("%s, the first of %d elements", mopText(in.Mop), *in.MopElements)
}

func mopText(m *analysis.Mop) string {
	if m == nil {
		return "a read"
	}
	return m.String()
}

// named holds how a non-cycle instance names its key, op, writer and
// element (or value).
type named struct{ key, op, writer, elem, mop string }

func names(in *Instance, lookup catalog.OpLookup) named {
	n := named{key: catalog.Val(in.Key), op: "an op", writer: "an op", elem: catalog.Val(in.Element), mop: cutMopText(in)}
	if in.Op != nil {
		n.op = catalog.OpName(lookup, *in.Op)
	}
	if in.Writer != nil {
		n.writer = catalog.OpTyped(lookup, *in.Writer)
	}
	if in.Element == nil {
		n.elem = catalog.Val(in.Value)
	}
	return n
}

// explainer is how an entry words an instance without steps; "" when its
// fields are not the ones expected (Fallback then words it).
type explainer func(in *Instance, lookup catalog.OpLookup) string

// wording returns the Explain of a type of workload w: its cycle, step by
// step, when the instance has one; else explain's sentence; else the
// fallback.
func wording(w, typ string, explain explainer) func(analysis.Instance, catalog.OpLookup) string {
	return catalog.Own(func(in *Instance, lookup catalog.OpLookup) string {
		if in.CycleFields != nil && len(in.Steps) > 0 {
			return ExplainCycle(w, typ, in, lookup)
		}
		if explain != nil {
			if s := explain(in, lookup); s != "" {
				return s
			}
		}
		return catalog.Fallback(typ, in)
	})
}

func explainG1a(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	return fmt.Sprintf("%s read %s of key %s (%s), but %s, which wrote it, failed: an aborted read.",
		n.op, n.elem, n.key, n.mop, n.writer)
}

func explainG1bRegister(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	return fmt.Sprintf("%s read key %s = %s (%s), but %s overwrote %s within itself: an intermediate state, not its final write.",
		n.op, n.key, n.elem, n.mop, n.writer, n.elem)
}

func explainG1bList(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	return fmt.Sprintf("%s read key %s ending in %s (%s), but %s overwrote %s within itself: an intermediate state, not its final write.",
		n.op, n.key, n.elem, n.mop, n.writer, n.elem)
}

func explainInternal(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	return fmt.Sprintf("%s read %s, but its own earlier reads and writes of key %s say it should have read %s.",
		n.op, n.mop, n.key, catalog.Val(in.Expected))
}

func explainFutureReadRegister(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	return fmt.Sprintf("%s read %s of key %s (%s), a value it writes only later in itself.", n.op, n.elem, n.key, n.mop)
}

func explainFutureReadList(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	return fmt.Sprintf("%s read %s of key %s (%s), an element it appends only later in itself.", n.op, n.elem, n.key, n.mop)
}

func explainIncompatibleOrder(in *Instance, lookup catalog.OpLookup) string {
	if len(in.Values) != 2 || len(in.Ops) != 2 {
		return ""
	}
	return fmt.Sprintf("key %s: %s read %s and %s read %s; neither is a prefix of the other, so no single order of appends explains both (they first differ at element %d).",
		catalog.Val(in.Key), catalog.OpName(lookup, in.Ops[0]), in.Values[0].String(), catalog.OpName(lookup, in.Ops[1]), in.Values[1].String(),
		catalog.FirstDifference(in.Values[0], in.Values[1])+1)
}

func explainDuplicateElements(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	var parts []string
	for e, c := range sortedCounts(in.Duplicates) {
		parts = append(parts, fmt.Sprintf("%s %d times", e, c))
	}
	return fmt.Sprintf("%s read key %s as %s, which holds %s; every element is appended once.",
		n.op, n.key, n.mop, strings.Join(parts, ", "))
}

func explainDirtyUpdate(in *Instance, lookup catalog.OpLookup) string {
	if len(in.Txns) != 3 {
		return ""
	}
	return fmt.Sprintf("key %s: %s failed, yet its element is followed in the version order (%s) by the committed %s: a dirty update.",
		catalog.Val(in.Key), catalog.OpTyped(lookup, in.Txns[0].Int), catalog.Vals(in.Values), catalog.OpTyped(lookup, in.Txns[2].Int))
}

func explainLostUpdate(in *Instance, _ catalog.OpLookup) string {
	var ops []int64
	for _, x := range in.Txns {
		ops = append(ops, x.Int)
	}
	return fmt.Sprintf("key %s: ops %s each read %s and then wrote the key, unaware of the others: all but one of their updates were lost.",
		catalog.Val(in.Key), catalog.Ints(ops), catalog.Val(in.Value))
}

func explainGarbageRead(in *Instance, lookup catalog.OpLookup) string {
	n := names(in, lookup)
	if len(in.Values) > 1 { // list-append: every element of the read nobody appended
		n.elem = catalog.Vals(in.Values)
	}
	return fmt.Sprintf("%s read %s of key %s (%s), which no op in the history wrote.", n.op, n.elem, n.key, n.mop)
}

func explainDuplicateWrites(in *Instance, lookup catalog.OpLookup) string {
	if in.Reader != nil {
		return fmt.Sprintf("key %s: value %s was written by ops %s and read by %s, so which write that read saw cannot be told; the key is left out of the dependency graph.",
			catalog.Val(in.Key), catalog.Val(in.Value), catalog.Ints(in.Ops), catalog.OpName(lookup, *in.Reader))
	}
	return explainDuplicateAppends(in, lookup)
}

func explainDuplicateAppends(in *Instance, _ catalog.OpLookup) string {
	return fmt.Sprintf("key %s: value %s was written by ops %s, so its order cannot be told; the key is left out of the dependency graph.",
		catalog.Val(in.Key), catalog.Val(in.Value), catalog.Ints(in.Ops))
}

func explainEmptyGraph(*Instance, catalog.OpLookup) string {
	return "no transaction depends on another (no read saw another's write and no order links them), so nothing could be judged."
}

func explainCycleSearchTimeout(in *Instance, _ catalog.OpLookup) string {
	return fmt.Sprintf("the cycle search of a component of %s txns ran out of its budget while looking for %s; it had ruled out %s.",
		catalog.I64(in.SCCSize), in.SpecType, strings.Join(nonEmpty(in.DoesNotContain), ", "))
}

func nonEmpty(s []string) []string {
	if len(s) == 0 {
		return []string{"nothing"}
	}
	return s
}

// sortedCounts returns m's entries in key order (an iterator, for range).
func sortedCounts(m map[string]int64) func(yield func(string, int64) bool) {
	return func(yield func(string, int64) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		for i := 1; i < len(keys); i++ { // a few keys: insertion sort
			for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
				keys[j], keys[j-1] = keys[j-1], keys[j]
			}
		}
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

// txnCycleKinds says what each base cycle type is.
var txnCycleKinds = map[string]string{
	G0:               "a G0 cycle (write-write dependencies only)",
	G1c:              "a G1c cycle (circular information flow)",
	GSingleItem:      "a G-single-item cycle (exactly one anti-dependency: read skew)",
	GNonadjacentItem: "a G-nonadjacent-item cycle (anti-dependencies, no two in a row)",
	G2Item:           "a G2-item cycle (two anti-dependencies in a row: write skew)",
}

// ExplainCycle explains a transactional cycle as a chain of orders,
// "op A < op B, because ...", the last of which contradicts the first.
func ExplainCycle(workload, typ string, in *Instance, lookup catalog.OpLookup) string {
	if in.CycleFields == nil { // not a cycle: no steps to word
		return catalog.Fallback(typ, in)
	}
	var sb strings.Builder
	ops := make([]string, len(in.Cycle))
	for i, c := range in.Cycle {
		ops[i] = fmt.Sprint(c)
	}
	fmt.Fprintf(&sb, "ops %s form a cycle:", strings.Join(ops, " → "))
	for i, st := range in.Steps {
		sb.WriteString("\n      ")
		if i == len(in.Steps)-1 && len(in.Steps) > 1 {
			sb.WriteString("however ")
		}
		fmt.Fprintf(&sb, "op %d < op %d, because %s", st.From, st.To, ExplainStep(workload, st, lookup))
		if i == len(in.Steps)-1 {
			sb.WriteString(": a contradiction")
		} else {
			sb.WriteString(";")
		}
	}
	base, form := typ, ""
	for _, sfx := range []string{"-process", "-realtime"} {
		if strings.HasSuffix(typ, sfx) {
			base, form = strings.TrimSuffix(typ, sfx), " with "+sfx[1:]+" order"
		}
	}
	if k, ok := txnCycleKinds[base]; ok {
		fmt.Fprintf(&sb, ", %s%s.", k, form)
	} else if in.Not != "" {
		fmt.Fprintf(&sb, ", so %s cannot hold (a cycle in %s).", in.Not, in.Subgraph)
	} else {
		sb.WriteString(".")
	}
	return sb.String()
}

// orderBy says which read showed the version order behind a ww or rw
// step, as a clause to follow the step's sentence.
func orderBy(st analysis.Step) string {
	switch {
	case st.Placed && len(st.ContradictedBy) > 0:
		from := "the order chosen"
		if st.OrderOp != nil {
			from = fmt.Sprintf("the order op %d's read gave", *st.OrderOp)
		}
		return fmt.Sprintf("; op %d's read shows %s, but no read shows it right after %s: %s puts it after everything",
			st.ContradictedBy[0], st.Values[1].String(), st.Values[0].String(), from)
	case st.OrderOp == nil:
		return ""
	case st.Unread:
		return fmt.Sprintf("; %s was never read, so it came after everything op %d's read showed", st.Values[1].String(), *st.OrderOp)
	}
	return fmt.Sprintf(", as op %d's read shows", *st.OrderOp)
}

// contestNote says that a contested step assumes its key's order, and
// which reads contradict it ("" for a step nothing contests).
func contestNote(st analysis.Step) string {
	if !st.Contested {
		return ""
	}
	return fmt.Sprintf(", assuming the order of key %s, which %s", catalog.Val(st.Key), catalog.Contradict(st.ContradictedBy))
}

// cyclicVersions explains an rw-register cyclic-versions instance: which
// source made a key's version order cyclic, and the cycle, each edge with
// why it holds.
func cyclicVersions(in *Instance, lookup catalog.OpLookup) string {
	key := catalog.Val(in.Key)
	if len(in.Sources) == 0 {
		return fmt.Sprintf("key %s: the version orders inferred for values %s contradict each other.", key, catalog.Vals(in.Values))
	}
	last := in.Sources[len(in.Sources)-1]
	var sb strings.Builder
	fmt.Fprintf(&sb, "key %s: the version order from %s, merged with %s, puts values %s in a cycle:",
		key, sourceName(last), sourceNames(in.Sources[:len(in.Sources)-1]), catalog.Vals(in.Values))
	for i, vs := range in.VersionCycle {
		if len(vs.Values) != 2 {
			continue
		}
		if i > 0 {
			sb.WriteString(";")
		}
		fmt.Fprintf(&sb, " %s < %s, because %s", vs.Values[0].String(), vs.Values[1].String(),
			versionReason(key, vs.Values, vs.OrderBy, vs.OrderOp, vs.OrderOps, lookup))
	}
	fmt.Fprintf(&sb, "; so %s was not used for key %s.", sourceName(last), key)
	return sb.String()
}

// sourceName is how text names a version-order source: its flag.
func sourceName(src string) string {
	if src == "initial-state" {
		return "the initial state"
	}
	return "--" + src
}

func sourceNames(srcs []string) string {
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = sourceName(s)
	}
	return strings.Join(names, " and ")
}

// versionReason says why vs[0] < vs[1] in key's version order, from the
// source and ops an rw-register step or version-cycle edge names.
func versionReason(key string, vs []analysis.Value, by string, op *int64, ops []int64, lookup catalog.OpLookup) string {
	a, b := vs[0].String(), vs[1].String()
	switch {
	case by == "initial-state":
		return "the initial state (nil) precedes every value written"
	case by == "wfr-keys" && op != nil:
		return fmt.Sprintf("op %d read %s = %s and then wrote %s (--wfr-keys: writes follow reads)", *op, key, a, b)
	case len(ops) != 2:
	case by == "sequential-keys":
		proc := "one process"
		if lookup != nil {
			if info, ok := lookup(ops[0]); ok {
				proc = fmt.Sprintf("process %d", info.Process)
			}
		}
		return fmt.Sprintf("%s ran op %d, whose last value of %s was %s, and then op %d, whose first was %s (--sequential-keys)",
			proc, ops[0], key, a, ops[1], b)
	case by == "linearizable-keys":
		return fmt.Sprintf("op %d, whose last value of %s was %s, completed before op %d, whose first was %s, was invoked (--linearizable-keys)",
			ops[0], key, a, ops[1], b)
	case by == "transaction-order":
		return fmt.Sprintf("op %d, which wrote %s, commits before op %d, which wrote %s (--transaction-order)", ops[0], a, ops[1], b)
	}
	return "of the version order inferred (" + by + ")"
}

// ExplainStep says why a transactional step holds, and what it assumes when
// it is contested.
func ExplainStep(workload string, st analysis.Step, lookup catalog.OpLookup) string {
	return txnStepWhy(workload, st, lookup) + contestNote(st)
}

func txnStepWhy(workload string, st analysis.Step, lookup catalog.OpLookup) string {
	from, to := fmt.Sprintf("op %d", st.From), fmt.Sprintf("op %d", st.To)
	key := catalog.Val(st.Key)
	list := workload == ListAppend
	if workload == RWRegister && st.OrderBy != "" && len(st.Values) == 2 {
		why := versionReason(key, st.Values, st.OrderBy, st.OrderOp, st.OrderOps, lookup)
		switch st.Rel {
		case "ww":
			return fmt.Sprintf("%s set key %s to %s, and %s set it to %s, which came later in its version order (ww): %s",
				from, key, st.Values[0].String(), to, st.Values[1].String(), why)
		case "rw":
			if st.Values[0].Kind == model.KNil {
				return fmt.Sprintf("%s read key %s in its initial (nil) state, so it did not see %s's write of %s (rw): %s",
					from, key, to, st.Values[1].String(), why)
			}
			return fmt.Sprintf("%s read key %s = %s, and %s set it to %s, which came later in its version order (rw): %s",
				from, key, st.Values[0].String(), to, st.Values[1].String(), why)
		}
	}
	switch st.Rel {
	case "wr":
		if list {
			return fmt.Sprintf("%s read key %s up to %s, the element %s appended (wr)", to, key, catalog.Val(st.Value), from)
		}
		return fmt.Sprintf("%s read key %s = %s, which %s wrote (wr)", to, key, catalog.Val(st.Value), from)
	case "ww":
		if len(st.Values) == 2 {
			if list {
				return fmt.Sprintf("%s appended %s to key %s right after %s's %s%s (ww)", to, st.Values[1].String(), key, from, st.Values[0].String(), orderBy(st))
			}
			return fmt.Sprintf("%s set key %s to %s, and %s's %s came next in its version order%s (ww)", from, key, st.Values[0].String(), to, st.Values[1].String(), orderBy(st))
		}
	case "rw":
		if len(st.Values) == 2 {
			seen := "read key " + key + " up to " + st.Values[0].String()
			if st.Values[0].Kind == model.KNil {
				seen = "read key " + key + " empty"
				if !list {
					seen = "read key " + key + " in its initial (nil) state"
				}
			} else if !list {
				seen = "read key " + key + " = " + st.Values[0].String()
			}
			what := "append"
			if !list {
				what = "write"
			}
			return fmt.Sprintf("%s %s, so it did not see %s's %s of %s, which came next%s (rw)", from, seen, to, what, st.Values[1].String(), orderBy(st))
		}
	case "process":
		if st.Process != nil {
			return fmt.Sprintf("process %d ran %s before %s (process order)", *st.Process, from, to)
		}
		return fmt.Sprintf("%s's process ran it before %s (process order)", from, to)
	case "realtime":
		return fmt.Sprintf("%s completed before %s was invoked (realtime)", from, to)
	}
	_ = lookup
	return fmt.Sprintf("%s → %s (%s)", from, to, st.Rel)
}

// VersionSources names the version-order sources an rw-register check
// ran with (o, the result's options), for the text summary: the initial
// state, then each source option's flag.
func VersionSources(o analysis.Options) string {
	srcs := []string{"the initial state"}
	for _, f := range []struct {
		on   *bool
		name string
	}{{o.WFRKeys, "--wfr-keys"}, {o.SequentialKeys, "--sequential-keys"}, {o.LinearizableKeys, "--linearizable-keys"}} {
		if f.on != nil && *f.on {
			srcs = append(srcs, f.name)
		}
	}
	if o.TransactionOrder != nil {
		srcs = append(srcs, "--transaction-order")
	}
	return strings.Join(srcs, ", ")
}
