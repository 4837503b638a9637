// Package queueview is the queue's part of the HTML report: its stats and
// options, the per-key offset timeline with each anomaly marked where its
// catalogue entry says (catalog.Mark), the unseen and realtime lag charts,
// and the drawing of a cycle's ops. Its Layout is what the queue's registry
// entry (package workload) holds for the report.
package queueview

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/report/page"
)

// Layout is the queue's part of the report (page.Layout).
type Layout struct{}

// builder is page's Builder with what the queue's view keeps while it
// works.
type builder struct {
	*page.Builder
	final     *page.Span
	finalDone bool
	// types are the anomaly types of the type table, in its order.
	types []string
	// located indexes the big ops that locate was asked about (see
	// locate.go), by op index, while anomalies are marked.
	located map[int64]opIndex
	// visited counts the micro-ops, polled keys and reads that finding
	// the marks' places went through (TestMarkWorkLinear).
	visited int64
}

// Page fills v with the queue's stats, offset timeline and charts.
func (Layout) Page(b *page.Builder, v *page.View) { (&builder{Builder: b}).queueView(v) }

// templates define the queue's parts of the page: its offset timeline
// and the sections of its series charts.
//
//go:embed page.html.tmpl
var templates string

// Templates defines "queue-timeline" and "queue-series".
func (Layout) Templates() string { return templates }

// Instance adds nothing to a queue instance.
func (Layout) Instance(*page.Builder, *page.InstanceView, string, analysis.Instance) {}

// Witness shows a witness op's micro-ops as one value.
func (Layout) Witness(b *page.Builder, row *page.WitnessRow, pos int) {
	row.Value = page.Elide(b.OpValue(pos), b.O.MaxValueChars)
}

// Cycle draws a cycle of ops.
func (Layout) Cycle(b *page.Builder, typ string, n int, in analysis.Instance, steps []page.StepView) page.Chart {
	return b.CycleChart(typ, n, in, steps)
}

// Head adds nothing before the type table.
func (Layout) Head(*analysis.Result) string { return "" }

// Summary is the figures of a queue history.
func (Layout) Summary(r *analysis.Result) string {
	s := r.Stats
	o := analysis.OwnOf[queue.Stats](s)
	count := catalog.Count
	return fmt.Sprintf("\n%s (%d client: %d ok, %d info, %d fail, %d never completed), %s, %s; "+
		"graph %s, %s, %s; worst realtime lag %s; %d ms\n",
		count(s.Ops, "op", "ops"), s.ClientOps, s.OKOps, s.InfoOps, s.FailOps, s.OpenOps,
		count(s.Keys, "key", "keys"), count(o.Messages, "message", "messages"),
		count(s.GraphVertices, "op", "ops"), count(s.GraphEdges, "edge", "edges"), count(s.Components, "cyclic component", "cyclic components"), worstLag(o), s.ElapsedMS)
}

// worstLag is the worst realtime lag as the summaries say it: none was
// measured when no ok poll had a :time (the stats' 0 then means nothing).
func worstLag(o queue.Stats) string {
	if o.WorstLagProcess == nil {
		return "not measured (no ok poll with a :time)"
	}
	return time.Duration(o.WorstLagS * 1e9).Round(time.Microsecond).String()
}

