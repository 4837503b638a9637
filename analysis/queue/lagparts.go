package queue

import (
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// The realtime lag of one key never depends on another's: a key's
// samples, stalls and index of held positions follow from its own
// acknowledgements and the polls, assignments and positions of the
// processes on it. So lagAndStalls can split the keys into parts (key k
// in part k modulo parts) and walk the whole history once per part, on
// cores of their own, each part sampling only its keys. The polls it
// samples at, per process, are listed once beforehand (lagPolls) and
// shared, read only; each part updates the ackLogs of its keys in its own
// copy of their headers (lagPart). The parts' findings are then merged in
// orders that do not depend on the parts: the series by poll and key
// (comparePoints is total), closed stalls by poll and key (one process
// polls at a poll), open stalls by process and key, and the worst lag by
// worstLag.offer's total order. So the result is the same for any number
// of parts (TestLagParts).
//
// The parts cost CPU, since each walks all the ops: on bench/bench.sh's
// 1.39M-op history two parts took 1.07 CPU-seconds where one took 0.76
// (profiles). They pay for it on two cores, with the cycle search on its
// own goroutine: that check went from 1.70 to 1.56 s and from 1.69 to
// 1.54 s (medians of six runs by bench/ab.sh), with peak RSS 384 against
// 383 MB and 390 against 381 MB (one earlier set of six gave 372 against
// 388: this machine's spread); the crash-heavy history gained 5 %.

// mine reports whether this state samples key k.
func (ls *lagState) mine(k model.KeyID) bool {
	return ls.parts <= 1 || lagOwner(k, ls.parts) == ls.part
}

// lagOwner is the part that samples key k when the keys are split into
// parts parts.
func lagOwner(k model.KeyID, parts int) int { return int(k) % parts }

// reportLag puts the lag samples in the series (by poll, then key), with
// Options.Series, and the worst lag in the statistics.
func (c *checker) reportLag(states []*lagState) {
	if c.opts.Series {
		series := make([]*analysis.Points[seriesPoint], len(states))
		for i, ls := range states {
			series[i] = &ls.series
		}
		ev := c.events() // made by lagAndStalls: the rec of each poll's position
		analysis.DrainAll(series, comparePoints, func(s seriesPoint) {
			r := &c.recs[ev[s.hp]]
			c.res.Series.Lag.Append(analysis.LagPoint{Time: c.h.Time(int(s.hp)), OpIndex: c.idx(r.comp),
				Process: c.procIDs[r.proc], Key: s.key, LagNS: s.lag})
		})
	}
	var w worstLag
	for _, ls := range states {
		if ls.worst.anything {
			w.offer(ls.worst)
		}
	}
	if w.anything {
		st := analysis.OwnStats[Stats](c.res)
		st.WorstLagS = float64(w.lag) / 1e9
		st.WorstLagProcess = analysis.IntPtr(int64(w.proc))
		st.WorstLagKey = c.keyVal(w.key)
		st.WorstLagOp = analysis.IntPtr(w.opIndex)
	}
}

// lagPoll returns the micro-ops of the completion of rec ri, whose
// invocation is at position hp, when the lag samples there: when ri is an
// ok poll or txn that polled and its invocation has a time.
func (c *checker) lagPoll(hp, ri int32) ([]model.Mop, bool) {
	if ri < 0 || c.recs[ri].typ != model.OK || c.h.Time(int(hp)) == model.NoTime {
		return nil, false
	}
	comp := c.op(c.recs[ri].comp)
	if comp.F != model.FPoll && comp.F != model.FTxn {
		return nil, false
	}
	mops := c.h.MopsOf(comp)
	return mops, hasPoll(mops)
}

// lagPolls lists the polls the lag samples at (lagPoll), per process:
// those of dense process p are polls[start[p]:start[p+1]], in history
// order. ev is c.events().
func (c *checker) lagPolls(ev []int32) (polls []lagPollRec, start []int32) {
	start = make([]int32, len(c.procIDs)+1)
	each := func(f func(p int32, r lagPollRec)) {
		for i := range c.h.Ops {
			op := &c.h.Ops[i]
			ri := ev[i]
			if op.Type != model.Invoke || !op.IsClient() || ri < 0 {
				continue
			}
			if _, ok := c.lagPoll(int32(i), ri); ok {
				r := &c.recs[ri]
				f(r.proc, lagPollRec{time: c.h.Time(i), opIndex: c.idx(r.comp), hp: int32(i), rec: ri})
			}
		}
	}
	each(func(p int32, _ lagPollRec) { start[p+1]++ })
	for p := range c.procIDs {
		start[p+1] += start[p]
	}
	polls = make([]lagPollRec, start[len(c.procIDs)])
	fill := slices.Clone(start)
	each(func(p int32, r lagPollRec) {
		polls[fill[p]] = r
		fill[p]++
	})
	return polls, start
}
