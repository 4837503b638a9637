package gen

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// faultRun generates a history with count faults of kind k and returns it
// with the independent checker's findings.
type faultRun struct {
	ops      []tOp
	findings []finding
	st       Stats
	inj      []Injection
}

func runFault(t *testing.T, k FaultKind, count int, edit func(*Config)) faultRun {
	t.Helper()
	cfg := base(60000)
	cfg.Faults = []Fault{{k, count}}
	if edit != nil {
		edit(&cfg)
	}
	ops, partner, st := generateParsed(t, cfg)
	r := faultRun{ops: ops, findings: checkLog(ops, partner), st: st}
	for _, in := range st.Injections {
		if in.Fault == k {
			r.inj = append(r.inj, in)
		}
	}
	if len(r.inj) != count || len(st.Injections) != count {
		t.Fatalf("injected %d %s (all: %v), want %d", len(r.inj), k, st.Injections, count)
	}
	return r
}

// only fails unless every finding has one of the given kinds.
func (r faultRun) only(t *testing.T, kinds ...string) {
	t.Helper()
	for _, f := range r.findings {
		if !slices.Contains(kinds, f.kind) {
			t.Errorf("unexpected finding %v", f)
		}
	}
}

// has returns the findings matching kind and key/value (value < -1<<62: any).
func (r faultRun) has(kind string, key, value int64) []finding {
	var out []finding
	for _, f := range r.findings {
		if f.kind == kind && f.key == key && (value < -1<<62 || f.value == value) {
			out = append(out, f)
		}
	}
	return out
}

// readers returns the ok ops that read value v of key k, with the offsets.
func (r faultRun) readers(k, v int64) (ops []int, offs []int64) {
	for i, op := range r.ops {
		if op.typ != "ok" {
			continue
		}
		for _, m := range op.mops {
			for _, rd := range m.reads {
				if rd.key != k {
					continue
				}
				for _, p := range rd.pairs {
					if p[1] == v {
						ops, offs = append(ops, i), append(offs, p[0])
					}
				}
			}
		}
	}
	return ops, offs
}

// maxReadOffset is the highest offset of key k any ok op read.
func (r faultRun) maxReadOffset(k int64) int64 {
	m := int64(-1)
	for _, op := range r.ops {
		if op.typ != "ok" {
			continue
		}
		for _, mo := range op.mops {
			for _, rd := range mo.reads {
				for _, p := range rd.pairs {
					if rd.key == k {
						m = max(m, p[0])
					}
				}
			}
		}
	}
	return m
}

// sendOf returns the send micro-op for value v of key k in op i.
func sendOf(op tOp, k, v int64) (tMop, bool) {
	for _, m := range op.mops {
		if m.send && m.key == k && m.val == v {
			return m, true
		}
	}
	return tMop{}, false
}

const anyValue = -1 << 63

