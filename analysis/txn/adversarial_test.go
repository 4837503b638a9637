package txn

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/scaling"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// TestAdversarialAllocs checks each adversarial history of
// BenchmarkAdversarial at n and 10n and requires the bytes allocated by
// the check to grow at most 12-fold: a check quadratic in one read, one
// txn, one key's writes or one process's ops grows about 100-fold.
func TestAdversarialAllocs(t *testing.T) { scaling.AllocGrowth(t, cases(), 300) }

// TestHugeGarbageReadBounded is issue 17's history: one 49 KB read of
// 10,000 elements nobody appended. Checking it (and writing its JSON
// result) must allocate O(n), not a copy of the read per element (4 GB
// before), and report the read as one garbage-read listing every element.
func TestHugeGarbageReadBounded(t *testing.T) {
	const n = 10_000
	var l testhist.Lines
	l.Pair(0, "txn", "[[:r :x nil]]", "ok", "[[:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
	if l.Len() < 48_000 || l.Len() > 52_000 {
		t.Fatalf("history is %d bytes, want about 49 KB", l.Len())
	}
	h, p := testhist.Read(t, strings.NewReader(string(l.Bytes())), "huge-garbage.edn")
	var res *analysis.Result
	var out []byte
	used := scaling.Allocated(func() {
		res = CheckListAppend(h, p, DefaultOptions())
		var err error
		if out, err = json.Marshal(res); err != nil {
			t.Error(err)
		}
	})
	if used > 50<<20 {
		t.Errorf("check and JSON allocated %d MB, want under 50", used>>20)
	}
	if len(out) > 1<<20 {
		t.Errorf("JSON result is %d bytes, want under 1 MB", len(out))
	}
	if res.Verdict != analysis.Invalid || !slicesContain(res.BadTypes, GarbageRead) {
		t.Fatalf("%v %v, want invalid with garbage-read", res.Verdict, res.BadTypes)
	}
	ins := analysis.InstancesOf[*Instance](res, GarbageRead)
	if len(ins) != 1 || len(ins[0].Values) != n || ins[0].Element == nil || ins[0].Element.String() != "0" {
		t.Fatalf("%d garbage-read instances, want one listing %d elements from 0", len(ins), n)
	}
	for i, v := range ins[0].Values {
		if v.String() != fmt.Sprint(i) {
			t.Fatalf("garbage element %d is %s, want %d", i, v, i)
		}
	}
}

// TestHugeAbortedReadBounded checks that a read of n elements of a failed
// append, n G1a instances, prints O(n) JSON: each instance's mop lists
// the read's first MaxMopElements elements and mop_elements its length.
func TestHugeAbortedReadBounded(t *testing.T) {
	const n = 2000
	a := scaling.Find(t, cases(), "list-append/huge-read-aborted")
	h, p := a.Read(t, n)
	res := a.Check(h, p)
	a.Verify(t, res)
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 2<<20 {
		t.Errorf("JSON result is %d bytes, want under 2 MB", len(out))
	}
	ins := analysis.InstancesOf[*Instance](res, G1a)
	if len(ins) != n {
		t.Fatalf("%d G1a instances, want %d", len(ins), n)
	}
	in := ins[n-1]
	if in.Mop == nil || in.Mop.Value.Len() != MaxMopElements || in.MopElements == nil || *in.MopElements != n ||
		in.Element == nil || in.Element.String() != fmt.Sprint(n-1) {
		t.Fatalf("last G1a: mop %v, mop_elements %v, element %v; want the first %d of %d elements, element %d",
			in.Mop, in.MopElements, in.Element, MaxMopElements, n, n-1)
	}
	if got := cutMopText(in); !strings.HasSuffix(got, "30 31]], the first of 2000 elements") {
		t.Fatalf("mop worded %q, want the first %d of %d elements", got, MaxMopElements, n)
	}
}

func slicesContain(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// adversarial is a history shaped to make one check of a transactional
// workload super-linear if it were (package doc, Cost): one huge read,
// one huge transaction, one key written n times, one process with n ops.
// Each is checked at n and 10n by its benchmark (time) and by
// TestAdversarialAllocs (allocated bytes), which must grow about tenfold.
type adversarial struct {
	name  string
	check func(*model.History, model.Pairing, Options) *analysis.Result
	opts  func() Options
	gen   func(n int) *testhist.Lines
	// want is the verdict and the anomaly types the history must give,
	// so that a benchmark measures the check it means to.
	want  analysis.Verdict
	types []string
}

func allSources() Options {
	o := DefaultOptions()
	o.WFRKeys, o.SequentialKeys, o.LinearizableKeys = true, true, true
	return o
}

var adversarials = []adversarial{
	// list-append: one read of n elements nobody appended (garbage-read).
	{"list-append/huge-read-garbage", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		var l testhist.Lines
		l.Pair(0, "txn", "[[:r :x nil]]", "ok", "[[:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
		return &l
	}, analysis.Invalid, []string{EmptyTransactionGraph, GarbageRead}},
	// list-append: one failed txn appending n elements, then one read of
	// them all: n G1a instances, each naming the read cut to
	// MaxMopElements elements (mop_elements)
	{"list-append/huge-read-aborted", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		var l testhist.Lines
		l.Pair(0, "txn", "["+testhist.Ints(0, n, "[:append :x %d]")+"]", "fail", "["+testhist.Ints(0, n, "[:append :x %d]")+"]")
		l.Pair(1, "txn", "[[:r :x nil]]", "ok", "[[:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
		return &l
	}, analysis.Invalid, []string{G1a, EmptyTransactionGraph}},
	// list-append: n single-append txns, then one read of all n elements
	// (version order, wr/ww/rw edges, dirty-update walk).
	{"list-append/huge-read-written", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := range n {
			v := fmt.Sprintf("[[:append :x %d]]", i)
			l.Pair(0, "txn", v, "ok", v)
		}
		l.Pair(1, "txn", "[[:r :x nil]]", "ok", "[[:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
		return &l
	}, analysis.Valid, []string{}},
	// list-append: one txn of 3n micro-ops over n keys (read nil, append,
	// read back), then one txn reading every key (external reads, internal,
	// future-read, lost-update, interm appends).
	{"list-append/huge-txn-many-keys", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		var l testhist.Lines
		var inv, ok, rinv, rok strings.Builder
		for i := range n {
			fmt.Fprintf(&inv, "[:r %d nil] [:append %d %d] [:r %d nil] ", i, i, i, i)
			fmt.Fprintf(&ok, "[:r %d nil] [:append %d %d] [:r %d [%d]] ", i, i, i, i, i)
			fmt.Fprintf(&rinv, "[:r %d nil] ", i)
			fmt.Fprintf(&rok, "[:r %d [%d]] ", i, i)
		}
		l.Pair(0, "txn", "["+inv.String()+"]", "ok", "["+ok.String()+"]")
		l.Pair(1, "txn", "["+rinv.String()+"]", "ok", "["+rok.String()+"]")
		return &l
	}, analysis.Valid, []string{}},
	// list-append: one txn appending n times to one key, then reading it.
	{"list-append/huge-txn-one-key", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		var l testhist.Lines
		apps := testhist.Ints(0, n, "[:append :x %d]")
		l.Pair(0, "txn", "["+apps+" [:r :x nil]]", "ok", "["+apps+" [:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
		l.Pair(1, "txn", "[[:r :x nil]]", "ok", "[[:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
		return &l
	}, analysis.Valid, []string{}},
	// list-append: one key appended to n times by 10 concurrent
	// processes, each txn reading nil first (lost-update groups, rw edges
	// from one state, the realtime frontier), then read back once.
	{"list-append/one-key-n-appends", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := 0; i < n; i += 10 {
			for p := range 10 {
				l.Op("invoke", p, "txn", fmt.Sprintf("[[:append :x %d]]", i+p))
			}
			for p := range 10 {
				l.Op("ok", p, "txn", fmt.Sprintf("[[:append :x %d]]", i+p))
			}
		}
		l.Pair(10, "txn", "[[:r :x nil]]", "ok", "[[:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
		return &l
	}, analysis.Valid, []string{}},
	// list-append: one process running n txns, each on its own key
	// (process and realtime order, n keys).
	{"list-append/one-process", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		return oneProcess(n, "[[:r %[1]d nil] [:append %[1]d %[1]d]]", "[[:r %[1]d []] [:append %[1]d %[1]d]]")
	}, analysis.Valid, []string{}},
	// list-append: n txns running at once, each appending to its own key,
	// then n more, each reading one of those keys back (n² realtime
	// pairs, which the graph keeps through hubs).
	{"list-append/concurrent-batches", CheckListAppend, DefaultOptions, func(n int) *testhist.Lines {
		return concurrentBatches(n, -1)
	}, analysis.Valid, []string{}},
	// rw-register: one txn reading n keys, values nobody wrote.
	{"rw-register/huge-read-garbage", CheckRWRegister, allSources, func(n int) *testhist.Lines {
		var l testhist.Lines
		l.Pair(0, "txn", "["+testhist.Ints(0, n, "[:r %d nil]")+"]", "ok", "["+testhist.Ints(0, n, "[:r %d %d]")+"]")
		return &l
	}, analysis.Invalid, []string{EmptyTransactionGraph, GarbageRead}},
	// rw-register: one txn of 3n micro-ops over n keys (read nil, write,
	// read back), then one txn reading every key.
	{"rw-register/huge-txn", CheckRWRegister, allSources, func(n int) *testhist.Lines {
		var l testhist.Lines
		var inv, ok strings.Builder
		for i := range n {
			fmt.Fprintf(&inv, "[:r %d nil] [:w %d %d] [:r %d nil] ", i, i, i, i)
			fmt.Fprintf(&ok, "[:r %d nil] [:w %d %d] [:r %d %d] ", i, i, i, i, i)
		}
		l.Pair(0, "txn", "["+inv.String()+"]", "ok", "["+ok.String()+"]")
		l.Pair(1, "txn", "["+testhist.Ints(0, n, "[:r %d nil]")+"]", "ok", "["+testhist.Ints(0, n, "[:r %d %d]")+"]")
		return &l
	}, analysis.Valid, []string{}},
	// rw-register: one key written n times by 10 concurrent processes
	// (all version-order sources): in each round one txn reads the last
	// value of the round before and writes, the other nine write blind,
	// so the graph stays acyclic (the cycle search is not what this
	// measures).
	{"rw-register/one-key-n-writes", CheckRWRegister, allSources, func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := 0; i < n; i += 10 {
			read := "nil"
			if i > 0 {
				read = fmt.Sprint(i) // the last value of the round before
			}
			l.Op("invoke", 0, "txn", fmt.Sprintf("[[:r :x nil] [:w :x %d]]", i+1))
			for p := 1; p < 10; p++ {
				l.Op("invoke", p, "txn", fmt.Sprintf("[[:w :x %d]]", i+p+1))
			}
			l.Op("ok", 0, "txn", fmt.Sprintf("[[:r :x %s] [:w :x %d]]", read, i+1))
			for p := 1; p < 10; p++ {
				l.Op("ok", p, "txn", fmt.Sprintf("[[:w :x %d]]", i+p+1))
			}
		}
		return &l
	}, analysis.Valid, []string{}},
	// rw-register: one process running n txns, each on its own key.
	{"rw-register/one-process", CheckRWRegister, allSources, func(n int) *testhist.Lines {
		return oneProcess(n, "[[:r %[1]d nil] [:w %[1]d %[1]d]]", "[[:r %[1]d nil] [:w %[1]d %[1]d]]")
	}, analysis.Valid, []string{}},
}

