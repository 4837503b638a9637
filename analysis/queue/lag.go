package queue

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
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

// lagProc is what the lag computation remembers of one process.
type lagProc struct {
	assigned  []model.KeyID
	hasAssign bool
	keys      []lagKey // in order of first use
	idx       []int32  // key -> 1 + its index in keys, for few keys (denseKeys)
	idxMap    map[model.KeyID]int32
	posKeys   []int32 // entries with a position (hasPos), maybe stale
	dirty     []int32 // entries to sample at the next poll
	polls     []lagPollRec
	unordered bool // a poll's time went back: sample every held key at each poll
}

// lagKey is one key of a lagProc.
type lagKey struct {
	key       model.KeyID
	hasPos    bool
	inPosKeys bool
	pos       int64 // offset of the last read
	held      bool  // sampled at each poll (assigned, or has a position before any assign)
	dirty     bool
	ver       uint32 // bumped whenever its lagIndex references go stale
	last      int32  // index in polls of its last sample, explicit or accounted
	aj        int    // at the last sample: the next acknowledged offset's index, or -1
	ackTime   int64  // and its acknowledgement time and rec
	ackRec    int32
	inStall   bool
	st        stall
}

// denseKeys is the most keys for which a lagProc indexes its keys by an
// array (4 bytes a key per process) rather than a map.
const denseKeys = 1024

// get returns k's entry index, or -1; nk is the history's number of keys.
func (lp *lagProc) get(k model.KeyID, nk int) int32 {
	var i int32
	if nk <= denseKeys {
		if lp.idx == nil {
			return -1
		}
		i = lp.idx[k]
	} else {
		i = lp.idxMap[k]
	}
	return i - 1
}

// entry returns k's entry index, adding it if need be.
func (lp *lagProc) entry(k model.KeyID, nk int) int32 {
	if e := lp.get(k, nk); e >= 0 {
		return e
	}
	lp.keys = append(lp.keys, lagKey{key: k, last: -1, aj: -1})
	i := int32(len(lp.keys))
	if nk <= denseKeys {
		if lp.idx == nil {
			lp.idx = make([]int32, nk)
		}
		lp.idx[k] = i
	} else {
		if lp.idxMap == nil {
			lp.idxMap = map[model.KeyID]int32{}
		}
		lp.idxMap[k] = i
	}
	return i - 1
}

// fenwick is a Fenwick tree of counts over positions 0..len-2.
type fenwick []int32

func (f fenwick) add(i int, d int32) {
	for j := i + 1; j < len(f); j += j & -j {
		f[j] += d
	}
}

// prefix is the sum over positions below i.
func (f fenwick) prefix(i int) int32 {
	var s int32
	for j := i; j > 0; j -= j & -j {
		s += f[j]
	}
	return s
}

// kth returns the position at which the prefix sum first reaches k >= 1.
func (f fenwick) kth(k int32) int {
	at := 0
	for step := 1 << (bits.Len(uint(len(f)-1)) - 1); step > 0; step >>= 1 {
		if at+step < len(f) && f[at+step] < k {
			at += step
			k -= f[at]
		}
	}
	return at
}

// lagRef names a held key of a process in a lagIndex.
type lagRef struct {
	proc, entry int32
	ver         uint32
}

// lagIndex is one key's held entries by position: bucket j holds those
// whose next offset (the first above their position) is the key's j-th
// offset, with a Fenwick tree counting references per bucket (stale ones
// included, dropped when their bucket is emptied).
type lagIndex struct {
	buckets [][]lagRef
	count   fenwick
}

// lagState is the state of lagAndStalls.
type lagState struct {
	c      *checker
	nk     int
	acks   []ackLog
	procs  []lagProc
	index  []lagIndex
	series []seriesPoint
	closed []closedStall
	worst  struct {
		lag      int64
		hp       int32
		proc     int32
		key      model.KeyID
		opIndex  int64
		anything bool
	}
}

// seriesPoint is one series point with its poll's history position.
type seriesPoint struct {
	hp int32
	p  analysis.LagPoint
}

// closedStall is a stall closed at the poll at history position hp.
type closedStall struct {
	hp       int32
	proc     int32
	key      model.KeyID
	st       stall
	acked    int64 // the key's highest acknowledged offset then
	hasAcked bool
}

