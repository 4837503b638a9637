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
