package scan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"unsafe"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/workload"
)

// SchemaVersion names the layout of the result tables and of the cache
// entries. It is stored in the Parquet and Arrow metadata under the key
// "hindsight.scan.schema" and is part of every cache key; bump it when a
// column changes meaning or goes away.
const SchemaVersion = "hindsight.scan/v1"

// Verdicts of a history row: the three of analysis.Verdict, and "error"
// for a history that could not be read, parsed or checked.
const (
	VerdictValid   = "valid"
	VerdictInvalid = "invalid"
	VerdictUnknown = "unknown"
	VerdictError   = "error"
)

// CountTypes are the anomaly types that get a count_<type> column, in
// column order: every workload's types (workload.AllTypes).
var CountTypes = workload.AllTypes()

// CountColumn returns the name of the count column of anomaly type typ:
// "count_" and the type with every character but letters, digits and '_'
// spelled '_' (count_lost_write, count_G1c_process,
// count_PL_2_99_cycle_exists), so that SQL can name it unquoted.
func CountColumn(typ string) string {
	b := []byte("count_" + typ)
	for i := len("count_"); i < len(b); i++ {
		c := b[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// HistoryRow is one row of the histories table: one history and what its
// check found. Fields a history that could not be checked cannot have
// (Workload, Ops, the counts, Truncated) are empty, and null in the tables.
type HistoryRow struct {
	Path           string           `json:"path"`
	SizeBytes      int64            `json:"size_bytes"`
	SHA256         string           `json:"sha256,omitempty"`
	Workload       string           `json:"workload,omitempty"`
	Ops            int64            `json:"ops"`
	Verdict        string           `json:"verdict"`
	BadTypes       []string         `json:"bad_types"`
	Counts         map[string]int64 `json:"counts,omitempty"`
	ElapsedMS      int64            `json:"elapsed_ms"`
	Error          string           `json:"error,omitempty"`
	UnknownReasons []string         `json:"unknown_reasons"`
	AnomalyTypes   []string         `json:"anomaly_types"`
	Truncated      bool             `json:"truncated"`
	Warnings       []string         `json:"warnings"`
	// Models, Not and AlsoNot are the transactional workloads' consistency
	// models and the models the anomalies rule out; nil (null) otherwise.
	Models  []string `json:"models,omitempty"`
	Not     []string `json:"not,omitempty"`
	AlsoNot []string `json:"also_not,omitempty"`
	// Archive is the archive holding the history (ARCHIVE, or OUTER!/INNER
	// for one nested in another), or the archive itself for a row saying it
	// could not be read; "" (null) for a loose file.
	Archive string `json:"archive,omitempty"`
}

// checked reports whether the row holds a verdict (not an error).
func (r *HistoryRow) checked() bool { return r.Verdict != VerdictError }

// AnomalyRow is one row of the anomalies table: one anomaly instance.
type AnomalyRow struct {
	Path string `json:"-"`
	Type string `json:"type"`
	// Key is the JSON text of the instance's key (3, ":x"), or nil for an
	// instance without a key (a cycle).
	Key *string `json:"key,omitempty"`
	// Values are the JSON texts of the instance's value, or of its values
	// (for cycles: none).
	Values []string `json:"values"`
	// Skipped are the JSON texts of the values a skip jumped over.
	Skipped []string `json:"skipped"`
	// Witness are the op indices of the minimal counterexample, sorted.
	Witness []int64 `json:"witness"`
	// Bad says whether this instance makes the history invalid.
	Bad bool `json:"bad"`
	// Instance is the whole instance as JSON, in the shape of
	// docs/README.md#json-output, for fields without a column of their own.
	Instance string `json:"instance"`
}

// errorRow is the row of a history that could not be checked.
func errorRow(path string, size int64, sha string, err error) HistoryRow {
	r := HistoryRow{
		Path: path, SizeBytes: size, SHA256: sha, Verdict: VerdictError, Error: err.Error(),
		BadTypes: []string{}, UnknownReasons: []string{}, AnomalyTypes: []string{}, Warnings: []string{},
	}
	r.sanitize()
	return r
}

// sanitize makes every string of r valid UTF-8, as Parquet and Arrow
// require of string columns: a file name, or an error quoting a garbled
// history, can hold any bytes. Invalid bytes become U+FFFD.
func (r *HistoryRow) sanitize() {
	fix := func(s *string) { *s = strings.ToValidUTF8(*s, "\uFFFD") }
	fix(&r.Path)
	fix(&r.Archive)
	fix(&r.Workload)
	fix(&r.Error)
	for _, l := range [][]string{r.BadTypes, r.UnknownReasons, r.AnomalyTypes, r.Warnings} {
		for i := range l {
			fix(&l[i])
		}
	}
}

// rowsOf builds the history row of a check result and returns its
// anomaly rows, to be built as they are written (anomalyRows).
func rowsOf(path string, size int64, sha string, truncated bool, res *analysis.Result, elapsedMS int64) (HistoryRow, anomalyRows) {
	row := HistoryRow{
		Path: path, SizeBytes: size, SHA256: sha, Workload: res.Workload, Ops: res.Stats.Ops,
		Verdict: res.Verdict.String(), BadTypes: nonNil(res.BadTypes), Counts: map[string]int64{},
		ElapsedMS:    elapsedMS,
		AnomalyTypes: nonNil(res.AnomalyTypes), Truncated: truncated, Warnings: slices.Clone(nonNil(res.Warnings)),
		UnknownReasons: slices.Clone(nonNil(res.UnknownReasons)),
		Models:         slices.Clone(res.Models), Not: slices.Clone(res.Not), AlsoNot: slices.Clone(res.AlsoNot),
	}
	row.sanitize()
	rows := anomalyRows{path: path, res: res, types: typeOrder(res)}
	for _, typ := range rows.types {
		row.Counts[typ] = int64(len(res.Anomalies[typ]))
	}
	return row, rows
}

// rowSource is a sequence of anomaly rows: those of a check result, made
// one at a time (anomalyRows), or rows at hand (rowSlice).
type rowSource interface {
	// count is the number of rows; bad the number of them that are bad.
	count() int64
	bad() int64
	// each calls fn with every row in order; the row it is given may be
	// reused once fn returns.
	each(fn func(*AnomalyRow) error) error
	// encode calls write with the rows in order in a cache entry's
	// encoding (appendAnomalyRow's), a run of them at a time; the bytes
	// it is given may be reused once write returns.
	encode(write func([]byte) error) error
}

// anomalyRows are the anomaly rows of a check result: type by type in
// CountTypes order (other types after, by name), instances in the
// result's order. Each is built when it is asked for, so that the rows of
// an anomaly storm (a history with millions of instances) go to the cache
// entry as they are made, never all in memory at once: a scan of 1.8M
// garbage reads and 300k internal ones held about 600 MB of rows before.
type anomalyRows struct {
	path  string
	res   *analysis.Result
	types []string
}

func (a anomalyRows) count() int64 {
	var n int64
	for _, typ := range a.types {
		n += int64(len(a.res.Anomalies[typ]))
	}
	return n
}

// bad counts the bad rows without building them: a row is bad when its
// type made the history invalid and its instance is not allowed.
func (a anomalyRows) bad() int64 {
	var n int64
	for _, typ := range a.types {
		if !slices.Contains(a.res.BadTypes, typ) {
			continue
		}
		for _, in := range a.res.Anomalies[typ] {
			if !in.InstanceEvidence().Allowed {
				n++
			}
		}
	}
	return n
}

func (a anomalyRows) each(fn func(*AnomalyRow) error) error {
	for _, typ := range a.types {
		badType := slices.Contains(a.res.BadTypes, typ)
		for _, in := range a.res.Anomalies[typ] {
			r, err := anomalyRow(a.path, typ, in, badType)
			if err != nil {
				return err
			}
			if err := fn(&r); err != nil {
				return err
			}
		}
	}
	return nil
}

// encode encodes the rows straight from the instances (appendRow: no
// AnomalyRow, no string for each value), piece by piece on every core
// (par.Stream: a few pieces ahead of write, which gets them in order on
// the calling goroutine). A scan of an anomaly storm (2.4M rows of a
// consumer polling from anywhere) built its rows as structs of strings,
// then encoded them, in 7.9 s of its 26 on one core, most of it the
// allocator and the collector; this way the scan took 19.2 s instead of
// 22.9 (one run each, 2026-12-08), its entry's rows byte for byte the
// same. A history with fewer than rowPiece instances is one piece,
// encoded where write runs.
func (a anomalyRows) encode(write func([]byte) error) error {
	// a piece is instances [lo, hi) of types[typ]
	type piece struct{ typ, lo, hi int }
	var pieces []piece
	for t, typ := range a.types {
		for lo, n := 0, len(a.res.Anomalies[typ]); lo < n; lo += rowPiece {
			pieces = append(pieces, piece{t, lo, min(n, lo+rowPiece)})
		}
	}
	badType := make([]bool, len(a.types))
	for t, typ := range a.types {
		badType[t] = slices.Contains(a.res.BadTypes, typ)
	}
	type encoded struct {
		b, scratch []byte
		err        error
	}
	var err error
	par.Stream(len(pieces), func(i int, e encoded) encoded {
		p := pieces[i]
		typ := a.types[p.typ]
		e.b, e.err = e.b[:0], nil
		for _, in := range a.res.Anomalies[typ][p.lo:p.hi] {
			if e.b, e.scratch, e.err = appendRow(e.b, e.scratch, typ, in, badType[p.typ]); e.err != nil {
				break
			}
		}
		return e
	}, func(_ int, e encoded) {
		if err == nil {
			if err = e.err; err == nil {
				err = write(e.b)
			}
		}
	})
	return err
}

// rowPiece is how many instances' rows anomalyRows.encode encodes at a
// time.
const rowPiece = 1024

// rowSlice is rows at hand as a rowSource.
type rowSlice []AnomalyRow

func (s rowSlice) count() int64 { return int64(len(s)) }
func (s rowSlice) bad() int64   { return countBad(s) }
func (s rowSlice) each(fn func(*AnomalyRow) error) error {
	for i := range s {
		if err := fn(&s[i]); err != nil {
			return err
		}
	}
	return nil
}
func (s rowSlice) encode(write func([]byte) error) error {
	var b []byte
	for i := range s {
		if b = appendAnomalyRow(b, &s[i]); len(b) >= 1<<16 {
			if err := write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	return write(b)
}

// typeOrder lists the types present in res: those of CountTypes in that
// order, then any others sorted by name (res.AnomalyTypes is sorted).
func typeOrder(res *analysis.Result) []string {
	var out []string
	known := map[string]bool{}
	for _, t := range CountTypes {
		known[t] = true
		if len(res.Anomalies[t]) > 0 {
			out = append(out, t)
		}
	}
	for _, t := range res.AnomalyTypes {
		if !known[t] && len(res.Anomalies[t]) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// anomalyRow is the row of one instance; badType says whether its type
// made the history invalid (an instance is bad when its type is and it is
// not marked allowed). It is appendRow's encoding, decoded.
func anomalyRow(path, typ string, in analysis.Instance, badType bool) (AnomalyRow, error) {
	b, _, err := appendRow(nil, nil, typ, in, badType)
	if err != nil {
		return AnomalyRow{}, err
	}
	var a AnomalyRow
	d := entryDecoder{b: b, s: unsafe.String(unsafe.SliceData(b), len(b))}
	d.anomalyRow(&a)
	a.Path = strings.ToValidUTF8(path, "\uFFFD")
	return a, nil
}

// appendRow appends to b the row of one instance in a cache entry's
// encoding (appendAnomalyRow's), badType as for anomalyRow, with scratch
// as room for the JSON of its parts; it returns b and scratch, grown.
func appendRow(b, scratch []byte, typ string, in analysis.Instance, badType bool) ([]byte, []byte, error) {
	var err error
	b = appendEntryString(b, typ)
	if key := in.InstanceKey(); key != nil {
		if scratch, err = marshal(scratch, key); err != nil {
			return b, scratch, err
		}
		b = appendEntryString(append(b, 1), scratch)
	} else {
		b = append(b, 0)
	}
	// a compact instance may list its values itself, without Full
	var values, skipped []analysis.Value
	l, ok := in.(analysis.Listed)
	if !ok {
		l, ok = analysis.Full(in).(analysis.Listed)
	}
	if ok {
		values, skipped = l.ListedValues()
	}
	for _, list := range [2][]analysis.Value{values, skipped} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, v := range list {
			if scratch, err = marshal(scratch, v); err != nil {
				return b, scratch, err
			}
			b = appendEntryString(b, scratch)
		}
	}
	ev := in.InstanceEvidence()
	b = binary.AppendUvarint(b, uint64(len(ev.Witness)))
	for _, w := range ev.Witness {
		b = binary.AppendVarint(b, w)
	}
	if badType && !ev.Allowed {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	// the instance's own JSON: a compact instance writes it from its
	// numbers, where Full would build what encoding/json then walks
	if scratch, err = marshal(scratch, in); err != nil {
		return b, scratch, err
	}
	return appendEntryString(b, scratch), scratch, nil
}

// marshal returns json.Marshal(v), reusing buf: from v's own AppendJSON
// when it has one, an order of magnitude faster on an anomaly storm's
// millions of rows, unless what it wrote holds '<', '>' or '&', which
// json.Marshal escapes (then from json.Marshal, so the rows stay the
// same). An instance without an appender is marshalled whole
// (analysis.Full).
func marshal(buf []byte, v any) ([]byte, error) {
	if a, ok := v.(analysis.JSONAppender); ok {
		if b := a.AppendJSON(buf[:0]); !bytes.ContainsAny(b, "<>&") {
			return b, nil
		}
	}
	if in, ok := v.(analysis.Instance); ok {
		v = analysis.Full(in)
	}
	return json.Marshal(v)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
