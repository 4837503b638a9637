package gen

// An independent reader and checker for the transactional histories WriteTxn
// produces, written against the text, not against the simulator's state:
//
//   - parseTxnHistory reads the lines (EDN or JSON) into xops, and
//     pairTxns checks the op structure and pairs invocations with
//     completions (txnparse_test.go);
//   - checkSerial replays the history in completion order and checks every
//     ok read against that serial execution (the oracle of a clean run);
//   - detect looks for the non-cycle anomalies and two simple cycle
//     patterns directly, each by its definition in docs/list-append.md;
//   - depGraph builds the dependency graph Elle would infer (ww, wr, rw,
//     process, realtime), whose strongly connected components sccs finds
//     with analysis/graph (txngraph_test.go).

import (
	"fmt"
	"slices"
	"strings"
)

// kv is a value written to a key.
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
	d := &detector{la: la, writer: writer, okWrites: map[int64][]okWrite{}, lost: map[string]*lostGroup{}}
	for i := range txns {
		if t := &txns[i]; t.typ == "ok" {
			d.scan(t)
		}
	}
	for _, id := range d.lostKeys {
		if g := d.lost[id]; len(g.ops) > 1 {
			d.add("lost-update", g.key, g.ops...)
		}
	}
	if !la {
		d.writeCycles()
		return d.out, nil
	}
	d.listOrders(txns)
	return d.out, nil
}

// okWrite is an ok txn and its final write to a key.
type okWrite struct {
	t   *xtxn
	val int64
}

// lostGroup is the ok txns that read the same version of key and then
// wrote it.
type lostGroup struct {
	key int64
	ops []int64
}

// writeOrder says that a's write precedes b's.
type writeOrder struct{ a, b int64 }

// detector is detect's state: the findings, and what the checks that span
// txns collect.
type detector struct {
	la       bool
	writer   map[kv]*xtxn
	out      []txnFinding
	okWrites map[int64][]okWrite // per key, ok txns with their final write, by completion
	lost     map[string]*lostGroup
	lostKeys []string     // the keys of lost, in order
	wfr      []writeOrder // rw-register: write orders a read then write implies
	wfrKey   []int64
}

// add records a finding.
func (d *detector) add(kind string, key int64, ops ...int64) {
	d.out = append(d.out, txnFinding{kind: kind, key: key, ops: ops})
}

// finalWrite returns t's last write of k.
func finalWrite(t *xtxn, k int64) (int64, bool) {
	v, ok := int64(0), false
	for _, m := range t.invMops {
		if m.kind != "r" && m.key == k {
			v, ok = m.val, true
		}
	}
	return v, ok
}

// scan checks each read of the ok txn t and records its final writes.
func (d *detector) scan(t *xtxn) {
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
		// The values this read shows, for the per-value checks.
		vals := m.list
		if !d.la && !m.isNil {
			vals = []int64{m.val}
		}
		d.checkValues(t, mi, vals)
		if everWrote[k] || hasRead[k] {
			p, had := prev[k]
			if d.internalBad(m, p, had, wrote[k]) {
				d.add("internal", k, t.comp)
			}
		} else {
			d.checkExternal(t, mi, vals)
		}
		prev[k] = m
		hasRead[k] = true
		wrote[k] = nil
	}
	for k := range everWrote {
		v, _ := finalWrite(t, k)
		d.okWrites[k] = append(d.okWrites[k], okWrite{t, v})
	}
}

// checkValues checks each value vals that t's read mi shows: written by
// some txn, not a failed one, not by t later, and (list-append) once only.
func (d *detector) checkValues(t *xtxn, mi int, vals []int64) {
	k := t.mops[mi].key
	laterWrite := func(v int64) bool {
		for _, n := range t.mops[mi+1:] {
			if n.kind != "r" && n.key == k && n.val == v {
				return true
			}
		}
		return false
	}
	dup := map[int64]bool{}
	for _, e := range vals {
		w, ok := d.writer[kv{k, e}]
		switch {
		case !ok:
			d.add("garbage-read", k, t.comp)
		case w.typ == "fail":
			d.add("G1a", k, w.comp, t.comp)
		}
		if laterWrite(e) {
			d.add("future-read", k, t.comp)
		}
		if d.la && dup[e] {
			d.add("duplicate-elements", k, t.comp)
		}
		dup[e] = true
	}
}

// internalBad reports whether the read m, of a key the txn read before (p,
// when had) or wrote (own: its writes since), fails to follow from them.
func (d *detector) internalBad(m, p xmop, had bool, own []int64) bool {
	if d.la {
		if had {
			return !slices.Equal(m.list, append(slices.Clone(p.list), own...))
		}
		return len(m.list) < len(own) || !slices.Equal(m.list[len(m.list)-len(own):], own)
	}
	switch {
	case len(own) > 0:
		return m.isNil || m.val != own[len(own)-1]
	case had:
		return m.isNil != p.isNil || m.val != p.val
	}
	return false
}

