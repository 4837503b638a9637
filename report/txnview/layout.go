package txnview

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/report/page"
)

// Layout is a transactional workload's part of the report (page.Layout).
type Layout struct {
	// List: a read returns the whole list of a key (list-append), so a
	// cycle edge's initial state is [] and the page words writes as
	// appends.
	List bool
	// Unit names what the history's messages are in summaries:
	// "elements" (list-append), "values" (rw-register).
	Unit string
	// Sources names the version-order sources a check ran with, from its
	// result's options, for the text summary; nil for a workload with
	// none to choose.
	Sources func(o analysis.Options) string
}

// builder is page's Builder with what the transactional view keeps while
// it works.
type builder struct {
	*page.Builder
	l Layout
	// tclock places ops on the transaction timeline.
	tclock txnClock
	// barMarks holds, by bar, the marks of the transaction timeline it is
	// in (markTxns); most bars are in none
	barMarks map[int][]int
}

// Page fills v with the transactional view: stats, models, the
// transaction timeline and the keys' version orders.
func (l Layout) Page(b *page.Builder, v *page.View) { (&builder{Builder: b, l: l}).txnView(v) }

// templates define the transactional parts of the page: the models
// checked and ruled out, the transaction timeline, the anomaly sections
// with their chains of orders and reads side by side, and the version
// orders.
//
//go:embed page.html.tmpl
var templates string

// Templates defines "txn-models", "txn-timeline", "txn-anomalies" and
// "txn-orders".
func (Layout) Templates() string { return templates }

// Instance adds a transactional instance's article id, a cycle's chain of
// orders, and an incompatible order's two reads side by side.
func (l Layout) Instance(b *page.Builder, iv *page.InstanceView, typ string, in analysis.Instance) {
	(&builder{Builder: b, l: l}).txnInstance(iv, typ, in)
}

// Witness lists a witness op's micro-ops, one string each.
func (l Layout) Witness(b *page.Builder, row *page.WitnessRow, pos int) {
	row.Mops = (&builder{Builder: b, l: l}).mopTexts(pos, witnessMops, 2*b.O.MaxValueChars)
}

// Cycle draws a transactional cycle, each transaction with its micro-ops.
func (l Layout) Cycle(b *page.Builder, typ string, n int, in analysis.Instance, steps []page.StepView) page.Chart {
	return (&builder{Builder: b, l: l}).txnCycleChart(typ, n, in, steps)
}

// Head adds nothing before the type table.
func (Layout) Head(*analysis.Result) string { return "" }

// Summary is the models checked and ruled out, the version-order sources
// and the figures of a transactional history.
func (l Layout) Summary(r *analysis.Result) string {
	var b strings.Builder
	s := r.Stats
	o := analysis.OwnOf[txn.Stats](s)
	fmt.Fprintf(&b, "\nmodels: %s; ruled out: %s", strings.Join(r.Models, ", "), orNone(r.Not))
	if len(r.AlsoNot) > 0 {
		fmt.Fprintf(&b, " (and so %d stronger models)", len(r.AlsoNot))
	}
	if l.Sources != nil {
		if srcs := l.Sources(r.Options); srcs != "" {
			fmt.Fprintf(&b, "\nversion orders from: %s", srcs)
		}
	}
	count := catalog.Count
	fmt.Fprintf(&b, "\n%s, %s (%d ok, %d info, %d fail, %d never completed), %s, %s; graph %s, %s, %s; %d ms\n",
		count(s.Ops, "op", "ops"), count(o.Txns, "txn", "txns"), s.OKOps, s.InfoOps, s.FailOps, s.OpenOps,
		count(s.Keys, "key", "keys"), count(o.Messages, strings.TrimSuffix(l.Unit, "s"), l.Unit),
		count(s.GraphVertices, "txn", "txns"), count(s.GraphEdges, "edge", "edges"), page.Cyclic(s.Components, s.LargestComponent, page.Decimal, "txn", "txns"), s.ElapsedMS)
	return b.String()
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
