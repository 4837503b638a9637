// Package abortview is the abort workload's part of the HTML report and
// the text summary (docs/abort.md): the count table of pairs of polls, and
// per topic a chart of its polls in history order, each drawn as the range
// of offsets it read, coloured by outcome (committed, aborted, unknown),
// with the polls that carried a consumer-group rebalance marked and every
// pair an anomaly instance names drawn as an arrow from P's last offset to
// N's first, labelled by its class. Its Layout is what the abort
// workload's registry entry (package workload) holds for the report.
package abortview

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/abort"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/report/page"
)

// Layout is the abort workload's part of the report (page.Layout).
type Layout struct{}

// Page fills v with the count table, the options and one chart of polls
// per topic.
func (Layout) Page(b *page.Builder, v *page.View) {
	v.Stats = statFacts(b.Res)
	v.Options = []page.Fact{{Label: "--abort-contract", Value: b.Res.Options.AbortContract}}
	var polls []page.Chart
	if b.H != nil {
		polls = pollCharts(b)
	}
	v.Charts = append(v.Charts, polls...)
	v.Charts = append(v.Charts, b.CycleCharts...)
	v.Omissions = append(v.Omissions, b.Omissions...)
	if len(polls) > 0 { // the polls section is empty without them
		v.Parts.Nav = []page.Link{{Anchor: "polls", Text: "polls"}}
	}
	v.Parts.Body = []page.Part{{Template: "abort-polls", Data: polls}, {Template: "anomalies", Data: v}}
}

// templates define the abort workload's part of the page: the sections
// of its charts of polls.
//
//go:embed page.html.tmpl
var templates string

// Templates defines "abort-polls".
func (Layout) Templates() string { return templates }

// Instance adds nothing to an abort instance (its explanation names the
// polls, offsets, class and positions) but that it has no offset timeline
// to show it on.
func (Layout) Instance(_ *page.Builder, iv *page.InstanceView, _ string, _ analysis.Instance) {
	iv.TimelineKey = -1
}

// Witness shows what the abort decoder read of a witness op (a poll's
// topic, :abort? and offsets), or its micro-ops when it read nothing.
func (Layout) Witness(b *page.Builder, row *page.WitnessRow, pos int) {
	s := abort.OpText(b.H, pos)
	if s == "" {
		s = b.OpValue(pos)
	}
	row.Value = page.Elide(s, b.O.MaxValueChars)
}

// Cycle draws nothing: abort instances have no cycles.
func (Layout) Cycle(*page.Builder, string, int, analysis.Instance, []page.StepView) page.Chart {
	return page.Chart{}
}

// Head is the count table, which the text summary shows first.
func (Layout) Head(r *analysis.Result) string {
	lines := abort.CountTable(r)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Summary is the figures of an abort history.
func (Layout) Summary(r *analysis.Result) string {
	s := r.Stats
	o := analysis.OwnOf[abort.Stats](s)
	return fmt.Sprintf("\n%s (%d client: %d ok, %d info, %d fail, %d never completed), %s; %d ms\n",
		catalog.Count(s.Ops, "op", "ops"), s.ClientOps, s.OKOps, s.InfoOps, s.FailOps, s.OpenOps,
		catalog.Count(o.Polls, "poll", "polls"), s.ElapsedMS)
}

// statFacts are the history's figures and its count table, a row per
// outcome of the earlier poll.
func statFacts(res *analysis.Result) []page.Fact {
	s := res.Stats
	o := analysis.OwnOf[abort.Stats](s)
	n := page.Thousands
	facts := []page.Fact{
		{Label: "ops", Value: n(s.Ops)},
		{Label: "client ops (completions)", Value: fmt.Sprintf("%s: %s ok, %s info, %s fail, %s never completed",
			n(s.ClientOps), n(s.OKOps), n(s.InfoOps), n(s.FailOps), n(s.OpenOps))},
		{Label: "polls", Value: n(o.Polls)},
	}
	rows := map[string][]string{}
	var pairs int64
	for _, c := range res.PairCounts {
		pairs += c.Pairs
		rows[c.Outcome] = append(rows[c.Outcome], fmt.Sprintf("%s %s (%s with a rebalance)", n(c.Pairs), c.Class, n(c.WithRebalance)))
	}
	facts = append(facts, page.Fact{Label: "pairs of polls", Value: n(pairs)})
	after := map[string]string{abort.Committed: "after a committed poll", abort.Aborted: "after an aborted poll",
		abort.Unknown: "after a poll of unknown outcome"}
	for _, o := range abort.Outcomes {
		if r := rows[o]; r != nil {
			facts = append(facts, page.Fact{Label: after[o], Value: strings.Join(r, ", ")})
		}
	}
	return append(facts, page.CheckTime(s.ElapsedMS))
}
