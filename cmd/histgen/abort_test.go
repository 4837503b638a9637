package main

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/abort"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// checkAbort reads an abort history back as hindsight does (with the
// workload decoders) and checks it under contract c.
func checkAbort(t *testing.T, src []byte, name string, c abort.Contract) *analysis.Result {
	t.Helper()
	h, err := ingest.Read(bytes.NewReader(src), name, ingest.Options{Decoders: workload.Decoders()})
	if err != nil {
		t.Fatal(err)
	}
	pairing, err := model.Pair(h)
	if err != nil {
		t.Fatal(err)
	}
	return abort.Check(h, pairing, abort.Options{Contract: c})
}

// badTypes lists the types of res that are bad under c.
func badTypes(res *analysis.Result, c abort.Contract) []string {
	var bad []string
	for typ, ins := range res.Anomalies {
		if len(ins) > 0 && abort.IsBad(typ, c) {
			bad = append(bad, typ)
		}
	}
	slices.Sort(bad)
	return bad
}

// TestAbortDeterministic: histgen --workload abort writes what
// gen.WriteAbort does, the same bytes for the same seed, others for another.
func TestAbortDeterministic(t *testing.T) {
	args := []string{"--workload", "abort", "--ops", "3000", "--seed", "7", "--after-abort", "rewind", "--rebalance", "0.1", "--topics", "12"}
	a, err := histgen(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := histgen(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("the same flags gave different histories")
	}
	var want bytes.Buffer
	cfg := gen.AbortConfig{Seed: 7, Ops: 3000, Concurrency: 10, Topics: 12, AbortRate: gen.DefaultAbortRate,
		AfterAbort: gen.AbortRewind, RebalanceRate: 0.1, CrashRate: 0.01, InfoRate: 0.01, MaxPoll: gen.DefaultMaxPoll}
	st, err := gen.WriteAbort(&want, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, want.Bytes()) {
		t.Error("histgen and gen.WriteAbort differ")
	}
	if st.Lines != 3000 || bytes.Count(a, []byte("\n")) != 3000 {
		t.Errorf("%d lines, want 3000", st.Lines)
	}
	cfg.Seed = 8
	var other bytes.Buffer
	if _, err := gen.WriteAbort(&other, cfg); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(other.Bytes(), want.Bytes()) {
		t.Error("seeds 7 and 8 gave the same history")
	}
	for _, bad := range [][]string{{"--keys", "3"}, {"--fault", "lost-write"}, {"--fail", "0.1"}, {"--after-abort", "sideways"}, {"--topics", "2"}} {
		if _, err := histgen(t, append([]string{"--workload", "abort"}, bad...)...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if _, err := histgen(t, "--rebalance", "0.1"); err == nil {
		t.Error("--rebalance accepted for the queue workload")
	}
}

// TestAbortHistoriesCheck: a simulated history is valid under the
// contract it simulates. advance is invalid under rewind with exactly
// abort-advance; rewind is valid under both. No run of a few thousand polls,
// with rebalances, crashes and unknown outcomes, shows any other bad type.
func TestAbortHistoriesCheck(t *testing.T) {
	for _, after := range []gen.AfterAbort{gen.AbortAdvance, gen.AbortRewind} {
		for seed := int64(1); seed <= 3; seed++ {
			for _, format := range []gen.Format{gen.EDN, gen.JSON} {
				name := fmt.Sprintf("%s-seed%d-%s", after, seed, format)
				t.Run(name, func(t *testing.T) {
					var buf bytes.Buffer
					cfg := gen.AbortConfig{Seed: seed, Ops: 12000, Concurrency: 5, Topics: 3 + int(seed)*2, AbortRate: 0.3,
						AfterAbort: after, RebalanceRate: 0.1, CrashRate: 0.01, InfoRate: 0.01, Format: format}
					st, err := gen.WriteAbort(&buf, cfg)
					if err != nil {
						t.Fatal(err)
					}
					if st.Aborted < 1000 || st.Rebalances < 100 || st.Crashes == 0 || st.Unknown == 0 {
						t.Fatalf("too little happened: %s", st.String())
					}
					ext := ".edn"
					if format == gen.JSON {
						ext = ".json"
					}
					kafka := checkAbort(t, buf.Bytes(), name+ext, abort.ContractKafka)
					if kafka.Verdict != analysis.Valid || len(badTypes(kafka, abort.ContractKafka)) > 0 {
						t.Errorf("kafka contract: %s, bad %v", kafka.Verdict, badTypes(kafka, abort.ContractKafka))
					}
					rewind := checkAbort(t, buf.Bytes(), name+ext, abort.ContractRewind)
					bad := badTypes(rewind, abort.ContractRewind)
					if after == gen.AbortRewind {
						if rewind.Verdict != analysis.Valid || len(bad) > 0 {
							t.Errorf("rewind contract: %s, bad %v", rewind.Verdict, bad)
						}
						if len(rewind.Anomalies["abort-rewind"]) == 0 {
							t.Error("no abort-rewind pair")
						}
					} else if rewind.Verdict != analysis.Invalid || !slices.Equal(bad, []string{"abort-advance"}) {
						t.Errorf("rewind contract on an advancing history: %s, bad %v, want invalid with abort-advance only", rewind.Verdict, bad)
					}
				})
			}
		}
	}
}

// TestAbortFaultsRecall: each --fault KIND=N shows as exactly N instances of
// the type KIND, and no other bad type, under either contract (rewind
// runs) or under kafka (advance runs, where abort-advance is allowed).
func TestAbortFaultsRecall(t *testing.T) {
	for _, after := range []gen.AfterAbort{gen.AbortAdvance, gen.AbortRewind} {
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s-seed%d", after, seed), func(t *testing.T) {
				var faults []gen.AbortFault
				want := map[string]int{}
				for i, k := range gen.AbortFaultKinds() {
					faults = append(faults, gen.AbortFault{Kind: k, Count: i + int(seed)})
					want[k.String()] = i + int(seed)
				}
				var buf bytes.Buffer
				cfg := gen.AbortConfig{Seed: seed, Ops: 6000, Concurrency: 4, Topics: 6, AbortRate: 0.3,
					AfterAbort: after, RebalanceRate: 0.1, CrashRate: 0.01, InfoRate: 0.01, Faults: faults}
				st, err := gen.WriteAbort(&buf, cfg)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range gen.AbortFaultKinds() {
					if st.Injected(k) != want[k.String()] {
						t.Errorf("%s: injected %d of %d", k, st.Injected(k), want[k.String()])
					}
				}
				contracts := []abort.Contract{abort.ContractKafka}
				if after == gen.AbortRewind {
					contracts = append(contracts, abort.ContractRewind)
				}
				for _, c := range contracts {
					res := checkAbort(t, buf.Bytes(), "h.edn", c)
					got := map[string]int{}
					for _, typ := range badTypes(res, c) {
						got[typ] = len(res.Anomalies[typ])
					}
					if res.Verdict != analysis.Invalid || !maps.Equal(got, want) {
						t.Errorf("contract %s: %s, bad types %v, want %v (injections %v)", c, res.Verdict, got, want, st.Injections)
					}
				}
			})
		}
	}
}

