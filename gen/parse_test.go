package gen

// A tiny, independent reader for the lines Write produces, so the tests do
// not depend on package ingest. It reads the EDN subset the generator uses
// (maps, vectors, sets, keywords, integers, strings, nil) and the JSON form,
// and turns each line into a tOp.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

type kw string // an EDN keyword, without the colon

type ednMap struct{ keys, vals []any }

type ednSet []any

type ednParser struct {
	b []byte
	i int
}

func (p *ednParser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == ',' || p.b[p.i] == '\n') {
		p.i++
	}
}

func (p *ednParser) fail(what string) error {
	return fmt.Errorf("col %d: %s in %q", p.i+1, what, p.b)
}

func (p *ednParser) value() (any, error) {
	p.ws()
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		m := ednMap{}
		for {
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return m, nil
			}
			k, err := p.value()
			if err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m.keys, m.vals = append(m.keys, k), append(m.vals, v)
		}
	case c == '[' || (c == '#' && p.i+1 < len(p.b) && p.b[p.i+1] == '{'):
		set := c == '#'
		close := byte(']')
		if set {
			p.i++
			close = '}'
		}
		p.i++
		var xs []any
		for {
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == close {
				p.i++
				if set {
					return ednSet(xs), nil
				}
				return xs, nil
			}
			x, err := p.value()
			if err != nil {
				return nil, err
			}
			xs = append(xs, x)
		}
	case c == ':':
		j := p.i + 1
		for j < len(p.b) && !bytes.ContainsRune([]byte(" ,]})\n"), rune(p.b[j])) {
			j++
		}
		k := kw(p.b[p.i+1 : j])
		p.i = j
		return k, nil
	case c == '"':
		j := p.i + 1
		for j < len(p.b) && p.b[j] != '"' {
			j++
		}
		s := string(p.b[p.i+1 : j])
		p.i = j + 1
		return s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		j := p.i + 1
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(string(p.b[p.i:j]), 10, 64)
		if err != nil {
			return nil, p.fail("bad integer")
		}
		p.i = j
		return n, nil
	case bytes.HasPrefix(p.b[p.i:], []byte("nil")):
		p.i += 3
		return nil, nil
	}
	return nil, p.fail("unexpected character")
}

// tRead is what a poll returned for one key.
type tRead struct {
	key   int64
	pairs [][2]int64 // [offset value]
}

// tMop is a micro-op: a send (done: with an offset) or a poll (done: with reads).
type tMop struct {
	send  bool
	key   int64
	val   int64
	off   int64
	done  bool
	reads []tRead
}

// tOp is one parsed line.
type tOp struct {
	index, time int64
	typ, f      string
	process     int64 // -1: nemesis
	mops        []tMop
	keys        []int64
	err         string
	other       any // nemesis and crash values, normalised
}

func asInt(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		return int64(x), nil
	case json.Number:
		return x.Int64()
	case string:
		return strconv.ParseInt(x, 10, 64)
	}
	return 0, fmt.Errorf("not an integer: %#v", v)
}

func asName(v any) (string, error) {
	switch x := v.(type) {
	case kw:
		return string(x), nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("not a name: %#v", v)
}

// field is one entry of a line's top-level map; EDN keys are keywords,
// JSON keys strings.
type field struct {
	name string
	val  any
}

// readFields reads one EDN or JSON line as its top-level map's entries, in
// order.
func readFields(b []byte, isJSON bool) ([]field, error) {
	var fields []field
	if isJSON {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
			return nil, fmt.Errorf("not a JSON object: %q", b)
		}
		for d.More() {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			var v any
			if err := d.Decode(&v); err != nil {
				return nil, err
			}
			fields = append(fields, field{tok.(string), v})
		}
		return fields, nil
	}
	p := &ednParser{b: b}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.ws(); p.i != len(p.b) {
		return nil, p.fail("trailing text")
	}
	m, ok := v.(ednMap)
	if !ok {
		return nil, fmt.Errorf("not a map: %q", b)
	}
	for i, k := range m.keys {
		k, ok := k.(kw)
		if !ok {
			return nil, fmt.Errorf("map key %v is not a keyword", m.keys[i])
		}
		fields = append(fields, field{string(k), m.vals[i]})
	}
	return fields, nil
}