// queueView fills v with a queue history's view: its stats and options,
// the offset timeline, the unseen and lag charts and the cycle drawings.
func (b *builder) queueView(v *page.View) {
	v.Stats, v.Options = statFacts(b.Res), optionFacts(b.Res)
	for _, tv := range v.Types {
		b.types = append(b.types, tv.Type)
	}
	// The charts of the series are built on a goroutine of their own while
	// the timelines are: each reads millions of points of a large history.
	// They add omissions to a builder of their own, put after the
	// timelines', in the order a sequential build gives them.
	v.FinalReads = b.finalReadsCached()
	pb := *b.Builder // its own omissions; the rest it only reads
	pb.Omissions = nil
	cb := *b
	cb.Builder = &pb
	var series seriesCharts
	var drawing par.Group
	drawing.Go(func() {
		series.Unseen = cb.unseenChart(v.FinalReads)
		series.LagKey, series.LagProcess = cb.lagCharts(v.FinalReads)
	})
	v.Timeline = b.timeline()
	keyIndex := map[string]int{}
	for i, k := range v.Timeline.Keys {
		keyIndex[k.Key] = i
	}
	for si := range v.Sections {
		for ii := range v.Sections[si].Instances {
			in := &v.Sections[si].Instances[ii]
			in.TimelineKey = -1
			if i, ok := keyIndex[in.Key]; ok && in.Key != "" {
				in.TimelineKey = i
			}
		}
	}
	drawing.Wait()
	b.Omissions = append(b.Omissions, pb.Omissions...)
	v.Charts = append(v.Charts, series.Unseen, series.LagKey, series.LagProcess)
	v.Charts = append(v.Charts, b.CycleCharts...)
	v.Omissions = append(v.Omissions, b.Omissions...)
	v.Parts.Nav = []page.Link{{Anchor: "timeline", Text: "offset timeline"}, {Anchor: unseenKind, Text: unseenKind}, {Anchor: "lag", Text: "realtime lag"}}
	v.Parts.Body = []page.Part{{Template: "queue-timeline", Data: v.Timeline}, {Template: "queue-series", Data: series}, {Template: "anomalies", Data: v}}
}

func statFacts(res *analysis.Result) []page.Fact {
	s := res.Stats
	o := analysis.OwnOf[queue.Stats](s)
	n := func(x int64) string { return page.Thousands(x) }
	facts := []page.Fact{
		{Label: "ops", Value: n(s.Ops)},
		{Label: "client ops (completions)", Value: fmt.Sprintf("%s: %s ok, %s info, %s fail, %s never completed", n(s.ClientOps), n(s.OKOps), n(s.InfoOps), n(s.FailOps), n(s.OpenOps))},
		{Label: "keys", Value: n(s.Keys)},
		{Label: "messages", Value: n(o.Messages)},
		{Label: "sends / polls / transactions", Value: fmt.Sprintf("%s / %s / %s", n(o.Sends), n(o.Polls), n(o.Txns))},
		{Label: "dependency graph", Value: fmt.Sprintf("%s %s, %s %s, %s", n(s.GraphVertices), catalog.Plural(s.GraphVertices, "op", "ops"),
			n(s.GraphEdges), catalog.Plural(s.GraphEdges, "edge", "edges"), page.Cyclic(s.Components, s.LargestComponent, n, "op", "ops"))},
		{Label: "comparisons skipped (value never positioned)", Value: n(o.Unpositioned)},
	}
	worst := worstLag(o)
	if o.WorstLagProcess != nil && o.WorstLagKey != nil && o.WorstLagOp != nil {
		worst += fmt.Sprintf(" (process %d, key %s, op %d)", *o.WorstLagProcess, o.WorstLagKey.String(), *o.WorstLagOp)
	}
	facts = append(facts, page.Fact{Label: "worst realtime lag", Value: worst}, page.CheckTime(s.ElapsedMS))
	return facts
}

func optionFacts(res *analysis.Result) []page.Fact {
	o := res.Options
	sub := o.SubVia
	if sub == "" {
		sub = "auto"
	}
	facts := []page.Fact{}
	if o.WWDeps != nil {
		facts = append(facts, page.Fact{Label: "--ww-deps", Value: strconv.FormatBool(*o.WWDeps)})
	}
	if o.SubVia != "" {
		facts = append(facts, page.Fact{Label: "--sub-via", Value: sub})
	}
	facts = append(facts, page.Fact{Label: "--cycle-budget", Value: time.Duration(o.CycleBudgetS * 1e9).String()})
	if o.StallThreshold != nil {
		facts = append(facts, page.Fact{Label: "--stall-threshold", Value: time.Duration(*o.StallThreshold * 1e9).String()})
	}
	for _, m := range res.Models {
		facts = append(facts, page.Fact{Label: "--model", Value: m})
	}
	return facts
}
