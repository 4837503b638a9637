package abort

import (
	"runtime"
	"slices"

	"golang.org/x/sys/cpu"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// found is an instance a walker found at poll at, to be added to the
// result in the order a single walk adds them.
type found struct {
	at  int32
	typ string
	in  analysis.Instance
}

// walkersMin is the number of polls from which the walk runs on more
// than one core (the tests lower it).
var walkersMin = 1 << 15

// walkers is the number of walkers for a history of n polls.
func walkers(n int) int {
	if n < walkersMin {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 4)
}

// walk pairs each process's consecutive polls with offsets on one topic
// (docs/abort.md#pairs), types each pair and counts it, and reports polls
// whose offsets do not strictly increase. A crash, or an assign or
// subscribe of another topic, starts the process afresh.
//
// Processes are independent: on a large history, walkers (copies of the
// checker with counts, slabs and findings of their own) walk a share of
// the processes each, in parallel, and their findings are then added to
// the result in the order of the polls they were found at, the order a
// single walk adds them: the result does not depend on the number of
// walkers. O(walkers · ops) time; each walker's is O(ops / walkers) but
// for the scan of the ops.
func (c *checker) walk() {
	n := walkers(len(c.polls))
	// a walker's findings: room for about one instance in four polls
	room := len(c.polls)/(4*n) + 16
	ws := make([]*checker, n)
	var g par.Group
	for j := range ws {
		// a walker writes its own copy of the checker all along: the pad
		// keeps two copies off one cache line
		pw := &struct {
			checker
			_ cpu.CacheLinePad
		}{checker: *c}
		w := &pw.checker
		w.part, w.parts = uint32(j), uint32(n)
		w.insts, w.words, w.keyVals, w.found = nil, nil, nil, make([]found, 0, room)
		w.counts, w.pairs = [3][4][2]int64{}, 0
		ws[j] = w
		g.Go(w.walkPart)
	}
	g.Wait()
	// merge: each walker's findings are in poll order; each type's list
	// is sized first
	sizes := map[string]int{}
	for _, w := range ws {
		for _, f := range w.found {
			sizes[f.typ]++
		}
	}
	if len(sizes) > 0 && c.res.Anomalies == nil {
		c.res.Anomalies = make(map[string][]analysis.Instance, len(sizes))
	}
	for typ, k := range sizes {
		c.res.Anomalies[typ] = slices.Grow(c.res.Anomalies[typ], k)
	}
	next := make([]int, n)
	for {
		best := -1
		for j, w := range ws {
			if next[j] < len(w.found) && (best < 0 || w.found[next[j]].at < ws[best].found[next[best]].at) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		f := ws[best].found[next[best]]
		ws[best].found[next[best]] = found{}
		next[best]++
		c.res.Add(f.typ, f.in)
	}
	for _, w := range ws {
		c.pairs += w.pairs
		for o := range c.counts {
			for k := range c.counts[o] {
				for r := range c.counts[o][k] {
					c.counts[o][k][r] += w.counts[o][k][r]
				}
			}
		}
	}
}

// walks reports whether the walker walks process p.
func (c *checker) walks(p int32) bool { return uint32(p)%c.parts == c.part }

// add keeps an instance found at the poll being walked.
func (c *checker) add(typ string, in analysis.Instance) {
	c.found = append(c.found, found{at: c.at, typ: typ, in: in})
}

// walkPart is the walk of the walker's processes.
func (c *checker) walkPart() {
	procs := map[int32]*procState{}
	state := func(p int32) *procState {
		s := procs[p]
		if s == nil {
			s = &procState{last: -1}
			procs[p] = s
		}
		return s
	}
	k := 0
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		for k < len(c.polls) && c.polls[k].comp == int32(i) {
			if p := c.polls[k].proc; c.walks(p) {
				c.at = int32(k)
				c.step(state(p), int32(k))
			}
			k++
		}
		if !op.IsClient() || !c.walks(op.Process) {
			continue
		}
		switch {
		case op.F == model.FCrash:
			delete(procs, op.Process)
		case (op.F == model.FAssign || op.F == model.FSubscribe) && op.Type == model.OK:
			c.records(int32(i), func(r *model.ExtRec) {
				s := procs[op.Process]
				if r.Kind != recTopic || s == nil || s.last < 0 {
					return
				}
				if ks := c.h.ExtKeysOf(r); len(ks) == 1 && ks[0] != c.polls[s.last].topic {
					s.last, s.carried = -1, nil
				}
			})
		}
	}
}
