package analysis

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The appenders below write instances' JSON byte for byte as encoding/json
// writes it (report.JSON's encoder, without HTML escaping), for the
// instance types that append their own (abort.Instance, the compact
// instances of analysis.Lazy): an anomaly storm's hundreds of thousands of
// instances through encoding/json cost reflection on every field and an
// allocation per key. Each user's tests compare the two on its instances.

// JSONFields appends the fields of a JSON object to B, after its '{'.
type JSONFields struct {
	B    []byte
	some bool
}

// JSONAppender is a value that appends its own JSON: Value, Mop, and the
// compact instances (Lazy), each what encoding/json writes for it without
// HTML escaping, but for Value's strings, which escape it as json.Marshal
// does (abort.Instance.AppendJSON's doc gives the benchmark that justifies
// writing them by hand). report writes instances through it, scan its
// rows.
type JSONAppender interface {
	AppendJSON(b []byte) []byte
}

// NewJSONFields starts an object on b.
func NewJSONFields(b []byte) JSONFields { return JSONFields{B: append(b, '{')} }

// Name appends a field's name (one that needs no escaping).
func (f *JSONFields) Name(n string) {
	if f.some {
		f.B = append(f.B, ',')
	}
	f.some = true
	f.B = append(f.B, '"')
	f.B = append(f.B, n...)
	f.B = append(f.B, '"', ':')
}

// Int appends an integer field.
func (f *JSONFields) Int(n string, i int64) {
	f.Name(n)
	f.B = strconv.AppendInt(f.B, i, 10)
}

// Ptr appends an integer field that is left out when nil (omitempty).
func (f *JSONFields) Ptr(n string, p *int64) {
	if p != nil {
		f.Int(n, *p)
	}
}

// True appends a boolean field that is left out when false (omitempty).
func (f *JSONFields) True(n string, b bool) {
	if b {
		f.Name(n)
		f.B = append(f.B, "true"...)
	}
}

// Value appends a Value field.
func (f *JSONFields) Value(n string, v Value) {
	f.Name(n)
	f.B = v.AppendJSON(f.B)
}

// Evidence appends the fields of e: allowed and values_truncated when
// set, and the witness.
func (f *JSONFields) Evidence(e *Evidence) {
	f.True("allowed", e.Allowed)
	f.True("values_truncated", e.Truncated)
	f.Name("witness")
	f.B = AppendJSONInts(f.B, e.Witness)
}

// End closes the object and returns the bytes.
func (f *JSONFields) End() []byte { return append(f.B, '}') }

// AppendJSONList appends n elements, each appended by each, as a JSON
// array.
func AppendJSONList(b []byte, n int, each func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, i)
	}
	return append(b, ']')
}

// AppendJSONInts appends xs as a JSON array, nil as null.
func AppendJSONInts(b []byte, xs []int64) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	return AppendJSONList(b, len(xs), func(b []byte, i int) []byte { return strconv.AppendInt(b, xs[i], 10) })
}

// AppendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML escaping when html (json.Marshal) and without (report.JSON's
// encoder). Printable ASCII without a quote, a backslash or <>& is
// written as is; anything else goes through encoding/json.
func AppendJSONString(b []byte, s string, html bool) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			if enc.Encode(s) != nil { // cannot happen: a string always encodes
				return append(b, `""`...)
			}
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
