package queue

import (
	"cmp"
	"runtime"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// The realtime lag (docs/queue.md, realtime lag and stalled-consumer)
// samples, at each ok poll of a process, every key it holds: the keys the
// poll read, and its assigned keys (or, before any assign, every key it
// has a position on), as Jepsen's realtime-lag does. A key's lag at a poll
// is the poll's time minus the acknowledgement time of the first
// acknowledged offset after the process's position, so between two
// changes of that position or of that acknowledgement (its state) a key's
// lag is a line in the poll's time. lagAndStalls takes each sample
// explicitly only where the state may have changed (the keys a poll reads,
// a key newly held, a key whose acknowledgement changed) and accounts for
// the polls in between (a run) at once: the run's worst lag is at its last
// poll, its stall opens at its first poll with a positive lag, and its
// series keeps only the run's first and last samples (the others lie on
// the line between them). That needs a process's poll times to be
// nondecreasing; a process whose are not has every key it holds sampled
// explicitly at each poll from then on, as before.
//
// Cost: O((polls + reads + assigned keys + acks + changed samples) log n),
// where a changed sample is a key, held by a process, whose
// acknowledgement changed between two of that process's polls: each
// acknowledgement finds the held keys it changes through a per-key index
// of positions (lagIndex), a Fenwick tree over the key's offsets. Only
// many consumers holding one key that is acknowledged between each of
// their polls make that more than linear, and then each such sample
// really differs.

// lagPollRec is one ok poll of a process, as the lag samples it.
type lagPollRec struct {
	time, opIndex int64
	hp            int32 // position of its invocation in the history
	rec           int32
}

// lagState is the state of lagAndStalls.
type lagState struct {
	c      *checker
	nk     int
	acks   keyAcks
	procs  []lagProc
	index  []lagIndex // per log of acks
	series analysis.Points[seriesPoint]
	closed []closedStall
	// the nodes of the lagIndex buckets, and room for a bucket's
	// references while acked goes through them
	refs  refPool
	taken []lagRef
	// per key: the stamp of the poll (stamp) that sampled it, of the
	// assign (astamp) that holds it; touched lists the entries one poll
	// samples
	inPoll, inAssign []uint32
	stamp, astamp    uint32
	touched          []int32
	worst            worstLag
	// the keys this state follows: those whose number is part modulo
	// parts (lagparts.go)
	part, parts int
}

// worstLag is the worst lag sample found: its lag, poll (invocation
// position and op index), process and key.
type worstLag struct {
	lag      int64
	hp       int32
	proc     int32
	key      model.KeyID
	opIndex  int64
	anything bool
}

// offer keeps x if it is worse than w: the largest lag, then the earliest
// poll, then the lowest key, as a walk in history order keeping the first
// strictly larger one would find.
func (w *worstLag) offer(x worstLag) {
	if x.lag < 0 {
		return
	}
	if w.anything && (x.lag < w.lag || x.lag == w.lag && (x.hp > w.hp || x.hp == w.hp && x.key > w.key)) {
		return
	}
	*w = x
	w.anything = true
}

// seriesPoint is one series sample, until reportLag puts it in the
// result: the poll (its invocation's position; checker.events has its
// rec), the key and the lag. 16 bytes: bench/bench.sh's crash-heavy
// history has 5.85M of them (94 MB) at its report's peak, in chunks
// (analysis.Points) that never move.
type seriesPoint struct {
	hp  int32
	key model.KeyID
	lag int64
}

// comparePoints orders samples by poll, then key (then lag, so that the
// order is total). It returns at the first field that differs: cmp.Or
// compares them all first, and a report's sort of millions of samples
// spends most of its time here (a 64k-sample sort: 10.6 ms against
// 23.5 ms with cmp.Or).
func comparePoints(a, b seriesPoint) int {
	if a.hp != b.hp {
		return cmp.Compare(a.hp, b.hp)
	}
	if a.key != b.key {
		return cmp.Compare(a.key, b.key)
	}
	return cmp.Compare(a.lag, b.lag)
}

// candidate offers one sample for the worst lag (worstLag.offer).
func (ls *lagState) candidate(lag int64, pr *lagPollRec, proc int32, k model.KeyID) {
	ls.worst.offer(worstLag{lag: lag, hp: pr.hp, proc: proc, key: k, opIndex: pr.opIndex})
}

// point records a series sample.
func (ls *lagState) point(pr *lagPollRec, k model.KeyID, lag int64) {
	if !ls.c.opts.Series {
		return
	}
	ls.series.Append(seriesPoint{hp: pr.hp, key: k, lag: lag})
}

// catchUp accounts for the polls of process p after entry e's last sample
// and before poll upto, during which it was held and its state did not
// change (a run; the process's poll times are nondecreasing over it).
func (ls *lagState) catchUp(p int32, e *lagKey, upto int32) {
	lp := &ls.procs[p]
	a, b := e.last+1, upto-1
	if !e.held || a > b {
		if e.held {
			e.last = max(e.last, upto-1)
		}
		return
	}
	e.last = b
	proc := ls.c.procIDs[p]
	polls := lp.polls[a : b+1]
	lagAt := func(u int) int64 {
		if e.aj < 0 {
			return 0
		}
		return polls[u].time - e.ackTime
	}
	pos := int64(-1)
	if e.hasPos {
		pos = e.pos
	}
	last := len(polls) - 1
	ls.point(&polls[0], e.key, lagAt(0))
	if last > 0 {
		ls.point(&polls[last], e.key, lagAt(last))
	}
	// the worst of the run: at its last poll, first reached at the first
	// poll of the same time
	first := 0
	if e.aj >= 0 {
		first, _ = slices.BinarySearchFunc(polls, polls[last].time, func(x lagPollRec, t int64) int { return cmp.Compare(x.time, t) })
	}
	ls.candidate(lagAt(last), &polls[first], proc, e.key)
	if e.aj < 0 {
		return // lag 0 throughout: a stall open at the last sample was closed there
	}
	// the first poll with a positive lag opens a stall, if none is open
	// (one open at the last sample had a positive lag, which only grows)
	u, _ := slices.BinarySearchFunc(polls, e.ackTime, func(x lagPollRec, t int64) int {
		if x.time <= t {
			return -1
		}
		return 1
	})
	if u > last {
		return
	}
	if !e.inStall {
		e.inStall = true
		e.st = stall{pos: pos, since: polls[u].time, fromRec: polls[u].rec, ackRec: e.ackRec}
	}
	e.st.lastTime, e.st.lastRec = polls[last].time, polls[last].rec
	e.st.polls += last - u + 1
}

// sample takes entry i of process p's sample at its latest poll
// explicitly, after accounting for the run before it.
func (ls *lagState) sample(p, i int32) {
	lp := &ls.procs[p]
	e := &lp.keys[i]
	u := lp.n - 1
	ls.catchUp(p, e, u)
	pr := &lp.polls[u]
	proc := ls.c.procIDs[p]
	pos := int64(-1)
	if e.hasPos {
		pos = e.pos
	}
	a := ls.acks.of(e.key)
	above := -1 // the offsets' first above pos, searched once for both uses
	if e.held {
		above = firstAboveNear(a.offs, pos, int(e.above))
		e.above = int32(above)
	}
	aj := a.next(pos, above)
	lag := int64(0)
	if aj >= 0 {
		lag = pr.time - a.times[aj]
	}
	ls.point(pr, e.key, lag)
	ls.candidate(lag, pr, proc, e.key)
	ls.stallAt(e, pr, proc, pos, a, aj, lag)
	e.last, e.aj = u, aj
	if aj >= 0 {
		e.ackTime, e.ackRec = a.times[aj], a.ops[aj]
	}
	if e.held {
		ls.indexEntry(p, i, above)
	}
}

// lagAndStalls computes realtime lag at every ok poll (kept in the series
// only with Options.Series), the worst lag, and stalled-consumer. It walks
// the history by position, so acks count only before a poll's invocation.
// See the comment at the top of this file for how, and what it costs, and
// lagparts.go for how the keys are shared among the cores. It sweeps
// instead (lagsweep.go) unless that passes a budget linear in the history.
func (c *checker) lagAndStalls() {
	if c.lagBySweep(c.sweepPartCount()) {
		return
	}
	ev, acks := c.events(), c.ackLogs()
	polls, start := c.lagPolls(ev)
	parts := c.lagPartCount()
	states := make([]*lagState, parts)
	par.Each(parts, parts, func() func(int) {
		return func(part int) {
			states[part] = c.lagPart(ev, acks, polls, start, part, parts)
		}
	})
	for k, i := range acks.at {
		if i > 0 {
			acks.logs[i] = states[lagOwner(model.KeyID(k), parts)].acks.logs[i] // as its walk left it
		}
	}
	c.reportLag(states)
	c.reportStalls(states, acks)
}

// lagPartCount is how many parts lagAndStalls splits the keys into: one
// per core it may use (Options.Cores, else GOMAXPROCS; lagparts.go), at
// most one per key.
func (c *checker) lagPartCount() int {
	parts := c.opts.Cores
	if parts <= 0 {
		parts = runtime.GOMAXPROCS(0)
	}
	return max(1, min(parts, len(c.h.Keys)))
}

// lagPart walks the history for the keys of one part: it samples only
// them, and updates only their ackLogs (in its own copy of acks) and
// lagIndexes; the processes' polls (lagPolls) it shares with the other
// parts, read only.
func (c *checker) lagPart(ev []int32, acks keyAcks, polls []lagPollRec, start []int32, part, parts int) *lagState {
	nk := len(c.h.Keys)
	// The part's own copy of the ackLogs' headers: the parts update the
	// counts in them, and a list shared by two cores would have them
	// fight over the cache lines two keys' headers share (it made the
	// parts together barely faster than one).
	ls := &lagState{c: c, nk: nk, acks: keyAcks{at: acks.at, logs: slices.Clone(acks.logs)}, procs: make([]lagProc, len(c.procIDs)),
		index:  make([]lagIndex, len(acks.logs)),
		inPoll: make([]uint32, nk), inAssign: make([]uint32, nk), part: part, parts: parts}
	for p := range ls.procs {
		ls.procs[p].polls = polls[start[p]:start[p+1]:start[p+1]]
	}
	c.lagEvents(ev, ls.poll, ls.assign, ls.acknowledge)
	for p := range ls.procs {
		lp := &ls.procs[p]
		for j := range lp.keys {
			ls.catchUp(int32(p), &lp.keys[j], lp.n)
		}
	}
	return ls
}

// lagEvents walks the client ops in history order, as the lag sees them
// (ev is c.events()): poll at each invocation, with its position and its
// rec (-1 for none); assign at each completed assign or subscribe that did not fail;
// acknowledge at each completed send or txn.
func (c *checker) lagEvents(ev []int32, poll func(hp int32, op *model.Op, ri int32), assign, acknowledge func(ri int32, op *model.Op)) {
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		if !op.IsClient() {
			continue
		}
		if op.Type == model.Invoke {
			poll(int32(i), op, ev[i])
			continue
		}
		ri := ev[i] // a completion: never an open invocation's rec
		if ri < 0 {
			continue
		}
		switch op.F {
		case model.FAssign, model.FSubscribe:
			if op.Type != model.Fail {
				assign(ri, op)
			}
		case model.FSend, model.FTxn:
			acknowledge(ri, op)
		}
	}
}

