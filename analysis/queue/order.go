package queue

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// MaxSkipped is the most skipped values a poll-skip or int-poll-skip
// instance lists (the first ones, in log order); SkippedCount says how many
// there were in all when the list is cut (docs/queue.md#poll-skip).
const MaxSkipped = 32

// skippedOf returns the first MaxSkipped values kept between positions a
// and b of k, and how many there are when that is more (else 0).
func (c *checker) skippedOf(k model.KeyID, a, b int32) ([]model.MsgID, int64) {
	ms := make([]model.MsgID, 0, max(0, min(b-a-1, MaxSkipped)))
	for p := a + 1; p < b && p <= a+MaxSkipped; p++ {
		ms = append(ms, c.kept[k][p])
	}
	if n := int64(b - a - 1); n > MaxSkipped {
		return ms, n
	}
	return ms, 0
}

// proofOfPos returns the rec that wrote the value kept at position p of k,
// or the rec that first read it, for witnesses of skipped values.
func (c *checker) proofOfPos(k model.KeyID, p int32) int32 {
	m := c.kept[k][p]
	if w := c.writer[m]; w >= 0 {
		return w
	}
	return c.okReader[m]
}

// step compares value a at position pa with value b that came next at
// position pb: delta is pb - pa, and ordered is false when a and b are two
// distinct values of one position (a conflicting offset). The log does not
// order those, so going from one to the other is neither a skip nor a step
// back (Positions, in the package doc); the same value twice is a repeat.
func step(pa int32, a model.MsgID, pb int32, b model.MsgID) (delta int64, ordered bool) {
	return int64(pb - pa), pa != pb || a == b
}

// lastSeen is the last value met for a key within one op, at position pos.
type lastSeen struct {
	key model.KeyID
	pos int32
	msg model.MsgID
}

// internalState is what checkInternal keeps from op to op: room for the
// last value per key within one op, and where each key's is (readAt,
// sendAt), and the keys a poll's rebalance covers.
type internalState struct {
	reads, sends          []lastSeen
	readAt, sendAt, rebal keyStamps
}

// checkInternal reports the int-* types in rec ri (op, with micro-ops
// mops): consecutive values one op reads or sends for one key.
func (c *checker) checkInternal(ri int32, op *model.Op, mops []model.Mop, st *internalState) {
	if op.F == model.FAssign || op.F == model.FSubscribe {
		return
	}
	// at returns the index of k's entry in seen (indexed by idx), or -1.
	at := func(idx *keyStamps, k model.KeyID) int { return int(idx.get(k)) }
	// record compares value m, at position p, with the last value of its
	// key (seen[i], or none when i < 0) and records it; it returns m's entry.
	record := func(seen *[]lastSeen, idx *keyStamps, i int, skipT, nonmonoT string, k model.KeyID, p int32, m model.MsgID) int {
		if i < 0 {
			idx.set(k, int32(len(*seen)))
			*seen = append(*seen, lastSeen{k, p, m})
			return len(*seen) - 1
		}
		prev := &(*seen)[i]
		c.internalStep(ri, skipT, nonmonoT, *prev, k, p, m)
		prev.pos, prev.msg = p, m
		return i
	}
	st.reads, st.sends = st.reads[:0], st.sends[:0]
	nk := len(c.h.Keys)
	st.readAt.reset(nk)
	st.sendAt.reset(nk)
	st.rebal.reset(nk)
	for _, k := range c.h.RebalanceOf(int(c.recs[ri].comp)) {
		st.rebal.set(k, 1)
	}
	for mi := range mops {
		m := &mops[mi]
		switch m.Kind {
		case model.MopPoll:
			for _, kp := range c.h.PollsOf(m) {
				if st.rebal.get(kp.Key) >= 0 {
					continue
				}
				i := -2 // not looked up yet
				for _, rd := range c.h.ReadsOf(&kp) {
					p := c.pos(rd.Msg)
					if p < 0 {
						analysis.OwnStats[Stats](c.res).Unpositioned++
						continue
					}
					if i == -2 {
						i = at(&st.readAt, kp.Key)
					}
					i = record(&st.reads, &st.readAt, i, IntPollSkip, IntNonmonotonicPoll, kp.Key, p, rd.Msg)
				}
			}
		case model.MopSend:
			p := c.pos(m.Msg)
			if p < 0 {
				analysis.OwnStats[Stats](c.res).Unpositioned++
				continue
			}
			record(&st.sends, &st.sendAt, at(&st.sendAt, m.Key), IntSendSkip, IntNonmonotonicSend, m.Key, p, m.Msg)
		}
	}
}

// internalStep reports the step of rec r from prev to value m of key k at
// position p, within one op, as skipT or nonmonoT, unless it is to the
// next position or between values the log does not order.
func (c *checker) internalStep(r int32, skipT, nonmonoT string, prev lastSeen, k model.KeyID, p int32, m model.MsgID) {
	delta, ordered := step(prev.pos, prev.msg, p, m)
	if delta == 1 || !ordered {
		return
	}
	// kept compact (opStep)
	in := &opStep{compactKey: compactKey{h: c.h, key: k, msg: prev.msg}, to: m, op: c.compIdx(r), delta: delta}
	c.addStep(in, in, prev.pos, p, skipT, nonmonoT, r)
}

