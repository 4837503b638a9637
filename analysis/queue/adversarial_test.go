package queue

import (
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/scaling"
)

// TestAdversarialAllocs checks each adversarial history of
// BenchmarkAdversarial at n and 10n, with write-write edges and the
// series on, and requires the bytes allocated by the check to grow at
// most 12-fold (a quadratic check grows about 100-fold).
func TestAdversarialAllocs(t *testing.T) {
	const n = 300
	for i := range adversarials {
		a := &adversarials[i]
		t.Run(a.name, func(t *testing.T) {
			var bytes [2]uint64
			for j, size := range []int{n, 10 * n} {
				h, p := a.read(t, size)
				opts := DefaultOptions()
				opts.WWDeps, opts.Series = true, true
				var res *analysis.Result
				bytes[j] = scaling.Allocated(func() { res = Check(h, p, opts) })
				a.verify(t, res)
			}
			if ratio := float64(bytes[1]) / float64(bytes[0]); ratio > scaling.MaxGrowth {
				t.Errorf("n=%d: %d bytes, n=%d: %d bytes: %.1f-fold, want at most 12", n, bytes[0], 10*n, bytes[1], ratio)
			}
		})
	}
}

// TestSkippedCapped checks that a poll-skip over many values lists the
// first MaxSkipped of them and counts them all in SkippedCount.
func TestSkippedCapped(t *testing.T) {
	a := &adversarials[0]
	for i := range adversarials {
		if adversarials[i].name == "poll-skip-back-and-forth" {
			a = &adversarials[i]
		}
	}
	const n = 100
	h, p := a.read(t, n)
	res := Check(h, p, DefaultOptions())
	a.verify(t, res)
	ins := res.Anomalies[PollSkip]
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
		if got, want := skippedVals(&in), "1, 2, 3, 4, 5, 6, 7, 8, … (90 more)"; got != want {
			t.Fatalf("skipped worded %q, want %q", got, want)
		}
	}
}
