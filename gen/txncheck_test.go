package gen

// An independent reader and checker for the transactional histories WriteTxn
// produces, written against the text, not against the simulator's state:
//
//   - parseTxnHistory reads the lines (EDN or JSON) into xops;
//   - pairTxns checks the op structure and pairs invocations with
//     completions;
//   - checkSerial replays the history in completion order and checks every
//     ok read against that serial execution (the oracle of a clean run);
//   - detect looks for the non-cycle anomalies and two simple cycle
//     patterns directly, each by its definition in docs/list-append.md;
//   - depGraph builds the dependency graph Elle would infer (ww, wr, rw,
//     process, realtime) for scc.

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
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

type kv struct{ k, v int64 }

// writersOf maps each written (key, value) to its txn, checking that values
// are unique per key.
func writersOf(txns []xtxn) (map[kv]*xtxn, error) {
	w := map[kv]*xtxn{}
	for i := range txns {
		t := &txns[i]
		for _, m := range t.invMops {
			if m.kind == "r" {
				continue
			}
			if prev, ok := w[kv{m.key, m.val}]; ok {
				return nil, fmt.Errorf("value %d of key %d written by ops %d and %d", m.val, m.key, prev.inv, t.inv)
			}
			w[kv{m.key, m.val}] = t
		}
	}
	return w, nil
}

// readValues is every (key, value) some ok read returned.
func readValues(txns []xtxn) map[kv]bool {
	seen := map[kv]bool{}
	for _, t := range txns {
		if t.typ != "ok" {
			continue
		}
		for _, m := range t.mops {
			switch {
			case m.kind != "r" || m.isNil:
			case m.list != nil:
				for _, e := range m.list {
					seen[kv{m.key, e}] = true
				}
			default:
				seen[kv{m.key, m.val}] = true
			}
		}
	}
	return seen
}

// checkSerial replays the txns in completion order against a plain
// key-value state: ok txns apply their writes and must read exactly the
// state at that point (their own earlier writes included); an info txn
// applied its writes iff some ok read shows one of them; a fail txn applied
// nothing. Keys in skip are left out. With reads false only the writes are
// replayed. It returns the final lists (or registers, as one-element
// lists) so the caller can check prefixes.
func checkSerial(txns []xtxn, la, reads bool, skip map[int64]bool) (map[int64][]int64, error) {
	seen := readValues(txns)
	state := map[int64][]int64{}
	for _, t := range txns {
		landed := t.typ == "ok"
		if t.typ == "info" {
			for _, m := range t.invMops {
				if m.kind != "r" && !skip[m.key] && seen[kv{m.key, m.val}] {
					landed = true
				}
			}
		}
		if !landed {
			continue
		}
		for i, m := range t.mops {
			if skip[m.key] {
				continue
			}
			cur := state[m.key]
			switch {
			case m.kind != "r":
				if la {
					state[m.key] = append(cur, m.val)
				} else {
					state[m.key] = []int64{m.val}
				}
			case t.typ != "ok" || !reads:
			case la:
				if !slices.Equal(m.list, cur) {
					return nil, fmt.Errorf("op %d mop %d: read %d = %v, serial state %v", t.comp, i, m.key, m.list, cur)
				}
			case m.isNil != (len(cur) == 0) || (!m.isNil && m.val != cur[0]):
				return nil, fmt.Errorf("op %d mop %d: read %d = %v (nil %v), serial state %v", t.comp, i, m.key, m.val, m.isNil, cur)
			}
		}
	}
	return state, nil
}

// txnFinding is one anomaly detect found.
type txnFinding struct {
	kind string
	key  int64
	ops  []int64 // completion indices involved
}

// Detector kinds, each named by the anomaly type it stands for
// (docs/list-append.md#types-at-a-glance).
// "stale" is the pattern behind G-single-item-realtime: a read missing a
// write that completed before the reader began. "G0" is a two-txn write
// cycle of list-append: their appends ordered both ways in the key orders
// (longest reads); kWriteCycleRW is one of rw-register, in the orders
// --wfr-keys infers.
const kStale = "G-single-item-realtime"

// kWriteCycleRW is the rw-register write cycle: its ww edges are wr edges
// too, and an rw-register edge stands for its wr first, so a checker
// reports it as the cycle read-uncommitted forbids.
const kWriteCycleRW = "PL-1-cycle-exists"

