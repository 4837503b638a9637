package scaling

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// Case is an adversarial history of a workload: shaped to make one check
// super-linear if it were (one huge read, one huge transaction, one key
// written n times, one process with n ops ...). Each is checked at n and
// 10n by the benchmarks (time) and by AllocGrowth (bytes), which must grow
// about tenfold.
type Case struct {
	Name string
	// Gen writes the history of size n.
	Gen func(n int) *testhist.Lines
	// Check checks a history as the benchmarks measure it.
	Check func(h *model.History, p model.Pairing) *analysis.Result
	// Want and Types are the verdict and the anomaly types the history
	// must give, so that a benchmark measures the check it means to.
	Want  analysis.Verdict
	Types []string
}

// Read parses the case's history of size n.
func (c *Case) Read(tb testing.TB, n int) (*model.History, model.Pairing) {
	tb.Helper()
	return testhist.Read(tb, bytes.NewReader(c.Gen(n).Bytes()), c.Name+".edn")
}

// Verify fails when res is not what the history is built to give.
func (c *Case) Verify(tb testing.TB, res *analysis.Result) {
	tb.Helper()
	if res.Verdict != c.Want || strings.Join(res.AnomalyTypes, " ") != strings.Join(c.Types, " ") {
		tb.Fatalf("%s: %v %v (%v), want %v %v", c.Name, res.Verdict, res.AnomalyTypes, res.UnknownReasons, c.Want, c.Types)
	}
}

// Find returns the case named name; it fails tb when there is none.
func Find(tb testing.TB, cases []Case, name string) *Case {
	tb.Helper()
	for i := range cases {
		if cases[i].Name == name {
			return &cases[i]
		}
	}
	tb.Fatalf("no adversarial history %q", name)
	return nil
}

// Bench checks each case at n = 10,000 and 100,000 (parsing excluded):
// time(10n)/time(n) must stay near 10 (at most MaxGrowth).
func Bench(b *testing.B, cases []Case) {
	for i := range cases {
		c := &cases[i]
		b.Run(c.Name, func(b *testing.B) {
			for _, n := range []int{10_000, 100_000} {
				b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
					h, p := c.Read(b, n)
					runtime.GC() // the parser's garbage is not the check's
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						c.Verify(b, c.Check(h, p))
					}
				})
			}
		})
	}
}

// BenchRatio is Bench made to resist a busy machine: each case at n =
// 10,000 and 10n, interleaved, the fastest of five rounds each with the
// collector off, and the ratios of wall time, CPU time and bytes
// allocated (Ratio). Run with -benchtime 1x.
func BenchRatio(b *testing.B, cases []Case) {
	const n, rounds = 10_000, 5
	for i := range cases {
		c := &cases[i]
		b.Run(c.Name, func(b *testing.B) {
			var h [2]*model.History
			var p [2]model.Pairing
			for j, size := range []int{n, 10 * n} {
				h[j], p[j] = c.Read(b, size)
			}
			var res [2]*analysis.Result
			Ratio(b, rounds, func(j int) { res[j] = c.Check(h[j], p[j]) })
			for j := range res {
				c.Verify(b, res[j])
			}
		})
	}
}

// AllocGrowth checks each case at n and 10n and fails when the bytes its
// check allocates grow more than MaxGrowth-fold (a check quadratic in the
// shape the case stresses grows about 100-fold).
func AllocGrowth(t *testing.T, cases []Case, n int) {
	for i := range cases {
		c := &cases[i]
		t.Run(c.Name, func(t *testing.T) {
			var alloc [2]uint64
			for j, size := range []int{n, 10 * n} {
				h, p := c.Read(t, size)
				var res *analysis.Result
				alloc[j] = Allocated(func() { res = c.Check(h, p) })
				c.Verify(t, res)
			}
			if ratio := float64(alloc[1]) / float64(alloc[0]); ratio > MaxGrowth {
				t.Errorf("n=%d: %d bytes, n=%d: %d bytes: %.1f-fold, want at most %d", n, alloc[0], 10*n, alloc[1], ratio, MaxGrowth)
			}
		})
	}
}
