package txn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// generated writes a history with cfg and checks it.
func generated(t testing.TB, cfg gen.TxnConfig, check func(*model.History, model.Pairing, Options) *analysis.Result, opts Options) *analysis.Result {
	t.Helper()
	h, p := testhist.Txn(t, cfg)
	return check(h, p, opts)
}

func txnConfig(w gen.Workload, seed int64) gen.TxnConfig {
	return gen.TxnConfig{Seed: seed, Workload: w, Txns: 2000, Concurrency: 10, Keys: 8, InfoRate: 0.02, FailRate: 0.02}
}

// TestGeneratedListAppend checks generated histories: clean ones (with
// info, fail, nemesis ops and no :f) are valid, and each injected fault
// gives exactly the anomaly types the generator documents for it, one
// instance of each per injection.
func TestGeneratedListAppend(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("clean seed %d - valid", seed), func(t *testing.T) {
			cfg := txnConfig(gen.ListAppend, seed)
			cfg.OmitF, cfg.Nemesis = seed == 2, seed == 3
			res := generated(t, cfg, CheckListAppend, DefaultOptions())
			if res.Verdict != analysis.Valid {
				t.Fatalf("%s: %v %v", res.Verdict, res.AnomalyTypes, res.UnknownReasons)
			}
		})
	}
	for _, k := range gen.TxnFaultKinds() {
		want, _ := k.Anomalies(gen.ListAppend)
		want = slices.Sorted(slices.Values(want))
		for seed := int64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s seed %d - %v", k, seed, want), func(t *testing.T) {
				cfg := txnConfig(gen.ListAppend, seed)
				cfg.Faults = []gen.TxnFault{{Kind: k, Count: 3}}
				checkInjected(t, generated(t, cfg, CheckListAppend, DefaultOptions()), want)
			})
		}
	}
}

// TestHugeComponentGetsAVerdict: the generator's 10,000-txn history whose
// failed, crashed and stale txns make one huge strongly connected component
// gets a verdict within the cycle budget: invalid, with the stale reads'
// cycles, and no timeout.
func TestHugeComponentGetsAVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the huge component takes a few seconds")
	}
	opts := DefaultOptions()
	start := time.Now()
	res := generated(t, gen.HugeSCCConfig(1), CheckListAppend, opts)
	if res.Stats.LargestComponent < 5000 {
		t.Fatalf("largest component %d txns: not huge", res.Stats.LargestComponent)
	}
	if res.Verdict != analysis.Invalid || len(analysis.InstancesOf[*Instance](res, CycleSearchTimeout)) > 0 {
		t.Fatalf("%s %v %v", res.Verdict, res.AnomalyTypes, res.UnknownReasons)
	}
	t.Logf("component of %d txns: %v in %v", res.Stats.LargestComponent, res.AnomalyTypes, time.Since(start))
}

// TestBudgetRunsOut: with a tiny budget the huge component's search stops,
// and the verdict says so (cycle-search-timeout, unknown reason) while
// still holding what it proved.
func TestBudgetRunsOut(t *testing.T) {
	opts := DefaultOptions()
	opts.CycleBudget = time.Microsecond
	res := generated(t, gen.HugeSCCConfig(2), CheckListAppend, opts)
	if len(analysis.InstancesOf[*Instance](res, CycleSearchTimeout)) == 0 || len(res.UnknownReasons) == 0 {
		t.Fatalf("no timeout recorded: %v %v", res.AnomalyTypes, res.UnknownReasons)
	}
	in := analysis.InstancesOf[*Instance](res, CycleSearchTimeout)[0]
	if in.SCCSize == nil || *in.SCCSize < 5000 || in.SpecType == "" {
		t.Errorf("timeout instance %+v", in)
	}
}