func TestFaultLostWrite(t *testing.T) {
	r := runFault(t, LostWrite, 2, nil)
	for _, in := range r.inj {
		m := in.Msgs[0]
		k, v := int64(m.Key), m.Value
		op := r.ops[in.Ops[0]]
		if s, ok := sendOf(op, k, v); op.typ != "ok" || op.f != "send" || len(op.mops) != 1 || !ok || !s.done || s.off != m.Offset {
			t.Errorf("%v: op %+v is not an ok single send acked at %d", in, op, m.Offset)
		}
		if ops, _ := r.readers(k, v); len(ops) > 0 {
			t.Errorf("%v: read by %v", in, ops)
		}
		if len(r.has(kUnread, k, v)) != 1 {
			t.Errorf("%v: not reported unread", in)
		}
		if r.maxReadOffset(k) <= m.Offset {
			t.Errorf("%v: nothing above the lost offset was read, so it is not a lost write", in)
		}
	}
	if n := len(r.has(kUnread, int64(r.inj[0].Key), anyValue)) + len(r.has(kUnread, int64(r.inj[1].Key), anyValue)); n > 2+btoi(r.inj[0].Key == r.inj[1].Key)*2 {
		t.Errorf("%d unread values, want only the lost ones", n)
	}
	r.only(t, kUnread, kSkip)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestFaultDuplicate(t *testing.T) {
	r := runFault(t, Duplicate, 2, nil)
	for _, in := range r.inj {
		k, v := int64(in.Key), in.Msgs[0].Value
		_, offs := r.readers(k, v)
		slices.Sort(offs)
		offs = slices.Compact(offs)
		if !slices.Equal(offs, []int64{in.Msgs[0].Offset, in.Msgs[1].Offset}) {
			t.Errorf("%v: read at offsets %v", in, offs)
		}
		if len(r.has(kDuplicate, k, v)) != 1 {
			t.Errorf("%v: not reported", in)
		}
	}
	r.only(t, kDuplicate)
}

func TestFaultInconsistentOffset(t *testing.T) {
	r := runFault(t, InconsistentOffset, 2, nil)
	for _, in := range r.inj {
		if len(in.Msgs) != 2 || in.Msgs[0].Offset != in.Msgs[1].Offset || in.Msgs[0].Value == in.Msgs[1].Value {
			t.Fatalf("%v: want two values at one offset", in)
		}
		k, o := int64(in.Key), in.Msgs[0].Offset
		stored, acked := in.Msgs[0], in.Msgs[1]
		op := r.ops[in.Ops[0]]
		if s, ok := sendOf(op, k, acked.Value); op.typ != "ok" || len(op.mops) != 1 || !ok || s.off != o {
			t.Errorf("%v: op %d is not an ok single send acked at %d", in, in.Ops[0], o)
		}
		if ops, offs := r.readers(k, stored.Value); !slices.Contains(offs, o) || ops[0] > int(in.Ops[0]) && !r.ackedBefore(k, stored.Value, int(in.Ops[0])) {
			t.Errorf("%v: stored value not seen at offset %d before the bad ack", in, o)
		}
		if fs := r.has(kInconsistent, k, anyValue); len(fs) != 1 || fs[0].offset != o {
			t.Errorf("%v: inconsistent findings %v", in, fs)
		}
		if len(r.has(kUnread, k, acked.Value)) != 1 {
			t.Errorf("%v: acked value not unread", in)
		}
	}
	r.only(t, kInconsistent, kUnread)
	if n := len(r.findings); n != 4 {
		t.Errorf("%d findings, want 2 inconsistent + 2 unread: %v", n, r.findings)
	}
}

// ackedBefore reports whether an ok send acked value v of key k before op i.
func (r faultRun) ackedBefore(k, v int64, i int) bool {
	for _, op := range r.ops[:i] {
		if _, ok := sendOf(op, k, v); ok && op.typ == "ok" {
			return true
		}
	}
	return false
}

func TestFaultG1a(t *testing.T) {
	r := runFault(t, G1a, 2, nil)
	for _, in := range r.inj {
		op := r.ops[in.Ops[0]]
		if op.typ != "fail" || op.f != "send" {
			t.Errorf("%v: op %+v is not a failed send", in, op)
		}
		for _, m := range in.Msgs {
			if len(r.has(kG1a, int64(m.Key), m.Value)) == 0 {
				t.Errorf("%v: %v not read", in, m)
			}
		}
	}
	r.only(t, kG1a)
}

func TestFaultPollSkip(t *testing.T) {
	for _, sub := range []bool{false, true} {
		t.Run(fmt.Sprint("subscribe=", sub), func(t *testing.T) {
			r := runFault(t, PollSkip, 2, func(c *Config) { c.Subscribe = sub })
			for _, in := range r.inj {
				k, m := int64(in.Key), in.Msgs[0]
				fs := r.has(kSkip, k, anyValue)
				found := false
				for _, f := range fs {
					found = found || (f.process == in.Process && f.op == in.Ops[1])
				}
				if !found {
					t.Errorf("%v: no skip by process %d in op %d: %v", in, in.Process, in.Ops[1], fs)
				}
				prev := r.ops[in.Ops[0]]
				if prev.process != in.Process || prev.typ != "ok" {
					t.Errorf("%v: previous poll %+v", in, prev)
				}
				ops, _ := r.readers(k, m.Value)
				other := false
				for _, i := range ops {
					other = other || r.ops[i].process != in.Process
				}
				if !other {
					t.Errorf("%v: skipped message never read by another process", in)
				}
			}
			r.only(t, kSkip)
			if n := len(r.has(kSkip, int64(r.inj[0].Key), anyValue)) + len(r.has(kSkip, int64(r.inj[1].Key), anyValue)); n > 2+2*btoi(r.inj[0].Key == r.inj[1].Key) {
				t.Errorf("%d skips, want 2", n)
			}
		})
	}
}

func TestFaultStall(t *testing.T) {
	r := runFault(t, Stall, 2, nil)
	r.only(t) // a stall is no violation
	for _, in := range r.inj {
		if in.Duration < DefaultStallDuration-time.Second || len(in.Ops) != 2 {
			t.Fatalf("%v: too short", in)
		}
		k := int64(in.Key)
		empty := 0
		var lastRead int64 = -1
		for i := int(in.Ops[0]); i <= int(in.Ops[1]); i++ {
			op := r.ops[i]
			if op.process != in.Process || op.typ != "ok" {
				continue
			}
			for _, m := range op.mops {
				for _, rd := range m.reads {
					if rd.key == k {
						if len(rd.pairs) > 0 {
							t.Fatalf("%v: op %d read %v", in, i, rd.pairs)
						}
						empty++
					}
				}
			}
		}
		for i := 0; i < int(in.Ops[0]); i++ {
			op := r.ops[i]
			if op.process != in.Process || op.typ != "ok" {
				continue
			}
			for _, m := range op.mops {
				for _, rd := range m.reads {
					if rd.key == k && len(rd.pairs) > 0 {
						lastRead = rd.pairs[len(rd.pairs)-1][0]
					}
				}
			}
		}
		acked := 0
		for i := int(in.Ops[0]); i <= int(in.Ops[1]); i++ {
			for _, m := range r.ops[i].mops {
				if m.send && m.done && m.key == k && m.off > lastRead {
					acked++
				}
			}
		}
		span := time.Duration(r.ops[in.Ops[1]].time - r.ops[in.Ops[0]].time)
		if empty < 20 || span < 20*time.Second || acked < 10 {
			t.Errorf("%v: %d empty polls over %v, %d sends acked above offset %d meanwhile", in, empty, span, acked, lastRead)
		}
	}
}

func TestFaultGarbage(t *testing.T) {
	r := runFault(t, Garbage, 2, nil)
	for _, in := range r.inj {
		m := in.Msgs[0]
		if m.Value >= 0 {
			t.Errorf("%v: garbage value is not negative", in)
		}
		fs := r.has(kGarbage, int64(m.Key), m.Value)
		if len(fs) == 0 || fs[0].op != in.Ops[0] || fs[0].offset != m.Offset {
			t.Errorf("%v: findings %v", in, fs)
		}
	}
	r.only(t, kGarbage)
}

func TestFaultTornTxn(t *testing.T) {
	r := runFault(t, TornTxn, 2, nil)
	for _, in := range r.inj {
		op := r.ops[in.Ops[0]]
		kept, dropped := in.Msgs[0], in.Msgs[1]
		if op.f != "txn" || op.typ != "ok" {
			t.Fatalf("%v: op %+v", in, op)
		}
		for _, m := range in.Msgs {
			if s, ok := sendOf(op, int64(m.Key), m.Value); !ok || s.off != m.Offset {
				t.Errorf("%v: %v not acked by the txn", in, m)
			}
		}
		if ops, _ := r.readers(int64(kept.Key), kept.Value); len(ops) == 0 {
			t.Errorf("%v: kept message never read", in)
		}
		if ops, _ := r.readers(int64(dropped.Key), dropped.Value); len(ops) != 0 {
			t.Errorf("%v: dropped message read", in)
		}
		if len(r.has(kUnread, int64(dropped.Key), dropped.Value)) != 1 {
			t.Errorf("%v: dropped message not unread", in)
		}
		if r.maxReadOffset(int64(dropped.Key)) <= dropped.Offset {
			t.Errorf("%v: nothing read above the dropped message", in)
		}
	}
	r.only(t, kUnread, kSkip)
}

func TestFaultG1c(t *testing.T) {
	r := runFault(t, G1c, 2, nil)
	for _, in := range r.inj {
		if len(in.Ops) != 2 || len(in.Msgs) != 2 {
			t.Fatalf("%v: want two ops and two messages", in)
		}
		for j, i := range in.Ops {
			op := r.ops[i]
			if op.f != "txn" || op.typ != "ok" || len(op.mops) != 2 {
				t.Fatalf("%v: op %+v", in, op)
			}
			own, other := in.Msgs[j], in.Msgs[1-j]
			if s, ok := sendOf(op, int64(own.Key), own.Value); !ok || s.off != own.Offset {
				t.Errorf("%v: op %d does not ack %v", in, i, own)
			}
			reads := op.mops[1].reads
			if len(reads) != 1 || reads[0].key != int64(other.Key) || len(reads[0].pairs) != 1 ||
				reads[0].pairs[0] != [2]int64{other.Offset, other.Value} {
				t.Errorf("%v: op %d reads %+v, want only %v", in, i, reads, other)
			}
			// the client crashes right after
			for n := int(i) + 1; n < len(r.ops); n++ {
				if r.ops[n].process == op.process {
					if r.ops[n].f != "crash" {
						t.Errorf("%v: op %d of process %d is a %s, want a crash", in, n, op.process, r.ops[n].f)
					}
					break
				}
			}
		}
		// the first to complete read the other's message before it completed
		early := r.has(kEarly, int64(in.Msgs[1].Key), in.Msgs[1].Value)
		if len(early) != 1 || early[0].op != in.Ops[0] {
			t.Errorf("%v: early reads %v, want one by op %d", in, early, in.Ops[0])
		}
	}
	// The second message is in the log from the first completion on, so a
	// send to its key completed in between is stored after it: the offset
	// order is not the completion order there.
	for _, f := range r.findings {
		if f.kind != kWWOrder {
			continue
		}
		ok := false
		for _, in := range r.inj {
			ok = ok || f.key == int64(in.Msgs[1].Key) && f.op > in.Ops[0] && f.op < in.Ops[1]
		}
		if !ok {
			t.Errorf("ww-order finding %v outside a G1c injection", f)
		}
	}
	r.only(t, kEarly, kWWOrder)
}

// TestFaultsKeepTheWorkload checks that waiting to inject a fault does not
// distort the op mix: an InconsistentOffset with one key and one worker has
// no other writer's message to be acked at until the process is replaced,
// and must not turn every op into a send meanwhile. (With one or two
// workers a Stall does distort it: nobody else reads the key, and the final
// reads catch up.)
func TestFaultsKeepTheWorkload(t *testing.T) {
	for _, k := range FaultKinds() {
		for _, keys := range []int{1, 8} {
			cfg := base(40000)
			cfg.Keys, cfg.Concurrency = keys, 4+keys/4
			_, clean := generate(t, cfg)
			cfg.Faults = []Fault{{k, 2}}
			_, st := generate(t, cfg)
			ratio := float64(st.Sends+st.Txns) / float64(st.Polls)
			want := float64(clean.Sends+clean.Txns) / float64(clean.Polls)
			if ratio > want*1.1 || ratio < want/1.1 {
				t.Errorf("%s, %d keys: (sends+txns)/polls %.2f, %.2f without faults", k, keys, ratio, want)
			}
		}
	}
}

// TestAllFaults injects one of each kind into one subscribe history.
func TestAllFaults(t *testing.T) {
	cfg := base(80000)
	cfg.Subscribe = true
	for _, k := range FaultKinds() {
		cfg.Faults = append(cfg.Faults, Fault{k, 1})
	}
	ops, partner, st := generateParsed(t, cfg)
	for _, k := range FaultKinds() {
		if st.Injected(k) != 1 {
			t.Errorf("%s injected %d times", k, st.Injected(k))
		}
	}
	kinds := map[string]bool{}
	var g1c []int64
	for _, in := range st.Injections {
		if in.Fault == G1c {
			g1c = append(g1c, in.Ops...)
		}
	}
	for _, f := range checkLog(ops, partner) {
		if f.kind == kEarly && slices.Contains(g1c, f.op) || f.kind == kWWOrder && len(g1c) > 0 {
			continue // the G1c injection's (TestFaultG1c checks them)
		}
		kinds[f.kind] = true
	}
	for _, want := range []string{kUnread, kDuplicate, kInconsistent, kG1a, kSkip, kGarbage} {
		if !kinds[want] {
			t.Errorf("no %s finding", want)
		}
	}
	for _, bad := range []string{kEarly, kPrecommitted, kNonmonoSend, kBackwards, kWWOrder} {
		if kinds[bad] {
			t.Errorf("%s finding", bad)
		}
	}
}