// TestAbortCleanRunLarge is issue 20's no-false-positive run: about 100,000
// polls per mode, with the generator's default rebalances, crashes and
// unknown outcomes, show no bad type under the contract they simulate.
func TestAbortCleanRunLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 200,000 lines per mode")
	}
	for _, tc := range []struct {
		after    gen.AfterAbort
		contract abort.Contract
	}{{gen.AbortAdvance, abort.ContractKafka}, {gen.AbortRewind, abort.ContractRewind}} {
		var buf bytes.Buffer
		cfg := gen.AbortConfig{Seed: 11, Ops: 200_000, Concurrency: 10, Topics: 10, AbortRate: gen.DefaultAbortRate,
			AfterAbort: tc.after, RebalanceRate: 0.05, CrashRate: 0.01, InfoRate: 0.01, MaxPoll: 4}
		st, err := gen.WriteAbort(&buf, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if polls := st.Committed + st.Aborted + st.Unknown; polls < 90_000 {
			t.Fatalf("%s: %d polls, want about 100,000 (%s)", tc.after, polls, st.String())
		}
		res := checkAbort(t, buf.Bytes(), fmt.Sprintf("clean-%s.edn", tc.after), tc.contract)
		if bad := badTypes(res, tc.contract); res.Verdict != analysis.Valid || len(bad) > 0 {
			t.Errorf("%s under %s: %s, bad %v", tc.after, tc.contract, res.Verdict, bad)
		}
	}
}
