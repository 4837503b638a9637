package abort

import (
	"slices"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/model"
)

// Options tune the check.
type Options struct {
	// Contract decides whether abort-advance is bad.
	Contract Contract
}

// poll is one poll of the history: a completion and its invocation, or
// an invocation that never completed (taken as info).
type poll struct {
	// What N needs of the history before its invocation (sweep): the
	// poll that set the topic's committed position (cpBy, -1: none), the
	// poll that made the largest resume point at or below first(N)
	// (rpBy), and whether N resumes there. The position and the point are
	// not kept: each is the point of the poll that made it (point).
	cpBy, rpBy int32
	offs       model.Span // the offsets as listed, in History.ExtWords (checker.offs); N 0 for none
	inv, comp  int32      // positions in History.Ops; inv -1 without one, comp = inv for an open invocation
	proc       int32
	topic      model.KeyID
	typ        model.OpType // the completion's; Info for an open invocation
	hasTopic   bool
	abort      bool // :abort? true was asked
	reb        bool // a rebalance was logged before or during it
	rebDuring  bool // one was logged during it
	resumes    bool
	ordered    bool // its offsets increase (point)
	// (fields ordered for size: 40 bytes, a million of them on a
	// million-poll history; with the position and the point kept it was
	// 56)
}

func (p *poll) hasOffsets() bool { return p.offs.N > 0 }

// offs are the offsets poll p read, as listed (nil for none): they alias
// the history's. A poll holds a Span, not a slice, so that the polls hold
// no pointers for the collector to scan.
func (c *checker) offs(p *poll) []int64 { return c.h.ExtWords.Get(p.offs) }

// checker holds one check's state.
type checker struct {
	*source // the history, shared with the pair instances
	pairing model.Pairing
	opts    Options
	polls   []poll
	topics  []*topic // by KeyID; nil for a key no poll names
	res     *analysis.Result
	counts  [3][4][2]int64 // outcome, class, rebalance
	pairs   int64
	keyVals []*analysis.Value // by KeyID: the key as an instance's Value, shared; nil until needed
	insts   []pairInstance    // room for the next pair instances (alloc.go)
	// the points of the polls whose offsets do not increase, by poll
	// (unorderedPoint); nil when there are none
	unordered map[int32]int64
	words     []int64 // room for the next witnesses
}

// Check analyses an abort history (docs/abort.md). pairing must come from
// model.Pair(h). Cost: O(ops + offsets · log offsets) time, memory
// O(polls + offsets) beside the history.
func Check(h *model.History, pairing model.Pairing, opts Options) *analysis.Result {
	start := time.Now()
	c := &checker{source: newSource(h), pairing: pairing, opts: opts, res: &analysis.Result{
		Schema:   analysis.Schema,
		Source:   h.Source,
		Workload: Workload,
		Options:  analysis.Options{AbortContract: opts.Contract.String()},
		Warnings: h.Warnings,
	}}
	c.collect()
	phase.Mark("abort collect")
	c.indexTopics()
	phase.Mark("abort topics")
	c.sweepAndWalk()
	phase.Mark("abort sweep and walk")
	c.res.PairCounts = c.table()
	if h.Truncated {
		c.res.UnknownReasons = append(c.res.UnknownReasons,
			"the input was cut off in the middle of an op; only the complete ops before it were analysed")
	}
	if c.pairs == 0 {
		c.res.UnknownReasons = append(c.res.UnknownReasons,
			"no process polled records twice in a row from one topic: there is no pair of polls to judge")
	}
	c.res.Finish(func(typ string, _ analysis.Instance) bool { return IsBad(typ, opts.Contract) })
	c.res.Stats.ElapsedMS = time.Since(start).Milliseconds()
	return c.res
}

// collect finds every poll, in history order of completions, keeps aside
// the points of those whose offsets do not increase (unorderedPoint), and
// counts the history's ops. On a large history it runs on several cores, each
// on a range of the ops: a first pass counts each range's polls, so that
// c.polls is allocated once and each range fills its own part of it.
// O(ops).
func (c *checker) collect() {
	n := workers(len(c.h.Ops) / 2)
	parts := make([]opCounts, n)
	span := (len(c.h.Ops) + n - 1) / n
	ranges := func(each func(j, lo, hi int)) {
		var g par.Group
		for j := range n {
			lo, hi := min(j*span, len(c.h.Ops)), min((j+1)*span, len(c.h.Ops))
			g.Go(func() { each(j, lo, hi) })
		}
		g.Wait()
	}
	ranges(func(j, lo, hi int) { parts[j].polls = c.countPolls(lo, hi) })
	total := 0
	for j := range parts {
		total += parts[j].polls
	}
	c.polls = make([]poll, total)
	at := 0
	starts := make([]int, n)
	for j := range parts {
		starts[j] = at
		at += parts[j].polls
	}
	ranges(func(j, lo, hi int) { parts[j].collect(c, lo, hi, c.polls[starts[j]:starts[j]+parts[j].polls]) })
	for j := range parts {
		for _, k := range parts[j].unordered {
			c.unorderedPoint(int32(starts[j]) + k)
		}
	}
	st := &c.res.Stats
	var byType [model.Fail + 1]int64
	completions := int64(0)
	for _, p := range parts {
		st.Ops += p.ops
		st.ClientOps += p.client
		st.OpenOps += p.open
		completions += p.completions
		for t := range byType {
			byType[t] += p.byType[t]
		}
	}
	st.OKOps, st.InfoOps, st.FailOps = byType[model.OK], byType[model.Info], byType[model.Fail]
	if completions > 0 {
		analysis.OwnStats[Stats](c.res).Polls += completions
	}
}