// TestGeneratedRWRegister checks generated rw-register histories: clean
// ones are valid under every version-order source (the simulated store is
// strict serializable, so each assumption holds), and each injected fault
// gives exactly the anomaly types the generator documents for it, with
// the default options and with --wfr-keys, one instance of each per
// injection.
func TestGeneratedRWRegister(t *testing.T) {
	all := DefaultOptions()
	all.WFRKeys, all.SequentialKeys, all.LinearizableKeys = true, true, true
	for seed := int64(1); seed <= 3; seed++ {
		for _, opts := range []Options{DefaultOptions(), all} {
			name := fmt.Sprintf("clean seed %d - all sources %v - valid", seed, opts.WFRKeys)
			t.Run(name, func(t *testing.T) {
				cfg := txnConfig(gen.RWRegister, seed)
				cfg.OmitF, cfg.Nemesis = seed == 2, seed == 3
				res := generated(t, cfg, CheckRWRegister, opts)
				if res.Verdict != analysis.Valid {
					t.Fatalf("%s: %v %v", res.Verdict, res.AnomalyTypes, res.UnknownReasons)
				}
				if res.Stats.GraphEdges == 0 {
					t.Fatal("no edges: nothing was checked")
				}
			})
		}
	}
	for _, k := range gen.TxnFaultKinds() {
		if !k.AppliesTo(gen.RWRegister) {
			continue
		}
		types, withWFR := k.Anomalies(gen.RWRegister)
		for _, wfr := range []bool{false, true} {
			want := slices.Clone(types)
			if wfr {
				want = append(want, withWFR...)
			}
			slices.Sort(want)
			for seed := int64(1); seed <= 2; seed++ {
				t.Run(fmt.Sprintf("%s seed %d wfr-keys %v - %v", k, seed, wfr, want), func(t *testing.T) {
					cfg := txnConfig(gen.RWRegister, seed)
					cfg.Faults = []gen.TxnFault{{Kind: k, Count: 3}}
					opts := DefaultOptions()
					opts.WFRKeys = wfr
					checkInjected(t, generated(t, cfg, CheckRWRegister, opts), want)
				})
			}
		}
	}
}

// TestRWRegisterEDNAndJSONAgree: the same generated rw-register history
// (with faults, info and fail txns), written as EDN and as elle-cli JSON,
// gets the same result, with every version-order source.
func TestRWRegisterEDNAndJSONAgree(t *testing.T) {
	cfg := txnConfig(gen.RWRegister, 5)
	cfg.Faults = []gen.TxnFault{{Kind: gen.LostUpdate, Count: 2}, {Kind: gen.StaleRead, Count: 2}, {Kind: gen.AbortedRead, Count: 1}}
	opts := DefaultOptions()
	opts.WFRKeys, opts.SequentialKeys, opts.LinearizableKeys = true, true, true
	var out [2][]byte
	for i, f := range []gen.Format{gen.EDN, gen.JSON} {
		cfg.Format = f
		res := generated(t, cfg, CheckRWRegister, opts)
		res.Source, res.Stats.ElapsedMS = "", 0
		out[i], _ = json.Marshal(res)
		if res.Verdict != analysis.Invalid {
			t.Fatalf("format %v: %s %v", f, res.Verdict, res.AnomalyTypes)
		}
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Errorf("EDN and JSON results differ:\n%s\n%s", out[0], out[1])
	}
}

// checkInjected: a history with 3 injections of one fault kind is invalid
// with exactly the types want, 3 instances of each.
func checkInjected(t *testing.T, res *analysis.Result, want []string) {
	t.Helper()
	if res.Verdict != analysis.Invalid || !slices.Equal(res.AnomalyTypes, want) {
		t.Fatalf("%s %v, want invalid %v", res.Verdict, res.AnomalyTypes, want)
	}
	for _, typ := range want {
		if n := len(analysis.InstancesOf[*Instance](res, typ)); n != 3 {
			t.Errorf("%d %s instances for 3 injections", n, typ)
		}
	}
}
