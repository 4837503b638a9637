// Package analysis defines what every checker returns: a verdict, the anomaly
// instances with their witnesses, statistics and the time series the HTML
// report draws. Checkers live in subpackages (analysis/queue); they return a
// *Result and never print. Package report turns a Result into text, JSON or
// HTML without searching the history again.
package analysis

import (
	"encoding/json"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/internal/version"
	"github.com/hindsight-dev/hindsight/model"
)

// Schema is the version tag of the JSON result (docs/README.md#json-output).
const Schema = "hindsight.check/v1"

// Verdict is the outcome of a check.
type Verdict uint8

// Verdicts. Unknown always comes with at least one reason in
// Result.UnknownReasons.
const (
	Valid Verdict = iota
	Invalid
	Unknown
)

// String returns "valid", "invalid" or "unknown".
func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "unknown"
}

// MarshalJSON writes true, false or "unknown", the `valid` field of results.md.
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch v {
	case Valid:
		return []byte("true"), nil
	case Invalid:
		return []byte("false"), nil
	}
	return []byte(`"unknown"`), nil
}

// ExitCode maps a verdict to the process exit status of
// docs/README.md#exit-status.
func (v Verdict) ExitCode() int {
	switch v {
	case Valid:
		return 0
	case Invalid:
		return 1
	}
	return 2
}

// Value is a key or value of the history as it goes to JSON: a number when it
// was an integer, a string otherwise (an EDN keyword :x becomes ":x"), null
// for model.KNil, or, when List is set, a list of values (a list-append
// read, an expected list state).
type Value struct {
	model.Atom
	List  bool
	Elems []Value
}

// AtomValue wraps an atom.
func AtomValue(a model.Atom) Value { return Value{Atom: a} }

// ListValue returns the list of the given values.
func ListValue(elems []Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{List: true, Elems: elems}
}

// MarshalJSON writes integers as numbers, nil as null, lists as arrays and
// everything else as strings.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.List {
		b := []byte{'['}
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			eb, err := e.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b = append(b, eb...)
		}
		return append(b, ']'), nil
	}
	switch v.Kind {
	case model.KInt:
		return strconv.AppendInt(nil, v.Int, 10), nil
	case model.KBigInt:
		return []byte(v.Text), nil
	case model.KNil:
		return []byte("null"), nil
	}
	return json.Marshal(v.Text)
}

// String renders the value for people: atoms as model.Atom.String, lists
// as [a b c].
func (v Value) String() string {
	if !v.List {
		return v.Atom.String()
	}
	parts := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Mop is one micro-op as it goes to JSON: [f, key, value], e.g.
// [":r", ":x", [1, 2]] or [":append", ":x", 3] (F is the EDN keyword, with
// its colon, like every keyword in the JSON); a read not made (an info
// txn's) has value null.
type Mop struct {
	F     string
	Key   Value
	Value Value
}

// MarshalJSON writes the micro-op as a three-element array.
func (m Mop) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{m.F, m.Key, m.Value})
}

// String renders the micro-op as EDN does: [:append :x 3].
func (m Mop) String() string {
	return "[" + m.F + " " + m.Key.String() + " " + m.Value.String() + "]"
}

// Pair is a [key, value] pair, as in torn-transaction's seen and missing.
type Pair [2]Value

