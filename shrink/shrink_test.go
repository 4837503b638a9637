package shrink

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// TestShrinkEveryAnomalyOfTheSamples shrinks every anomaly type the
// incident histories show, then checks that the small history, written as
// EDN and read back, still shows it, and that it is 1-minimal: dropping any
// one unit loses the anomaly.
func TestShrinkEveryAnomalyOfTheSamples(t *testing.T) {
	files, _ := filepath.Glob(testpaths.Testdata("incidents", "*.edn"))
	files = append(files, filepath.Join(testpaths.Root(), "samples", "queue-sample.edn"))
	check := queueCheck(workload.DefaultOptions())
	for _, f := range files {
		h, p := testhist.File(t, f)
		shrinkEvery(t, filepath.Base(f), h, p, check)
	}
}

// TestShrinkListAppend does the same for list-append: a generated history
// with one injection of every fault kind, under strict serializability.
func TestShrinkListAppend(t *testing.T) {
	cfg := gen.TxnConfig{Seed: 3, Workload: gen.ListAppend, Txns: 150, Concurrency: 5, Keys: 4, InfoRate: 0.02, FailRate: 0.02}
	for _, k := range gen.TxnFaultKinds() {
		cfg.Faults = append(cfg.Faults, gen.TxnFault{Kind: k, Count: 1})
	}
	h, p := testhist.Txn(t, cfg)
	w := workload.MustLookup("list-append")
	check := func(h *model.History, p model.Pairing) *analysis.Result {
		return w.Check(h, p, workload.DefaultOptions())
	}
	if n := len(check(h, p).AnomalyTypes); n < 8 {
		t.Fatalf("the generated history shows only %d types", n)
	}
	shrinkEvery(t, "generated", h, p, check)
}

// shrinkEvery shrinks every anomaly type check finds in h and checks the
// result: smaller, still showing the type once written as EDN and read
// back, and 1-minimal.
func shrinkEvery(t *testing.T, name string, h *model.History, p model.Pairing, check CheckFunc) {
	res := check(h, p)
	for _, typ := range res.AnomalyTypes {
		t.Run(name+"/"+typ, func(t *testing.T) {
			r, err := Shrink(h, p, typ, check, 0)
			if err != nil {
				t.Fatal(err)
			}
			if r.Exhausted {
				t.Fatal("exhausted without a budget")
			}
			if len(r.History.Ops) >= len(h.Ops) && len(h.Ops) > 4 {
				t.Errorf("did not shrink: %d of %d ops", len(r.History.Ops), len(h.Ops))
			}
			checkShrunk(t, r, typ, check)
		})
	}
}

// checkShrunk checks the small history r that Shrink made for typ: once
// written as EDN and read back it still shows typ, and dropping any one
// of its units loses typ (1-minimal).
func checkShrunk(t *testing.T, r *Result, typ string, check CheckFunc) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteEDN(&buf, r.History, r.Pairing, testhist.AllPositions(r.History), nil); err != nil {
		t.Fatal(err)
	}
	back, err := ingest.Read(strings.NewReader(buf.String()), "small.edn", ingest.Options{})
	if err != nil {
		t.Fatalf("written EDN does not parse: %v\n%s", err, buf.String())
	}
	bp, err := model.Pair(back)
	if err != nil {
		t.Fatal(err)
	}
	if len(check(back, bp).Anomalies[typ]) == 0 {
		t.Fatalf("the written history lost %s:\n%s", typ, buf.String())
	}
	units := unitsOf(r.History, r.Pairing)
	s := &shrinker{h: r.History, typ: typ, check: check}
	for i := range units {
		if rest := slices.Concat(units[:i], units[i+1:]); len(rest) > 0 && s.test(rest) {
			t.Errorf("dropping unit %v keeps %s: not 1-minimal", units[i], typ)
		}
	}
}

// queueCheck is the queue checker with options o, as the command line
// gets it from the registry.
func queueCheck(o workload.Options) CheckFunc {
	w := workload.MustLookup("queue")
	return func(h *model.History, p model.Pairing) *analysis.Result { return w.Check(h, p, o) }
}

