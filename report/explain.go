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
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
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
	return page.IndexLookup(h, idx)
}

var (
	ints   = catalog.Ints
	plural = catalog.Plural
)

// entryOf is the registry entry of the named workload; for a name the
// registry does not know (an old result's empty one), the first it lists,
// the queue, whose wording and page such a result has always had.
func entryOf(name string) *workload.Workload {
	if w, ok := workload.Lookup(name); ok {
		return w
	}
	return workload.All()[0]
}

// ExplainIn says in plain words what one instance of typ shows in a
// history of the given workload: the type's catalogue entry words it
// (workload.Describe finds it), or, for a type no entry describes, its
// witness ops do.
func ExplainIn(wl, typ string, in analysis.Instance, lookup OpLookup) string {
	if e, ok := workload.Describe(wl, typ); ok && e.Explain != nil {
		return e.Explain(in, lookup)
	}
	return catalog.Fallback(typ, in)
}

// ExplainStepIn says why one edge of a cycle exists, in a history of the
// given workload (the queue's wording for an unknown one).
func ExplainStepIn(wl string, st analysis.Step, lookup OpLookup) string {
	w := entryOf(wl)
	if w.ExplainStep == nil {
		return ""
	}
	return w.ExplainStep(st, lookup)
}