// detect runs the detectors over the txns (completion order). Only ok txns
// read; writers are any txn that invoked the write.
func detect(txns []xtxn, la bool) ([]txnFinding, error) {
	writer, err := writersOf(txns)
	if err != nil {
		return nil, err
	}
	var out []txnFinding
	add := func(kind string, key int64, ops ...int64) {
		out = append(out, txnFinding{kind: kind, key: key, ops: ops})
	}
	// okWrites[k]: ok txns with their final write to k, by completion.
	type wr struct {
		t   *xtxn
		val int64
	}
	okWrites := map[int64][]wr{}
	finalWrite := func(t *xtxn, k int64) (int64, bool) {
		v, ok := int64(0), false
		for _, m := range t.invMops {
			if m.kind != "r" && m.key == k {
				v, ok = m.val, true
			}
		}
		return v, ok
	}
	type group struct {
		key int64
		ops []int64
	}
	lost := map[string]*group{}
	var lostKeys []string
	type order struct{ a, b int64 } // a's write precedes b's
	var wfr []order
	var wfrKey []int64
	for i := range txns {
		t := &txns[i]
		if t.typ != "ok" {
			continue
		}
		wrote := map[int64][]int64{} // own writes since the last read of k
		everWrote := map[int64]bool{}
		prev := map[int64]xmop{}
		hasRead := map[int64]bool{}
		for mi, m := range t.mops {
			k := m.key
			if m.kind != "r" {
				wrote[k] = append(wrote[k], m.val)
				everWrote[k] = true
				continue
			}
			external := !everWrote[k] && !hasRead[k]
			laterWrite := func(v int64) bool {
				for _, n := range t.mops[mi+1:] {
					if n.kind != "r" && n.key == k && n.val == v {
						return true
					}
				}
				return false
			}
			writesLater := false
			for _, n := range t.mops[mi+1:] {
				writesLater = writesLater || (n.kind != "r" && n.key == k)
			}
			// The values this read shows, for the per-value checks.
			vals := m.list
			if !la && !m.isNil {
				vals = []int64{m.val}
			}
			dup := map[int64]bool{}
			for _, e := range vals {
				w, ok := writer[kv{k, e}]
				switch {
				case !ok:
					add("garbage-read", k, t.comp)
				case w.typ == "fail":
					add("G1a", k, w.comp, t.comp)
				}
				if laterWrite(e) {
					add("future-read", k, t.comp)
				}
				if la && dup[e] {
					add("duplicate-elements", k, t.comp)
				}
				dup[e] = true
			}
			if !external {
				// internal: what it read must follow from its own earlier
				// reads and writes of k.
				p, had := prev[k]
				bad := false
				if la {
					own := wrote[k]
					switch {
					case had:
						bad = !slices.Equal(m.list, append(slices.Clone(p.list), own...))
					default:
						bad = len(m.list) < len(own) || !slices.Equal(m.list[len(m.list)-len(own):], own)
					}
				} else {
					own := wrote[k]
					switch {
					case len(own) > 0:
						bad = m.isNil || m.val != own[len(own)-1]
					case had:
						bad = m.isNil != p.isNil || m.val != p.val
					}
				}
				if bad {
					add("internal", k, t.comp)
				}
			}
			if external {
				// G1b: the last value read is another txn's non-final write.
				if len(vals) > 0 {
					e := vals[len(vals)-1]
					if w, ok := writer[kv{k, e}]; ok && w != t {
						if fv, _ := finalWrite(w, k); fv != e {
							add("G1b", k, w.comp, t.comp)
						}
					}
				}
				// stale: an ok write of k completed before t began, yet t
				// does not see it (list-append) or sees an older value
				// (rw-register).
				for _, u := range okWrites[k] {
					if u.t.comp > t.inv {
						continue
					}
					stale := false
					if la {
						for _, n := range u.t.invMops {
							if n.kind == "append" && n.key == k && !slices.Contains(m.list, n.val) {
								stale = true
							}
						}
					} else if m.isNil {
						stale = true
					} else if w, ok := writer[kv{k, m.val}]; ok && w != u.t && u.t.comp > w.comp {
						stale = true
					}
					if stale {
						add(kStale, k, u.t.comp, t.comp)
					}
				}
				if writesLater {
					id := fmt.Sprint(k, " ", m.isNil, " ", m.val, " ", m.list)
					if lost[id] == nil {
						lostKeys = append(lostKeys, id)
						lost[id] = &group{key: k}
					}
					lost[id].ops = append(lost[id].ops, t.comp)
					if !la && !m.isNil {
						if w, ok := writer[kv{k, m.val}]; ok && w != t {
							wfr = append(wfr, order{w.comp, t.comp})
							wfrKey = append(wfrKey, k)
						}
					}
				}
			}
			prev[k] = m
			hasRead[k] = true
			wrote[k] = nil
		}
		for k := range everWrote {
			v, _ := finalWrite(t, k)
			okWrites[k] = append(okWrites[k], wr{t, v})
		}
	}
	for _, id := range lostKeys {
		if g := lost[id]; len(g.ops) > 1 {
			add("lost-update", g.key, g.ops...)
		}
	}
	if !la {
		dir := map[order]int64{}
		for i, o := range wfr {
			dir[o] = wfrKey[i]
		}
		for i, o := range wfr {
			if o.a < o.b {
				if _, ok := dir[order{o.b, o.a}]; ok {
					add(kWriteCycleRW, wfrKey[i], o.a, o.b)
				}
			}
		}
		return out, nil
	}
	// list-append: per-key checks on all ok reads.
	reads := map[int64][][]int64{}
	readers := map[int64][]int64{}
	var keys []int64
	for _, t := range txns {
		if t.typ != "ok" {
			continue
		}
		for _, m := range t.mops {
			if m.kind == "r" {
				if _, ok := reads[m.key]; !ok {
					keys = append(keys, m.key)
				}
				reads[m.key] = append(reads[m.key], m.list)
				readers[m.key] = append(readers[m.key], t.comp)
			}
		}
	}
	pairDir := map[order]int64{}
	for _, k := range keys {
		rs := reads[k]
		idx := make([]int, len(rs))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return len(rs[a]) - len(rs[b]) })
		for i := 1; i < len(idx); i++ {
			a, b := rs[idx[i-1]], rs[idx[i]]
			if !slices.Equal(a, b[:len(a)]) {
				add("incompatible-order", k, readers[k][idx[i-1]], readers[k][idx[i]])
			}
		}
		longest := rs[idx[len(idx)-1]]
		for i, e := range longest {
			wi, ok := writer[kv{k, e}]
			if !ok {
				continue
			}
			for _, f := range longest[i+1:] {
				wj, ok := writer[kv{k, f}]
				if !ok || wi == wj {
					continue
				}
				if wi.typ == "fail" && wj.typ == "ok" {
					add("dirty-update", k, wi.comp, wj.comp)
				}
				if wi.typ != "fail" && wj.typ != "fail" {
					pairDir[order{wi.comp, wj.comp}] = k
				}
			}
		}
	}
	var g0 []order
	for o := range pairDir {
		if _, ok := pairDir[order{o.b, o.a}]; ok && o.a < o.b {
			g0 = append(g0, o)
		}
	}
	slices.SortFunc(g0, func(x, y order) int { return int(x.a - y.a) })
	for _, o := range g0 {
		add("G0", pairDir[o], o.a, o.b)
	}
	return out, nil
}

