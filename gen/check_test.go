package gen

// An independent checker for generated histories, written against the text
// (tOp), not against the simulator's state. checkShape checks the op
// structure; checkLog checks the log invariants a correct broker keeps and
// reports every violation as a finding.

import (
	"fmt"
	"slices"
)

// Finding kinds.
const (
	kUnread       = "unread"            // an ok send no ok poll read
	kInconsistent = "inconsistent"      // two values at one offset
	kDuplicate    = "duplicate"         // one value at two offsets
	kGarbage      = "garbage"           // a read value nobody sent
	kG1a          = "g1a"               // a read value whose send failed
	kPrecommitted = "precommitted"      // an op read its own write
	kEarly        = "early-read"        // read before its send completed
	kSkip         = "skip"              // a process's reads of a key skipped an offset
	kBackwards    = "backwards"         // a process's reads of a key went back
	kNonmonoSend  = "nonmonotonic-send" // a process's sends to a key went back
	kWWOrder      = "ww-order"          // offset order disagrees with the order the sends completed
)

type finding struct {
	kind    string
	key     int64
	value   int64
	offset  int64
	process int64
	op      int64 // the op (completion index) where it was seen
}

func (f finding) String() string {
	return fmt.Sprintf("%s key=%d value=%d offset=%d process=%d op=%d", f.kind, f.key, f.value, f.offset, f.process, f.op)
}

// checkShape checks indices, times, pairing and the form of each
// completion, and returns for each line the index of its partner line
// (invocation <-> completion).
func checkShape(ops []tOp) ([]int, error) {
	partner := make([]int, len(ops))
	open := map[int64]int{} // process -> open invocation
	retired := map[int64]bool{}
	nemOpen := -1
	for i, op := range ops {
		if op.index != int64(i) {
			return nil, fmt.Errorf("line %d has index %d", i, op.index)
		}
		if i > 0 && op.time <= ops[i-1].time {
			return nil, fmt.Errorf("op %d: time %d not after %d", i, op.time, ops[i-1].time)
		}
		if op.process < 0 {
			if op.typ != "info" {
				return nil, fmt.Errorf("op %d: nemesis op of type %s", i, op.typ)
			}
			if nemOpen < 0 {
				nemOpen = i
				continue
			}
			if ops[nemOpen].f != op.f {
				return nil, fmt.Errorf("op %d: nemesis completion %s of %s", i, op.f, ops[nemOpen].f)
			}
			partner[i], partner[nemOpen] = nemOpen, i
			nemOpen = -1
			continue
		}
		if retired[op.process] {
			return nil, fmt.Errorf("op %d: process %d used after an info", i, op.process)
		}
		inv, isOpen := open[op.process]
		if op.typ == "invoke" {
			if isOpen {
				return nil, fmt.Errorf("op %d: process %d invoked again while op %d is open", i, op.process, inv)
			}
			for _, m := range op.mops {
				if m.done {
					return nil, fmt.Errorf("op %d: invocation with completed micro-op", i)
				}
			}
			open[op.process] = i
			continue
		}
		if !isOpen {
			return nil, fmt.Errorf("op %d: completion without invocation", i)
		}
		delete(open, op.process)
		partner[i], partner[inv] = inv, i
		in := ops[inv]
		if in.f != op.f {
			return nil, fmt.Errorf("op %d completes %s with %s", i, in.f, op.f)
		}
		if op.typ == "info" {
			retired[op.process] = true
		}
		if (op.typ == "info" || op.typ == "fail") != (op.err != "") && op.f != "crash" {
			return nil, fmt.Errorf("op %d: type %s with error %q", i, op.typ, op.err)
		}
		switch op.f {
		case "assign", "subscribe":
			if op.typ != "ok" || !slices.Equal(op.keys, in.keys) {
				return nil, fmt.Errorf("op %d: assign completion differs", i)
			}
		case "crash":
			if op.typ != "info" {
				return nil, fmt.Errorf("op %d: crash completes %s", i, op.typ)
			}
		case "send", "poll", "txn":
			if len(op.mops) != len(in.mops) {
				return nil, fmt.Errorf("op %d: %d micro-ops, invocation had %d", i, len(op.mops), len(in.mops))
			}
			for j, m := range op.mops {
				im := in.mops[j]
				if m.send != im.send || m.key != im.key || m.val != im.val {
					return nil, fmt.Errorf("op %d: micro-op %d differs from the invocation", i, j)
				}
				if m.done != (op.typ == "ok") {
					return nil, fmt.Errorf("op %d (%s): micro-op %d completed=%v", i, op.typ, j, m.done)
				}
			}
		default:
			return nil, fmt.Errorf("op %d: unexpected f %s", i, op.f)
		}
	}
	if len(open) > 0 || nemOpen >= 0 {
		return nil, fmt.Errorf("%d invocations never completed", len(open))
	}
	return partner, nil
}

type writeInfo struct {
	typ           string
	off           int64 // -1 unless acked
	inv, complete int
	process       int64
}

