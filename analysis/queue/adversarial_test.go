package queue

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/scaling"
)

// TestAdversarialAllocs checks each adversarial history of
// BenchmarkAdversarial at n and 10n, with write-write edges and the
// series on, and requires the bytes allocated by the check to grow at
// most 12-fold (a quadratic check grows about 100-fold).
func TestAdversarialAllocs(t *testing.T) { scaling.AllocGrowth(t, cases(), 300) }

// TestSkippedCapped checks that a poll-skip over many values lists the
// first MaxSkipped of them and counts them all in SkippedCount.
func TestSkippedCapped(t *testing.T) {
	a := scaling.Find(t, cases(), "poll-skip-back-and-forth")
	const n = 100
	h, p := a.Read(t, n)
	res := Check(h, p, DefaultOptions())
	a.Verify(t, res)
	ins := analysis.InstancesOf[*Instance](res, PollSkip)
	if len(ins) == 0 {
		t.Fatal("no poll-skip")
	}
	for _, in := range ins {
		if len(in.Skipped) != MaxSkipped || in.SkippedCount == nil || *in.SkippedCount != n-2 {
			t.Fatalf("skipped %d values, count %v; want %d listed of %d", len(in.Skipped), in.SkippedCount, MaxSkipped, n-2)
		}
		if got := in.Skipped[0].String(); got != "1" {
			t.Fatalf("first skipped value %s, want 1", got)
		}
		if got, want := skippedVals(in), "1, 2, 3, 4, 5, 6, 7, 8, … (90 more)"; got != want {
			t.Fatalf("skipped worded %q, want %q", got, want)
		}
	}
}
