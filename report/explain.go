// Package report turns analysis results into what people and programs read: a
// text summary, the stable JSON of docs/README.md#json-output, and (html.go)
// a self-contained HTML page. It never searches the history for anomalies
// again: every sentence is built from an instance's own fields, with the
// history consulted only to name an op's process and outcome.
//
// What an anomaly type means, how an instance is worded and how the
// offset timeline draws it come from the type's catalogue entry (package
// catalog), found through the registry (package workload) by workload and
// name; report spells no type's name.
//
// All functions here are pure: they return strings or write to the writer
// they are given.
package report

import (
	"fmt"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// OpInfo describes an op for explanations.
type OpInfo = catalog.OpInfo

// OpLookup finds an op by its :index; ok is false when it is unknown.
type OpLookup = catalog.OpLookup

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

var (
	ints   = catalog.Ints
	plural = catalog.Plural
)

// IsTxnWorkload reports whether workload is one of the transactional ones
// (its registry entry says so).
func IsTxnWorkload(name string) bool {
	w, ok := workload.Lookup(name)
	return ok && w.Transactional
}

// ExplainIn says in plain words what one instance of typ shows in a
// history of the given workload: the type's catalogue entry words it
// (workload.Describe finds it), or, for a type no entry describes, its
// witness ops do.
func ExplainIn(wl, typ string, in *analysis.Instance, lookup OpLookup) string {
	if e, ok := workload.Describe(wl, typ); ok && e.Explain != nil {
		return e.Explain(in, lookup)
	}
	return catalog.Fallback(typ, in)
}

// ExplainStepIn says why one edge of a cycle exists, in a history of the
// given workload (the queue's wording for an unknown one).
func ExplainStepIn(wl string, st analysis.Step, lookup OpLookup) string {
	w, ok := workload.Lookup(wl)
	if !ok {
		w = workload.All()[0]
	}
	if w.ExplainStep == nil {
		return ""
	}
	return w.ExplainStep(st, lookup)
}

// ProofNote says what a cycle instance rests on when it is not proven
// from the history alone: "assumes the order of key 568 (from op 12's
// read), which op 7568 contradicts", or "rests on the version order given
// by --wfr-keys"; "" for a proven instance or one that is no cycle.
func ProofNote(in *analysis.Instance) string {
	switch in.Proof {
	case analysis.Assumes:
		parts := make([]string, len(in.Assumes))
		for i, a := range in.Assumes {
			from := ""
			if a.OrderOp != nil {
				from = fmt.Sprintf(" (from op %d's read)", *a.OrderOp)
			}
			parts[i] = fmt.Sprintf("the order of key %s%s, which %s", catalog.Val(a.Key), from, catalog.Contradict(a.ContradictedBy))
		}
		return "not proven: assumes " + strings.Join(parts, "; and ")
	case analysis.Given:
		names := make([]string, len(in.Given))
		for i, g := range in.Given {
			names[i] = "--" + g
		}
		return "rests on the version order given by " + strings.Join(names, " and ")
	}
	return ""
}

// ProvenNote says how many of a type's cycle instances are proven: "2 of
// 3 proven" ("" when the type has no cycle instances).
func ProvenNote(r *analysis.Result, typ string) string {
	n, ok := r.ProvenCycles[typ]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d of %d proven", n, len(r.Anomalies[typ]))
}

// TxnSources names the version-order sources a check used, for the text
// summary: its workload's VersionSources ("" for a workload without).
func TxnSources(r *analysis.Result) string {
	if w, ok := workload.Lookup(r.Workload); ok && w.VersionSources != nil {
		return w.VersionSources(r.Options)
	}
	return ""
}

// txnUnit names what a transactional history's messages are (its
// workload's Unit; "elements" for an unknown workload).
func txnUnit(name string) string {
	if w, ok := workload.Lookup(name); ok && w.Unit != "" {
		return w.Unit
	}
	return "elements"
}

// lists reports whether the reads of the named workload return lists.
func lists(name string) bool {
	w, ok := workload.Lookup(name)
	return ok && w.Lists
}