// opCounts is what collect counts in a range of the ops. Each range's
// goroutine counts into its own, side by side with the others': the pad
// keeps two off one cache line.
type opCounts struct {
	polls             int
	ops, client, open int64
	completions       int64
	byType            [model.Fail + 1]int64
	unordered         []int32 // the range's polls with offsets that do not increase, from its first
	_                 cpu.CacheLinePad
}

// collect fills dst with the polls of ops [lo, hi), and counts them.
func (oc *opCounts) collect(c *checker, lo, hi int, dst []poll) {
	k := 0
	for i := lo; i < hi; i++ {
		op := &c.h.Ops[i]
		oc.ops++
		if !op.IsClient() {
			continue
		}
		oc.client++
		partner := int32(-1)
		if i < len(c.pairing.Partner) {
			partner = c.pairing.Partner[i]
		}
		oc.byType[op.Type]++
		if op.Type == model.Invoke && partner < 0 {
			oc.open++
		}
		if op.F != model.FPoll {
			continue
		}
		switch {
		case op.Type != model.Invoke:
			oc.completions++
			dst[k] = c.readPoll(partner, int32(i), op.Type)
		case partner < 0:
			dst[k] = c.readPoll(int32(i), int32(i), model.Info)
		default:
			continue
		}
		if p := &dst[k]; p.hasOffsets() && !p.ordered {
			oc.unordered = append(oc.unordered, int32(k))
		}
		k++
	}
}

// countPolls counts the polls collect finds in ops [lo, hi): completions
// of :poll ops, and invocations of :poll that never completed.
func (c *checker) countPolls(lo, hi int) int {
	n := 0
	for i := lo; i < hi; i++ {
		op := &c.h.Ops[i]
		if !op.IsClient() || op.F != model.FPoll {
			continue
		}
		if op.Type != model.Invoke || i >= len(c.pairing.Partner) || c.pairing.Partner[i] < 0 {
			n++
		}
	}
	return n
}

// readPoll reads the poll whose invocation and completion are at inv and
// comp: its topic (the completion's, else the invocation's), offsets (the
// completion's), :abort? and rebalances (of either).
func (c *checker) readPoll(inv, comp int32, typ model.OpType) poll {
	p := poll{inv: inv, comp: comp, proc: c.h.Ops[comp].Process, typ: typ, cpBy: -1, rpBy: -1}
	read := func(at int32, completion bool) {
		c.records(at, func(r *model.ExtRec) {
			ws, ks := c.h.ExtWordsOf(r), c.h.ExtKeysOf(r)
			switch r.Kind {
			case recPoll:
				flags := ws[0]
				if flags&pollTopic != 0 && (completion || !p.hasTopic) {
					p.topic, p.hasTopic = ks[0], true
				}
				p.abort = p.abort || flags&pollAbort != 0
				if completion && flags&pollOffsets != 0 && r.Words.N > 1 {
					p.offs = model.Span{Start: r.Words.Start + 1, N: r.Words.N - 1} // ws[1:]
					p.ordered = increasing(ws[1:])
				}
			case recRebalance:
				if ws[0]+ws[1] > 0 {
					p.reb = true
				}
				p.rebDuring = p.rebDuring || ws[1] > 0
			}
		})
	}
	if inv != comp {
		read(inv, false)
	}
	read(comp, true)
	return p
}

// increasing reports whether offs strictly increase.
func increasing(offs []int64) bool {
	for j := 1; j < len(offs); j++ {
		if offs[j] <= offs[j-1] {
			return false
		}
	}
	return true
}

// first and last are a poll's first and last offsets as it lists them.
func (c *checker) first(p *poll) int64 { return c.offs(p)[0] }
func (c *checker) last(p *poll) int64 {
	offs := c.offs(p)
	return offs[len(offs)-1]
}

// classify is the class of the pair P, N (docs/abort.md#pairs).
func (c *checker) classify(p, n *poll) int {
	switch f := c.first(n); {
	case c.last(p) < f:
		return 0
	case f == c.first(p):
		return 1
	case f < c.first(p):
		return 2
	}
	return 3
}

// outcome is the row of P's outcome in the count table.
func outcome(t model.OpType) int {
	switch t {
	case model.OK:
		return 0
	case model.Fail:
		return 1
	}
	return 2
}

