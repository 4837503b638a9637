// Package page is what every workload's HTML page shares: the View the
// template (report/assets) lays out and the page script reads, the
// options that bound it, and the Builder that fills the parts every
// workload has (op lookup, the chart Clock, an anomaly type's instances
// with their witness tables, and the drawing of a cycle's ops).
//
// What only one workload shows (the queue's offset timeline and series
// charts, a transactional history's transaction timeline and version
// orders) is its Layout: the workload's registry entry (package workload)
// holds it, and package report calls it. Package page knows no workload
// by name.
package page

import (
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hindsight-dev/hindsight/analysis/catalog"
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

// WithDefaults returns o with each zero field set to its default
// (DefaultViewOptions).
func (o ViewOptions) WithDefaults() ViewOptions {
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
// (report/html.go) only lays it out, and tests check it without a
// browser. Strings
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
	// Parts are the workload's pieces of the page (its layout's Page
	// sets them): the template lays them out in order.
	Parts Parts `json:"-"`
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
	// Status is "bad", "allowed" or "bad (n allowed)" (report.TypeRows).
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
	// Proof is a cycle's proof state (analysis.CycleFields.Proof: proven,
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
func Anchor(typ string) string { return "anomaly-" + Slug(typ) }

// Slug returns s with anything but letters, digits, '-' and '_' replaced
// by '_', for an element id or a class name.
func Slug(s string) string { return nonAnchor.ReplaceAllString(s, "_") }

// CycleID is the id of the chart of instance n of typ's cycle.
func CycleID(typ string, n int) string { return fmt.Sprintf("chart-cycle-%s-%d", Slug(typ), n) }

// NonNil returns s, or an empty slice for nil (JSON [] rather than null).
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Cyclic says how many cyclic components a dependency graph has and the
// size of its largest, in vertices named one or many, each number
// formatted by num: "0 cyclic components", "1 cyclic component of 4 txns",
// "3 cyclic components, the largest of 12 txns".
func Cyclic(n, largest int64, num func(int64) string, one, many string) string {
	size := num(largest) + " " + catalog.Plural(largest, one, many)
	switch n {
	case 0:
		return num(0) + " cyclic components"
	case 1:
		return num(1) + " cyclic component of " + size
	}
	return num(n) + " cyclic components, the largest of " + size
}

// CheckTime is the page's fact of how long the check took.
func CheckTime(ms int64) Fact { return Fact{Label: "check time", Value: Thousands(ms) + " ms"} }

// Decimal formats n in decimal, without separators.
func Decimal(n int64) string { return strconv.FormatInt(n, 10) }

// Thousands formats n with commas: 1234567 -> "1,234,567".
func Thousands(n int64) string {
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

// DocSection is one anomaly type's section of its documentation page, as
// the page embeds it, folded under the type.
type DocSection struct {
	// Heading is the section's heading text, backticks removed
	// ("lost-write", "<model>-cycle-exists"); Page the documentation page
	// it comes from (docs/queue.md).
	Heading string `json:"heading"`
	Page    string `json:"page"`
	// HTML is the section's body rendered from Markdown, raw HTML left out
	// and every link turned into its text, so nothing on the page points
	// outside it.
	HTML template.HTML `json:"-"`
}