// candidate offers one sample for the worst lag: the largest lag, then the
// earliest poll, then the lowest key, as a walk in history order keeping
// the first strictly larger one would find.
func (ls *lagState) candidate(lag int64, pr *lagPollRec, proc int32, k model.KeyID) {
	w := &ls.worst
	if lag < 0 {
		return
	}
	if w.anything && (lag < w.lag || lag == w.lag && (pr.hp > w.hp || pr.hp == w.hp && k > w.key)) {
		return
	}
	w.anything, w.lag, w.hp, w.proc, w.key, w.opIndex = true, lag, pr.hp, proc, k, pr.opIndex
}

// point records a series sample.
func (ls *lagState) point(pr *lagPollRec, proc int32, k model.KeyID, lag, pos int64) {
	if !ls.c.opts.Series {
		return
	}
	ls.series = append(ls.series, seriesPoint{pr.hp, analysis.LagPoint{
		Time: pr.time, OpIndex: pr.opIndex, Process: proc, Key: k, LagNS: lag, Offset: pos}})
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
	ls.point(&polls[0], proc, e.key, lagAt(0), pos)
	if last > 0 {
		ls.point(&polls[last], proc, e.key, lagAt(last), pos)
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
	u := int32(len(lp.polls) - 1)
	ls.catchUp(p, e, u)
	pr := &lp.polls[u]
	proc := ls.c.procIDs[p]
	pos := int64(-1)
	if e.hasPos {
		pos = e.pos
	}
	a := &ls.acks[e.key]
	aj := a.next(pos)
	lag := int64(0)
	if aj >= 0 {
		lag = pr.time - a.times[aj]
	}
	ls.point(pr, proc, e.key, lag, pos)
	ls.candidate(lag, pr, proc, e.key)
	if e.inStall && (e.st.pos != pos || lag <= 0) {
		x := closedStall{hp: pr.hp, proc: proc, key: e.key, st: e.st, hasAcked: a.count > 0}
		if x.hasAcked {
			x.acked = a.offs[a.maxAt]
		}
		ls.closed = append(ls.closed, x)
		e.inStall = false
	}
	if lag > 0 {
		if !e.inStall {
			e.inStall = true
			e.st = stall{pos: pos, since: pr.time, fromRec: pr.rec, ackRec: a.ops[aj]}
		}
		e.st.lastTime, e.st.lastRec = pr.time, pr.rec
		e.st.polls++
	}
	e.last, e.aj = u, aj
	if aj >= 0 {
		e.ackTime, e.ackRec = a.times[aj], a.ops[aj]
	}
	if e.held {
		ls.indexEntry(p, i, pos)
	}
}

// indexEntry files held entry i of process p under its next offset.
func (ls *lagState) indexEntry(p, i int32, pos int64) {
	e := &ls.procs[p].keys[i]
	offs := ls.acks[e.key].offs
	j, _ := slices.BinarySearchFunc(offs, pos, func(o, p int64) int {
		if o <= p {
			return -1
		}
		return 1
	})
	if j == len(offs) {
		return // no acknowledgement can come after its position
	}
	x := &ls.index[e.key]
	if x.buckets == nil {
		x.buckets = make([][]lagRef, len(offs))
		x.count = make(fenwick, len(offs)+1)
	}
	e.ver++
	x.buckets[j] = append(x.buckets[j], lagRef{p, i, e.ver})
	x.count.add(j, 1)
}

// markDirty has entry i of process p sampled at the process's next poll.
func (ls *lagState) markDirty(p, i int32) {
	lp := &ls.procs[p]
	e := &lp.keys[i]
	if !e.dirty {
		e.dirty = true
		lp.dirty = append(lp.dirty, i)
	}
}

// acked is called when the acknowledgement of key k's j-th offset was added
// or moved earlier: every held entry whose next offset it now is, those
// filed in buckets after the previous acknowledged offset up to j, has its
// run accounted for and is sampled at its process's next poll.
func (ls *lagState) acked(k model.KeyID, j int) {
	x := &ls.index[k]
	if x.buckets == nil {
		return
	}
	a := &ls.acks[k]
	lo := 0
	if before := a.acknowledgedBelow(j); before > 0 {
		lo = a.kth(before) + 1
	}
	for {
		below := x.count.prefix(lo)
		if below == x.count.prefix(len(x.buckets)) {
			return
		}
		b := x.count.kth(below + 1)
		if b > j {
			return
		}
		refs := x.buckets[b]
		x.buckets[b] = nil
		x.count.add(b, -int32(len(refs)))
		for _, r := range refs {
			lp := &ls.procs[r.proc]
			e := &lp.keys[r.entry]
			if e.ver != r.ver || !e.held || e.dirty {
				continue
			}
			e.ver++
			ls.catchUp(r.proc, e, int32(len(lp.polls)))
			ls.markDirty(r.proc, r.entry)
		}
	}
}

// hold makes entry i of process p held from now on (sampled at each poll).
func (ls *lagState) hold(p, i int32) {
	lp := &ls.procs[p]
	e := &lp.keys[i]
	if e.held {
		return
	}
	e.held, e.last = true, int32(len(lp.polls)-1)
	ls.markDirty(p, i)
}

// release stops sampling entry i of process p, after accounting for its run.
func (ls *lagState) release(p, i int32) {
	lp := &ls.procs[p]
	e := &lp.keys[i]
	if !e.held {
		return
	}
	ls.catchUp(p, e, int32(len(lp.polls)))
	e.held = false
	e.ver++
}

// lagAndStalls computes realtime lag at every ok poll (kept in the series
// only with Options.Series), the worst lag, and stalled-consumer. It walks
// the history by position, so acks count only before a poll's invocation.
// See the comment at the top of this file for how, and what it costs.
func (c *checker) lagAndStalls() {
	nk := len(c.h.Keys)
	ev := c.events()
	ls := &lagState{c: c, nk: nk, acks: c.ackLogs(), procs: make([]lagProc, len(c.procIDs)), index: make([]lagIndex, nk)}
	ls.worst.lag = -1
	inPoll := make([]uint32, nk) // stamp: the key was read or polled at this poll
	inAssign := make([]uint32, nk)
	stamp, astamp := uint32(0), uint32(0)
	var touched []int32
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		if !op.IsClient() {
			continue
		}
		if op.Type == model.Invoke {
			ri := ev[i]
			if ri < 0 || c.recs[ri].typ != model.OK || op.Time == model.NoTime {
				continue
			}
			comp := c.op(c.recs[ri].comp)
			if comp.F != model.FPoll && comp.F != model.FTxn {
				continue
			}
			p := c.recs[ri].proc
			lp := &ls.procs[p]
			mops := c.h.MopsOf(comp)
			hasPoll := false
			for mi := range mops {
				if mops[mi].Kind == model.MopPoll {
					hasPoll = true
					break
				}
			}
			if !hasPoll {
				continue
			}
			if n := len(lp.polls); n > 0 && !lp.unordered && op.Time < lp.polls[n-1].time {
				// times went back: account for every run so far, then
				// sample every held key at each poll
				for j := range lp.keys {
					ls.catchUp(p, &lp.keys[j], int32(n))
				}
				lp.unordered = true
			}
			lp.polls = append(lp.polls, lagPollRec{time: op.Time, opIndex: comp.Index, hp: int32(i), rec: ri})
			u := int32(len(lp.polls) - 1)
			stamp++
			touched = touched[:0]
			for mi := range mops {
				if mops[mi].Kind != model.MopPoll {
					continue
				}
				for _, kp := range c.h.PollsOf(&mops[mi]) {
					j := lp.entry(kp.Key, nk)
					if inPoll[kp.Key] != stamp {
						inPoll[kp.Key] = stamp
						touched = append(touched, j)
					}
					if rs := c.h.ReadsOf(&kp); len(rs) > 0 {
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
			for _, j := range lp.dirty {
				lp.keys[j].dirty = false
				if lp.keys[j].held && inPoll[lp.keys[j].key] != stamp {
					inPoll[lp.keys[j].key] = stamp
					touched = append(touched, j)
				}
			}
			lp.dirty = lp.dirty[:0]
			if lp.unordered {
				for j := range lp.keys {
					if lp.keys[j].held && inPoll[lp.keys[j].key] != stamp {
						inPoll[lp.keys[j].key] = stamp
						touched = append(touched, int32(j))
					}
				}
			}
			for _, j := range touched {
				ls.sample(p, j)
			}
			continue
		}
		ri := ev[i] // a completion: never an open invocation's rec
		if ri < 0 {
			continue
		}
		switch op.F {
		case model.FAssign, model.FSubscribe:
			if op.Type == model.Fail {
				continue
			}
			p := c.recs[ri].proc
			lp := &ls.procs[p]
			astamp++
			assigned := c.h.KeysOf(op)
			for _, k := range assigned {
				inAssign[k] = astamp
			}
			// release held keys no longer assigned
			if lp.hasAssign {
				for _, k := range lp.assigned {
					if j := lp.get(k, nk); j >= 0 && inAssign[k] != astamp {
						ls.release(p, j)
					}
				}
			}
			kept := lp.posKeys[:0]
			for _, j := range lp.posKeys {
				e := &lp.keys[j]
				if inAssign[e.key] == astamp {
					kept = append(kept, j)
					continue
				}
				ls.release(p, j)
				e.hasPos, e.inPosKeys = false, false
			}
			lp.posKeys = kept
			lp.hasAssign, lp.assigned = true, assigned
			for _, k := range assigned {
				ls.hold(p, lp.entry(k, nk))
			}
		case model.FSend, model.FTxn:
			if op.Type != model.OK || op.Time == model.NoTime {
				continue
			}
			for _, m := range c.h.MopsOf(op) {
				if m.Kind == model.MopSend && m.Done && m.Offset != model.NoOffset {
					if j, changed := ls.acks[m.Key].add(m.Offset, op.Time, ri); changed {
						ls.acked(m.Key, j)
					}
				}
			}
		}
	}
	for p := range ls.procs {
		lp := &ls.procs[p]
		for j := range lp.keys {
			ls.catchUp(int32(p), &lp.keys[j], int32(len(lp.polls)))
		}
	}
	if c.opts.Series {
		slices.SortFunc(ls.series, func(a, b seriesPoint) int {
			return cmp.Or(cmp.Compare(a.hp, b.hp), cmp.Compare(a.p.Key, b.p.Key))
		})
		for _, s := range ls.series {
			c.res.Series.Lag.Append(s.p)
		}
	}
	if w := &ls.worst; w.anything {
		c.res.Stats.WorstLagS = float64(w.lag) / 1e9
		c.res.Stats.WorstLagProcess = analysis.IntPtr(int64(w.proc))
		c.res.Stats.WorstLagKey = c.keyVal(w.key)
		c.res.Stats.WorstLagOp = analysis.IntPtr(w.opIndex)
	}
	threshold := c.opts.StallThreshold.Nanoseconds()
	closeStall := func(proc int32, k model.KeyID, s *stall, acked int64, hasAcked bool) {
		if s.polls < 2 || s.lastTime-s.since < threshold || threshold <= 0 {
			return
		}
		in := analysis.Instance{
			Key: c.keyVal(k), Process: analysis.IntPtr(int64(proc)),
			From: analysis.IntPtr(c.compIdx(s.fromRec)), To: analysis.IntPtr(c.compIdx(s.lastRec)),
			DurationS: analysis.FloatPtr(float64(s.lastTime-s.since) / 1e9),
			Witness:   c.witness(s.fromRec, s.lastRec, s.ackRec),
		}
		in.StuckOffset = analysis.IntPtr(s.pos) // -1: nothing read yet
		if hasAcked {
			in.AckedOffset = analysis.IntPtr(acked)
		}
		c.res.Add(StalledConsumer, in)
	}
	// stalls closed during the history, in the order a walk sampling every
	// key at every poll would close them: by poll, then key
	slices.SortFunc(ls.closed, func(a, b closedStall) int {
		return cmp.Or(cmp.Compare(a.hp, b.hp), cmp.Compare(a.key, b.key))
	})
	for i := range ls.closed {
		x := &ls.closed[i]
		closeStall(x.proc, x.key, &x.st, x.acked, x.hasAcked)
	}
	// then those still open, by process id, then key
	order := make([]int32, len(ls.procs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(c.procIDs[a], c.procIDs[b]) })
	var open []*lagKey
	for _, p := range order {
		open = open[:0]
		for j := range ls.procs[p].keys {
			if e := &ls.procs[p].keys[j]; e.inStall {
				open = append(open, e)
			}
		}
		slices.SortFunc(open, func(a, b *lagKey) int { return cmp.Compare(a.key, b.key) })
		for _, e := range open {
			a := &ls.acks[e.key]
			closeStall(c.procIDs[p], e.key, &e.st, a.offs[max(a.maxAt, 0)], a.count > 0)
		}
	}
}
