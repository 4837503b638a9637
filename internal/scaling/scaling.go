// Package scaling holds what the adversarial benchmarks and allocation
// tests of the analysis packages share: measuring a check at n and 10n on
// a busy machine, and the bytes a call allocates. A check that is
// O(n log n) in its input grows about 10-fold from n to 10n; a quadratic
// one about 100-fold (issue 17's bound is 12).
package scaling

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/internal/cputime"
)

// MaxGrowth is the most a cost may grow from n to 10n for an O(n log n)
// check at the sizes the benchmarks use.
const MaxGrowth = 12

// Allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc,
// deterministic enough to compare sizes; not a time).
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Ratio times run(0) (the input of size n) and run(1) (size 10n),
// interleaved, rounds times each, every run after a garbage collection and
// with the collector off while it runs (its concurrent workers compete with
// every other process for the cores, which made one history's ratio swing
// from 6 to 17 between runs). It reports the fastest of each (ns/n,
// ns/10n), their ratio (ratio, at most MaxGrowth for O(n log n)), the ratio
// of the fastest CPU times (cpu-ratio, on unix: the time the process held
// a core, which a busy machine disturbs less than wall time), and the
// ratio of bytes allocated (alloc-ratio), which no other process disturbs.
// Run with -benchtime 1x.
func Ratio(b *testing.B, rounds int, run func(size int)) {
	best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
	bestCPU := best
	var bytes [2]uint64
	for b.Loop() {
		for range rounds {
			for j := range best {
				var before, after runtime.MemStats
				runtime.GC()
				gc := debug.SetGCPercent(-1)
				runtime.ReadMemStats(&before)
				start, cpu := time.Now(), cputime.Used()
				run(j)
				d, dc := time.Since(start), cputime.Used()-cpu
				runtime.ReadMemStats(&after)
				debug.SetGCPercent(gc)
				best[j], bestCPU[j] = min(best[j], d), min(bestCPU[j], dc)
				bytes[j] = after.TotalAlloc - before.TotalAlloc
			}
		}
	}
	b.ReportMetric(float64(best[0].Nanoseconds()), "ns/n")
	b.ReportMetric(float64(best[1].Nanoseconds()), "ns/10n")
	b.ReportMetric(float64(best[1])/float64(best[0]), "ratio")
	b.ReportMetric(float64(bytes[1])/float64(bytes[0]), "alloc-ratio")
	if bestCPU[0] > 0 {
		b.ReportMetric(float64(bestCPU[1])/float64(bestCPU[0]), "cpu-ratio")
	}
}
