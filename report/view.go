package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/workload"
)

// The view's types live in package page, which the workloads' layouts
// (packages queueview and txnview) fill too; the two that BuildView's
// callers name are here as well.
type (
	// ViewOptions bound how much of a result and history the HTML page
	// holds (page.ViewOptions).
	ViewOptions = page.ViewOptions
	// View is everything the HTML report shows, as plain data (page.View).
	View = page.View
)

// BuildView computes what the page shows for res, a check of h: it reads
// the result's instances and series and looks ops up in h by index, but
// never searches for anomalies itself. h may be nil (no witness tables and
// no timeline then). It is pure and deterministic: the same inputs give the
// same View. Cost: O(ops + instances) time and O(ops) memory, dominated by
// one pass over h.Ops for the timeline.
//
// BuildView fills what every workload's page has (the header, the type
// table and each type's section with its instances, witness tables and
// cycle drawings: package page's Builder); the workload's registry entry
// holds the layout that adds the rest (workload.Workload.Layout: the
// queue's offset timeline and charts in package queueview, a
// transactional history's View.Txn in package txnview).
func BuildView(res *analysis.Result, h *model.History, opts ViewOptions) *View {
	o := opts.WithDefaults()
	layout := entryOf(res.Workload).Layout
	b := page.NewBuilder(res, h, o, page.Hooks{
		Layout:      layout,
		Explain:     func(typ string, in analysis.Instance, l OpLookup) string { return ExplainIn(res.Workload, typ, in, l) },
		ExplainStep: func(st analysis.Step, l OpLookup) string { return ExplainStepIn(res.Workload, st, l) },
		Describe:    func(typ string) (catalog.Entry, bool) { return workload.Describe(res.Workload, typ) },
	})
	v := &View{
		Source:         res.Source,
		Workload:       res.Workload,
		Verdict:        res.Verdict.String(),
		UnknownReasons: page.NonNil(res.UnknownReasons),
		Warnings:       page.NonNil(res.Warnings),
		Types:          []page.TypeView{},
		Sections:       []page.Section{},
		Charts:         []page.Chart{},
		Omissions:      []string{},
		TimeUnit:       b.Clock.Unit,
		Timeline:       page.Timeline{Keys: []page.TimelineKey{}},
	}
	v.Title = "hindsight: " + res.Source + " " + strings.ToUpper(v.Verdict)
	if v.Workload == "" {
		v.Workload = entryOf("").Name
	}
	if res.Hindsight != nil {
		v.Build = res.Hindsight.String() + "; ECharts " + EChartsVersion()
	}
	v.Provenance = provenance(res, v.Build, o)
	sections(b, v)
	layout.Page(b, v)
	return v
}

// sections fills the type table and the sections of v, in TypeRows
// order, saying in v.Omissions where instances were capped.
func sections(b *page.Builder, v *View) {
	for _, row := range TypeRows(b.Res) {
		tv := page.TypeView{Type: row.Type, Anchor: page.Anchor(row.Type), Count: row.Count, Status: row.Status,
			Bad: slices.Contains(b.Res.BadTypes, row.Type), Proven: page.ProvenNote(b.Res, row.Type, page.Thousands)}
		v.Types = append(v.Types, tv)
		sec := section(b, tv)
		if sec.Shown < sec.Count {
			v.Omissions = append(v.Omissions, fmt.Sprintf("%s: showing %s of %s instances (the first by op index; the JSON result has them all).",
				row.Type, page.Thousands(int64(sec.Shown)), page.Thousands(int64(sec.Count))))
		}
		v.Sections = append(v.Sections, sec)
	}
}

// section builds the part of the page of one anomaly type: what the type
// means, its documentation, and the instances the page lists.
func section(b *page.Builder, tv page.TypeView) page.Section {
	sec := page.Section{TypeView: tv}
	if t, ok := b.Describe(tv.Type); ok {
		sec.Doc, sec.DocPath = t.Meaning, t.Doc
		sec.Docs = docSection(t.Doc)
	}
	if sec.Doc == "" {
		sec.Doc = "An anomaly type this report has no description for; see the explanation of each instance."
	}
	sec.Instances = b.Instances(tv.Type)
	sec.Shown = len(sec.Instances)
	return sec
}

// provenance is the header block of the page of res (View.Provenance):
// only the facts that are known.
func provenance(res *analysis.Result, build string, o ViewOptions) []page.Fact {
	var facts []page.Fact
	add := func(label, value string) {
		if value != "" {
			facts = append(facts, page.Fact{Label: label, Value: value})
		}
	}
	add("hindsight", build)
	add("history", res.Source)
	if res.Bytes > 0 || res.SHA256 != "" {
		add("size", page.Thousands(res.Bytes)+" "+plural(res.Bytes, "byte", "bytes"))
	}
	add("sha256", res.SHA256)
	add("command", o.Command)
	if !o.Made.IsZero() {
		add("made", o.Made.UTC().Format(time.RFC3339))
	}
	return facts
}
