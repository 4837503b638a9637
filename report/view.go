package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// ViewOptions bound how much of a result and history the HTML page holds.
// Zero fields take the defaults of DefaultViewOptions.
type ViewOptions struct {
	// MaxInstances is how many instances of each anomaly type get a
	// section entry (explanation, witness table, drawing); all are counted.
	MaxInstances int
	// MaxPoints caps the points of one drawn series (one process's sends on
	// one key, one key's unseen count ...).
	MaxPoints int
	// MaxTotalPoints caps the points of all charts together; with
	// MaxPoints it bounds the size of the page whatever the history's size.
	MaxTotalPoints int
	// MaxWitnessOps caps the rows of one witness table.
	MaxWitnessOps int
	// MaxMarks caps the anomaly marks of one type on one key's timeline.
	MaxMarks int
	// MaxKeys caps the keys that get an offset timeline (keys with
	// anomalies come first).
	MaxKeys int
	// MaxSeries caps the per-process or per-key series of one chart; the
	// rest are merged into one "other" series.
	MaxSeries int
	// MaxValueChars is where a witness op's value is elided (each of a
	// transaction's micro-ops: at twice this).
	MaxValueChars int
	// MaxTxns caps the transactions drawn on a transactional history's
	// timeline: every one in an anomaly shown, and an even sample of the
	// rest.
	MaxTxns int
	// Command is the command line that made the report, shown in the
	// page's header (for a report scan --html-dir wrote: the equivalent
	// check --html command); Made is when it was made. Empty and zero are
	// left out of the header, so a test's page stays deterministic.
	Command string
	Made    time.Time
}

// DefaultViewOptions are the bounds used when a ViewOptions field is zero:
// 20 instances per type, 2,000 points per series, 150,000 points in all, 40
// witness rows, 500 marks per type and key, 200 keys, 12 series per chart,
// values elided past 120 characters, 10,000 transactions on a timeline. With
// them the page of a 1M-op queue history stays under about 5 MB, and that of
// a 100,000-transaction list-append history under about 3 MB.
func DefaultViewOptions() ViewOptions {
	return ViewOptions{
		MaxInstances:   20,
		MaxPoints:      2000,
		MaxTotalPoints: 150_000,
		MaxWitnessOps:  40,
		MaxMarks:       500,
		MaxKeys:        200,
		MaxSeries:      12,
		MaxValueChars:  120,
		MaxTxns:        10_000,
	}
}

func (o ViewOptions) withDefaults() ViewOptions {
	d := DefaultViewOptions()
	set := func(p *int, def int) {
		if *p <= 0 {
			*p = def
		}
	}
	set(&o.MaxInstances, d.MaxInstances)
	set(&o.MaxPoints, d.MaxPoints)
	set(&o.MaxTotalPoints, d.MaxTotalPoints)
	set(&o.MaxWitnessOps, d.MaxWitnessOps)
	set(&o.MaxMarks, d.MaxMarks)
	set(&o.MaxKeys, d.MaxKeys)
	set(&o.MaxSeries, d.MaxSeries)
	set(&o.MaxValueChars, d.MaxValueChars)
	set(&o.MaxTxns, d.MaxTxns)
	if o.MaxValueChars < 8 {
		o.MaxValueChars = 8
	}
	return o
}

// View is everything the HTML report shows, as plain data: the template
// (html.go) only lays it out, and tests check it without a browser. Strings
// from the history are kept verbatim; escaping is the template's job.
type View struct {
	// Title is the page title.
	Title string `json:"title"`
	// Source names the history; Workload is the checked workload.
	Source   string `json:"source"`
	Workload string `json:"workload"`
	// Verdict is "valid", "invalid" or "unknown".
	Verdict        string   `json:"verdict"`
	UnknownReasons []string `json:"unknown_reasons"`
	Warnings       []string `json:"warnings"`
	// Stats are the history's and the run's figures; Options the options
	// the check ran with.
	Stats   []Fact `json:"stats"`
	Options []Fact `json:"options"`
	// Types is the summary table, one row per anomaly type found.
	Types []TypeView `json:"types"`
	// Sections hold each type's instances, in the order of Types.
	Sections []Section `json:"sections"`
	// Timeline is the per-key offset timeline.
	Timeline Timeline `json:"timeline"`
	// Charts are the other charts: unseen, realtime lag by key and by
	// process, and one drawing per cycle instance shown.
	Charts []Chart `json:"charts"`
	// FinalReads is the final-read phase, if it can be told: from the last
	// ok send to the last ok poll after it, in chart time units.
	FinalReads *Span `json:"final_reads,omitempty"`
	// TimeUnit is the unit of every chart's time axis ("s", "ms", "µs",
	// "ns"), or "op" when the history has no times and ops are placed by
	// index.
	TimeUnit string `json:"time_unit"`
	// Build names the hindsight build that checked the history (the line
	// of hindsight --version), so a page attached to a ticket can be
	// reproduced; empty when the result does not say.
	Build string `json:"build,omitempty"`
	// Provenance is the page's header block: the hindsight build, the
	// history's file name, size and SHA-256, the command line that made
	// the report and when (provenance), so a page attached to a bug
	// ticket says what it is about and how to make it again.
	Provenance []Fact `json:"provenance,omitempty"`
	// Omissions say, in plain words, what the page leaves out.
	Omissions []string `json:"omissions"`
	// Txn is the view of a transactional history (list-append,
	// rw-register); nil for a queue history, whose page has Timeline,
	// FinalReads and the unseen and lag charts instead.
	Txn *TxnView `json:"txn,omitempty"`
}

