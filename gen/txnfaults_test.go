package gen

import (
	"slices"
	"testing"
)

// opsOf turns graph nodes into completion indices.
func opsOf(r txnRun, nodes []int) []int64 {
	var out []int64
	for _, n := range nodes {
		out = append(out, r.txns[n].comp)
	}
	return out
}

// expectedFindings is what detect must find for fault k: the anomaly types
// the fault documents (with --wfr-keys ones: detect's rw-register G0 uses
// the order --wfr-keys infers) that detect looks for.
func expectedFindings(k TxnFaultKind, w Workload) []string {
	types, wfr := k.Anomalies(w)
	var out []string
	for _, ty := range append(types, wfr...) {
		if slices.Contains(detectable, ty) {
			out = append(out, ty)
		}
	}
	slices.Sort(out)
	return out
}

// TestTxnFaults injects three scripts of each kind into a history with
// random info and fail txns and checks that each injects exactly what it
// says: the rest of the history stays serial; the detectors find exactly
// the documented non-cycle types, on the scripts' keys and ops only; and
// the dependency graph has a cycle within each script exactly when a cycle
// type is documented.
func TestTxnFaults(t *testing.T) {
	for _, w := range txnWorkloads {
		for _, k := range TxnFaultKinds() {
			if !k.AppliesTo(w) {
				continue
			}
			t.Run(w.String()+"/"+k.String(), func(t *testing.T) {
				cfg := txnBase(w, 6000)
				cfg.Faults = []TxnFault{{k, 3}}
				r := runTxn(t, cfg)
				if r.st.Injected(k) != 3 || len(r.st.Injections) != 3 {
					t.Fatalf("injected %v", r.st.Injections)
				}
				byKey := map[int64]*TxnInjection{}
				for i := range r.st.Injections {
					in := &r.st.Injections[i]
					for _, key := range in.Keys {
						byKey[key] = in
					}
				}
				skip := map[int64]bool{}
				for key := range byKey {
					skip[key] = true
				}
				checkKeys(t, r, nil)
				// The scripts' keys are theirs alone.
				for _, tx := range r.txns {
					for _, m := range tx.invMops {
						if in := byKey[m.key]; in != nil && !slices.Contains(in.Ops, tx.comp) {
							t.Fatalf("op %d touches key %d of %v", tx.comp, m.key, in)
						}
					}
				}
				final, err := checkSerial(r.txns, r.la, true, skip)
				if err != nil {
					t.Fatalf("outside the scripts: %v", err)
				}
				if r.la {
					checkPrefixes(t, r, final, skip)
				}
				for _, in := range r.st.Injections {
					checkInjection(t, r, in)
				}
				fs, err := detect(r.txns, r.la)
				if err != nil {
					t.Fatal(err)
				}
				want := expectedFindings(k, w)
				if got := kinds(fs); !slices.Equal(got, want) {
					t.Fatalf("found %v, want %v", got, want)
				}
				for _, f := range fs {
					in := byKey[f.key]
					if in == nil {
						t.Fatalf("%+v: not on a script's key", f)
					}
					for _, o := range f.ops {
						if !slices.Contains(in.Ops, o) {
							t.Fatalf("%+v: op %d is not part of %v", f, o, in)
						}
					}
				}
				for _, ty := range want {
					n := 0
					for _, f := range fs {
						if f.kind == ty {
							n++
						}
					}
					if n < 3 {
						t.Fatalf("%d findings of %s for 3 injections", n, ty)
					}
				}
				types, _ := k.Anomalies(w)
				cycle := slices.ContainsFunc(types, isCycleType)
				cs := sccs(depGraph(r.txns, r.la, len(r.ops), true), len(r.txns))
				if !cycle && len(cs) > 0 || cycle && len(cs) != 3 {
					t.Fatalf("%d cycles, documented types %v", len(cs), types)
				}
				for _, c := range cs {
					ops := opsOf(r, c)
					if !slices.ContainsFunc(r.st.Injections, func(in TxnInjection) bool {
						return !slices.ContainsFunc(ops, func(o int64) bool { return !slices.Contains(in.Ops, o) })
					}) {
						t.Fatalf("cycle over ops %v is not within one script", ops)
					}
				}
			})
		}
	}
}

// checkInjection checks an injection record against the text: its ops are
// completions that touch its keys, with the scripted outcome, and the
// values of note appear as documented.
func checkInjection(t *testing.T, r txnRun, in TxnInjection) {
	t.Helper()
	comp := map[int64]*xtxn{}
	for i := range r.txns {
		comp[r.txns[i].comp] = &r.txns[i]
	}
	var reads [][]int64 // values read on the script's keys by ok txns
	for i, o := range in.Ops {
		tx := comp[o]
		if tx == nil {
			t.Fatalf("%v: op %d is not a completion", in, o)
		}
		for _, m := range tx.mops {
			if !slices.Contains(in.Keys, m.key) {
				t.Fatalf("%v: op %d touches key %d", in, o, m.key)
			}
			if m.kind == "r" && tx.typ == "ok" {
				switch {
				case m.list != nil:
					reads = append(reads, m.list)
				case !m.isNil:
					reads = append(reads, []int64{m.val})
				}
			}
		}
		wantFail := i == 0 && (in.Fault == AbortedRead || in.Fault == DirtyUpdate)
		if (tx.typ == "fail") != wantFail || (!wantFail && tx.typ != "ok") {
			t.Fatalf("%v: op %d completed %s", in, o, tx.typ)
		}
	}
	if len(in.Values) == 0 {
		return
	}
	v := in.Values[0]
	count := 0
	for _, rd := range reads {
		for _, e := range rd {
			if e == v {
				count++
			}
		}
	}
	writers, _ := writersOf(r.txns)
	w := writers[kv{in.Keys[0], v}]
	switch in.Fault {
	case GarbageRead:
		if v >= 0 || w != nil || count == 0 {
			t.Fatalf("%v: garbage %d written by %v, read %d times", in, v, w, count)
		}
	case DuplicateElement:
		twice := func(rd []int64) bool {
			n := 0
			for _, e := range rd {
				if e == v {
					n++
				}
			}
			return n == 2
		}
		if !slices.ContainsFunc(reads, twice) {
			t.Fatalf("%v: no read holds %d twice: %v", in, v, reads)
		}
	case AbortedRead, DirtyUpdate:
		if w == nil || w.typ != "fail" || count == 0 {
			t.Fatalf("%v: value %d not read from a failed txn", in, v)
		}
	case IntermediateRead:
		if w == nil || count == 0 || w.invMops[len(w.invMops)-1].val == v {
			t.Fatalf("%v: value %d is not an intermediate write that was read", in, v)
		}
	}
}
