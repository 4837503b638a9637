package queue

import (
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// The realtime lag by sweep. lag.go samples a key explicitly only where
// its state may have changed, and accounts for the polls in between at
// once, so that its cost does not grow with the keys a consumer holds
// times its polls. On the histories consumers usually make, a dozen keys
// held per consumer, that bookkeeping costs more than it saves: sampling
// every held key at every poll, as the definition reads (docs/queue.md,
// stalled-consumer), took 0.39 s of one core on bench/bench.sh's 1.39M-op
// history where lag.go took 0.49 s on two (about 0.9 CPU-seconds; 0.57
// and 0.63 s on the crash-heavy one), and the whole check, 1.47 s, spent
// a third of its CPU in lag.go.
//
// So the lag first sweeps: it walks the history as lag.go does, the keys
// in parts as lag.go splits them (lagparts.go; one part per four cores,
// sweepPartCount), and samples every key a process holds at each of its
// ok polls, giving the worst lag and the stalled-consumer instances
// lag.go gives (TestLagSweep compares them, and TestLagReference compares
// lag.go with the same definition). With the series (the HTML report's
// charts) it keeps, as lag.go does, only the two ends of each run of
// samples whose lags lie on one line (sweepPoint). Its cost is the keys
// it visits, which a consumer holding many keys and polling often makes
// quadratic; so it gives up past sweepBudget visits, a budget linear in
// the history, and lag.go runs instead. Either way the cost is
// O((ops + reads) log n).

// sweepVisitsPerOp is the sweep's budget: the keys it may visit (at a
// poll, those the poll lists and those the process holds; at an assign,
// those the process has an entry for) per op of the history, in each
// part. The histories of bench/bench.sh visit 4.9 a part per op (the 280k-
// and 1.39M-op ones: a poll lists a few keys, a consumer holds a dozen)
// and 9.6 (the crash-heavy one: every poll lists all sixteen keys); a
// consumer holding n keys and polling n times visits n² and gives up as
// soon as that passes the budget.
const sweepVisitsPerOp = 24

// sweepSlackOps is the ops' worth of visits a sweep may spend ahead of
// the ops it has walked (spend in sweepPart): the start of a history may
// poll more densely than the whole.
const sweepSlackOps = 1 << 14

// sweepPartCount is how many parts a sweep splits the keys into: one per
// four cores. Each part walks the whole history and every key a poll
// lists or a process holds, taking its own, so two parts cost half as
// much CPU again as one; the check's other groups of checks keep the
// other cores busy meanwhile (check.go). On two cores one part took
// bench/bench.sh's 1.39M-op history from 1.58 to 1.49 s and the
// crash-heavy one from 2.17 to 2.10 s against one part per core
// (bench/ab.sh, medians of eight runs, 2026-12-07); more cores were not
// measured.
func (c *checker) sweepPartCount() int { return max(1, (c.lagPartCount()+3)/4) }

// sweepBudget is the most keys a sweep of a history of ops ops visits; it
// gives up before a poll or assign that would visit more. The tests
// replace it.
var sweepBudget = func(ops int) int64 { return sweepVisitsPerOp * int64(ops) }

// lagBySweep computes the realtime lag (its series with Options.Series),
// the worst lag and stalled-consumer as lagAndStalls does, by sweep, with
// the keys in parts parts (of lag.go's split, lagparts.go); false, with
// nothing reported, when a part of the sweep passed the budget.
func (c *checker) lagBySweep(parts int) bool {
	ev, acks := c.events(), c.ackLogs()
	budget := sweepBudget(len(c.h.Ops))
	states := make([]*lagState, parts)
	var over atomic.Bool
	par.Each(parts, parts, func() func(int) {
		return func(part int) {
			states[part] = c.sweepPart(ev, acks, part, parts, budget, &over)
		}
	})
	if over.Load() {
		return false
	}
	for k, i := range acks.at {
		if i > 0 {
			acks.logs[i] = states[lagOwner(model.KeyID(k), parts)].acks.logs[i] // as its sweep left it
		}
	}
	c.reportLag(states)
	c.reportStalls(states, acks)
	return true
}

// sweep is one part's sweep: its lagState (lag.go's, of which it uses
// the per-process entries, the ackLogs, the stamps, the worst lag, the
// closed stalls and the series) and its budget.
type sweep struct {
	ls      *lagState
	budget  int64
	visits  int64
	over    *atomic.Bool // set by the first part to give up
	stopped bool         // this part has seen over set
	keys    []model.KeyID
}

// sweepPart sweeps the keys of one part (those whose number is part
// modulo parts), with its own copy of the ackLogs' headers as lagPart
// has, and stops, setting over, before a poll or assign that would take
// its visits past budget, or once another part has.
func (c *checker) sweepPart(ev []int32, acks keyAcks, part, parts int, budget int64, over *atomic.Bool) *lagState {
	nk := len(c.h.Keys)
	ls := &lagState{c: c, nk: nk, acks: keyAcks{at: acks.at, logs: slices.Clone(acks.logs)}, procs: make([]lagProc, len(c.procIDs)),
		inPoll: make([]uint32, nk), inAssign: make([]uint32, nk), part: part, parts: parts}
	s := &sweep{ls: ls, budget: budget, over: over}
	c.lagEvents(ev, s.poll, s.assign, s.acknowledge)
	if c.opts.Series && !s.stopped {
		for p := range ls.procs {
			for j := range ls.procs[p].keys {
				if e := &ls.procs[p].keys[j]; e.hasPending {
					ls.series.Append(seriesPoint{hp: e.pendingHP, key: e.key, lag: e.pendingLag})
				}
			}
		}
	}
	return ls
}

// spend counts n visits at the op at position pos, and gives up when they
// pass the budget, or the budget's share of the ops walked so far (with
// sweepSlackOps of slack): a consumer that holds many keys gives up at its
// first polls, not after a budget's worth of them. It reports whether the
// sweep goes on.
func (s *sweep) spend(n int, pos int32) bool {
	s.visits += int64(n)
	if s.visits > s.budget || s.visits > sweepVisitsPerOp*(int64(pos)+sweepSlackOps) {
		s.over.Store(true)
	}
	s.stopped = s.over.Load()
	return !s.stopped
}

// poll samples, at the invocation op (position hp) of rec ri, when it is
// an ok poll or txn that polled and has a time, every key of the part
// its process holds or the poll lists, after moving the positions the
// poll read.
func (s *sweep) poll(hp int32, op *model.Op, ri int32) {
	ls := s.ls
	c := ls.c
	if s.stopped {
		return
	}
	mops, ok := c.lagPoll(hp, ri)
	if !ok {
		return
	}
	lp := &ls.procs[c.recs[ri].proc]
	// the keys it visits: those the poll lists, and those it holds
	cost := 0
	for mi := range mops {
		if mops[mi].Kind == model.MopPoll {
			cost += len(c.h.PollsOf(&mops[mi]))
		}
	}
	if lp.hasAssign {
		cost += len(lp.assigned)
	} else {
		cost += len(lp.keys)
	}
	if !s.spend(cost, hp) {
		return
	}
	s.keys = s.keys[:0]
	ls.stamp++
	for mi := range mops {
		if mops[mi].Kind == model.MopPoll {
			s.readPolled(lp, c.h.PollsOf(&mops[mi]))
		}
	}
	// the keys it holds: those assigned, or before any assign those it
	// has a position on
	if lp.hasAssign {
		for _, k := range lp.assigned {
			if ls.mine(k) {
				s.take(k)
			}
		}
	} else {
		for j := range lp.keys {
			if lp.keys[j].hasPos {
				s.take(lp.keys[j].key)
			}
		}
	}
	t := c.h.Time(int(hp))
	pr := lagPollRec{time: t, opIndex: c.idx(c.recs[ri].comp), hp: hp, rec: ri}
	lp.n++
	back := lp.n > 1 && t < lp.prevTime // the time went back: every run ends
	for _, k := range s.keys {
		ls.sweepSample(lp, &pr, op.Process, k, back)
	}
	lp.prevTime = t
}

// take adds key k to the keys sampled at the current poll, once.
func (s *sweep) take(k model.KeyID) {
	if s.ls.inPoll[k] != s.ls.stamp {
		s.ls.inPoll[k] = s.ls.stamp
		s.keys = append(s.keys, k)
	}
}

// readPolled takes the part's keys of a poll's result kps and moves the
// position of each it read; a new position ends the key's run.
func (s *sweep) readPolled(lp *lagProc, kps []model.KeyPoll) {
	ls := s.ls
	for j := range kps {
		k := kps[j].Key
		if !ls.mine(k) {
			continue
		}
		s.take(k)
		if rs := ls.c.h.ReadsOf(&kps[j]); len(rs) > 0 {
			e := &lp.keys[lp.entry(k, ls.nk)]
			pos := rs[len(rs)-1].Offset()
			e.inRun = e.inRun && e.hasPos && e.pos == pos
			e.pos, e.hasPos = pos, true
		}
	}
}

// assign applies the ok or info assign or subscribe op (rec ri) to its
// process: the keys it names are those it holds from now on, and it
// keeps its positions on those only.
func (s *sweep) assign(ri int32, _ *model.Op) {
	ls, c := s.ls, s.ls.c
	lp := &ls.procs[c.recs[ri].proc]
	if s.stopped || !s.spend(len(lp.keys), c.recs[ri].comp) {
		return
	}
	lp.hasAssign = true
	lp.assigned = c.h.KeysOf(int(c.recs[ri].comp))
	ls.astamp++
	for _, k := range lp.assigned {
		ls.inAssign[k] = ls.astamp
	}
	for j := range lp.keys {
		if e := &lp.keys[j]; e.hasPos && ls.inAssign[e.key] != ls.astamp {
			e.hasPos, e.inRun = false, false
		}
	}
}

// acknowledge adds the offsets the ok send or txn op (rec ri)
// acknowledged, of the part's keys, to their keys' ackLogs, at its
// completion time.
func (s *sweep) acknowledge(ri int32, op *model.Op) {
	ls, c := s.ls, s.ls.c
	t := c.h.Time(int(c.recs[ri].comp))
	if s.stopped || op.Type != model.OK || t == model.NoTime {
		return
	}
	mops := c.h.MopsOf(op)
	for i := range mops {
		if m := &mops[i]; acknowledges(m) && ls.mine(m.Key) {
			ls.acks.of(m.Key).add(c.h.Offset(m), t, ri)
		}
	}
}

// sweepSample samples key k of process lp (process id proc) at poll pr
// (whose time went back from the process's poll before, when back): its
// lag, offered as the worst, its point in the series, and its stall
// (stallAt), as refLagAndStalls and lagState.sample have them.
func (ls *lagState) sweepSample(lp *lagProc, pr *lagPollRec, proc int32, k model.KeyID, back bool) {
	pos := int64(-1)
	var e *lagKey
	if i := lp.get(k, ls.nk); i >= 0 {
		e = &lp.keys[i]
		if e.hasPos {
			pos = e.pos
		}
	}
	a := ls.acks.of(k)
	aj := a.next(pos, -1)
	lag, ackTime := int64(0), int64(0)
	if aj >= 0 {
		ackTime = a.times[aj]
		lag = pr.time - ackTime
	}
	ls.candidate(lag, pr, proc, k)
	if ls.c.opts.Series {
		if e == nil {
			e = &lp.keys[lp.entry(k, ls.nk)]
		}
		ls.sweepPoint(lp, e, pr, aj, ackTime, lag, back)
	}
	if e == nil && lag > 0 {
		e = &lp.keys[lp.entry(k, ls.nk)] // a stall opens
	}
	if e != nil {
		ls.stallAt(e, pr, proc, pos, a, aj, lag)
	}
}

// sweepPoint puts the sample of entry e of process lp at poll pr (its
// next acknowledged offset's index aj and time ackTime, its lag) in the
// series, with Options.Series, keeping of each run of samples only its
// first and its last: a run is samples of the entry at consecutive polls
// of the process, at nondecreasing times, with the same position and
// next acknowledgement, whose lags lie on one line in the poll's time
// (the same runs lag.go accounts for at once), so the samples inside it
// say nothing the two ends do not. The last stays pending until the run
// ends, or the sweep does (sweepPart). back: the poll's time went back.
func (ls *lagState) sweepPoint(lp *lagProc, e *lagKey, pr *lagPollRec, aj int, ackTime, lag int64, back bool) {
	if e.inRun && e.last == lp.n-2 && !back && e.aj == aj && e.ackTime == ackTime {
		e.pendingHP, e.pendingLag, e.hasPending = pr.hp, lag, true // the run goes on
	} else {
		if e.hasPending {
			ls.series.Append(seriesPoint{hp: e.pendingHP, key: e.key, lag: e.pendingLag})
		}
		ls.series.Append(seriesPoint{hp: pr.hp, key: e.key, lag: lag})
		e.hasPending = false
	}
	e.last, e.aj, e.ackTime, e.inRun = lp.n-1, aj, ackTime, true
}
