package abort

import (
	"runtime"

	"golang.org/x/sys/cpu"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// parallelMin is the number of polls from which collect and the topic
// index run on more than one core, and the sweep and the walk side by
// side (the tests lower it).
var parallelMin = 1 << 15

// workers is the number of goroutines collect and indexTopics use for a
// history of n polls.
func workers(n int) int {
	if n < parallelMin {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 4)
}

// progressStep is how many positions of the ops the sweep goes through
// between two reports of its progress to the walk.
const progressStep = 1 << 12

// sweepAndWalk runs the sweep (resume.go) and the walk; on a large
// history, the one beside the other, on a goroutine each. The walk
// pairs a poll at its completion and needs what the sweep gave it at its
// invocation (at its completion, for one without), which is never later:
// the sweep reports every progressStep positions how far it has got, and
// the walk waits until the sweep has passed the op it is at. The result
// does not depend on whether they overlap.
//
// Each runs on one goroutine. Until 2026-12-07 each was split among the
// cores instead, the sweep by topic and the walk by process, one after
// the other; but each share still scanned every op and every poll. On
// the 1M-poll history of bench/bench.sh (HINDSIGHT_PHASES=time), the
// sweep, topic index included, took 104-128 ms so split against 119-121
// on one core, and the walk 104-121 ms against 102; side by side, after
// the topic index (33-34 ms), they take 112-123 ms.
func (c *checker) sweepAndWalk() {
	byPos := make([]int32, len(c.h.Ops)) // 1 + the poll with offsets invoked there
	for k := range c.polls {
		if p := &c.polls[k]; p.hasOffsets() {
			at := p.inv
			if at < 0 {
				at = p.comp
			}
			byPos[at] = int32(k) + 1
		}
	}
	// the walker writes its own copy of the checker all along, while the
	// sweep reads this one: the pad keeps the copy off the cache lines of
	// whatever follows it
	pw := &struct {
		checker
		_ cpu.CacheLinePad
	}{checker: *c}
	w := &pw.checker
	if len(c.polls) < parallelMin {
		c.sweep(byPos, nil)
		w.walk(nil)
	} else {
		// room for every report: the sweep never waits for the walk
		progress := make(chan int, len(byPos)/progressStep+1)
		var g par.Group
		g.Go(func() {
			defer close(progress) // also if it panics: the walk goes on to the end
			c.sweep(byPos, progress)
		})
		// waited for also if the walk panics: the sweep is not left
		// writing the polls of a check that is over
		defer g.Wait()
		w.walk(progress)
	}
	c.counts, c.pairs = w.counts, w.pairs
}

// add reports an instance found at the poll being walked.
func (c *checker) add(typ string, in analysis.Instance) { c.res.Add(typ, in) }

// walk pairs each process's consecutive polls with offsets on one topic
// (docs/abort.md#pairs), types each pair and counts it, and reports polls
// whose offsets do not strictly increase. A crash, or an assign or
// subscribe of another topic, starts the process afresh. progress, when
// not nil, brings the positions of the ops up to which the sweep is done
// (before each, once it is done with it); its closing means the sweep is
// done. O(ops) time.
func (c *checker) walk(progress <-chan int) {
	swept := len(c.h.Ops)
	if progress != nil {
		swept = 0
	}
	var procs model.ByProcess[procState] // a process's state, fresh ({last: -1}) when it has none
	k := 0
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		for k < len(c.polls) && c.polls[k].comp == int32(i) {
			for swept <= i {
				if at, ok := <-progress; ok {
					swept = at
				} else {
					swept = len(c.h.Ops)
				}
			}
			s, isNew := procs.Ref(c.polls[k].proc)
			if isNew {
				s.last = -1
			}
			c.step(s, int32(k))
			k++
		}
		if !op.IsClient() {
			continue
		}
		switch {
		case op.F == model.FCrash:
			procs.Delete(op.Process)
		case (op.F == model.FAssign || op.F == model.FSubscribe) && op.Type == model.OK:
			c.records(int32(i), func(r *model.ExtRec) {
				s, ok := procs.Get(op.Process)
				if r.Kind != recTopic || !ok || s.last < 0 {
					return
				}
				if ks := c.h.ExtKeysOf(r); len(ks) == 1 && ks[0] != c.polls[s.last].topic {
					s.last, s.carried = -1, nil
				}
			})
		}
	}
}