// oneProcess is n txns of process 0, txn i invoked with the value inv and
// completed ok with ok, both formats of i (%[1]d).
func oneProcess(n int, inv, ok string) *testhist.Lines {
	var l testhist.Lines
	for i := range n {
		l.Pair(0, "txn", fmt.Sprintf(inv, i), "ok", fmt.Sprintf(ok, i))
	}
	return &l
}

// concurrentBatches is n list-append txns invoked at once, each appending
// to its own key, completed, then n more at once, txn i reading key i; the
// reader of key stale (if any) sees nil, though the append completed
// before it was invoked.
func concurrentBatches(n, stale int) *testhist.Lines {
	var l testhist.Lines
	for p := range n {
		l.Op("invoke", p, "txn", fmt.Sprintf("[[:append %d %d]]", p, p))
	}
	for p := range n {
		l.Op("ok", p, "txn", fmt.Sprintf("[[:append %d %d]]", p, p))
	}
	for p := range n {
		l.Op("invoke", p, "txn", fmt.Sprintf("[[:r %d nil]]", p))
	}
	for p := range n {
		read := fmt.Sprintf("[%d]", p)
		if p == stale {
			read = "nil"
		}
		l.Op("ok", p, "txn", fmt.Sprintf("[[:r %d %s]]", p, read))
	}
	return &l
}