func TestShrinkRefusesAbsentAnomaly(t *testing.T) {
	h, p := testhist.File(t, testpaths.Testdata("incidents", "timeout-retry-duplicate-invalid.edn"))
	if _, err := Shrink(h, p, "G1c", queueCheck(workload.DefaultOptions()), 0); err == nil || !strings.Contains(err.Error(), "shows no G1c") {
		t.Fatalf("want a 'shows no G1c' error, got %v", err)
	}
}

func TestAppendStringEscapes(t *testing.T) {
	got := string(appendString(nil, "a\"b\\c\nd\x01é"))
	want := `"a\"b\\c\nd\u0001é"`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestShrinkRWRegister shrinks every anomaly type of a generated
// rw-register history with injected faults, checked with --wfr-keys as the
// registry checks it: the small history keeps the anomaly, written as EDN
// and read back, holds no more ops than the fault's script (at most four
// txns), and is 1-minimal.
func TestShrinkRWRegister(t *testing.T) {
	cfg := gen.TxnConfig{Seed: 7, Workload: gen.RWRegister, Txns: 300, Concurrency: 5, Keys: 4}
	for _, k := range gen.TxnFaultKinds() {
		if k.AppliesTo(gen.RWRegister) {
			cfg.Faults = append(cfg.Faults, gen.TxnFault{Kind: k, Count: 1})
		}
	}
	h, p := testhist.Txn(t, cfg)
	o := workload.DefaultOptions()
	o.WFRKeys = true
	w := workload.MustLookup("rw-register")
	check := func(h *model.History, p model.Pairing) *analysis.Result { return w.Check(h, p, o) }
	res := check(h, p)
	if len(res.AnomalyTypes) < 6 {
		t.Fatalf("the faults gave only %v", res.AnomalyTypes)
	}
	for _, typ := range res.AnomalyTypes {
		t.Run(typ, func(t *testing.T) {
			r, err := Shrink(h, p, typ, check, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.History.Ops) > 8 {
				t.Errorf("%d ops left, more than a fault script's", len(r.History.Ops))
			}
			checkShrunk(t, r, typ, check)
		})
	}
}

// TestWriteEDNKeepsErrorKind: an op's :error is written back as it was
// read: a keyword as a keyword, a string or any other form as a string.
func TestWriteEDNKeepsErrorKind(t *testing.T) {
	src := `{:index 0 :time 1 :type :invoke :process 0 :f :txn :value [[:append 1 1]]}
{:index 1 :time 2 :type :fail :process 0 :f :txn :value [[:append 1 1]] :error :intentional-abort}
{:index 2 :time 3 :type :invoke :process 0 :f :txn :value [[:append 1 2]]}
{:index 3 :time 4 :type :info :process 0 :f :txn :value [[:append 1 2]] :error "timed out"}
{:index 4 :time 5 :type :invoke :process 1 :f :txn :value [[:append 1 3]]}
{:index 5 :time 6 :type :info :process 1 :f :txn :value [[:append 1 3]] :error [:net-timeout {:ms 10}]}
{:index 6 :time 7 :type :invoke :process 2 :f :txn :value [[:append 1 4]]}
{:index 7 :time 8 :type :info :process 2 :f :txn :value [[:append 1 4]] :error ":not a keyword"}
`
	h, err := ingest.Read(strings.NewReader(src), "errors.edn", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.Pair(h)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteEDN(&buf, h, p, []int32{0, 1, 2, 3, 4, 5, 6, 7}, nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`:error :intentional-abort}`, `:error "timed out"}`, `:error "[:net-timeout {:ms 10}]"}`, `:error ":not a keyword"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("written EDN lacks %s:\n%s", want, out)
		}
	}
	back, err := ingest.Read(strings.NewReader(out), "back.edn", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range h.Ops {
		if back.ErrorOf(i) != h.ErrorOf(i) {
			t.Errorf("op %d: error %q read back as %q", i, h.ErrorOf(i), back.ErrorOf(i))
		}
	}
}