// Fact is one labelled figure.
type Fact struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// TypeView is one row of the summary table.
type TypeView struct {
	Type string `json:"type"`
	// Anchor is the id of the type's section.
	Anchor string `json:"anchor"`
	Count  int    `json:"count"`
	// Status is "bad", "allowed" or "bad (n allowed)" (TypeRows).
	Status string `json:"status"`
	Bad    bool   `json:"bad"`
	// Proven says how many of the type's cycle instances are proven, "2
	// of 3 proven" (ProvenNote; "" when it has none).
	Proven string `json:"proven,omitempty"`
}

// Section is one anomaly type's part of the page.
type Section struct {
	TypeView
	// Doc says what the anomaly type means; DocPath is its documentation
	// in the repository (docs/queue.md#lost-write).
	Doc     string `json:"doc"`
	DocPath string `json:"doc_path,omitempty"`
	// Docs is the section of DocPath, embedded in the page folded under
	// the type; nil when the documentation has no such section.
	Docs *DocSection `json:"-"`
	// Shown is how many instances are listed (at most MaxInstances).
	Shown     int            `json:"shown"`
	Instances []InstanceView `json:"instances"`
}

// InstanceView is one anomaly instance: its plain-word explanation, the
// steps of its cycle, and its witness ops.
type InstanceView struct {
	// N numbers instances from 1 within their type.
	N int `json:"n"`
	// Key is the instance's key as the history wrote it, if it has one.
	Key         string `json:"key,omitempty"`
	Allowed     bool   `json:"allowed,omitempty"`
	Explanation string `json:"explanation"`
	// Steps explain each edge of a cycle: which read or version order put
	// it there.
	Steps []StepView `json:"steps,omitempty"`
	// Graph is the id of the cycle drawing's chart, if any.
	Graph string `json:"graph,omitempty"`
	// TimelineKey is the index in Timeline.Keys of the instance's key, or
	// -1 when it has none there.
	TimelineKey int `json:"timeline_key"`
	// Witness are the rows of the witness table (at most MaxWitnessOps);
	// WitnessTotal is the size of the whole witness.
	Witness      []WitnessRow `json:"witness"`
	WitnessTotal int          `json:"witness_total"`
	// Fields of transactional instances. ID is the id of the instance's
	// article; OnTimeline says its transactions are marked on the
	// transaction timeline (TxnMark.Target is ID). Chain is a cycle's
	// explanation, one order per line, after Explanation's first line.
	// Reads sets the two reads of an incompatible-order side by side.
	ID         string     `json:"id,omitempty"`
	OnTimeline bool       `json:"on_timeline,omitempty"`
	Chain      []string   `json:"chain,omitempty"`
	Reads      *ReadsView `json:"reads,omitempty"`
	// Proof is a cycle's proof state (analysis.Instance.Proof: proven,
	// assumes, given); ProofNote says what a cycle that is not proven
	// rests on (ProofNote).
	Proof     string `json:"proof,omitempty"`
	ProofNote string `json:"proof_note,omitempty"`
}

// StepView is one explained edge of a cycle.
type StepView struct {
	From int64  `json:"from"`
	To   int64  `json:"to"`
	Rel  string `json:"rel"`
	Why  string `json:"why"`
	// Contested marks a step whose order some read contradicts: the page
	// marks it as assumed.
	Contested bool `json:"contested,omitempty"`
}

