package txn

import (
	"bytes"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/ingest"
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
	h, err := ingest.Read(&buf, "bench.edn", ingest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := model.Pair(h)
	if err != nil {
		b.Fatal(err)
	}
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
