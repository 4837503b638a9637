// Package workload is the one place that knows hindsight's workloads: for
// each, its name, how a history is recognised as one of it, its checker and
// the options it reads, and its catalogue of anomaly types.
//
// The pipeline (package check), the command line, the scanner's columns,
// shrink and the report ask this registry; none of them imports a
// workload's analysis package. go/analysis's list of Analyzer values is the
// model.
//
// # The catalogue
//
// What an anomaly type is, is written once: a catalog.Entry in the
// package of the workload that reports it (analysis/queue/catalogue.go,
// analysis/txn/catalogue.go), keyed by workload and name. The entry holds
// the type's one-sentence meaning, its severity and when it applies, the
// anchor of its section in docs/<workload>.md, the function that words an
// instance (in the workload's explain.go), and how the queue's offset
// timeline draws it. A name two workloads report (G1a, G1c, garbage-read)
// has one entry in each. A Workload's Types are its catalogue; AllTypes
// is the union of names that scan's count columns follow; Describe finds
// an entry by workload and name, and the text and HTML report call its
// Explain and read its Mark. Nothing outside the workload's packages
// spells a type's name: the tests in catalogue_test.go fail on a string
// literal of one in report/, scan/, check/ or cmd/, and on an entry with
// no docs section, no fixture that produces it (noFixture lists the
// exceptions with their reasons) or no wording.
//
// Adding an anomaly type to a workload: its constant (types.go) and the
// check that finds it, its entry (catalogue.go) and wording (explain.go)
// beside them, its section in docs/<workload>.md, and a fixture under
// testdata/ that shows it. Adding a workload: its analysis package with a
// checker and a catalogue, its docs page, its part of the report (a
// page.Layout: report/queueview, report/txnview and report/abortview are
// the examples), and one register call here (queue.go and txn.go are the
// examples; abort.go also registers a value decoder);
// docs/CONTRIBUTING.md walks through both.
//
// # Detection
//
// Every micro-op belongs to one workload: :send and :poll to queue,
// :append and list reads ([:r k [...]]) to list-append, :w and value reads
// ([:r k v]) to rw-register. A nil read ([:r k nil], an invocation's
// placeholder) belongs to either transactional workload and decides
// nothing. The workload of a history is the one its first deciding
// micro-op belongs to; a later micro-op of another workload is an input
// error naming both ops. A history with no deciding micro-op at all (no
// client op, or only nil reads) is a queue history when it has no micro-ops
// (the queue checker then says there is nothing to judge), and list-append
// when it has only nil reads.
//
// A workload whose ops carry values of its own rather than micro-ops
// (abort's poll maps, read by its decoder: decoders.go) recognises its ops
// through Workload.Recognise: an abort poll whose map has a :topic and
// :offsets or :abort? decides an abort history, and meets the micro-ops of
// another workload as they meet each other (the error describes the poll
// map). A history with no deciding op but some values its decoder read
// (only subscribes to a topic string, only empty polls) is that
// workload's.
package workload