// parseLine reads one EDN or JSON line into a tOp, checking the field order
// of the EDN form.
func parseLine(b []byte, isJSON bool) (tOp, error) {
	fields, err := readFields(b, isJSON)
	if err != nil {
		return tOp{}, err
	}
	want := []string{"index", "time", "type", "process", "f", "value"}
	if len(fields) < len(want) || len(fields) > len(want)+1 {
		return tOp{}, fmt.Errorf("want fields %v (+error), got %d: %q", want, len(fields), b)
	}
	for i, w := range want {
		if fields[i].name != w {
			return tOp{}, fmt.Errorf("field %d is %q, want %q: %q", i, fields[i].name, w, b)
		}
	}
	var op tOp
	if op.index, err = asInt(fields[0].val); err != nil {
		return op, err
	}
	if op.time, err = asInt(fields[1].val); err != nil {
		return op, err
	}
	if op.typ, err = asName(fields[2].val); err != nil {
		return op, err
	}
	if n, ok := fields[3].val.(kw); ok || fields[3].val == "nemesis" {
		if ok && n != "nemesis" {
			return op, fmt.Errorf("process %v", n)
		}
		op.process = -1
	} else if op.process, err = asInt(fields[3].val); err != nil {
		return op, err
	}
	if op.f, err = asName(fields[4].val); err != nil {
		return op, err
	}
	if len(fields) == 7 {
		if fields[6].name != "error" {
			return op, fmt.Errorf("extra field %q", fields[6].name)
		}
		if op.err, err = asName(fields[6].val); err != nil {
			return op, err
		}
	}
	v := fields[5].val
	switch op.f {
	case "send", "poll", "txn":
		xs, ok := v.([]any)
		if !ok {
			return op, fmt.Errorf("value is not a vector: %q", b)
		}
		for _, x := range xs {
			m, err := parseMop(x)
			if err != nil {
				return op, fmt.Errorf("%w in %q", err, b)
			}
			op.mops = append(op.mops, m)
		}
	case "assign", "subscribe":
		xs, ok := v.([]any)
		if !ok || len(xs) == 0 {
			return op, fmt.Errorf("assign value is not a non-empty vector: %q", b)
		}
		for _, x := range xs {
			k, err := asInt(x)
			if err != nil {
				return op, err
			}
			op.keys = append(op.keys, k)
		}
	default:
		op.other = normalise(v)
	}
	return op, nil
}

func parseMop(x any) (tMop, error) {
	xs, ok := x.([]any)
	if !ok || len(xs) == 0 {
		return tMop{}, fmt.Errorf("micro-op %#v", x)
	}
	name, err := asName(xs[0])
	if err != nil {
		return tMop{}, err
	}
	switch {
	case name == "send" && len(xs) == 3:
		m := tMop{send: true}
		if m.key, err = asInt(xs[1]); err != nil {
			return m, err
		}
		if pr, ok := xs[2].([]any); ok {
			if len(pr) != 2 {
				return m, fmt.Errorf("send pair %v", pr)
			}
			m.done = true
			if m.off, err = asInt(pr[0]); err != nil {
				return m, err
			}
			m.val, err = asInt(pr[1])
			return m, err
		}
		m.val, err = asInt(xs[2])
		return m, err
	case name == "poll" && len(xs) == 1:
		return tMop{}, nil
	case name == "poll" && len(xs) == 2:
		m := tMop{done: true}
		var keys, vals []any
		switch pm := xs[1].(type) {
		case ednMap:
			keys, vals = pm.keys, pm.vals
		case map[string]any:
			names := make([]string, 0, len(pm))
			for k := range pm {
				names = append(names, k)
			}
			sort.Slice(names, func(i, j int) bool { // numeric order, like the EDN form
				a, _ := strconv.Atoi(names[i])
				b, _ := strconv.Atoi(names[j])
				return a < b
			})
			for _, k := range names {
				keys, vals = append(keys, k), append(vals, pm[k])
			}
		default:
			return m, fmt.Errorf("poll map %#v", xs[1])
		}
		for i := range keys {
			k, err := asInt(keys[i])
			if err != nil {
				return m, err
			}
			r := tRead{key: k}
			prs, ok := vals[i].([]any)
			if !ok {
				return m, fmt.Errorf("poll pairs %#v", vals[i])
			}
			for _, pr := range prs {
				p, ok := pr.([]any)
				if !ok || len(p) != 2 {
					return m, fmt.Errorf("poll pair %#v", pr)
				}
				o, err := asInt(p[0])
				if err != nil {
					return m, err
				}
				v, err := asInt(p[1])
				if err != nil {
					return m, err
				}
				r.pairs = append(r.pairs, [2]int64{o, v})
			}
			m.reads = append(m.reads, r)
		}
		return m, nil
	}
	return tMop{}, fmt.Errorf("micro-op %#v", x)
}

// normalise turns EDN and JSON forms of nemesis values into one shape.
func normalise(v any) any {
	switch x := v.(type) {
	case kw:
		return string(x)
	case ednSet:
		return normalise([]any(x))
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalise(x[i])
		}
		return fmt.Sprint(out...)
	case ednMap:
		s := ""
		for i := range x.keys {
			s += fmt.Sprint(normalise(x.keys[i]), "=", normalise(x.vals[i]), ";")
		}
		return s
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		s := ""
		for _, k := range names {
			s += fmt.Sprint(k, "=", normalise(x[k]), ";")
		}
		return s
	}
	return v
}

// parseHistory reads every line.
func parseHistory(b []byte, isJSON bool) ([]tOp, error) {
	var ops []tOp
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		op, err := parseLine(sc.Bytes(), isJSON)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		ops = append(ops, op)
	}
	return ops, sc.Err()
}