// poll samples, at the invocation op (history position hp) of rec ri, when
// it is the next of its process's polls that lagPolls listed (an ok poll
// or txn that polled, op with a time: lagPoll), the keys of its process
// whose state may have changed.
func (ls *lagState) poll(hp int32, op *model.Op, ri int32) {
	if ri < 0 {
		return
	}
	c := ls.c
	p := c.recs[ri].proc
	lp := &ls.procs[p]
	if lp.n == int32(len(lp.polls)) || lp.polls[lp.n].hp != hp {
		return // not a poll the lag samples at: lagPolls decided it once
	}
	mops := c.h.MopsOf(c.op(c.recs[ri].comp))
	if n := lp.n; n > 0 && !lp.unordered && c.h.Time(int(hp)) < lp.polls[n-1].time {
		// times went back: account for every run so far, then
		// sample every held key at each poll
		for j := range lp.keys {
			ls.catchUp(p, &lp.keys[j], n)
		}
		lp.unordered = true
	}
	lp.n++
	ls.stamp++
	ls.touched = ls.touched[:0]
	ls.readPolled(p, mops)
	ls.touchHeld(p)
	for _, j := range ls.touched {
		ls.sample(p, j)
	}
}

// hasPoll reports whether mops hold a poll.
func hasPoll(mops []model.Mop) bool {
	for mi := range mops {
		if mops[mi].Kind == model.MopPoll {
			return true
		}
	}
	return false
}