// table is the count table, every outcome and class in order.
func (c *checker) table() []analysis.PairCount {
	rows := make([]analysis.PairCount, 0, len(Outcomes)*len(Classes))
	for o, on := range Outcomes {
		for k, kn := range Classes {
			n := c.counts[o][k]
			rows = append(rows, analysis.PairCount{Outcome: on, Class: kn, Pairs: n[0] + n[1], WithRebalance: n[1]})
		}
	}
	return rows
}

// procState is one process's walk: its last poll with offsets (-1: none
// since it started or started afresh) and the empty polls since then
// whose rebalances the next pair carries.
type procState struct {
	last    int32
	carried []int32
}

// step walks poll k of the process whose state is s.
func (c *checker) step(s *procState, k int32) {
	n := &c.polls[k]
	if !n.hasOffsets() {
		if s.last >= 0 && n.reb {
			s.carried = append(s.carried, k)
		}
		return
	}
	c.checkInternal(n)
	if s.last >= 0 && c.polls[s.last].topic == n.topic {
		c.pair(s.last, k, s.carried)
	}
	s.last, s.carried = k, nil
}

// checkInternal reports a poll whose offsets do not strictly increase.
func (c *checker) checkInternal(p *poll) {
	if p.ordered {
		return
	}
	offs := c.offs(p)
	for j := 1; j < len(offs); j++ {
		if offs[j] > offs[j-1] {
			continue
		}
		in := &Instance{Subject: analysis.Subject{Key: c.topicValue(p.topic)}, Process: analysis.IntPtr(int64(p.proc)),
			Op: analysis.IntPtr(c.index(p.comp)), Offsets: slices.Clone(offs), Index: analysis.IntPtr(int64(j))}
		in.Witness = c.witness(nil, p)
		c.add(IntNonmonotonicPoll, in)
		return
	}
}

// topicValue is key k as an instance's Value, one for all instances
// that name it.
func (c *checker) topicValue(k model.KeyID) *analysis.Value {
	if c.keyVals == nil {
		c.keyVals = make([]*analysis.Value, len(c.h.Keys))
	}
	if c.keyVals[k] == nil {
		v := analysis.AtomValue(c.h.KeyAtom(k))
		c.keyVals[k] = &v
	}
	return c.keyVals[k]
}

// witness appends the invocation and completion of each poll to w.
func (c *checker) witness(w []int64, ps ...*poll) []int64 {
	for _, p := range ps {
		if p.inv >= 0 {
			w = append(w, c.index(p.inv))
		}
		w = append(w, c.index(p.comp))
	}
	return w
}

// pair types, counts and reports the pair of polls pk, nk, which carries
// the rebalances of the empty polls carried.
func (c *checker) pair(pk, nk int32, carried []int32) {
	p, n := &c.polls[pk], &c.polls[nk]
	c.pairs++
	class := c.classify(p, n)
	reb := p.rebDuring || n.reb || len(carried) > 0
	rb := 0
	if reb {
		rb = 1
	}
	c.counts[outcome(p.typ)][class][rb]++
	f := c.first(n)
	cp := int64(0) // the committed position N saw, if any
	if n.cpBy >= 0 {
		cp = c.point(n.cpBy)
	}
	var typ string
	switch {
	case n.cpBy >= 0 && f < cp:
		typ = CommittedRedelivery
	case p.typ == model.OK:
		return
	case p.typ != model.Fail:
		typ = UnknownOutcomePair
	case class == 0:
		typ = AbortAdvance
	case class == 1:
		typ = AbortRewind
	case class == 2 && n.resumes:
		typ = AbortRewindFurther
	default:
		typ = AbortOther
	}
	x := c.inst()
	*x = pairInstance{src: c.source, key: c.topicValue(n.topic), p: at(p), n: at(n), class: uint8(class)}
	x.ev.Witness = c.witness(c.witnessRoom(), p, n)
	if n.cpBy >= 0 {
		by := &c.polls[n.cpBy]
		x.cp, x.cpBy, x.flags = cp, by.comp, x.flags|hasCommitted
		if typ == CommittedRedelivery {
			x.ev.Witness = c.witness(x.ev.Witness, by)
		}
	}
	if class == 0 {
		x.gap, x.flags = f-c.last(p)-1, x.flags|hasGap
	}
	if typ == AbortRewindFurther {
		by := &c.polls[n.rpBy]
		x.rp, x.rpBy, x.flags = c.point(n.rpBy), by.comp, x.flags|hasResume
		x.ev.Witness = c.witness(x.ev.Witness, by)
	}
	if typ == AbortAdvance && c.opts.Contract == ContractKafka {
		x.ev.Allowed = true
	}
	if reb {
		x.flags |= rebalanced
		for _, e := range carried {
			x.carried = append(x.carried, at(&c.polls[e]))
			x.ev.Witness = c.witness(x.ev.Witness, &c.polls[e])
		}
	}
	c.add(typ, x)
}