import (
	"fmt"
	"slices"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

// Options are the options of every analysing command; each workload reads
// the ones it uses (Workload.Flags names them).
type Options struct {
	// WWDeps adds write-write edges to the queue's dependency graph.
	WWDeps bool `json:"ww_deps"`
	// SubVia is "", "assign" or "subscribe": how the queue judges consumers.
	SubVia string `json:"sub_via,omitempty"`
	// CycleBudget bounds the cycle search in each strongly connected
	// component; zero means no bound.
	CycleBudget time.Duration `json:"cycle_budget_ns"`
	// StallThreshold is the shortest stall reported as stalled-consumer.
	StallThreshold time.Duration `json:"stall_threshold_ns"`
	// Models are the consistency models a transactional history is judged
	// against (Elle's names or aliases); nil means the default,
	// strict-serializable. An empty non-nil slice means none: only
	// Anomalies are looked for.
	Models []string `json:"models,omitempty"`
	// Anomalies are further anomaly types a transactional history must not
	// show, whatever the models (Elle's :anomalies option; "G1" stands for
	// G1a, G1b and G1c, and so on).
	Anomalies []string `json:"anomalies,omitempty"`
	// WFRKeys, SequentialKeys and LinearizableKeys add rw-register's
	// version-order sources (Elle's :wfr-keys?, :sequential-keys? and
	// :linearizable-keys?): writes follow reads within a txn, each key is
	// sequentially consistent (process order), each key is linearizable
	// (real-time order).
	WFRKeys          bool `json:"wfr_keys,omitempty"`
	SequentialKeys   bool `json:"sequential_keys,omitempty"`
	LinearizableKeys bool `json:"linearizable_keys,omitempty"`
	// TransactionOrder is a commit order known from outside the history,
	// for rw-register (Elle's :transaction-order): a txn's completion op
	// index to its position. Nil: none.
	TransactionOrder map[int64]int64 `json:"transaction_order,omitempty"`
	// AbortContract is "", "kafka" or "rewind": what the abort workload
	// expects of a consumer after an abort (analysis/abort); "" is kafka.
	AbortContract string `json:"abort_contract,omitempty"`
	// Series keeps the time series an HTML report draws in the result.
	Series bool `json:"-"`
	// Cores is how many cores one check may keep busy by itself (0: all
	// of them, GOMAXPROCS). It changes no result, only how work is split:
	// a scan that checks several histories at once gives each its share,
	// so that a check does not pay for splitting work the other checks'
	// goroutines already keep the cores busy with. Only the queue's
	// realtime lag follows it today (analysis/queue, Options.Cores).
	Cores int `json:"-"`
}

// DefaultOptions are the defaults of the command line.
func DefaultOptions() Options {
	return Options{CycleBudget: 10 * time.Second, StallThreshold: 10 * time.Second}
}

// Severity says when an anomaly type makes a history invalid (package
// catalog).
type Severity = catalog.Severity

// Severities.
const (
	Bad           = catalog.Bad
	Informational = catalog.Informational
	Conditional   = catalog.Conditional
	Undecided     = catalog.Undecided
)

// AnomalyType describes one anomaly type of a workload: its catalogue
// entry, written in the package of the workload that reports it.
type AnomalyType = catalog.Entry

// Workload is one kind of history hindsight checks.
type Workload struct {
	// Name is the workload's name (the --workload value, the JSON
	// "workload" field).
	Name string
	// Doc is the documentation page of the workload in the repository.
	Doc string
	// Owns reports whether a micro-op of kind k, done or not (Mop.Kind,
	// Mop.Done), decides that a history is of this workload: what a
	// micro-op is, never its key or value, so that Detect asks once for
	// each pair (owners).
	Owns func(k model.MopKind, done bool) bool
	// Recognise, for a workload whose ops carry values of its own decoder
	// (Decoder) rather than micro-ops, reports whether the op at position
	// i decides that the history is of this workload, with a description
	// of what decides it for an error ("a poll map with a :topic"), or "".
	// Nil for the others.
	Recognise func(h *model.History, i int) string
	// Check analyses a history of this workload; pairing comes from
	// model.Pair. Nil for a workload that is recognised but not yet
	// checked.
	Check func(h *model.History, pairing model.Pairing, o Options) *analysis.Result
	// Types are every anomaly type the checker can report, in the order
	// summaries list them: the workload's catalogue (its analysis
	// package's Catalogue function).
	Types []AnomalyType
	// ExplainStep says why one edge of a cycle exists, in words; nil for
	// a workload without cycles.
	ExplainStep func(st analysis.Step, lookup catalog.OpLookup) string
	// Layout is the workload's part of the report: its page's stats,
	// charts and instance details, and its text summary's closing lines
	// (package report calls it; packages queueview and txnview hold the
	// two kinds there are).
	Layout page.Layout
	// ValueEDN writes the op values the workload's own decoder read back
	// as EDN (shrink.ValueEDN, for shrink's output); nil for a workload
	// whose values ingest decodes itself.
	ValueEDN func(h *model.History, pos int) (value, fields string, ok bool)
	// Flags name the command-line options the checker reads.
	Flags []string
	// Memory says how `hindsight check` budgets the analysis's memory once
	// the history is read (cmd/hindsight/memory.go).
	Memory Memory
	// IgnoresTimes says that Check reads no op's :time (History.Time): a
	// caller that needs none either (check.Options.NoTimes) has the column
	// dropped once the history is read, 4 bytes an op.
	IgnoresTimes bool
}

// Memory is how the command budgets a workload's analysis once its history
// is read: Go's soft memory limit, which sets how much garbage the
// collector leaves, and so the peak RSS.
type Memory uint8

// The memory budgets.
const (
	// MemoryOfFile keeps the budget of the history's file (1.5 times it
	// for check), raised with the live heap when the analysis needs more.
	MemoryOfFile Memory = iota
	// MemoryTwiceFile budgets twice the file, raised likewise: an analysis
	// that keeps more than its history, with many small objects.
	MemoryTwiceFile
	// MemoryLiveHeap follows the live heap closely from the end of the
	// read: for an analysis whose heap is mostly large pointer-free
	// arrays, cheap to mark, so that collecting often costs little.
	MemoryLiveHeap
)

// Type returns the description of the anomaly type name, if w reports it.
func (w *Workload) Type(name string) (AnomalyType, bool) {
	for _, t := range w.Types {
		if t.Name == name {
			return t, true
		}
	}
	return AnomalyType{}, false
}

// TypeNames lists the names of w's anomaly types, in order.
func (w *Workload) TypeNames() []string {
	names := make([]string, len(w.Types))
	for i, t := range w.Types {
		names[i] = t.Name
	}
	return names
}

// registry holds the workloads, in the order commands list them.
var registry []*Workload

// init registers the workloads whose files sort before this one's
// themselves (queue.go, txn.go); abort comes last (registerAbort).
func init() { registerAbort() }

func register(w *Workload) { registry = append(registry, w) }

// All returns every workload, in order.
func All() []*Workload { return slices.Clone(registry) }

// Names lists the workloads' names.
func Names() []string {
	names := make([]string, len(registry))
	for i, w := range registry {
		names[i] = w.Name
	}
	return names
}

// Lookup finds a workload by name.
func Lookup(name string) (*Workload, bool) {
	for _, w := range registry {
		if w.Name == name {
			return w, true
		}
	}
	return nil, false
}

// MustLookup is Lookup for names known at compile time.
func MustLookup(name string) *Workload {
	w, ok := Lookup(name)
	if !ok {
		panic("workload: no workload " + name)
	}
	return w
}

// AllTypes lists the anomaly types of every workload without repeats (G1a
// is a queue type and a list-append type), workloads in order, each
// workload's types in its order: the scanner's count columns.
func AllTypes() []string {
	var all []string
	for _, w := range registry {
		for _, t := range w.Types {
			if !slices.Contains(all, t.Name) {
				all = append(all, t.Name)
			}
		}
	}
	return all
}

// Describe finds the description of type typ in the named workload, or,
// when the workload is unknown, in the first workload that has it.
func Describe(workload, typ string) (AnomalyType, bool) {
	if w, ok := Lookup(workload); ok {
		if t, ok := w.Type(typ); ok {
			return t, true
		}
	}
	for _, w := range registry {
		if t, ok := w.Type(typ); ok {
			return t, true
		}
	}
	return AnomalyType{}, false
}

// MixedError says a history holds micro-ops of two workloads.
type MixedError struct {
	Source string
	// FirstIndex and OtherIndex are the :index values of the first op of
	// each workload, FirstLine and OtherLine their lines.
	FirstIndex, OtherIndex int64
	FirstLine, OtherLine   int
	FirstW                 string
	OtherW                 string
	FirstMop               model.MopKind
	OtherMop               model.MopKind
	// FirstForm and OtherForm describe an op that a workload recognises by
	// its own values (Workload.Recognise) rather than by a micro-op; ""
	// for an op recognised by FirstMop or OtherMop.
	FirstForm, OtherForm string
}

// what describes what decided an op's workload.
func what(mop model.MopKind, form string) string {
	if form != "" {
		return form
	}
	return fmt.Sprintf("a :%s micro-op", mop)
}

// Error names both ops and their lines.
func (e *MixedError) Error() string {
	return fmt.Sprintf("%s:%d: op %d has %s, which belongs to %s histories, but op %d (line %d) "+
		"has %s, which belongs to %s: a history must be of one workload (force one with --workload)",
		e.Source, e.OtherLine, e.OtherIndex, what(e.OtherMop, e.OtherForm), e.OtherW, e.FirstIndex, e.FirstLine, what(e.FirstMop, e.FirstForm), e.FirstW)
}

// hasRecords reports whether the decoder of the workload named name read
// anything of h.
func hasRecords(h *model.History, name string) bool {
	owner, ok := h.ExtOwnerOf(name)
	if !ok {
		return false
	}
	for _, recs := range h.ExtRecs.Chunks() {
		for _, r := range recs {
			if r.Owner == owner {
				return true
			}
		}
	}
	return false
}

// recognisers are the workloads that recognise ops by their own values,
// when h holds any such values (none for a history read without
// workload decoders).
func recognisers(h *model.History) []*Workload {
	if h.ExtSpans == nil {
		return nil
	}
	var ws []*Workload
	for _, w := range registry {
		if w.Recognise != nil {
			ws = append(ws, w)
		}
	}
	return ws
}

// owner is the workload whose micro-ops are of kind k, done or not; nil
// for none.
func owner(k model.MopKind, done bool) *Workload {
	for _, w := range registry {
		if w.Owns(k, done) {
			return w
		}
	}
	return nil
}

// ownerTable is owner for every micro-op kind, done or not: Detect looks
// a micro-op's owner up there instead of asking every workload, which
// took pair-and-detect from 65-82 to 49-69 ms of CPU on 1M list-append
// txns (2.5M micro-ops).
type ownerTable [model.MopKinds][2]*Workload

// owners fills an ownerTable from owner.
func owners() *ownerTable {
	var t ownerTable
	for k := range t {
		for d := range t[k] {
			t[k][d] = owner(model.MopKind(k), d == 1)
		}
	}
	return &t
}

// of is the owner of m, as owner says (asked directly for a kind past
// the last, which no decoder makes).
func (t *ownerTable) of(m *model.Mop) *Workload {
	if int(m.Kind) >= len(t) {
		return owner(m.Kind, m.Done)
	}
	d := 0
	if m.Done {
		d = 1
	}
	return t[m.Kind][d]
}
