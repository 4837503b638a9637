// Package catalog defines what an anomaly type is: one Entry per type and
// workload, written once in the package of the workload that reports it
// (analysis/queue's Catalogue, analysis/txn's ListAppendCatalogue and
// RWRegisterCatalogue). The registry (package workload), the text and HTML
// report, the scanner's count columns and the docs test all read entries;
// nothing else spells a type's name.
//
// An entry says what the type means in one sentence, when it makes a
// history invalid, where docs/ explains it, how one instance is put into
// words, and how the queue's offset timeline draws it. The helpers that
// explanations share (value formatting, naming ops, eliding long lists)
// live here too, so that every workload words its instances alike.
//
// The package sits under every workload's analysis package and under
// report; it imports only analysis and model.
package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// Severity says when an anomaly type makes a history invalid.
type Severity uint8

// Severities.
const (
	// Bad: every instance makes the history invalid.
	Bad Severity = iota
	// Informational: never makes a history invalid.
	Informational
	// Conditional: bad or not depending on options, the consumer's mode or
	// the consistency models; Entry.When says how.
	Conditional
	// Undecided: the history could not be fully judged; the verdict is at
	// best unknown.
	Undecided
)

// String returns "bad", "informational", "conditional" or "undecided".
func (s Severity) String() string {
	switch s {
	case Bad:
		return "bad"
	case Informational:
		return "informational"
	case Conditional:
		return "conditional"
	}
	return "undecided"
}

// Entry is the one description of an anomaly type of one workload. A name
// that two workloads report (G1a, G1c, garbage-read ...) has one entry in
// each, since its meaning, documentation and wording differ.
type Entry struct {
	// Workload is the name of the workload that reports the type.
	Workload string
	// Name is the type's name, exactly as the JSON result spells it.
	Name string
	// Meaning says in one sentence what an instance shows.
	Meaning string
	// Severity and When say when it makes a history invalid; When is
	// "always" for a Bad type.
	Severity Severity
	When     string
	// Doc is the path of its documentation in the repository, with the
	// anchor of its section (docs/queue.md#lost-write): the section's
	// heading is the type's name.
	Doc string
	// Explain says in plain words what one instance shows. lookup may be
	// nil; with it, ops are named with their process.
	Explain func(in analysis.Instance, lookup OpLookup) string
	// Mark says how the queue's offset timeline draws an instance; the
	// zero Mark draws the default symbol at each read along a cycle.
	Mark Mark
	// SideBySide: the HTML report sets the instance's two reads (Values
	// and Ops, two each) side by side around their first difference.
	SideBySide bool
}

// Mark is how an offset timeline draws an instance: a symbol of a colour
// (ECharts symbol names; "" for the report's default), placed as Place
// says.
type Mark struct {
	Symbol, Color string
	Place         Place
}

// Place says where an instance shows on an offset timeline: at which op
// and offset, from the instance's own fields.
type Place uint8

// Places.
const (
	// AtStepReads marks each read along the instance's cycle (the to-op
	// of each step with one offset); nothing for an instance with no steps.
	AtStepReads Place = iota
	// AtWriter marks the writer's send of the value at its offset.
	AtWriter
	// AtOpsOffset marks each of the instance's ops at its offset.
	AtOpsOffset
	// AtOffsets marks the value at each of its offsets, in a completed
	// witness op that saw it there.
	AtOffsets
	// AtReader marks the reader's read of the value at its offset.
	AtReader
	// AtOp marks the instance's op where it has the value.
	AtOp
	// AtUnseenSends marks every ok send of the instance's values.
	AtUnseenSends
	// AtLaterOp marks the second of the instance's two ops, at its second
	// value.
	AtLaterOp
	// AtOpSecond marks the instance's op at its second value.
	AtOpSecond
	// AtMissing marks each missing (key, value) pair of the instance's op.
	AtMissing
	// Segment draws a line from the From op to the To op at the stuck
	// offset, in the mark's colour.
	Segment
)