// checkLog derives each key's log from the history and reports what a
// correct broker never does. Reads are compared by offset: a process's
// consecutive reads of a key (while it stays assigned) must be consecutive
// offsets of the key's known offsets.
func checkLog(ops []tOp, partner []int) []finding {
	var fs []finding
	type kv struct{ k, v int64 }
	writes := map[kv]*writeInfo{}
	for i, op := range ops {
		if op.typ == "invoke" || op.process < 0 {
			continue
		}
		for _, m := range op.mops {
			if !m.send {
				continue
			}
			w := &writeInfo{typ: op.typ, off: -1, inv: partner[i], complete: i, process: op.process}
			if m.done {
				w.off = m.off
			}
			writes[kv{m.key, m.val}] = w
		}
	}
	// Known offsets, from acks and reads.
	atOff := map[kv][]int64{} // (key, offset) -> values
	offsOf := map[kv][]int64{}
	note := func(k, o, v int64) {
		if !slices.Contains(atOff[kv{k, o}], v) {
			atOff[kv{k, o}] = append(atOff[kv{k, o}], v)
		}
		if !slices.Contains(offsOf[kv{k, v}], o) {
			offsOf[kv{k, v}] = append(offsOf[kv{k, v}], o)
		}
	}
	for _, op := range ops {
		for _, m := range op.mops {
			if m.send && m.done {
				note(m.key, m.off, m.val)
			}
			for _, r := range m.reads {
				for _, p := range r.pairs {
					note(r.key, p[0], p[1])
				}
			}
		}
	}
	keysOffs := map[int64][]int64{}
	for ko, vs := range atOff {
		keysOffs[ko.k] = append(keysOffs[ko.k], ko.v)
		if len(vs) > 1 {
			fs = append(fs, finding{kind: kInconsistent, key: ko.k, offset: ko.v, value: slices.Min(vs)})
		}
	}
	for kvv, os := range offsOf {
		if len(os) > 1 {
			fs = append(fs, finding{kind: kDuplicate, key: kvv.k, value: kvv.v, offset: slices.Min(os)})
		}
	}
	pos := map[kv]int{} // (key, offset) -> dense position
	for k, os := range keysOffs {
		slices.Sort(os)
		prev := -1 // completion index of the previous offset's writer
		for i, o := range os {
			pos[kv{k, o}] = i
			// Every op takes effect at its completion, so writers complete
			// in offset order; a ww edge never points back in time.
			if vs := atOff[kv{k, o}]; len(vs) == 1 {
				if w := writes[kv{k, vs[0]}]; w != nil {
					if w.complete < prev {
						fs = append(fs, finding{kind: kWWOrder, key: k, value: vs[0], offset: o, op: int64(w.complete)})
					}
					prev = max(prev, w.complete)
				}
			}
		}
	}

	read := map[kv]bool{}
	last := map[kv]int{} // (process, key) -> last position read
	lastSend := map[kv]int64{}
	for i, op := range ops {
		if op.typ != "ok" || op.process < 0 {
			continue
		}
		if op.f == "assign" || op.f == "subscribe" {
			for pk := range last {
				if pk.k == op.process && !slices.Contains(op.keys, pk.v) {
					delete(last, pk)
				}
			}
			continue
		}
		for _, m := range op.mops {
			if m.send {
				pk := kv{op.process, m.key}
				if l, ok := lastSend[pk]; ok && m.off <= l {
					fs = append(fs, finding{kind: kNonmonoSend, key: m.key, value: m.val, offset: m.off, process: op.process, op: int64(i)})
				}
				lastSend[pk] = m.off
				continue
			}
			for _, r := range m.reads {
				for _, p := range r.pairs {
					f := finding{key: r.key, offset: p[0], value: p[1], process: op.process, op: int64(i)}
					w := writes[kv{r.key, p[1]}]
					switch {
					case w == nil:
						f.kind = kGarbage
						fs = append(fs, f)
					case w.complete == i:
						f.kind = kPrecommitted
						fs = append(fs, f)
					case w.complete > i:
						f.kind = kEarly
						fs = append(fs, f)
					case w.typ == "fail":
						f.kind = kG1a
						fs = append(fs, f)
					}
					read[kv{r.key, p[1]}] = true
					pk := kv{op.process, r.key}
					ps := pos[kv{r.key, p[0]}]
					if l, ok := last[pk]; ok && ps != l+1 {
						f.kind = kSkip
						if ps <= l {
							f.kind = kBackwards
						}
						fs = append(fs, f)
					}
					last[pk] = ps
				}
			}
		}
	}
	for kvv, w := range writes {
		if w.typ == "ok" && !read[kvv] {
			fs = append(fs, finding{kind: kUnread, key: kvv.k, value: kvv.v, offset: w.off, process: w.process, op: int64(w.complete)})
		}
	}
	slices.SortFunc(fs, func(a, b finding) int {
		if a.kind != b.kind {
			if a.kind < b.kind {
				return -1
			}
			return 1
		}
		if a.op != b.op {
			return int(a.op - b.op)
		}
		return int(a.key - b.key)
	})
	return fs
}
