package gen

// The reader of the independent transactional checker (txncheck_test.go):
// lines into xops, xops into paired txns.

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
)

// xmop is a transactional micro-op as read back.
type xmop struct {
	kind  string // "append", "w" or "r"
	key   int64
	val   int64   // append/w value, or a register read's value
	list  []int64 // a list read's elements
	isNil bool    // a read of nil
}

// xop is one line as read back.
type xop struct {
	index, time int64
	typ         string
	process     int64 // -1: nemesis
	f           string
	mops        []xmop
	err         string
}

func parseTxnMop(x any, la bool) (xmop, error) {
	xs, ok := x.([]any)
	if !ok || len(xs) != 3 {
		return xmop{}, fmt.Errorf("micro-op %#v", x)
	}
	name, err := asName(xs[0])
	if err != nil {
		return xmop{}, err
	}
	m := xmop{kind: name}
	if m.key, err = asInt(xs[1]); err != nil {
		return m, err
	}
	switch {
	case name == "append" && la, name == "w" && !la:
		m.val, err = asInt(xs[2])
		return m, err
	case name != "r":
		return m, fmt.Errorf("micro-op name %q", name)
	case xs[2] == nil:
		m.isNil = true
		return m, nil
	case !la:
		m.val, err = asInt(xs[2])
		return m, err
	}
	vs, ok := xs[2].([]any)
	if !ok {
		return m, fmt.Errorf("list read %#v", xs[2])
	}
	m.list = []int64{}
	for _, v := range vs {
		n, err := asInt(v)
		if err != nil {
			return m, err
		}
		m.list = append(m.list, n)
	}
	return m, nil
}

// parseTxnLine reads one line, checking Jepsen's key order: index, time,
// type, process, f (absent when omitF), value, then error when present.
func parseTxnLine(b []byte, isJSON, la, omitF bool) (xop, error) {
	fields, err := readFields(b, isJSON)
	if err != nil {
		return xop{}, err
	}
	var op xop
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	get := func(name string) any {
		for _, f := range fields {
			if f.name == name {
				return f.val
			}
		}
		return nil
	}
	if op.index, err = asInt(get("index")); err != nil {
		return op, err
	}
	if op.time, err = asInt(get("time")); err != nil {
		return op, err
	}
	if op.typ, err = asName(get("type")); err != nil {
		return op, err
	}
	if p := get("process"); p == kw("nemesis") || p == "nemesis" {
		op.process = -1
	} else if op.process, err = asInt(p); err != nil {
		return op, err
	}
	if f := get("f"); f != nil {
		if op.f, err = asName(f); err != nil {
			return op, err
		}
	}
	if e := get("error"); e != nil {
		if op.err, err = asName(e); err != nil {
			return op, err
		}
	}
	want := []string{"index", "time", "type", "process", "f", "value"}
	if omitF && op.process >= 0 {
		want = []string{"index", "time", "type", "process", "value"}
	}
	if op.err != "" {
		want = append(want, "error")
	}
	if !slices.Equal(names, want) {
		return op, fmt.Errorf("fields %v, want %v", names, want)
	}
	if op.process < 0 {
		return op, nil
	}
	xs, ok := get("value").([]any)
	if !ok {
		return op, fmt.Errorf("value is not a vector")
	}
	for _, x := range xs {
		m, err := parseTxnMop(x, la)
		if err != nil {
			return op, err
		}
		op.mops = append(op.mops, m)
	}
	return op, nil
}

func parseTxnHistory(b []byte, isJSON, la, omitF bool) ([]xop, error) {
	var ops []xop
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		op, err := parseTxnLine(sc.Bytes(), isJSON, la, omitF)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w: %s", n, err, sc.Bytes())
		}
		ops = append(ops, op)
	}
	return ops, sc.Err()
}

// xtxn is one transaction: its invocation and completion.
type xtxn struct {
	inv, comp int64 // line indices
	typ       string
	process   int64
	invMops   []xmop
	mops      []xmop // the completion's
}