// addStep reports in (s, or the procStep around it), a step of s's key
// from position a to position b (its delta set) by the ops of recs, as
// skipT when it went forward past other positions, with the values it
// skipped and the op that proves the first of them, and as nonmonoT
// otherwise.
func (c *checker) addStep(in analysis.Instance, s *opStep, a, b int32, skipT, nonmonoT string, recs ...int32) {
	typ, proof := nonmonoT, int32(-1)
	if s.delta > 1 {
		typ, proof = skipT, c.proofOfPos(s.key, a+1)
		s.skipped, s.skippedCount = c.skippedOf(s.key, a, b)
	}
	s.ev.Witness = c.witness(append(recs, proof)...)
	c.res.Add(typ, in)
}

// procState is what the process-level checks remember per process.
type procState struct {
	subscribed bool
	assigned   []model.KeyID // nil: no assign/subscribe seen
	hasAssign  bool
	polls      posList // consumer position per key (last ok poll)
	sends      posList // producer position per key
}

// posAt is a value of key met at position pos by rec.
type posAt struct {
	key model.KeyID
	pos int32
	msg model.MsgID
	rec int32
}

// processState is what checkProcesses keeps from op to op.
type processState struct {
	procs    []procState // by process number
	spans    []span      // room for the reads of one op, by key
	spanAt   keyStamps   // key -> its span in this op
	assigned keyStamps   // the keys of one assign or subscribe
}

// span is the first and last read of one key in one op.
type span struct {
	key         model.KeyID
	first, last posAt
}

// checkProcesses reports poll-skip, nonmonotonic-poll and nonmonotonic-send
// between rec ri (op, with micro-ops mops) and the ops of its process
// before it.
func (c *checker) checkProcesses(ri int32, r *rec, op *model.Op, mops []model.Mop, st *processState) {
	ps := &st.procs[r.proc]
	switch op.F {
	case model.FAssign, model.FSubscribe:
		if r.typ == model.Fail || r.comp == r.inv {
			return
		}
		ps.subscribed = op.F == model.FSubscribe
		ps.hasAssign = true
		ps.assigned = c.h.KeysOf(int(r.comp))
		st.assigned.reset(len(c.h.Keys))
		for _, k := range ps.assigned {
			st.assigned.set(k, 1)
		}
		ps.polls.keepIf(func(p posAt) bool { return st.assigned.get(p.key) >= 0 })
		return
	}
	if r.comp == r.inv {
		return
	}
	// consumer side: first read of each key against the last ok position
	spans := st.spans[:0]
	st.spanAt.reset(len(c.h.Keys))
	for mi := range mops {
		if mops[mi].Kind != model.MopPoll {
			continue
		}
		for _, kp := range c.h.PollsOf(&mops[mi]) {
			i := -1
			for _, rd := range c.h.ReadsOf(&kp) {
				pa := posAt{kp.Key, c.pos(rd.Msg), rd.Msg, ri}
				if pa.pos < 0 {
					continue // counted by checkInternal
				}
				if i < 0 {
					if i = int(st.spanAt.get(kp.Key)); i < 0 {
						st.spanAt.set(kp.Key, int32(len(spans)))
						spans = append(spans, span{kp.Key, pa, pa})
						i = len(spans) - 1
						continue
					}
				}
				spans[i].last = pa
			}
		}
	}
	st.spans = spans
	for _, s := range spans {
		i := ps.polls.find(s.key)
		if i >= 0 {
			c.processStep(op.Process, ps, ps.polls.at[i], s.first, true)
		}
		if r.typ == model.OK {
			if i >= 0 {
				ps.polls.at[i] = s.last
			} else {
				ps.polls.add(s.last)
			}
		}
	}
	// producer side: ok and info sends
	if r.typ == model.Fail {
		return
	}
	for mi := range mops {
		m := &mops[mi]
		if m.Kind != model.MopSend {
			continue
		}
		p := c.pos(m.Msg)
		if p < 0 {
			continue // counted by checkInternal
		}
		pa := posAt{m.Key, p, m.Msg, ri}
		i := ps.sends.find(m.Key)
		switch {
		case i < 0:
			ps.sends.add(pa)
		case ps.sends.at[i].rec == ri:
			ps.sends.at[i] = pa // within one op: checkInternal's business
		default:
			c.processStep(op.Process, ps, ps.sends.at[i], pa, false)
			ps.sends.at[i] = pa
		}
	}
}

// processStep reports the step of process proc from prev to next, two of
// its ops, as poll-skip or nonmonotonic-poll (poll) or nonmonotonic-send,
// unless it is to the next position (or, for sends, forward) or between
// values the log does not order; poll-skip and nonmonotonic-poll are
// allowed per Options.SubVia.
func (c *checker) processStep(proc int32, ps *procState, prev, next posAt, poll bool) {
	delta, ordered := step(prev.pos, prev.msg, next.pos, next.msg)
	if delta == 1 || (!poll && delta > 0) || !ordered {
		return
	}
	// kept compact (procStep)
	in := &procStep{opStep: opStep{compactKey: compactKey{h: c.h, key: next.key, msg: prev.msg}, to: next.msg,
		op: c.compIdx(next.rec), delta: delta}, prev: c.compIdx(prev.rec), process: int64(proc)}
	skipT, nonmonoT := PollSkip, NonmonotonicPoll
	switch {
	case !poll:
		skipT, nonmonoT = NonmonotonicSend, NonmonotonicSend // never forward here
	case c.opts.SubVia == SubSubscribe:
		in.ev.Allowed = true
	case c.opts.SubVia == SubAuto:
		in.ev.Allowed = ps.subscribed
	}
	c.addStep(in, &in.opStep, prev.pos, next.pos, skipT, nonmonoT, prev.rec, next.rec)
}