// touch adds entry j of process p, for key k, to the entries the current
// poll samples, once.
func (ls *lagState) touch(j int32, k model.KeyID) {
	if ls.inPoll[k] != ls.stamp {
		ls.inPoll[k] = ls.stamp
		ls.touched = append(ls.touched, j)
	}
}

// readPolled touches the keys the latest poll of process p (micro-ops
// mops) polls, and moves the position of each it read.
func (ls *lagState) readPolled(p int32, mops []model.Mop) {
	c := ls.c
	lp := &ls.procs[p]
	u := lp.n - 1
	for mi := range mops {
		if mops[mi].Kind != model.MopPoll {
			continue
		}
		for _, kp := range c.h.PollsOf(&mops[mi]) {
			if !ls.mine(kp.Key) {
				continue
			}
			j := lp.entry(kp.Key, ls.nk)
			ls.touch(j, kp.Key)
			rs := c.h.ReadsOf(&kp)
			if len(rs) == 0 {
				continue
			}
			e := &lp.keys[j]
			if e.held && e.last < u-1 {
				ls.catchUp(p, e, u) // its run ends before this poll's read
			}
			e.pos, e.hasPos = rs[len(rs)-1].Offset(), true
			if !e.inPosKeys {
				e.inPosKeys = true
				lp.posKeys = append(lp.posKeys, j)
			}
			if !lp.hasAssign && !e.held {
				e.held, e.last = true, u-1
			}
		}
	}
}

