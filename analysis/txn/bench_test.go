package txn

import (
	"bytes"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// benchListAppend generates and reads a list-append history of n txns
// (10 workers, 8 keys, 1% info, 1% fail), outside the timed loop.
func benchListAppend(b *testing.B, n int) (*model.History, model.Pairing, int) {
	b.Helper()
	var buf bytes.Buffer
	cfg := txnConfig(gen.ListAppend, 1)
	cfg.Txns, cfg.InfoRate, cfg.FailRate = n, 0.01, 0.01
	if _, err := gen.WriteTxn(&buf, cfg); err != nil {
		b.Fatal(err)
	}
	size := buf.Len()
	h, p := testhist.Read(b, &buf, "bench.edn")
	return h, p, size
}

// BenchmarkCheckListAppend checks a 100,000-txn generated history once
// parsed; txns/s is reported.
func BenchmarkCheckListAppend(b *testing.B) {
	h, p, _ := benchListAppend(b, 100000)
	b.ResetTimer()
	for b.Loop() {
		if res := CheckListAppend(h, p, DefaultOptions()); res.Verdict.String() != "valid" {
			b.Fatalf("%s %v", res.Verdict, res.AnomalyTypes)
		}
	}
	b.ReportMetric(float64(100000*b.N)/b.Elapsed().Seconds(), "txns/s")
}

// rwBenchConfig is the 100,000-txn rw-register history of the speed
// target (README, bench/bench.sh): Elle's reference kind (10 workers, up to
// 4 micro-ops a txn, 10 keys in use, 1% info, 1% fail) with stale reads
// (--read-lag 1) and 45 lost updates, so that it is invalid in about as
// many places per txn as the reference's rw-stale and rw-faulty runs.
func rwBenchConfig() gen.TxnConfig {
	return gen.TxnConfig{Seed: 1, Workload: gen.RWRegister, Txns: 100_000, Concurrency: 10, Keys: 10,
		InfoRate: 0.01, FailRate: 0.01, ReadLag: 1, Faults: []gen.TxnFault{{Kind: gen.LostUpdate, Count: 45}}}
}

func benchTxnHistory(b *testing.B, cfg gen.TxnConfig) (*model.History, model.Pairing) {
	b.Helper()
	h, p := testhist.Txn(b, cfg)
	return h, p
}

// BenchmarkCheckRWRegister measures the rw-register analysis alone (no
// parsing) of the 100,000-txn history, with the default options and with
// every version-order source, reporting txns/s.
func BenchmarkCheckRWRegister(b *testing.B) {
	h, p := benchTxnHistory(b, rwBenchConfig())
	all := DefaultOptions()
	all.WFRKeys, all.SequentialKeys, all.LinearizableKeys = true, true, true
	for _, bc := range []struct {
		name string
		opts Options
	}{{"default", DefaultOptions()}, {"all-sources", all}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res := CheckRWRegister(h, p, bc.opts)
				if res.Verdict != analysis.Invalid || len(analysis.InstancesOf[*Instance](res, LostUpdate)) != 45 {
					b.Fatalf("%v %v", res.Verdict, res.AnomalyTypes)
				}
			}
			b.ReportMetric(float64(res0(h))*float64(b.N)/b.Elapsed().Seconds(), "txns/s")
		})
	}
}

// res0 counts the txns of h: its invocations.
func res0(h *model.History) int {
	n := 0
	for i := range h.Ops {
		if h.Ops[i].Type == model.Invoke {
			n++
		}
	}
	return n
}

// BenchmarkTouchesOf derives every vertex's touches (rwRegister.touchesOf)
// of the 100,000-txn rw-register history once: a check does it five times
// (the readers index's two passes, the initial state's version edges, the
// graph build's two passes of wr edges). On this project's 2-core guest,
// filling the touches without a branch on the micro-op's kind (and
// without appending) took it from 42-43 to 38-39 ns a txn.
func BenchmarkTouchesOf(b *testing.B) {
	h, p := benchTxnHistory(b, rwBenchConfig())
	c, rw := indexedRW(h, p)
	var buf []touch
	reads := 0
	for b.Loop() {
		reads = 0
		for _, r := range c.vrec {
			for _, t := range rw.touchesOf(r, &buf) {
				if t.read >= 0 {
					reads++
				}
			}
		}
	}
	if reads == 0 {
		b.Fatal("no external reads")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.vrec)), "ns/txn")
}