// Step is one edge of a dependency cycle, explained.
type Step struct {
	From int64  `json:"from"`
	To   int64  `json:"to"`
	Rel  string `json:"rel"`
	// Key and Value say which read created a wr edge; Key and Values (the
	// value written by From, then by To) which version order created a ww
	// edge. Process and realtime steps carry neither.
	Key    *Value  `json:"key,omitempty"`
	Value  *Value  `json:"value,omitempty"`
	Values []Value `json:"values,omitempty"`
	// Offsets are the offsets behind a ww step (From's value, To's value),
	// or the offset a wr step's read saw; for the report's explanation.
	Offsets []int64 `json:"offsets,omitempty"`
	// Mops locate a transactional step's micro-ops: the index of the mop
	// in From's value, then in To's.
	Mops []int `json:"mops,omitempty"`
	// Process is the process of a process step.
	Process *int64 `json:"process,omitempty"`
	// OrderOp is the op whose read showed the version order behind a ww or
	// rw step (Values[0] right before Values[1], or Values[0] as the last
	// element read when Unread). Unread says Values[1] was never read: it
	// was appended after the last element any read showed.
	OrderOp *int64 `json:"order_op,omitempty"`
	Unread  bool   `json:"unread,omitempty"`
	// OrderBy names the source of the version order behind an rw-register
	// ww or rw step (Values[0] before Values[1] in Key's version order):
	// "initial-state" (nil precedes every value; no op), "wfr-keys" (op
	// OrderOp read Values[0] and then wrote Values[1]), "sequential-keys"
	// (one process ran OrderOps[0], whose last value of Key was Values[0],
	// and then OrderOps[1], whose first value of it was Values[1]),
	// "linearizable-keys" (OrderOps[0] completed before OrderOps[1] was
	// invoked, same values) or "transaction-order" (the commit order given
	// puts OrderOps[0], which wrote Values[0], right before OrderOps[1],
	// which wrote Values[1]). List-append steps leave it empty.
	OrderBy  string  `json:"order_by,omitempty"`
	OrderOps []int64 `json:"order_ops,omitempty"`
	// Contested marks a ww or rw step whose version order (Values[0] right
	// before Values[1] in Key's order) some read of Key contradicts: the
	// step assumes the order the checker chose, it does not prove it.
	// ContradictedBy lists the ops whose reads contradict it (the first
	// few, by op index); a read there that shows Values[1] proves that the
	// element was read, so the step never calls it unread.
	Contested      bool    `json:"contested,omitempty"`
	ContradictedBy []int64 `json:"contradicted_by,omitempty"`
	// Placed marks a contested list-append step whose Values[1] some read
	// shows (ContradictedBy's first op) but no read shows right after
	// Values[0]: the chosen order placed it after its last element, which
	// OrderOp's read shows (where Unread would be claimed if nobody had
	// read it).
	Placed bool `json:"placed,omitempty"`
}

// Proof states of a cycle instance (Instance.Proof).
const (
	// Proven: every step follows from the history alone.
	Proven = "proven"
	// Assumes: some step rests on a version order that a read of the
	// history contradicts (Instance.Assumes lists them).
	Assumes = "assumes"
	// Given: no step is contested, but some step rests on a version order
	// the user gave as an option (Instance.Given names them).
	Given = "given"
)

// Assumption is a contested version order a cycle instance rests on: the
// order of Key, from the read of OrderOp (when one gave it), which the
// reads of ContradictedBy contradict.
type Assumption struct {
	Key            *Value  `json:"key"`
	OrderOp        *int64  `json:"order_op,omitempty"`
	ContradictedBy []int64 `json:"contradicted_by"`
}

// VersionStep is one edge of an rw-register version order, with why it
// holds: Values[0] came before Values[1] (null: the initial state) in the
// key's version order, by the source OrderBy and its ops, as on Step.
type VersionStep struct {
	Values   []Value `json:"values"`
	OrderBy  string  `json:"order_by"`
	OrderOp  *int64  `json:"order_op,omitempty"`
	OrderOps []int64 `json:"order_ops,omitempty"`
}

