package abort

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// AppendJSON appends the instance's JSON to b: byte for byte what
// encoding/json writes for it without HTML escaping, as report.JSON
// writes instances (docs/README.md#json-output), which uses it when an
// instance has it. A history of a million polls has a few hundred
// thousand pair instances: on the 1M-poll history of bench/bench.sh,
// encoding/json took about 0.4 CPU-seconds to write them (reflection on
// every field, an allocation per key), this about 0.13 (cpuprofile).
// TestAppendJSON compares the two on every fixture's instances and checks
// that the appender knows every field of Instance.
func (in *Instance) AppendJSON(b []byte) []byte {
	f := fields{b: append(b, '{'), first: true}
	if in.Key != nil {
		f.name("key")
		f.b = appendValue(f.b, in.Key)
	}
	if len(in.Offsets) > 0 {
		f.name("offsets")
		f.b = appendInts(f.b, in.Offsets)
	}
	f.ptr("index", in.Index)
	f.ptr("op", in.Op)
	f.ptr("process", in.Process)
	if p := in.Pair; p != nil {
		f.name("p")
		f.b = p.P.appendJSON(f.b)
		f.name("n")
		f.b = p.N.appendJSON(f.b)
		f.name("class")
		f.b = appendString(f.b, p.Class, false)
		f.ptr("committed_position", p.CommittedPosition)
		f.ptr("committed_by", p.CommittedBy)
		f.ptr("resume_point", p.ResumePoint)
		f.ptr("resume_point_op", p.ResumedFrom)
		f.name("rebalance")
		f.b = strconv.AppendBool(f.b, p.Rebalance)
		if len(p.RebalanceEvents) > 0 {
			f.name("rebalance_events")
			f.b = appendList(f.b, len(p.RebalanceEvents), func(b []byte, i int) []byte { return p.RebalanceEvents[i].appendJSON(b) })
		}
		f.ptr("gap", p.Gap)
	}
	if in.Allowed {
		f.name("allowed")
		f.b = append(f.b, "true"...)
	}
	if in.Truncated {
		f.name("values_truncated")
		f.b = append(f.b, "true"...)
	}
	f.name("witness")
	f.b = appendInts(f.b, in.Witness)
	return append(f.b, '}')
}

// fields appends the fields of a JSON object.
type fields struct {
	b     []byte
	first bool
}

// name appends a field's name (one that needs no escaping).
func (f *fields) name(n string) {
	if !f.first {
		f.b = append(f.b, ',')
	}
	f.first = false
	f.b = append(f.b, '"')
	f.b = append(f.b, n...)
	f.b = append(f.b, '"', ':')
}

// ptr appends an integer field that is left out when nil (omitempty).
func (f *fields) ptr(n string, p *int64) {
	if p != nil {
		f.name(n)
		f.b = strconv.AppendInt(f.b, *p, 10)
	}
}

// appendJSON appends the poll's JSON (nil as null).
func (p *PollRef) appendJSON(b []byte) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	f := fields{b: append(b, '{'), first: true}
	f.ptr("invoke", p.Invoke)
	f.name("op")
	f.b = strconv.AppendInt(f.b, p.Op, 10)
	f.name("process")
	f.b = strconv.AppendInt(f.b, p.Process, 10)
	f.name("outcome")
	f.b = appendString(f.b, p.Outcome, false)
	f.name("offsets")
	f.b = appendInts(f.b, p.Offsets)
	if p.AbortAsked {
		f.name("abort_asked")
		f.b = append(f.b, "true"...)
	}
	return append(f.b, '}')
}

// appendJSON appends the event's JSON.
func (e *RebalanceEvent) appendJSON(b []byte) []byte {
	f := fields{b: append(b, '{'), first: true}
	f.name("op")
	f.b = strconv.AppendInt(f.b, e.Op, 10)
	f.name("when")
	f.b = appendString(f.b, e.When, false)
	if e.Type != nil {
		f.name("type")
		f.b = appendValue(f.b, e.Type)
	}
	if len(e.Keys) > 0 {
		f.name("keys")
		f.b = appendList(f.b, len(e.Keys), func(b []byte, i int) []byte { return appendValue(b, &e.Keys[i]) })
	}
	return append(f.b, '}')
}

// appendList appends n elements, each appended by each, as a JSON array.
func appendList(b []byte, n int, each func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, i)
	}
	return append(b, ']')
}

// appendInts appends xs as a JSON array, nil as null.
func appendInts(b []byte, xs []int64) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	return appendList(b, len(xs), func(b []byte, i int) []byte { return strconv.AppendInt(b, xs[i], 10) })
}

// appendValue appends v as analysis.Value.MarshalJSON writes it.
func appendValue(b []byte, v *analysis.Value) []byte {
	switch {
	case v.IsList():
		j, err := v.MarshalJSON()
		if err != nil { // cannot happen: a Value always marshals
			return append(b, "null"...)
		}
		return append(b, j...)
	case v.Kind == model.KInt:
		return strconv.AppendInt(b, v.Int, 10)
	case v.Kind == model.KBigInt:
		return append(b, v.Text...)
	case v.Kind == model.KNil:
		return append(b, "null"...)
	}
	return appendString(b, v.Text, true) // json.Marshal's, which escapes HTML
}

// appendString appends s as a JSON string, as encoding/json writes it
// with HTML escaping when html (json.Marshal) and without (report.JSON's
// encoder). Printable ASCII without a quote, a backslash or <>& is
// written as is; anything else goes through encoding/json.
func appendString(b []byte, s string, html bool) []byte {
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
