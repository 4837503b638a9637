package abort

import (
	"bytes"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
)

// BenchmarkCheck checks a generated history of about 100,000 polls
// (histgen --workload abort --ops 200000 --after-abort rewind), whose
// pairs make about 20,000 instances under the kafka contract: the
// time and allocations of the check alone, the history read once.
func BenchmarkCheck(b *testing.B) {
	var buf bytes.Buffer
	cfg := gen.AbortConfig{Seed: 11, Ops: 200_000, Concurrency: 10, Topics: 10, AbortRate: gen.DefaultAbortRate,
		AfterAbort: gen.AbortRewind, RebalanceRate: 0.05, CrashRate: 0.01, InfoRate: 0.01, MaxPoll: 4}
	if _, err := gen.WriteAbort(&buf, cfg); err != nil {
		b.Fatal(err)
	}
	h, err := ingest.Read(&buf, "bench.edn", opts)
	if err != nil {
		b.Fatal(err)
	}
	p, err := model.Pair(h)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		res := Check(h, p, Options{Contract: ContractKafka})
		n = 0
		for _, ins := range res.Anomalies {
			n += len(ins)
		}
	}
	b.ReportMetric(float64(n), "instances")
}