// Instance is one occurrence of an anomaly. Fields not used by its type are
// left nil and omitted from JSON; which ones each type uses is documented on
// its constant in package queue. Witness is always set.
type Instance struct {
	Key           *Value   `json:"key,omitempty"`
	Value         *Value   `json:"value,omitempty"`
	Values        []Value  `json:"values,omitempty"`
	Offset        *int64   `json:"offset,omitempty"`
	Offsets       []int64  `json:"offsets,omitempty"`
	Index         *int64   `json:"index,omitempty"`
	MaxReadIndex  *int64   `json:"max_read_index,omitempty"`
	Writer        *int64   `json:"writer,omitempty"`
	MaxRead       *int64   `json:"max_read,omitempty"`
	MaxReadOffset *int64   `json:"max_read_offset,omitempty"`
	Reader        *int64   `json:"reader,omitempty"`
	Op            *int64   `json:"op,omitempty"`
	Ops           []int64  `json:"ops,omitempty"`
	Count         *int64   `json:"count,omitempty"`
	Delta         *int64   `json:"delta,omitempty"`
	Skipped       []Value  `json:"skipped,omitempty"`
	Process       *int64   `json:"process,omitempty"`
	From          *int64   `json:"from,omitempty"`
	To            *int64   `json:"to,omitempty"`
	DurationS     *float64 `json:"duration_s,omitempty"`
	StuckOffset   *int64   `json:"stuck_offset,omitempty"`
	AckedOffset   *int64   `json:"acknowledged_offset,omitempty"`
	Seen          []Pair   `json:"seen,omitempty"`
	Missing       []Pair   `json:"missing,omitempty"`
	Reason        string   `json:"reason,omitempty"`
	Cycle         []int64  `json:"cycle,omitempty"`
	Steps         []Step   `json:"steps,omitempty"`
	// Proof says what a cycle instance's steps rest on (Proven, Assumes or
	// Given); Assumes lists the contested keys when some step is
	// contested, Given the options (wfr-keys, sequential-keys,
	// linearizable-keys, transaction-order) some step's order comes from.
	Proof   string       `json:"proof,omitempty"`
	Assumes []Assumption `json:"assumes,omitempty"`
	Given   []string     `json:"given,omitempty"`
	// Fields of the transactional workloads (their types' doc comments in
	// package txn say which each uses).
	Mop            *Mop             `json:"mop,omitempty"`
	Element        *Value           `json:"element,omitempty"`
	Expected       *Value           `json:"expected,omitempty"`
	Duplicates     map[string]int64 `json:"duplicates,omitempty"`
	Txns           []Value          `json:"txns,omitempty"`
	Not            string           `json:"not,omitempty"`
	Subgraph       string           `json:"subgraph,omitempty"`
	SCCSize        *int64           `json:"scc_size,omitempty"`
	SCC            []int64          `json:"scc,omitempty"`
	SpecType       string           `json:"anomaly_spec_type,omitempty"`
	DoesNotContain []string         `json:"does_not_contain,omitempty"`
	// Sources and VersionCycle belong to rw-register's cyclic-versions:
	// the version-order sources merged for the key (the last one made the
	// cycle and was dropped for it), and a shortest cycle of the key's
	// version order, each edge with the source and ops that put it there.
	Sources      []string      `json:"sources,omitempty"`
	VersionCycle []VersionStep `json:"version_cycle,omitempty"`
	// Allowed marks an instance that does not make the history invalid
	// although others of its type might (a poll-skip of a subscribed
	// consumer, a G1c that needs a ww edge under --ww-deps).
	Allowed bool `json:"allowed,omitempty"`
	// Truncated is set when Values holds only the first values of a long
	// list (unseen); Count has the full number.
	Truncated bool    `json:"values_truncated,omitempty"`
	Witness   []int64 `json:"witness"`
	// SkippedCount is how many values a skip jumped over, set only when
	// Skipped lists just the first of them (queue.MaxSkipped).
	SkippedCount *int64 `json:"skipped_count,omitempty"`
	// MopElements is the number of elements of the read Mop names, set
	// only when Mop lists just the first of them (txn.MaxMopElements).
	MopElements *int64 `json:"mop_elements,omitempty"`
}

// IntPtr returns a pointer to i, for Instance fields.
func IntPtr(i int64) *int64 { return &i }

// FloatPtr returns a pointer to f, for Instance fields.
func FloatPtr(f float64) *float64 { return &f }

// AtomValuePtr returns a pointer to the Value of a.
func AtomValuePtr(a model.Atom) *Value { v := Value{Atom: a}; return &v }

// Stats are counts about the history and the run.
type Stats struct {
	Ops       int64 `json:"ops"`
	ClientOps int64 `json:"client_ops"`
	Keys      int64 `json:"keys"`
	Messages  int64 `json:"messages"`
	Sends     int64 `json:"sends"`
	Polls     int64 `json:"polls"`
	Txns      int64 `json:"txns"`
	OKOps     int64 `json:"ok_ops"`
	InfoOps   int64 `json:"info_ops"`
	FailOps   int64 `json:"fail_ops"`
	// OpenOps are invocations that never completed (taken as info).
	OpenOps int64 `json:"open_ops"`
	// Unpositioned counts comparisons skipped because a value was never observed
	// in the log (analysis/queue's package doc, "What stays unpositioned").
	Unpositioned int64 `json:"unpositioned_skipped"`
	// Graph figures: vertices, edges, nontrivial strongly connected
	// components and the size of the largest.
	GraphVertices    int64   `json:"graph_vertices"`
	GraphEdges       int64   `json:"graph_edges"`
	Components       int64   `json:"cyclic_components"`
	LargestComponent int64   `json:"largest_component"`
	WorstLagS        float64 `json:"worst_realtime_lag_s"`
	// WorstLag* say where the worst lag was seen (process, key, poll op).
	WorstLagProcess *int64 `json:"worst_realtime_lag_process,omitempty"`
	WorstLagKey     *Value `json:"worst_realtime_lag_key,omitempty"`
	WorstLagOp      *int64 `json:"worst_realtime_lag_op,omitempty"`
	ElapsedMS       int64  `json:"elapsed_ms"`
}