// WitnessRow is one op of a witness, as the table shows it.
type WitnessRow struct {
	Index int64 `json:"index"`
	// Time is the op's :time as a duration since the test began ("" if
	// none).
	Time    string `json:"time"`
	Process string `json:"process"`
	Type    string `json:"type"`
	F       string `json:"f"`
	// Value is the op's value in EDN-like text, elided past MaxValueChars.
	Value string `json:"value"`
	// Mops are a transaction's micro-ops, one string each ([:append :x
	// 1], [:r :y [1 2]]), in place of Value.
	Mops  []string `json:"mops,omitempty"`
	Error string   `json:"error,omitempty"`
	// Missing is set when the history has no op of this index.
	Missing bool `json:"missing,omitempty"`
}

// Span is a stretch of the time axis.
type Span struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Label string  `json:"label"`
}

// Chart is one ECharts chart: the id of its container, and its option
// object built with go-echarts.
type Chart struct {
	ID string `json:"id"`
	// Kind is "timeline", "unseen", "lag-key", "lag-process" or "cycle".
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// Note says how the data was reduced, if it was.
	Note string `json:"note,omitempty"`
	// Dims names the fields of a data point, for tooltips.
	Dims []string `json:"dims,omitempty"`
	// Option is the ECharts option (JSON). Empty for the timeline, whose
	// options are per key.
	Option json.RawMessage `json:"option,omitempty"`
	// Series is the number of series in Option (for the timeline: of the
	// first key's option).
	Series int `json:"series"`
}

// Timeline is the offset timeline: one chart option per key, chosen with a
// picker.
type Timeline struct {
	Chart
	Keys []TimelineKey `json:"keys"`
}

// TimelineKey is one key of the timeline picker.
type TimelineKey struct {
	// Key is the key as the history wrote it; Label what the picker shows.
	Key       string `json:"key"`
	Label     string `json:"label"`
	Anomalies int    `json:"anomalies"`
	// Note says what was downsampled or capped on this key's chart.
	Note   string          `json:"note,omitempty"`
	Option json.RawMessage `json:"option"`
	Series int             `json:"series"`
}

var nonAnchor = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// Anchor returns the id of an anomaly type's section: "anomaly-" and the
// type name with anything but letters, digits, '-' and '_' replaced.
func Anchor(typ string) string { return "anomaly-" + nonAnchor.ReplaceAllString(typ, "_") }

// BuildView computes what the page shows for res, a check of h: it reads
// the result's instances and series and looks ops up in h by index, but
// never searches for anomalies itself. h may be nil (no witness tables and
// no timeline then). It is pure and deterministic: the same inputs give the
// same View. Cost: O(ops + instances) time and O(ops) memory, dominated by
// one pass over h.Ops for the timeline.
//
// A transactional history (list-append, rw-register) gets the view of
// view_txn.go instead of the queue's charts: View.Txn, a transaction
// timeline and the keys' version orders.
func BuildView(res *analysis.Result, h *model.History, opts ViewOptions) *View {
	o := opts.withDefaults()
	b := newBuilder(res, h, o)
	v := &View{
		Source:         res.Source,
		Workload:       res.Workload,
		Verdict:        res.Verdict.String(),
		UnknownReasons: nonNil(res.UnknownReasons),
		Warnings:       nonNil(res.Warnings),
		Types:          []TypeView{},
		Sections:       []Section{},
		Charts:         []Chart{},
		Omissions:      []string{},
		TimeUnit:       b.clock.unit,
		Timeline:       Timeline{Keys: []TimelineKey{}},
	}
	v.Title = "hindsight: " + res.Source + " " + strings.ToUpper(v.Verdict)
	if v.Workload == "" {
		v.Workload = "queue"
	}
	if res.Hindsight != nil {
		v.Build = res.Hindsight.String() + "; ECharts " + EChartsVersion()
	}
	v.Provenance = provenance(res, v.Build, o)
	if b.txn {
		b.txnView(v)
		return v
	}
	v.Stats, v.Options = statFacts(res), optionFacts(res)
	b.sections(v)
	// The charts of the series are built on a goroutine of their own while
	// the timelines are: each reads millions of points of a large history.
	// They add omissions to a builder of their own, put after the
	// timelines', in the order a sequential build gives them.
	v.FinalReads = b.finalReadsCached()
	cb := *b
	cb.omissions = nil
	var series []Chart
	done := make(chan struct{})
	go func() {
		defer close(done)
		series = []Chart{cb.unseenChart(v.FinalReads), cb.lagChart(true, v.FinalReads), cb.lagChart(false, v.FinalReads)}
	}()
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
	<-done
	b.omissions = append(b.omissions, cb.omissions...)
	v.Charts = append(v.Charts, series...)
	v.Charts = append(v.Charts, b.cycleCharts...)
	v.Omissions = append(v.Omissions, b.omissions...)
	return v
}