// checkExternal checks t's read mi, its first access of the key, showing
// vals: G1b, stale reads, and what lost updates and write cycles need.
func (d *detector) checkExternal(t *xtxn, mi int, vals []int64) {
	m := t.mops[mi]
	k := m.key
	// G1b: the last value read is another txn's non-final write.
	if len(vals) > 0 {
		e := vals[len(vals)-1]
		if w, ok := d.writer[kv{k, e}]; ok && w != t {
			if fv, _ := finalWrite(w, k); fv != e {
				d.add("G1b", k, w.comp, t.comp)
			}
		}
	}
	// stale: an ok write of k completed before t began, yet t does not see
	// it (list-append) or sees an older value (rw-register).
	for _, u := range d.okWrites[k] {
		if u.t.comp <= t.inv && d.stale(m, u.t) {
			d.add(kStale, k, u.t.comp, t.comp)
		}
	}
	writesLater := false
	for _, n := range t.mops[mi+1:] {
		writesLater = writesLater || (n.kind != "r" && n.key == k)
	}
	if !writesLater {
		return
	}
	id := fmt.Sprint(k, " ", m.isNil, " ", m.val, " ", m.list)
	if d.lost[id] == nil {
		d.lostKeys = append(d.lostKeys, id)
		d.lost[id] = &lostGroup{key: k}
	}
	d.lost[id].ops = append(d.lost[id].ops, t.comp)
	if !d.la && !m.isNil {
		if w, ok := d.writer[kv{k, m.val}]; ok && w != t {
			d.wfr = append(d.wfr, writeOrder{w.comp, t.comp})
			d.wfrKey = append(d.wfrKey, k)
		}
	}
}

// stale reports whether the read m misses u's write of its key.
func (d *detector) stale(m xmop, u *xtxn) bool {
	if d.la {
		for _, n := range u.invMops {
			if n.kind == "append" && n.key == m.key && !slices.Contains(m.list, n.val) {
				return true
			}
		}
		return false
	}
	if m.isNil {
		return true
	}
	w, ok := d.writer[kv{m.key, m.val}]
	return ok && w != u && u.comp > w.comp
}

// writeCycles finds the rw-register write cycles: two write orders that
// reads imply both ways.
func (d *detector) writeCycles() {
	dir := map[writeOrder]int64{}
	for i, o := range d.wfr {
		dir[o] = d.wfrKey[i]
	}
	for i, o := range d.wfr {
		if o.a < o.b {
			if _, ok := dir[writeOrder{o.b, o.a}]; ok {
				d.add(kWriteCycleRW, d.wfrKey[i], o.a, o.b)
			}
		}
	}
}

// listOrders runs the list-append checks on all ok reads of each key:
// incompatible orders, dirty updates, and G0 write cycles.
func (d *detector) listOrders(txns []xtxn) {
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
	pairDir := map[writeOrder]int64{}
	for _, k := range keys {
		d.listKey(k, reads[k], readers[k], pairDir)
	}
	var g0 []writeOrder
	for o := range pairDir {
		if _, ok := pairDir[writeOrder{o.b, o.a}]; ok && o.a < o.b {
			g0 = append(g0, o)
		}
	}
	slices.SortFunc(g0, func(x, y writeOrder) int { return int(x.a - y.a) })
	for _, o := range g0 {
		d.add("G0", pairDir[o], o.a, o.b)
	}
}

// listKey checks key k's reads rs (by readers): each a prefix of the next
// longer one, and no failed append before an ok one in the longest; it
// records in pairDir the order of each two ok or info writers there.
func (d *detector) listKey(k int64, rs [][]int64, readers []int64, pairDir map[writeOrder]int64) {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return len(rs[a]) - len(rs[b]) })
	for i := 1; i < len(idx); i++ {
		a, b := rs[idx[i-1]], rs[idx[i]]
		if !slices.Equal(a, b[:len(a)]) {
			d.add("incompatible-order", k, readers[idx[i-1]], readers[idx[i]])
		}
	}
	longest := rs[idx[len(idx)-1]]
	for i, e := range longest {
		wi, ok := d.writer[kv{k, e}]
		if !ok {
			continue
		}
		for _, f := range longest[i+1:] {
			wj, ok := d.writer[kv{k, f}]
			if !ok || wi == wj {
				continue
			}
			if wi.typ == "fail" && wj.typ == "ok" {
				d.add("dirty-update", k, wi.comp, wj.comp)
			}
			if wi.typ != "fail" && wj.typ != "fail" {
				pairDir[writeOrder{wi.comp, wj.comp}] = k
			}
		}
	}
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