// Options echoes the options a check ran with; each workload fills the
// ones it reads (the others stay out of the JSON).
type Options struct {
	WWDeps         *bool    `json:"ww_deps,omitempty"`
	SubVia         string   `json:"sub_via,omitempty"`
	CycleBudgetS   float64  `json:"cycle_budget_s"`
	StallThreshold *float64 `json:"stall_threshold_s,omitempty"`
	// Anomalies are the extra anomaly types a transactional check was asked
	// to rule out (Elle's :anomalies).
	Anomalies []string `json:"anomalies,omitempty"`
	// The version-order sources an rw-register check used (nil for other
	// workloads).
	WFRKeys          *bool `json:"wfr_keys,omitempty"`
	SequentialKeys   *bool `json:"sequential_keys,omitempty"`
	LinearizableKeys *bool `json:"linearizable_keys,omitempty"`
	// TransactionOrder is the number of txns an rw-register check was given
	// a commit order for (Elle's :transaction-order), when it was.
	TransactionOrder *int64 `json:"transaction_order,omitempty"`
}

// UnseenPoint is one change of a key's unseen count: after the ok op at
// position Op (index OpIndex, time Time), Count ok-sent values of Key had not
// been read by an ok poll. Between points the count stays.
type UnseenPoint struct {
	Time    int64
	OpIndex int64
	Key     model.KeyID
	Count   int32
}

// LagPoint is one realtime-lag sample: at the ok poll OpIndex of Process
// (stamped with its invocation Time), Key lagged LagNS nanoseconds behind the
// acknowledged log; Offset is the consumer's position after the poll (-1:
// nothing read yet).
type LagPoint struct {
	Time    int64
	OpIndex int64
	Process int32
	Key     model.KeyID
	LagNS   int64
	Offset  int64
}

// KeyOrder is the version order a transactional checker inferred for one
// key: its elements (list-append) or values, oldest first, and the op whose
// read showed it (-1: none, e.g. a key with a single append).
type KeyOrder struct {
	Key   model.KeyID
	Elems []model.MsgID
	From  int64
}

// VersionEdge is one edge of an rw-register key's version order: From
// came before To (model.NoMsg: the initial state, nil), by the source By
// (as Step.OrderBy) and the ops Ops that justify it (none for
// initial-state; the one txn for wfr-keys; the two txns otherwise).
type VersionEdge struct {
	From, To model.MsgID
	By       string
	Ops      []int64
}

// KeyVersions is the version order an rw-register check inferred for one
// key: a partial order, as the edges of a small DAG over the key's values
// (not a list, and not transitively closed: v1 < v3 may hold only through
// v1 < v2 < v3). Only edges of sources that kept the key's order acyclic
// are here; cyclic-versions instances tell of the others.
type KeyVersions struct {
	Key   model.KeyID
	Edges []VersionEdge
}

// Series are what a report draws beyond the anomalies: the queue's time
// series, and the transactional workloads' version orders (by key):
// list-append's as lists (Orders), rw-register's as partial orders
// (Versions). They are not part of the JSON result.
type Series struct {
	Unseen   Points[UnseenPoint]
	Lag      LagSeries
	Orders   []KeyOrder
	Versions []KeyVersions
}

// LagSeries holds realtime-lag samples in order, compactly: the samples of
// one poll share its time, op index and process, which are kept once.
type LagSeries struct {
	polls   Points[lagPoll]
	samples Points[lagSample]
}

type lagPoll struct {
	time, opIndex int64
	process       int32
}

type lagSample struct {
	key    model.KeyID
	poll   int32 // index in polls
	lagNS  int64
	offset int64
}

// Append adds p at the end.
func (s *LagSeries) Append(p LagPoint) {
	n := s.polls.Len()
	if n == 0 || *s.polls.At(n - 1) != (lagPoll{p.Time, p.OpIndex, p.Process}) {
		s.polls.Append(lagPoll{p.Time, p.OpIndex, p.Process})
		n++
	}
	s.samples.Append(lagSample{p.Key, int32(n - 1), p.LagNS, p.Offset})
}

// Len is the number of samples.
func (s *LagSeries) Len() int { return s.samples.Len() }

