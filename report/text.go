package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/workload"
)

// JSON writes r as one line of the v1 JSON of docs/README.md#json-output. Map
// keys are sorted and instances are in the result's order, so the same input
// and options give the same bytes apart from stats.elapsed_ms.
//
// The anomalies are streamed, one instance at a time, through a buffered
// writer: a result with hundreds of thousands of instances (an abort
// history's pairs) would otherwise be built whole in memory, twice (the
// encoder's buffer and its growth), before a byte is written; that growth
// was a quarter of such a check's CPU. The bytes are the same as
// encoding/json's for the whole value (TestJSONStreamsTheSameBytes).
func JSON(w io.Writer, r *analysis.Result) error {
	shell := *r
	shell.Anomalies = nil
	head, err := marshal(&shell)
	if err != nil {
		return err
	}
	// the envelope's fields before "anomalies" are strings and lists of
	// strings, in which an unescaped quote cannot stand: the first
	// occurrence is the field itself
	const hole = `"anomalies":null`
	cut := bytes.Index(head, []byte(hole))
	if cut < 0 {
		return fmt.Errorf("report: the result has no anomalies field")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(head[:cut+len(hole)-len("null")])
	if r.Anomalies == nil {
		bw.WriteString("null")
	} else if err := writeAnomalies(bw, r.Anomalies); err != nil {
		return err
	}
	bw.Write(head[cut+len(hole):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeAnomalies writes the anomalies map, its keys sorted as
// encoding/json sorts them. The instances are encoded in pieces on every
// core and written in order (par.Stream): an abort history's hundreds of
// thousands of instances are about 90 MB of JSON, 0.2 s on one core after
// the check is done. One stream serves every type, so its few buffers are
// reused from the first piece to the last.
func writeAnomalies(bw *bufio.Writer, anomalies map[string][]analysis.Instance) error {
	const size = 512 // instances a piece: about 200 kB of an abort history's JSON
	// a piece is instances [lo, hi) of types[typ]; the first of a type
	// opens its list, the last closes it (a type with none has one piece)
	type piece struct {
		typ, lo, hi int
		first, last bool
	}
	types := slices.Sorted(maps.Keys(anomalies))
	var pieces []piece
	for t, typ := range types {
		n := len(anomalies[typ])
		for lo := 0; lo == 0 || lo < n; lo += size {
			pieces = append(pieces, piece{typ: t, lo: lo, hi: min(n, lo+size), first: lo == 0, last: lo+size >= n})
		}
	}
	type encoded struct {
		b   []byte
		err error
	}
	var err error
	bw.WriteByte('{')
	par.Stream(len(pieces), func(i int, e encoded) encoded {
		p := pieces[i]
		e.b, e.err = appendInstances(e.b[:0], anomalies[types[p.typ]][p.lo:p.hi], !p.first)
		return e
	}, func(i int, e encoded) {
		p := pieces[i]
		ins := anomalies[types[p.typ]]
		if err != nil {
			return
		}
		if p.first {
			if p.typ > 0 {
				bw.WriteByte(',')
			}
			if err = writeJSON(bw, types[p.typ]); err != nil {
				return
			}
			bw.WriteByte(':')
			if ins == nil { // as encoding/json writes a nil slice
				bw.WriteString("null")
				return
			}
			bw.WriteByte('[')
		}
		if err = e.err; err != nil {
			return
		}
		bw.Write(e.b)
		if p.last {
			bw.WriteByte(']')
		}
	})
	if err != nil {
		return err
	}
	return bw.WriteByte('}')
}

// appendInstances appends the JSON of ins to b, separated by commas, and
// preceded by one when comma is set.
func appendInstances(b []byte, ins []analysis.Instance, comma bool) ([]byte, error) {
	var buf bytes.Buffer
	var enc *json.Encoder // for instances that do not append their own
	for i, in := range ins {
		if i > 0 || comma {
			b = append(b, ',')
		}
		if a, ok := in.(analysis.JSONAppender); ok {
			b = a.AppendJSON(b)
			continue
		}
		if enc == nil {
			enc = json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
		}
		buf.Reset()
		if err := enc.Encode(analysis.Full(in)); err != nil {
			return b, err
		}
		b = append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	}
	return b, nil
}

// marshal is v as JSON without HTML escaping and without the encoder's
// trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writeJSON writes v's JSON to bw.
func writeJSON(bw *bufio.Writer, v any) error {
	b, err := marshal(v)
	if err == nil {
		_, err = bw.Write(b)
	}
	return err
}

// TypeRow is one line of the summary table.
type TypeRow struct {
	Type  string
	Count int
	// Status is "bad", "allowed", "bad (n allowed)", or "unknown" for the
	// types that leave the verdict undecided.
	Status string
}

// TypeRows summarises r by anomaly type, in the order of its workload's
// types (package workload; unknown type names last, sorted).
func TypeRows(r *analysis.Result) []TypeRow {
	var known []string
	if w, ok := workload.Lookup(r.Workload); ok {
		known = w.TypeNames()
	}
	order := func(t string) int {
		if i := slices.Index(known, t); i >= 0 {
			return i
		}
		return len(known)
	}
	types := slices.Clone(r.AnomalyTypes)
	slices.SortStableFunc(types, func(a, b string) int {
		if d := order(a) - order(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var rows []TypeRow
	for _, t := range types {
		ins := r.Anomalies[t]
		bad := slices.Contains(r.BadTypes, t)
		allowed := 0
		for i := range ins {
			if ins[i].InstanceEvidence().Allowed {
				allowed++
			}
		}
		status := "allowed"
		if t, ok := workload.Describe(r.Workload, t); ok && t.Severity == workload.Undecided {
			status = "unknown"
		}
		switch {
		case bad && allowed > 0:
			status = fmt.Sprintf("bad (%d allowed)", allowed)
		case bad:
			status = "bad"
		}
		rows = append(rows, TypeRow{Type: t, Count: len(ins), Status: status})
	}
	return rows
}

// Text writes the human summary: the verdict, a table of anomaly types, the
// first maxExamples instances of each type in plain words, and the main
// statistics.
func Text(w io.Writer, r *analysis.Result, lookup OpLookup, maxExamples int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %s\n", r.Source, strings.ToUpper(r.Verdict.String()))
	for _, reason := range r.UnknownReasons {
		fmt.Fprintf(&b, "  unknown because %s\n", reason)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", warn)
	}
	b.WriteString(entryOf(r.Workload).Layout.Head(r))
	rows := TypeRows(r)
	if len(rows) == 0 {
		b.WriteString("no anomalies found\n")
	} else {
		t := tablewriter.NewWriter(&b)
		t.Header("anomaly", "count", "verdict")
		for _, row := range rows {
			if err := t.Append(row.Type, fmt.Sprint(row.Count), row.Status); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		for _, row := range rows {
			ins := r.Anomalies[row.Type]
			status := row.Status
			if pn := page.ProvenNote(r, row.Type, page.Decimal); pn != "" {
				status += "; " + pn
			}
			fmt.Fprintf(&b, "\n%s (%d, %s):", row.Type, row.Count, status)
			if t, ok := workload.Describe(r.Workload, row.Type); ok {
				fmt.Fprintf(&b, " %s [%s]", t.Meaning, t.Doc)
			}
			b.WriteString("\n")
			for i := range ins {
				if i == maxExamples {
					fmt.Fprintf(&b, "  … and %d more (--max-examples, or --format json for all)\n", len(ins)-maxExamples)
					break
				}
				fmt.Fprintf(&b, "  - %s\n", textExplanation(ExplainIn(r.Workload, row.Type, ins[i], lookup)))
				if note := page.ProofNote(ins[i]); note != "" {
					fmt.Fprintf(&b, "    %s\n", note)
				}
				if w := ins[i].InstanceEvidence().Witness; len(w) > 0 {
					fmt.Fprintf(&b, "    witness: ops %s\n", textWitness(w))
				}
			}
		}
	}
	b.WriteString(entryOf(r.Workload).Layout.Summary(r))
	_, err := w.Write(b.Bytes())
	return err
}

// MaxTextExplanationChars and MaxTextWitnessOps bound what the text output
// (and the JUnit report, which explains instances as it does) prints of
// one instance. A real history's explanations and witnesses fit
// well within them; a hostile ring of 320,000 ops, one G1c through them
// all, printed that instance as a line of 32 MB and a witness of 640,000
// op indices. The JSON output holds every instance whole.
const (
	MaxTextExplanationChars = 20_000
	MaxTextWitnessOps       = 1_000
)

// textWitness lists witness ops for the text output, cut at
// MaxTextWitnessOps with a note that says so.
func textWitness(w []int64) string {
	if len(w) <= MaxTextWitnessOps {
		return ints(w)
	}
	return fmt.Sprintf("%s, … and %s more (--format json for all)", ints(w[:MaxTextWitnessOps]), page.Thousands(int64(len(w)-MaxTextWitnessOps)))
}

// textExplanation is an explanation for the text output, cut at
// MaxTextExplanationChars with a note that says so.
func textExplanation(s string) string {
	cut, total := page.Cut(s, MaxTextExplanationChars)
	if total == 0 {
		return cut
	}
	return cut + fmt.Sprintf(" (cut at %s of %s characters; --format json for all)",
		page.Thousands(MaxTextExplanationChars), page.Thousands(int64(total)))
}