// sections fills the type table and the sections of v, in TypeRows
// order, saying in v.Omissions where instances were capped.
func (b *builder) sections(v *View) {
	for _, row := range TypeRows(b.res) {
		tv := TypeView{Type: row.Type, Anchor: Anchor(row.Type), Count: row.Count, Status: row.Status,
			Bad: slices.Contains(b.res.BadTypes, row.Type), Proven: ProvenNote(b.res, row.Type)}
		v.Types = append(v.Types, tv)
		sec := b.section(tv)
		if sec.Shown < sec.Count {
			v.Omissions = append(v.Omissions, fmt.Sprintf("%s: showing %s of %s instances (the first by op index; the JSON result has them all).",
				row.Type, thousands(int64(sec.Shown)), thousands(int64(sec.Count))))
		}
		v.Sections = append(v.Sections, sec)
	}
}

// provenance is the header block of the page of res (View.Provenance):
// only the facts that are known.
func provenance(res *analysis.Result, build string, o ViewOptions) []Fact {
	var facts []Fact
	add := func(label, value string) {
		if value != "" {
			facts = append(facts, Fact{label, value})
		}
	}
	add("hindsight", build)
	add("history", res.Source)
	if res.Bytes > 0 || res.SHA256 != "" {
		add("size", thousands(res.Bytes)+" "+plural(res.Bytes, "byte", "bytes"))
	}
	add("sha256", res.SHA256)
	add("command", o.Command)
	if !o.Made.IsZero() {
		add("made", o.Made.UTC().Format(time.RFC3339))
	}
	return facts
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// thousands formats n with commas: 1234567 -> "1,234,567".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

func statFacts(res *analysis.Result) []Fact {
	s := res.Stats
	n := func(x int64) string { return thousands(x) }
	facts := []Fact{
		{"ops", n(s.Ops)},
		{"client ops (completions)", fmt.Sprintf("%s: %s ok, %s info, %s fail, %s never completed", n(s.ClientOps), n(s.OKOps), n(s.InfoOps), n(s.FailOps), n(s.OpenOps))},
		{"keys", n(s.Keys)},
		{"messages", n(s.Messages)},
		{"sends / polls / transactions", fmt.Sprintf("%s / %s / %s", n(s.Sends), n(s.Polls), n(s.Txns))},
		{"dependency graph", fmt.Sprintf("%s ops, %s edges, %s cyclic components (largest %s)", n(s.GraphVertices), n(s.GraphEdges), n(s.Components), n(s.LargestComponent))},
		{"comparisons skipped (value never positioned)", n(s.Unpositioned)},
	}
	worst := time.Duration(s.WorstLagS * 1e9).Round(time.Microsecond).String()
	if s.WorstLagProcess != nil && s.WorstLagKey != nil && s.WorstLagOp != nil {
		worst += fmt.Sprintf(" (process %d, key %s, op %d)", *s.WorstLagProcess, s.WorstLagKey.String(), *s.WorstLagOp)
	}
	facts = append(facts, Fact{"worst realtime lag", worst}, Fact{"check time", fmt.Sprintf("%d ms", s.ElapsedMS)})
	return facts
}

func optionFacts(res *analysis.Result) []Fact {
	o := res.Options
	sub := o.SubVia
	if sub == "" {
		sub = "auto"
	}
	facts := []Fact{}
	if o.WWDeps != nil {
		facts = append(facts, Fact{"--ww-deps", strconv.FormatBool(*o.WWDeps)})
	}
	if o.SubVia != "" {
		facts = append(facts, Fact{"--sub-via", sub})
	}
	facts = append(facts, Fact{"--cycle-budget", time.Duration(o.CycleBudgetS * 1e9).String()})
	if o.StallThreshold != nil {
		facts = append(facts, Fact{"--stall-threshold", time.Duration(*o.StallThreshold * 1e9).String()})
	}
	for _, m := range res.Models {
		facts = append(facts, Fact{"--model", m})
	}
	return facts
}
