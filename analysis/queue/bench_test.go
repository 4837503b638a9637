package queue

import (
	"bytes"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// benchHistory generates a history of n op lines with the deterministic
// generator and parses it once.
func benchHistory(b *testing.B, n int, faults []gen.Fault) (*model.History, model.Pairing) {
	b.Helper()
	cfg := gen.Config{Seed: 1, Ops: n, Concurrency: 10, Keys: 8, TxnFraction: 0.2,
		InfoRate: 0.01, FailRate: 0.01, Faults: faults}
	var buf bytes.Buffer
	if _, err := gen.Write(&buf, cfg); err != nil {
		b.Fatal(err)
	}
	h, p := testhist.Read(b, &buf, "bench.edn")
	return h, p
}

// BenchmarkCheck measures the queue analysis alone (no parsing) on a
// generated 200k-op history, reporting ops/s.
func BenchmarkCheck(b *testing.B) {
	h, p := benchHistory(b, 200_000, nil)
	opts := DefaultOptions()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res := Check(h, p, opts)
		if res.Verdict != 0 {
			b.Fatalf("generated history is %v: %v", res.Verdict, res.AnomalyTypes)
		}
	}
	b.ReportMetric(float64(len(h.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkCheckWWDepsSeries adds write-write edges and the report's
// series.
func BenchmarkCheckWWDepsSeries(b *testing.B) {
	h, p := benchHistory(b, 200_000, nil)
	opts := DefaultOptions()
	opts.WWDeps, opts.Series = true, true
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Check(h, p, opts)
	}
	b.ReportMetric(float64(len(h.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkLag measures the realtime lag and stalls alone (lagAndStalls)
// on a generated 200k-op history, with the keys in one part and in one
// part per core.
func BenchmarkLag(b *testing.B) {
	h, p := benchHistory(b, 200_000, nil)
	c := check(h, p, DefaultOptions())
	for _, parts := range []int{1, 0} {
		b.Run(map[int]string{1: "one-part", 0: "part-per-core"}[parts], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				opts := c.opts
				opts.Cores = parts
				c2 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs, procIDs: c.procIDs}
				c2.lagAndStalls()
			}
			b.ReportMetric(float64(len(h.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}