// cases are the adversarials as scaling runs them.
func cases() []scaling.Case {
	cs := make([]scaling.Case, len(adversarials))
	for i, a := range adversarials {
		cs[i] = scaling.Case{Name: a.name, Gen: a.gen, Want: a.want, Types: a.types,
			Check: func(h *model.History, p model.Pairing) *analysis.Result { return a.check(h, p, a.opts()) }}
	}
	return cs
}

// BenchmarkAdversarial checks each adversarial history at n = 10,000 and
// 100,000 (scaling.Bench).
func BenchmarkAdversarial(b *testing.B) { scaling.Bench(b, cases()) }

// BenchmarkAdversarialRatio is BenchmarkAdversarial made to resist a busy
// machine (scaling.BenchRatio). Run with -benchtime 1x.
func BenchmarkAdversarialRatio(b *testing.B) { scaling.BenchRatio(b, cases()) }

// TestHugeDuplicateReadCompact is a hostile history of one read of n
// elements, each of 1,000 values repeated, none of them appended: one
// duplicate-elements and one garbage-read instance, each quoting the whole
// read. Their copies of it must cost about 8 bytes an element (integers),
// not a 64-byte Value each: at 3M elements the two copies took 384 MB
// of an 11.7 MB file's 630 MB peak. The rendered instances must still
// quote every element.
func TestHugeDuplicateReadCompact(t *testing.T) {
	const n = 300_000
	var l testhist.Lines
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprint(i % 1000)
	}
	list := "[" + strings.Join(vals, " ") + "]"
	l.Pair(0, "txn", "[[:r :x nil]]", "ok", "[[:r :x "+list+"]]")
	h, p := testhist.Read(t, strings.NewReader(string(l.Bytes())), "huge-duplicates.edn")
	var res *analysis.Result
	used := scaling.Allocated(func() { res = CheckListAppend(h, p, DefaultOptions()) })
	t.Logf("check allocated %d bytes, %.1f an element", used, float64(used)/n)
	// 62 bytes an element with the read's copies at 8 bytes an element
	// (the rest: the version order's scratch, three passes of
	// withoutRepeats); 174 with a 64-byte Value an element
	if perElem := float64(used) / n; perElem > 90 {
		t.Errorf("check allocated %.1f bytes an element, want at most 90", perElem)
	}
	for _, typ := range []string{DuplicateElements, GarbageRead} {
		ins := analysis.InstancesOf[*Instance](res, typ)
		if len(ins) != 1 || ins[0].Mop == nil {
			t.Fatalf("%d %s instances, want one with its mop", len(ins), typ)
		}
		want := "[:r :x " + list + "]"
		if got := ins[0].Mop.String(); got != want {
			t.Fatalf("%s mop renders %d bytes, want the whole read (%d bytes)", typ, len(got), len(want))
		}
		b, err := json.Marshal(ins[0].Mop)
		if err != nil {
			t.Fatal(err)
		}
		if wantJSON := `[":r",":x",[` + strings.Join(vals, ",") + `]]`; string(b) != wantJSON {
			t.Fatalf("%s mop's JSON is %d bytes, want the whole read (%d bytes)", typ, len(b), len(wantJSON))
		}
	}
}