// At returns the sample at i, 0 <= i < Len().
func (s *LagSeries) At(i int) LagPoint {
	x := s.samples.At(i)
	p := s.polls.At(int(x.poll))
	return LagPoint{Time: p.time, OpIndex: p.opIndex, Process: p.process, Key: x.key, LagNS: x.lagNS, Offset: x.offset}
}

// All yields the samples in order.
func (s *LagSeries) All() iter.Seq2[int, LagPoint] {
	return func(yield func(int, LagPoint) bool) {
		for i, x := range s.samples.All() {
			p := s.polls.At(int(x.poll))
			if !yield(i, LagPoint{Time: p.time, OpIndex: p.opIndex, Process: p.process, Key: x.key, LagNS: x.lagNS, Offset: x.offset}) {
				return
			}
		}
	}
}

// pointsChunk is the number of points in a chunk of Points.
const pointsChunk = 1 << 16

// Points is a sequence of points gathered one at a time, in chunks that
// never move: a history's millions of lag samples cost no copying as they
// grow (a slice's append copies them again and again, and for a large
// history that took longer than computing them). The zero value is empty.
type Points[T any] struct {
	chunks [][]T
	n      int
}

// Append adds p at the end.
func (s *Points[T]) Append(p T) {
	if s.n%pointsChunk == 0 {
		s.chunks = append(s.chunks, make([]T, 0, pointsChunk))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, p)
	s.n++
}

// Len is the number of points.
func (s *Points[T]) Len() int { return s.n }

// At returns the point at i, 0 <= i < Len().
func (s *Points[T]) At(i int) *T { return &s.chunks[i/pointsChunk][i%pointsChunk] }