// Anchor is the anchor a heading of text name gets on GitHub: lower case,
// spaces to hyphens, other punctuation but hyphens and underscores
// dropped.
func Anchor(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// Complete fills what entries of one workload leave to their defaults:
// the workload's name, When "always" for a Bad type, and Doc from the
// workload's page (doc) and the type's anchor. It returns es.
func Complete(workload, doc string, es []Entry) []Entry {
	for i := range es {
		e := &es[i]
		e.Workload = workload
		if e.Severity == Bad && e.When == "" {
			e.When = "always"
		}
		if e.Doc == "" {
			e.Doc = doc + "#" + Anchor(e.Name)
		}
	}
	return es
}

// Fallback is the explanation of an instance no entry words: its type and
// witness ops.
func Fallback(typ string, in analysis.Instance) string {
	return fmt.Sprintf("%s: witness ops %s", typ, Ints(in.InstanceEvidence().Witness))
}

// OpInfo describes an op for explanations.
type OpInfo struct {
	Process int32
	Type    model.OpType
	F       string
}

// OpLookup finds an op by its :index; ok is false when it is unknown.
type OpLookup func(index int64) (info OpInfo, ok bool)

// MaxListed is how many values an explanation lists before eliding.
const MaxListed = 8

// Val formats a value, "?" for none.
func Val(v *analysis.Value) string {
	if v == nil {
		return "?"
	}
	return v.String()
}

// Vals lists values, the first MaxListed of them and a count of the rest.
func Vals(vs []analysis.Value) string {
	var parts []string
	for i, v := range vs {
		if i == MaxListed {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-MaxListed))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, ", ")
}

// Ints lists integers, comma-separated.
func Ints(xs []int64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, strconv.FormatInt(x, 10))
	}
	return strings.Join(parts, ", ")
}

// I64 formats an optional integer, "?" for none.
func I64(p *int64) string {
	if p == nil {
		return "?"
	}
	return strconv.FormatInt(*p, 10)
}

// OpName names an op with its process when known: "op 12 (process 3)".
func OpName(lookup OpLookup, idx int64) string {
	if lookup != nil {
		if in, ok := lookup(idx); ok && in.Process != model.NoProcess {
			return fmt.Sprintf("op %d (process %d)", idx, in.Process)
		}
	}
	return fmt.Sprintf("op %d", idx)
}

// OpTyped names an op with its process, type and function when known:
// "op 12 (process 3, ok txn)".
func OpTyped(lookup OpLookup, idx int64) string {
	if lookup != nil {
		if in, ok := lookup(idx); ok {
			return fmt.Sprintf("op %d (process %d, %s %s)", idx, in.Process, in.Type, in.F)
		}
	}
	return fmt.Sprintf("op %d", idx)
}

// Plural picks one or many by n.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by one or many: "1 key", "3 keys".
func Count(n int64, one, many string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, one, many))
}

// Contradict says who contradicts an order: "op 3 contradicts", "ops 3, 5
// contradict", "some read contradicts".
func Contradict(ops []int64) string {
	switch len(ops) {
	case 0:
		return "some read contradicts"
	case 1:
		return fmt.Sprintf("op %d contradicts", ops[0])
	}
	return "ops " + Ints(ops) + " contradict"
}

// FirstDifference is the index of the first element where two lists
// differ (the shorter one's length when one is a prefix of the other).
func FirstDifference(a, b analysis.Value) int {
	n := min(a.Len(), b.Len())
	for i := range n {
		if a.At(i).String() != b.At(i).String() {
			return i
		}
	}
	return n
}

// Own adapts a workload's explanation of its own instance type T to
// Entry.Explain. An instance of another type, which the workload's checker
// never reports, gets its witness ops (as Fallback words them).
func Own[T analysis.Instance](explain func(T, OpLookup) string) func(analysis.Instance, OpLookup) string {
	return func(in analysis.Instance, lookup OpLookup) string {
		own, ok := analysis.Full(in).(T)
		if !ok {
			return Fallback("instance", in)
		}
		return explain(own, lookup)
	}
}