// kinds returns the distinct kinds of fs, sorted.
func kinds(fs []txnFinding) []string {
	var ks []string
	for _, f := range fs {
		if !slices.Contains(ks, f.kind) {
			ks = append(ks, f.kind)
		}
	}
	slices.Sort(ks)
	return ks
}

// detectable are the types detect looks for.
var detectable = []string{
	"G0", kWriteCycleRW, "G1a", "G1b", kStale, "dirty-update", "duplicate-elements", "future-read",
	"garbage-read", "incompatible-order", "internal", "lost-update",
}

func isCycleType(t string) bool {
	if strings.HasSuffix(t, "-cycle-exists") {
		return true
	}
	for _, p := range []string{"G0", "G1c", "G-single", "G-nonadjacent", "G2"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// depGraph builds the dependency graph of docs/README.md#cycles over the ok and
// info txns (nodes 0..len(txns)-1; fail txns have no edges), plus one
// auxiliary node per line that carries the realtime order: an ok completion
// at line c links to aux c, aux i to aux i+1, and aux i to the txn invoked
// at line i, so a txn reaches another through aux nodes iff it completed
// before the other was invoked. Process edges join consecutive ok txns of a
// process. Data edges:
//   - list-append: each key's order is its longest ok read (distinct
//     elements), appends never read come after it; wr from the writer of a
//     read's last element, ww between the writers of consecutive elements,
//     rw from a reader whose read ends at element i to the writer of i+1.
//   - rw-register: wr from the ok txn whose final write of k is v to each
//     ok txn whose first access of k reads v; rw from each ok txn whose
//     first access of k reads nil to every ok txn that writes k.
//
// Only external reads (a txn's first access of the key is the read) count.
// With order false, the graph has the data edges only.
func depGraph(txns []xtxn, la bool, lines int, order bool) [][]int32 {
	n := len(txns)
	if !order {
		lines = 0
	}
	adj := make([][]int32, n+lines)
	edge := func(a, b int) {
		if a != b && txns[a].typ != "fail" && txns[b].typ != "fail" {
			adj[a] = append(adj[a], int32(b))
		}
	}
	lastOK := map[int64]int{}
	for i, t := range txns {
		if !order {
			break
		}
		adj[n+int(t.inv)] = append(adj[n+int(t.inv)], int32(i))
		if t.typ == "ok" {
			adj[i] = append(adj[i], int32(n+int(t.comp)))
			if j, ok := lastOK[t.process]; ok {
				edge(j, i)
			}
			lastOK[t.process] = i
		}
	}
	for l := 0; l+1 < lines; l++ {
		adj[n+l] = append(adj[n+l], int32(n+l+1))
	}
	// external reads of ok txns, and writers
	type rd struct {
		t int
		m xmop
	}
	ext := map[int64][]rd{}
	writerOf := map[kv]int{}
	final := map[kv]int{} // (k, v) -> ok txn whose last write of k is v
	appenders := map[int64][]int{}
	var keys []int64
	for i, t := range txns {
		if t.typ == "fail" {
			continue
		}
		touched := map[int64]bool{}
		for _, m := range t.invMops {
			if _, ok := ext[m.key]; !ok {
				keys = append(keys, m.key)
				ext[m.key] = nil
			}
			if m.kind != "r" {
				writerOf[kv{m.key, m.val}] = i
				appenders[m.key] = append(appenders[m.key], i)
			}
		}
		for j, m := range t.mops {
			if m.kind == "r" && !touched[m.key] && t.typ == "ok" {
				ext[m.key] = append(ext[m.key], rd{i, m})
			}
			touched[m.key] = true
			if m.kind != "r" && t.typ == "ok" {
				last := true
				for _, n := range t.mops[j+1:] {
					last = last && (n.kind == "r" || n.key != m.key)
				}
				if last {
					final[kv{m.key, m.val}] = i
				}
			}
		}
	}
	for _, k := range keys {
		rs := ext[k]
		if !la {
			for _, r := range rs {
				if r.m.isNil {
					for _, w := range appenders[k] {
						if txns[w].typ == "ok" {
							edge(r.t, w)
						}
					}
				} else if w, ok := final[kv{k, r.m.val}]; ok {
					edge(w, r.t)
				}
			}
			continue
		}
		var order []int64
		for _, t := range txns {
			if t.typ != "ok" {
				continue
			}
			for _, m := range t.mops {
				if m.kind == "r" && m.key == k && len(m.list) > len(order) {
					order = m.list
				}
			}
		}
		pos := map[int64]int{}
		var distinct []int64
		for _, e := range order {
			if _, ok := pos[e]; !ok {
				pos[e] = len(distinct)
				distinct = append(distinct, e)
			}
		}
		order = distinct
		var unread []int // writers of appends no read shows
		for _, w := range appenders[k] {
			for _, m := range txns[w].invMops {
				if _, in := pos[m.val]; m.kind == "append" && m.key == k && !in {
					unread = append(unread, w)
				}
			}
		}
		wOf := func(e int64) (int, bool) { w, ok := writerOf[kv{k, e}]; return w, ok }
		next := func(p int) []int { // writers of what follows position p
			if p+1 < len(order) {
				if w, ok := wOf(order[p+1]); ok {
					return []int{w}
				}
				return nil
			}
			return unread
		}
		for i := 0; i+1 < len(order); i++ {
			a, ok1 := wOf(order[i])
			b, ok2 := wOf(order[i+1])
			if ok1 && ok2 {
				edge(a, b)
			}
		}
		if len(order) > 0 {
			if a, ok := wOf(order[len(order)-1]); ok {
				for _, u := range unread {
					edge(a, u)
				}
			}
		}
		for _, r := range rs {
			p := -1
			if len(r.m.list) > 0 {
				last := r.m.list[len(r.m.list)-1]
				if w, ok := wOf(last); ok {
					edge(w, r.t)
				}
				q, ok := pos[last]
				if !ok {
					continue
				}
				p = q
			}
			for _, w := range next(p) {
				edge(r.t, w)
			}
		}
	}
	return adj
}

// sccs returns the strongly connected components of the graph that hold
// more than one of the nodes 0..n-1, as lists of those nodes (Tarjan,
// iterative).
func sccs(adj [][]int32, n int) [][]int {
	N := len(adj)
	index := make([]int32, N)
	low := make([]int32, N)
	on := make([]bool, N)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	var out [][]int
	next := int32(0)
	type frame struct{ v, e int32 }
	for root := range N {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{int32(root), 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		on[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if int(f.e) < len(adj[v]) {
				w := adj[v][f.e]
				f.e++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					on[w] = true
					call = append(call, frame{w, 0})
				} else if on[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				var comp []int
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					on[w] = false
					if int(w) < n {
						comp = append(comp, int(w))
					}
					if w == v {
						break
					}
				}
				if len(comp) > 1 {
					slices.Sort(comp)
					out = append(out, comp)
				}
			}
		}
	}
	return out
}