// All yields the points in order.
func (s *Points[T]) All() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		i := 0
		for _, c := range s.chunks {
			for j := range c {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}

// Result is the outcome of checking one history.
type Result struct {
	Schema string `json:"schema"`
	Source string `json:"source"`
	// SHA256 and Bytes are the SHA-256 (hex) and size of the history's
	// bytes as stored (package check fills them; a scan row's sha256 and
	// size_bytes are the same), so that results can be matched across
	// runs (hindsight diff). Left out when unknown.
	SHA256         string                `json:"sha256,omitempty"`
	Bytes          int64                 `json:"bytes,omitempty"`
	Workload       string                `json:"workload"`
	Verdict        Verdict               `json:"valid"`
	AnomalyTypes   []string              `json:"anomaly_types"`
	BadTypes       []string              `json:"bad_anomaly_types"`
	UnknownReasons []string              `json:"unknown_reasons"`
	Warnings       []string              `json:"warnings,omitempty"`
	Anomalies      map[string][]Instance `json:"anomalies"`
	// Models, Not and AlsoNot belong to the transactional workloads: the
	// consistency models checked (canonical names), and the models the
	// anomalies found rule out, weakest first and the stronger rest (Elle's
	// :not and :also-not). Nil for other workloads, and then left out.
	Models  []string `json:"models,omitzero"`
	Not     []string `json:"not,omitzero"`
	AlsoNot []string `json:"also_not,omitzero"`
	Stats   Stats    `json:"stats"`
	Options Options  `json:"options"`
	// ProvenCycles counts, for each anomaly type with cycle instances,
	// how many of them are proven (Instance.Proof); Finish fills it. Nil,
	// and left out, when no instance has a proof state.
	ProvenCycles map[string]int64 `json:"proven_cycles,omitempty"`
	// Hindsight is the build that produced the result (package check fills
	// it), so that a result kept for months can be reproduced.
	Hindsight *version.Info `json:"hindsight,omitempty"`
	Series    Series        `json:"-"`
}

// Add appends an instance of type typ.
func (r *Result) Add(typ string, in Instance) {
	if r.Anomalies == nil {
		r.Anomalies = map[string][]Instance{}
	}
	slices.Sort(in.Witness)
	in.Witness = slices.Compact(in.Witness)
	ins := r.Anomalies[typ]
	if len(ins) == cap(ins) && len(ins) >= 256 {
		// double: append grows a long slice by a quarter, which copies an
		// instance (hundreds of bytes) about five times over
		ins = slices.Grow(ins, len(ins))
	}
	r.Anomalies[typ] = append(ins, in)
}

// Finish sorts instances (by lowest op index in the witness, then key, then
// the order they were found), fills AnomalyTypes and BadTypes using bad, and
// sets the verdict: invalid if any bad type, else unknown if there are
// reasons, else valid.
func (r *Result) Finish(bad func(typ string, in *Instance) bool) {
	r.AnomalyTypes, r.BadTypes = r.AnomalyTypes[:0], r.BadTypes[:0]
	if r.UnknownReasons == nil {
		r.UnknownReasons = []string{}
	}
	for typ, ins := range r.Anomalies {
		if len(ins) == 0 {
			delete(r.Anomalies, typ)
			continue
		}
		slices.SortStableFunc(ins, compareInstances)
		r.AnomalyTypes = append(r.AnomalyTypes, typ)
		for i := range ins {
			if bad(typ, &ins[i]) {
				r.BadTypes = append(r.BadTypes, typ)
				break
			}
		}
	}
	slices.Sort(r.AnomalyTypes)
	slices.Sort(r.BadTypes)
	r.ProvenCycles = nil
	for typ, ins := range r.Anomalies {
		for i := range ins {
			if ins[i].Proof == "" {
				continue
			}
			if r.ProvenCycles == nil {
				r.ProvenCycles = map[string]int64{}
			}
			n := r.ProvenCycles[typ]
			if ins[i].Proof == Proven {
				n++
			}
			r.ProvenCycles[typ] = n
		}
	}
	if r.AnomalyTypes == nil {
		r.AnomalyTypes = []string{}
	}
	if r.BadTypes == nil {
		r.BadTypes = []string{}
	}
	if r.Anomalies == nil {
		r.Anomalies = map[string][]Instance{}
	}
	switch {
	case len(r.BadTypes) > 0:
		r.Verdict = Invalid
	case len(r.UnknownReasons) > 0:
		r.Verdict = Unknown
	default:
		r.Verdict = Valid
	}
}

func compareInstances(a, b Instance) int {
	la, lb := lowest(a.Witness), lowest(b.Witness)
	if la != lb {
		if la < lb {
			return -1
		}
		return 1
	}
	switch {
	case a.Key == nil || b.Key == nil:
		return 0
	case a.Key.Less(b.Key.Atom):
		return -1
	case b.Key.Less(a.Key.Atom):
		return 1
	}
	return 0
}

func lowest(w []int64) int64 {
	if len(w) == 0 {
		return 1<<63 - 1
	}
	return w[0] // witnesses are sorted by Add
}

// givenSources are the version-order sources (Step.OrderBy) that come from
// an option the user gave, not from the history.
var givenSources = []string{"wfr-keys", "sequential-keys", "linearizable-keys", "transaction-order"}

// SetProof fills a cycle instance's Proof, Assumes and Given from its
// steps: Assumes when some step is Contested (one Assumption per key, in
// the order the steps name them, with the union of their ContradictedBy
// ops, sorted), else Given when some step's OrderBy is an option's, else
// Proven. orderOp, when not nil, returns the op whose read gave a contested
// key's version order. O(steps · keys of the cycle).
func (in *Instance) SetProof(orderOp func(key *Value) *int64) {
	in.Assumes, in.Given = nil, nil
	for _, st := range in.Steps {
		if st.OrderBy != "" && slices.Contains(givenSources, st.OrderBy) && !slices.Contains(in.Given, st.OrderBy) {
			in.Given = append(in.Given, st.OrderBy)
		}
		if !st.Contested || st.Key == nil {
			continue
		}
		i := slices.IndexFunc(in.Assumes, func(a Assumption) bool {
			return !a.Key.Less(st.Key.Atom) && !st.Key.Less(a.Key.Atom)
		})
		if i < 0 {
			a := Assumption{Key: st.Key}
			if orderOp != nil {
				a.OrderOp = orderOp(st.Key)
			}
			in.Assumes = append(in.Assumes, a)
			i = len(in.Assumes) - 1
		}
		in.Assumes[i].ContradictedBy = append(in.Assumes[i].ContradictedBy, st.ContradictedBy...)
	}
	for i := range in.Assumes {
		slices.Sort(in.Assumes[i].ContradictedBy)
		in.Assumes[i].ContradictedBy = slices.Compact(in.Assumes[i].ContradictedBy)
		if in.Assumes[i].ContradictedBy == nil {
			in.Assumes[i].ContradictedBy = []int64{}
		}
	}
	slices.Sort(in.Given)
	switch {
	case len(in.Assumes) > 0:
		in.Proof = Assumes
	case len(in.Given) > 0:
		in.Proof = Given
	default:
		in.Proof = Proven
	}
}