// touchHeld touches the held entries of process p marked dirty since its
// last poll, and, once its poll times went back, every held entry.
func (ls *lagState) touchHeld(p int32) {
	lp := &ls.procs[p]
	for _, j := range lp.dirty {
		lp.keys[j].dirty = false
		if lp.keys[j].held {
			ls.touch(j, lp.keys[j].key)
		}
	}
	lp.dirty = lp.dirty[:0]
	if lp.unordered {
		for j := range lp.keys {
			if lp.keys[j].held {
				ls.touch(int32(j), lp.keys[j].key)
			}
		}
	}
}

// assign applies the ok or info assign or subscribe op (rec ri) to its
// process: the keys it no longer holds are released (with their positions,
// unless assigned again), the keys it names are held.
func (ls *lagState) assign(ri int32, op *model.Op) {
	c, nk := ls.c, ls.nk
	p := c.recs[ri].proc
	lp := &ls.procs[p]
	ls.astamp++
	assigned := c.h.KeysOf(int(c.recs[ri].comp))
	for _, k := range assigned {
		ls.inAssign[k] = ls.astamp
	}
	// release held keys no longer assigned
	if lp.hasAssign {
		for _, k := range lp.assigned {
			if j := lp.get(k, nk); j >= 0 && ls.inAssign[k] != ls.astamp {
				ls.release(p, j)
			}
		}
	}
	kept := lp.posKeys[:0]
	for _, j := range lp.posKeys {
		e := &lp.keys[j]
		if ls.inAssign[e.key] == ls.astamp {
			kept = append(kept, j)
			continue
		}
		ls.release(p, j)
		e.hasPos, e.inPosKeys = false, false
	}
	lp.posKeys = kept
	lp.hasAssign, lp.assigned = true, assigned
	for _, k := range assigned {
		if ls.mine(k) {
			ls.hold(p, lp.entry(k, nk))
		}
	}
}

// acknowledge adds the offsets the ok send or txn op (rec ri) acknowledged
// to their keys' ackLogs, at its completion time.
func (ls *lagState) acknowledge(ri int32, op *model.Op) {
	t := ls.c.h.Time(int(ls.c.recs[ri].comp))
	if op.Type != model.OK || t == model.NoTime {
		return
	}
	for _, m := range ls.c.h.MopsOf(op) {
		if acknowledges(&m) && ls.mine(m.Key) {
			if j, changed := ls.acks.of(m.Key).add(ls.c.h.Offset(&m), t, ri); changed {
				ls.acked(m.Key, j)
			}
		}
	}
}
