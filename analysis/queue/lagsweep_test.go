package queue

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// sweepOf runs the sweep alone on a fresh checker of h, with the keys in
// parts parts (0: as many as a check takes), and reports whether it
// finished within its budget.
func sweepOf(h *model.History, p model.Pairing, opts Options, parts int) (*analysis.Result, bool) {
	c := check(h, p, opts)
	c2 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs, procIDs: c.procIDs}
	if parts == 0 {
		parts = c2.sweepPartCount()
	}
	ok := c2.lagBySweep(max(1, min(parts, len(h.Keys))))
	return c2.res, ok
}

// withSweepBudget runs f with the sweep's budget replaced by budget.
func withSweepBudget(budget int64, f func()) {
	defer setSweepBudget(budget)()
	f()
}

// setSweepBudget replaces the sweep's budget by budget until the function
// it returns is called.
func setSweepBudget(budget int64) func() {
	old := sweepBudget
	sweepBudget = func(int) int64 { return budget }
	return func() { sweepBudget = old }
}

// TestLagSweep compares the sweep (lagsweep.go) with lag.go and with the
// explicit walk of refLagAndStalls on the cases of TestLagReference (other
// seeds), with the series off as in a check and on as in a report: the
// worst lag and the stalled-consumer instances must be identical to
// both, the series the reference's with samples inside runs left out
// (sameLag), and the whole result the same, series included, in one part
// and in three.
func TestLagSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	stalls, points, refPoints := 0, 0, 0
	for i := range 600 {
		h, p, opts := lagCase(t, rng, i)
		for _, series := range []bool{false, true} {
			opts.Series = series
			var viaLag *analysis.Result
			withSweepBudget(-1, func() { viaLag = lagOf(h, p, opts, false) }) // the sweep gives up at once
			ref := lagOf(h, p, opts, true)
			one := ""
			for _, parts := range []int{1, 3} {
				got, ok := sweepOf(h, p, opts, parts)
				name := fmt.Sprintf("history %d, series %v, %d parts", i, series, parts)
				if !ok {
					t.Fatalf("%s: the sweep passed its budget", name)
				}
				sameLag(t, name, got, ref)
				sameStalls(t, name+", against lag.go", got, viaLag)
				if j := lagJSON(t, got); one == "" {
					one = j
				} else if j != one {
					t.Fatalf("%s:\n got %.1000s\none part's %.1000s", name, j, one)
				}
				if series && parts == 1 {
					points += got.Series.Lag.Len()
					refPoints += ref.Series.Lag.Len()
				}
			}
			if !series {
				stalls += len(ref.Anomalies[StalledConsumer])
			}
		}
	}
	if stalls == 0 {
		t.Fatal("no case had a stalled consumer: the comparison says nothing of stalls")
	}
	if points >= refPoints {
		t.Fatalf("the sweep's series kept %d samples of the reference's %d: no run was shortened", points, refPoints)
	}
	t.Logf("%d stalls; the series kept %d of the reference's %d samples", stalls, points, refPoints)
}

// TestLagSweepBudget: a consumer that holds many keys and polls often
// makes the sweep pass its budget; it then reports nothing, and a check
// gets lag.go's result, the same as with no budget.
func TestLagSweepBudget(t *testing.T) {
	const keys, polls = 300, 200
	var ops []string
	add := func(format string, args ...any) {
		ops = append(ops, fmt.Sprintf("{:index %d, "+format+"}", append([]any{len(ops)}, args...)...))
	}
	assigned := ""
	for k := range keys {
		assigned += fmt.Sprintf(" %d", k)
	}
	add(":time 1, :type :invoke, :process 0, :f :assign, :value [%s]", assigned)
	add(":time 2, :type :ok, :process 0, :f :assign, :value [%s]", assigned)
	for k := range keys {
		add(":time %d, :type :invoke, :process 1, :f :send, :value [[:send %d %d]]", 10+2*k, k, k)
		add(":time %d, :type :ok, :process 1, :f :send, :value [[:send %d [0 %d]]]", 11+2*k, k, k)
	}
	for i := range polls {
		tm := 1_000_000 + 1_000_000_000*int64(i)
		add(":time %d, :type :invoke, :process 0, :f :poll, :value [[:poll]]", tm)
		add(":time %d, :type :ok, :process 0, :f :poll, :value [[:poll {}]]", tm+1)
	}
	h, p := testhist.Read(t, strings.NewReader(strings.Join(ops, "\n")+"\n"), "sweep-budget.edn")
	opts := DefaultOptions()
	var want *analysis.Result
	withSweepBudget(int64(keys*polls)*4, func() {
		res, ok := sweepOf(h, p, opts, 1)
		if !ok {
			t.Fatal("the sweep gave up within a budget of four visits a key a poll")
		}
		want = res
	})
	if len(want.Anomalies[StalledConsumer]) != keys {
		t.Fatalf("%d stalled consumers, want one a key (%d)", len(want.Anomalies[StalledConsumer]), keys)
	}
	withSweepBudget(int64(keys*polls)/2, func() {
		res, ok := sweepOf(h, p, opts, 2)
		if ok {
			t.Fatal("the sweep finished past its budget")
		}
		if res.Anomalies != nil || res.Stats.Own != nil {
			t.Fatalf("a sweep that gave up reported %v, %+v", res.Anomalies, res.Stats.Own)
		}
		got := lagOf(h, p, opts, false)
		if gj, wj := lagJSON(t, got), lagJSON(t, want); gj != wj {
			t.Fatalf("lag.go after the sweep gave up:\n got %.1000s\nwant %.1000s", gj, wj)
		}
	})
}