// pairTxns checks the structure of a history and returns its txns in
// completion order:
//   - :index counts lines from 0, :time strictly grows;
//   - :f is :txn (or absent with omitF), nemesis ops are :info
//     start/stop-partition;
//   - a process has one txn in flight at most, every invocation is
//     completed, and a process that completed :info never appears again;
//   - an invocation's reads are nil; an ok completion repeats its writes
//     and fills every read (list reads with a list); an info completion
//     repeats the invocation and says why in :error; so does a fail.
func pairTxns(ops []xop, la, omitF bool) ([]xtxn, error) {
	open := map[int64]int{}
	dead := map[int64]bool{}
	var txns []xtxn
	for i, op := range ops {
		if op.index != int64(i) {
			return nil, fmt.Errorf("line %d has index %d", i+1, op.index)
		}
		if i > 0 && op.time <= ops[i-1].time {
			return nil, fmt.Errorf("op %d: time %d after %d", i, op.time, ops[i-1].time)
		}
		if op.process < 0 {
			if op.typ != "info" || (op.f != "start-partition" && op.f != "stop-partition") {
				return nil, fmt.Errorf("op %d: nemesis op %s %s", i, op.typ, op.f)
			}
			continue
		}
		if want := map[bool]string{false: "txn", true: ""}[omitF]; op.f != want {
			return nil, fmt.Errorf("op %d: f %q, want %q", i, op.f, want)
		}
		if dead[op.process] {
			return nil, fmt.Errorf("op %d: process %d reused after an info", i, op.process)
		}
		if op.typ == "invoke" {
			if _, ok := open[op.process]; ok {
				return nil, fmt.Errorf("op %d: process %d invoked twice", i, op.process)
			}
			if op.err != "" || len(op.mops) == 0 {
				return nil, fmt.Errorf("op %d: invocation with error %q, %d mops", i, op.err, len(op.mops))
			}
			for _, m := range op.mops {
				if m.kind == "r" && !m.isNil {
					return nil, fmt.Errorf("op %d: invocation reads a value", i)
				}
			}
			open[op.process] = i
			continue
		}
		j, ok := open[op.process]
		if !ok {
			return nil, fmt.Errorf("op %d: completion without invocation", i)
		}
		delete(open, op.process)
		inv := ops[j]
		if len(inv.mops) != len(op.mops) {
			return nil, fmt.Errorf("op %d: %d mops, invocation %d", i, len(op.mops), len(inv.mops))
		}
		for k, m := range op.mops {
			im := inv.mops[k]
			if m.kind != im.kind || m.key != im.key {
				return nil, fmt.Errorf("op %d: mop %d is %v, invocation %v", i, k, m, im)
			}
			switch {
			case m.kind != "r":
				if m.val != im.val {
					return nil, fmt.Errorf("op %d: mop %d writes %d, invocation %d", i, k, m.val, im.val)
				}
			case op.typ == "ok":
				if la && m.isNil {
					return nil, fmt.Errorf("op %d: ok list read of nil", i)
				}
			default:
				if !m.isNil {
					return nil, fmt.Errorf("op %d: %s completion reads a value", i, op.typ)
				}
			}
		}
		switch op.typ {
		case "ok":
			if op.err != "" {
				return nil, fmt.Errorf("op %d: ok with error", i)
			}
		case "info", "fail":
			if op.err == "" {
				return nil, fmt.Errorf("op %d: %s without error", i, op.typ)
			}
			if op.typ == "info" {
				dead[op.process] = true
			}
		default:
			return nil, fmt.Errorf("op %d: type %q", i, op.typ)
		}
		txns = append(txns, xtxn{inv: int64(j), comp: int64(i), typ: op.typ, process: op.process, invMops: inv.mops, mops: op.mops})
	}
	if len(open) > 0 {
		return nil, fmt.Errorf("%d invocations never completed", len(open))
	}
	return txns, nil
}
