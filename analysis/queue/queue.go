// Package queue checks Kafka-style queue histories: the semantics of
// docs/queue.md, which follows Jepsen's jepsen.tests.kafka checker and
// departs from it where that checker is nondeterministic, crashes or misses
// something.
//
// # What an op is here
//
// Every client completion (ok, info, fail) is a record, paired with its
// invocation; an invocation that never completed is a record of type info
// whose micro-ops are still in invocation form. Assign and subscribe ops are
// records too (they move consumer positions); only send, poll and txn records
// are vertices of the dependency graph.
//
// # Choices the anomaly definitions leave open
//
//   - Positions. Order comparisons (skips, nonmonotonic, internal checks)
//     use a value's position in the version order: the last position at
//     which the log holds it (a duplicate's last offset, as Jepsen does).
//     Every value at a conflicting offset has that offset's position, not
//     only the value listed for it (the one observed first, lowest op
//     index), so a consumer that reads a rewritten log in order skips
//     nothing. Going from one value to a different value at the same
//     position compares two values the log does not order: it is neither a
//     skip nor a step back, and nothing is reported (the conflict is
//     inconsistent-offsets' business); the same value twice is a repeat.
//     Going from a later position back to a conflicting one is a step back
//     like any other: a consumer that read the stale log past offset o and
//     then reads the rewritten value at o gets nonmonotonic-poll.
//   - What stays unpositioned. A value that no completed op observed at an
//     offset has no position, and every comparison that needs it is skipped
//     and counted in stats.unpositioned_skipped: once per send or read of
//     it that the internal checks meet (they stand for the process-level
//     comparisons too), and once more when the lost-write rule meets a
//     committed value of it that no ok poll read. Such a value was sent with
//     no offset (nil, a micro-op still in invocation form, an invocation
//     never completed) or by an op whose sends do not enter the log (fail,
//     or info not proven by an ok read), and no poll returned it at an
//     offset (a poll with a nil offset does not place it either). Values at
//     conflicting offsets never land there.
//   - ww edges at conflicting offsets (--ww-deps). The version order lists
//     one value per position (the one observed first), and ww edges join
//     the writers of the listed values of consecutive positions, as
//     Jepsen's do (where Jepsen lists a value picked in hash order). A value
//     that shares its position with an earlier-observed one gets no ww
//     edge: which of the two logs a neighbour belongs to is unknown, and
//     joining every value of a position to every value of the next would
//     assert orders no log held (a rewritten value before a truncated one),
//     giving G0 and G1c cycles that are artefacts of the conflict. ww edges
//     only ever make a cycle allowed, never the verdict bad. lost-write,
//     duplicate, unseen and torn-transaction work on the log itself (every
//     observed value, first and last positions), not on the listed values.
//   - Subscribe or assign. Without --sub-via, poll-skip and
//     nonmonotonic-poll are allowed when the process's most recent
//     assign/subscribe (ok or info) was a subscribe, and bad otherwise,
//     including for a process that never did either.
//   - info/fail ops in the internal checks. int-poll-skip and friends look
//     at every completed op: a failed transaction's polls returned real
//     data, and its sends real offsets or none.
//   - G1c under --ww-deps. The search first looks for a cycle of reads
//     alone (with process or realtime edges for those forms); only when
//     there is none does it allow ww edges, and such a cycle is reported
//     as allowed.
//   - Cycles needing two relations (G1c-process, G1c-realtime) are simple
//     cycles; the witness is the shortest the search reaches.
//   - An op that read a value sent by a failed op counts for G1a only when
//     the reader is ok. precommitted-read applies to any completed op.
//   - torn-transaction counts a value of a committed op as missing when it
//     is lost and no poll at all (ok, info or fail) ever returned it: a value
//     that an aborted poll saw did reach the log, so the write was not torn,
//     only never consumed (lost-write and unseen report that). The shared
//     fixture txn-abort-no-rewind-poll-skip-invalid requires this reading.
//   - Unseen keeps the first 1000 values of a key (count has them all).
//   - Realtime lag. At each ok poll, for each key the process is assigned
//     (or, without an assignment, each key it has polled), stamped with the
//     poll's invocation time: the time since the smallest acknowledged
//     offset past the consumer's position (after this poll) was
//     acknowledged, counting ok sends completed before the poll was
//     invoked; 0 when nothing acknowledged is past it.
//   - stalled-consumer. A run of two or more such samples of one process and
//     key in which the position did not move and the lag stayed above zero,
//     lasting (first to last poll) at least --stall-threshold.
//   - A history where no send, poll or txn completed ok has nothing to
//     judge: unknown.
//
// # Jepsen checker behaviour not copied
//
// For users, docs/queue.md#where-hindsight-departs-from-jepsens-checker.
//
//   - Hash-order choice at conflicting offsets: Jepsen keeps one value per
//     offset, picked in hash order, and gives the others no position, so
//     its skips and ww edges depend on the pick. Here every value has its
//     offset's position and the listed one is the first observed.
//   - Throwing on a value with no writer (garbage-read here), and on a key
//     whose ok polls were all empty, which crashes Jepsen's lost-write step.
//   - The unseen series spiking when a key is polled before any ok send.
//   - Dropping an op's earlier send offsets when a later send has none
//     (realtime lag).
//   - Dense per-offset arrays: memory grows with messages, not offsets.
//   - Skipping the cycle search when the first op has no type.
//   - Forgetting a consumer's position at an ok poll that returns nothing
//     for a key ({k []}): here an empty poll keeps the position, and the
//     next read of k is compared with the last value actually read, so a
//     skip across empty polls is still a poll-skip.
//
// # Cost
//
// n is the size of the history: ops, micro-ops and values read. Every
// check is O(n log n) or better, whatever the shape of the history: one
// poll of a million values, one op of a million sends (to one key or to
// many), one key sent to a million times, one process running a million
// ops (BenchmarkAdversarial and TestAdversarialAllocs check each at n and
// 10n). Per pass: the message scan and the log (offsets per key), O(n) plus
// a sort of each key's observations; the reads' writers (G1a,
// precommitted-read, garbage-read), O(reads); the int-* checks, O(mops) per
// op, its keys indexed by dense id (keyStamps); the process checks
// (poll-skip, nonmonotonic-*), O(1) per key read or sent, a process's
// positions indexed by key once it holds many (posList); lost-write,
// unseen and torn-transaction, O(messages + mops) plus a sort of the unseen
// values; the dependency graph, O(edges log edges), its realtime edges the
// frontier reduction, O(ops · concurrency). A poll-skip or int-*-skip lists
// at most MaxSkipped of the values it jumped over and counts them all in
// skipped_count (docs/queue.md#poll-skip), so a consumer jumping back and
// forth over n values k times costs O(k) output, not O(k·n). The realtime
// lag (its series, the worst lag and stalled-consumer) samples, at each
// poll, every key the consumer holds, as Jepsen's realtime-lag does, but
// takes a sample explicitly only where a key's state may have changed and
// accounts for the runs of polls between at once (lag.go), so one consumer
// polling n keys one at a time costs O(n log n) (the adversarial history
// one-process-many-keys). The realtime edges share the txn workloads'
// limit: k ops concurrent with each other and all followed by k more make
// k² edges (analysis/txn's package doc says why and what would fix it).
package queue

import (
	"cmp"
	"slices"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// SubVia overrides the per-process assign/subscribe rule.
type SubVia uint8

// SubVia values.
const (
	// SubAuto decides per process from its assign/subscribe ops.
	SubAuto SubVia = iota
	// SubAssign makes every poll-skip and nonmonotonic-poll bad.
	SubAssign
	// SubSubscribe makes every poll-skip and nonmonotonic-poll allowed.
	SubSubscribe
)

// String returns "auto", "assign" or "subscribe".
func (s SubVia) String() string {
	switch s {
	case SubAssign:
		return "assign"
	case SubSubscribe:
		return "subscribe"
	}
	return "auto"
}

// Options tune the check.
type Options struct {
	// WWDeps adds write-write edges to the dependency graph.
	WWDeps bool
	// SubVia overrides per-process detection of assign/subscribe.
	SubVia SubVia
	// CycleBudget bounds the cycle search in each strongly connected
	// component; zero means no bound.
	CycleBudget time.Duration
	// StallThreshold is the shortest stall reported as stalled-consumer.
	StallThreshold time.Duration
	// MaxUnseenValues caps the values listed per unseen instance (0: 1000).
	MaxUnseenValues int
	// Series keeps the unseen-over-time and realtime-lag series in the
	// result (Result.Series) for the HTML report. They hold a point per ok
	// op and per polled key, so a plain check leaves them out.
	Series bool
}

// DefaultOptions are the defaults of the command line.
func DefaultOptions() Options {
	return Options{CycleBudget: 10 * time.Second, StallThreshold: 10 * time.Second}
}

type rec struct {
	inv, comp int32 // positions in h.Ops; comp == inv for an open invocation
	typ       model.OpType
	vertex    int32 // graph vertex, or -1
	proc      int32 // the op's process, numbered densely (checker.procIDs)
}

type checker struct {
	h    *model.History
	opts Options
	res  *analysis.Result

	recs    []rec
	procIDs []int32 // process of each dense process number, in order of first appearance
	// ordered: the ops' :index ascends strictly with their position, so
	// recs (in completion order) ascend by the :index of their completion
	ordered bool
	// per message
	writer   []int32 // rec that sent it, -1
	okReader []int32 // first ok rec that polled it, -1
	anyRead  []bool  // polled by any completed op
	first    []int32 // first position in the log, -1
	last     []int32 // last position in the log (pos), -1
	lost     []bool
	// per key
	offsets [][]int64       // distinct offsets with a value, ascending
	kept    [][]model.MsgID // value listed for each position (observed first)
	// conflicts: the positions (key, position) that inconsistent-offsets
	// found holding more than one value, with each value's observer
	conflicts map[[2]int32][]conflictObs
	log       *logState // buildLog's observations so far (scanMessages made them)
	// per key: the highest first position an ok poll read, and its reader
	maxFirst, maxRead []int32
	// per rec
	committed []bool
	// per op position: the rec it invokes or completes, or -1 (events)
	ev []int32
}

// Check analyses a queue history. pairing must come from model.Pair(h).
// Cost: O(ops + reads + edges log edges) time plus the cycle search, which
// is bounded per component by opts.CycleBudget; memory O(ops + messages +
// edges).
func Check(h *model.History, pairing model.Pairing, opts Options) *analysis.Result {
	return check(h, pairing, opts).res
}

func check(h *model.History, pairing model.Pairing, opts Options) *checker {
	if opts.MaxUnseenValues <= 0 {
		opts.MaxUnseenValues = 1000
	}
	start := time.Now()
	c := &checker{h: h, opts: opts, res: &analysis.Result{
		Schema:   analysis.Schema,
		Source:   h.Source,
		Workload: "queue",
		Options: analysis.Options{
			WWDeps: &opts.WWDeps, SubVia: opts.SubVia.String(),
			CycleBudgetS:   opts.CycleBudget.Seconds(),
			StallThreshold: analysis.FloatPtr(opts.StallThreshold.Seconds()),
		},
		Warnings: h.Warnings,
	}}
	c.records(pairing)
	// The checks run as three groups at once: the message and log checks
	// here; the series, stalls and cycles on c2, which reads the message
	// tables once they are built; and the reads' writers (checkReads) on
	// c3, from when the messages' writers are known. The groups add
	// anomalies of different types, each in the order a sequential run
	// adds them, into results of their own. (Three groups on two cores:
	// the scheduler spreads the third over the time the other two leave.)
	c2 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs, procIDs: c.procIDs}
	c3 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs}
	logged, done, readsDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		c2.seriesAndStalls()
		// The graph waits for the version order: ww edges and their
		// explanations need it, and its working space is freed once the
		// log's is (the two at once would push a large history past its
		// memory budget).
		<-logged
		c2.writer = c.writer
		c2.first, c2.last, c2.kept, c2.offsets, c2.conflicts = c.first, c.last, c.kept, c.offsets, c.conflicts
		c2.cycles()
	}()
	c.scanMessages()
	c3.writer = c.writer
	go func() {
		defer close(readsDone)
		c3.checkAllReads()
	}()
	c.buildLog()
	close(logged)
	c.checkRecs()
	c.checkLostAndUnseen()
	<-done
	<-readsDone
	c.join(c2)
	c.joinAnomalies(c3)
	if h.Truncated {
		c.res.UnknownReasons = append(c.res.UnknownReasons,
			"the input was cut off in the middle of an op; only the complete ops before it were analysed")
	}
	if c.res.Stats.OKOps == 0 || !c.anyOKData() {
		c.res.UnknownReasons = append(c.res.UnknownReasons,
			"no send, poll or txn op completed ok: there is nothing to judge")
	}
	c.res.Finish(func(typ string, in *analysis.Instance) bool { return IsBad(typ, in.Allowed) })
	c.res.Stats.ElapsedMS = time.Since(start).Milliseconds()
	return c
}

// join takes in what c2, the second group of checks, found: its anomaly
// types (none of which c adds), its statistics and series, and its
// reasons for an unknown verdict (c has none yet).
func (c *checker) join(c2 *checker) {
	c.joinAnomalies(c2)
	r, r2 := c.res, c2.res
	st, st2 := &r.Stats, &r2.Stats
	st.WorstLagS, st.WorstLagProcess, st.WorstLagKey, st.WorstLagOp = st2.WorstLagS, st2.WorstLagProcess, st2.WorstLagKey, st2.WorstLagOp
	st.GraphVertices, st.GraphEdges = st2.GraphVertices, st2.GraphEdges
	st.Components, st.LargestComponent = st2.Components, st2.LargestComponent
	r.Series = r2.Series
	r.UnknownReasons = append(r2.UnknownReasons, r.UnknownReasons...)
}

// joinAnomalies takes in the anomalies another group of checks found, of
// types c does not add.
func (c *checker) joinAnomalies(o *checker) {
	r := c.res
	for typ, ins := range o.res.Anomalies {
		if r.Anomalies == nil {
			r.Anomalies = map[string][]analysis.Instance{}
		}
		r.Anomalies[typ] = ins
	}
}

func (c *checker) anyOKData() bool {
	for _, r := range c.recs {
		if r.typ == model.OK && r.vertex >= 0 {
			return true
		}
	}
	return false
}

func (c *checker) op(pos int32) *model.Op { return &c.h.Ops[pos] }

// idx returns the :index of the op at pos.
func (c *checker) idx(pos int32) int64 { return c.h.Ops[pos].Index }

// witness returns the invocation and completion indices of recs.
func (c *checker) witness(recs ...int32) []int64 {
	w := make([]int64, 0, 2*len(recs))
	for _, r := range recs {
		if r < 0 {
			continue
		}
		w = append(w, c.idx(c.recs[r].inv), c.idx(c.recs[r].comp))
	}
	return w
}

func (c *checker) compIdx(r int32) int64 { return c.idx(c.recs[r].comp) }

func (c *checker) mops(r int32) []model.Mop { return c.h.MopsOf(c.op(c.recs[r].comp)) }

func (c *checker) keyVal(k model.KeyID) *analysis.Value { return analysis.AtomValuePtr(c.h.Keys[k]) }

func (c *checker) msgVal(m model.MsgID) analysis.Value { return analysis.AtomValue(c.h.MsgValue(m)) }

func (c *checker) msgValP(m model.MsgID) *analysis.Value { v := c.msgVal(m); return &v }

// records builds the record list and the op statistics.
func (c *checker) records(p model.Pairing) {
	st := &c.res.Stats
	st.Ops = int64(len(c.h.Ops))
	st.Keys = int64(len(c.h.Keys))
	st.Messages = int64(len(c.h.Msgs))
	vertices := int32(0)
	c.recs = make([]rec, 0, len(c.h.Ops)/2+1)
	var slots procSlots
	c.ordered = true
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		if i > 0 && op.Index <= c.h.Ops[i-1].Index {
			c.ordered = false
		}
		if !op.IsClient() {
			continue
		}
		st.ClientOps++
		var r rec
		switch {
		case op.Type == model.Invoke && p.Partner[i] < 0:
			r = rec{inv: int32(i), comp: int32(i), typ: model.Info}
			st.OpenOps++
		case op.Type != model.Invoke && p.Partner[i] >= 0:
			r = rec{inv: p.Partner[i], comp: int32(i), typ: op.Type}
		default:
			continue
		}
		switch r.typ {
		case model.OK:
			st.OKOps++
		case model.Info:
			st.InfoOps++
		case model.Fail:
			st.FailOps++
		}
		r.vertex = -1
		var isNew bool
		if r.proc, isNew = slots.slot(op.Process); isNew {
			c.procIDs = append(c.procIDs, op.Process)
		}
		switch op.F {
		case model.FSend:
			st.Sends++
		case model.FPoll:
			st.Polls++
		case model.FTxn:
			st.Txns++
		}
		switch op.F {
		case model.FSend, model.FPoll, model.FTxn:
			r.vertex = vertices
			vertices++
		}
		c.recs = append(c.recs, r)
	}
}

// scanMessages fills writer, okReader, anyRead and committed, and
// makes buildLog's observations of polled values (its own pass over the
// sends observes theirs, which need committed): one pass over every read.
func (c *checker) scanMessages() {
	n := len(c.h.Msgs)
	c.writer = filled(n, -1)
	c.okReader = filled(n, -1)
	c.anyRead = make([]bool, n)
	c.log = newLogState(n)
	for ri := range c.recs {
		r := &c.recs[ri]
		done := r.comp != r.inv // else an open invocation: nothing was read
		var opIdx int64
		if done {
			opIdx = c.compIdx(int32(ri))
		}
		sq := int32(0) // observation sequence: sends and reads in order
		mops := c.mops(int32(ri))
		for mi := range mops {
			m := &mops[mi]
			switch m.Kind {
			case model.MopSend:
				if c.writer[m.Msg] < 0 {
					c.writer[m.Msg] = int32(ri)
				}
				sq++
			case model.MopPoll:
				if !done {
					continue
				}
				for _, kp := range c.h.PollsOf(m) {
					for _, rd := range c.h.ReadsOf(&kp) {
						c.anyRead[rd.Msg] = true
						if r.typ == model.OK && c.okReader[rd.Msg] < 0 {
							c.okReader[rd.Msg] = int32(ri)
						}
						c.log.observe(c, rd.Msg, rd.Offset(), int32(ri), sq, opIdx)
						sq++
					}
				}
			}
		}
	}
	c.committed = make([]bool, len(c.recs))
	for ri, r := range c.recs {
		switch r.typ {
		case model.OK:
			c.committed[ri] = true
		case model.Info:
			for _, m := range c.mops(int32(ri)) {
				if m.Kind == model.MopSend && c.okReader[m.Msg] >= 0 {
					c.committed[ri] = true
					break
				}
			}
		}
	}
}

// procSlots numbers process ids densely, in order of first appearance:
// small non-negative ids through a slice, others through a map.
type procSlots struct {
	small []int32 // slot+1 of process p
	other map[int32]int32
	n     int32
}

const maxSmallProc = 1 << 16

// slot returns p's number, and whether p is new.
func (s *procSlots) slot(p int32) (int32, bool) {
	if p >= 0 && p < maxSmallProc {
		if int(p) >= len(s.small) {
			s.small = append(s.small, make([]int32, int(p)+1-len(s.small))...)
		}
		if v := s.small[p]; v != 0 {
			return v - 1, false
		}
		s.small[p] = s.n + 1
	} else {
		if v, ok := s.other[p]; ok {
			return v, false
		}
		if s.other == nil {
			s.other = map[int32]int32{}
		}
		s.other[p] = s.n
	}
	s.n++
	return s.n - 1, true
}

func filled(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// logEntry is one (message, offset) observation: the op index and micro-op
// sequence of its first observer, for "observed first".
type logEntry struct {
	key   model.KeyID
	msg   model.MsgID
	off   int64
	obsOp int64
	obsSq int32
	obsR  int32 // rec of the first observer
}

// logState is what buildLog gathers about the log: each message's first
// (message, offset) observation in a flat array (off NoOffset: none), and
// its further offsets, if any, in a side list. The first observer of each
// (message, offset) is the one with the lowest op index, then the lowest
// sequence in the op, whatever the order observe is called in.
type logState struct {
	primObs []logEntry
	extra   []logEntry
	extraOf map[model.MsgID][]int
}

func newLogState(n int) *logState {
	ls := &logState{primObs: make([]logEntry, n), extraOf: map[model.MsgID][]int{}}
	for i := range ls.primObs {
		ls.primObs[i].off = model.NoOffset
	}
	return ls
}

// observe records that rec r (op index opIdx) saw message m at offset off,
// as its sq-th send or read.
func (ls *logState) observe(c *checker, m model.MsgID, off int64, r int32, sq int32, opIdx int64) {
	if off == model.NoOffset {
		return
	}
	better := func(e *logEntry) bool {
		return opIdx < e.obsOp || (opIdx == e.obsOp && sq < e.obsSq)
	}
	if e := &ls.primObs[m]; e.off == model.NoOffset {
		*e = logEntry{key: c.h.Msgs[m].Key, msg: m, off: off, obsOp: opIdx, obsSq: sq, obsR: r}
		return
	} else if e.off == off {
		if better(e) {
			e.obsOp, e.obsSq, e.obsR = opIdx, sq, r
		}
		return
	}
	for _, i := range ls.extraOf[m] {
		if ls.extra[i].off == off {
			if better(&ls.extra[i]) {
				ls.extra[i].obsOp, ls.extra[i].obsSq, ls.extra[i].obsR = opIdx, sq, r
			}
			return
		}
	}
	ls.extraOf[m] = append(ls.extraOf[m], len(ls.extra))
	ls.extra = append(ls.extra, logEntry{key: c.h.Msgs[m].Key, msg: m, off: off, obsOp: opIdx, obsSq: sq, obsR: r})
}

// buildLog builds each key's log (offset -> values), its version order and
// every message's first and last position, and reports inconsistent-offsets
// and duplicate. Each message usually sits at one offset, so the first
// (message, offset) pair lives in flat per-message arrays and only further
// offsets of a message go to a side list: memory grows with messages.
func (c *checker) buildLog() {
	n := len(c.h.Msgs)
	ls := c.log
	c.log = nil
	// the sends' observations (scanMessages made the reads')
	for ri, r := range c.recs {
		if r.comp == r.inv || !c.committed[ri] {
			continue // open invocation: nothing observed; uncommitted sends: not in the log
		}
		opIdx := c.compIdx(int32(ri))
		sq := int32(0)
		mops := c.mops(int32(ri))
		for mi := range mops {
			m := &mops[mi]
			switch m.Kind {
			case model.MopSend:
				if m.Done {
					ls.observe(c, m.Msg, m.Offset, int32(ri), sq, opIdx)
				}
				sq++
			case model.MopPoll:
				for _, kp := range c.h.PollsOf(m) {
					sq += kp.Reads.N
				}
			}
		}
	}
	primObs, extra, extraOf := ls.primObs, ls.extra, ls.extraOf
	// Compact the observed messages to the front of primObs and sort that:
	// no second array of entries.
	// the first observer of each duplicate's first offset, for its witness
	dupFirst := make(map[model.MsgID]logEntry, len(extraOf))
	for m := range extraOf {
		dupFirst[m] = primObs[m]
	}
	entries := primObs[:0]
	for m := range primObs {
		if primObs[m].off != model.NoOffset {
			entries = append(entries, primObs[m])
		}
	}
	entries = append(entries, extra...)
	primObs = nil
	nk := len(c.h.Keys)
	runs := sortEntries(entries, nk)
	c.offsets = make([][]int64, nk)
	c.kept = make([][]model.MsgID, nk)
	for k, n := range runs { // each key's entries: at most that many positions
		if n > 0 {
			c.offsets[k] = make([]int64, 0, n)
			c.kept[k] = make([]model.MsgID, 0, n)
		}
	}
	c.first = filled(n, -1)
	c.last = filled(n, -1)
	for i := 0; i < len(entries); {
		e := entries[i]
		j := i + 1
		for j < len(entries) && entries[j].key == e.key && entries[j].off == e.off {
			j++
		}
		pos := int32(len(c.offsets[e.key]))
		c.offsets[e.key] = append(c.offsets[e.key], e.off)
		c.kept[e.key] = append(c.kept[e.key], e.msg)
		for _, x := range entries[i:j] {
			if c.first[x.msg] < 0 {
				c.first[x.msg] = pos
			}
			c.last[x.msg] = pos // entries ascend by offset within a key
		}
		if j-i > 1 {
			group := entries[i:j]
			vals := make([]analysis.Value, len(group))
			var recs []int32
			var ops []int64
			if c.conflicts == nil {
				c.conflicts = map[[2]int32][]conflictObs{}
			}
			for gi, x := range group {
				vals[gi] = c.msgVal(x.msg)
				recs = append(recs, x.obsR)
				ops = append(ops, c.compIdx(x.obsR))
				ck := [2]int32{int32(e.key), pos}
				c.conflicts[ck] = append(c.conflicts[ck], conflictObs{x.msg, x.obsR})
			}
			slices.SortFunc(vals, func(a, b analysis.Value) int { return lessCmp(a.Atom, b.Atom) })
			slices.Sort(ops)
			c.res.Add(InconsistentOffsets, analysis.Instance{
				Key: c.keyVal(e.key), Offset: analysis.IntPtr(e.off), Index: analysis.IntPtr(int64(pos)),
				Values: vals, Ops: slices.Compact(ops), Witness: c.witness(recs...),
			})
		}
		i = j
	}
	// duplicates: messages with more than one offset
	dups := make([]model.MsgID, 0, len(extraOf))
	for m := range extraOf {
		dups = append(dups, m)
	}
	slices.Sort(dups)
	for _, m := range dups {
		offs := []int64{dupFirst[m].off}
		recs := []int32{dupFirst[m].obsR}
		for _, i := range extraOf[m] {
			offs = append(offs, extra[i].off)
			recs = append(recs, extra[i].obsR)
		}
		slices.Sort(offs)
		c.res.Add(Duplicate, analysis.Instance{
			Key: c.keyVal(c.h.Msgs[m].Key), Value: c.msgValP(m),
			Count: analysis.IntPtr(int64(len(offs))), Offsets: offs, Witness: c.witness(recs...),
		})
	}
}

// sortEntries sorts entries by key, offset and first observation (a total
// order: no two entries share all four). Keys first, by distributing them
// in place (an American flag sort), then each key's run on its own. It
// returns the number of entries of each key.
func sortEntries(entries []logEntry, nk int) []int {
	next := make([]int, nk+1) // start of each key's run, then its next free slot
	for i := range entries {
		next[entries[i].key+1]++
	}
	for k := 1; k <= nk; k++ {
		next[k] += next[k-1]
	}
	end := slices.Clone(next[1:])
	for k := range nk {
		for next[k] < end[k] {
			e := entries[next[k]]
			if int(e.key) == k {
				next[k]++
				continue
			}
			entries[next[k]], entries[next[e.key]] = entries[next[e.key]], e
			next[e.key]++
		}
	}
	runs := make([]int, nk)
	start := 0
	var slot []int32
	var tmp []logEntry
	for k := range nk {
		run := entries[start:end[k]]
		runs[k] = len(run)
		start = end[k]
		if slot, tmp = placeByOffset(run, slot, tmp); slot != nil {
			continue
		}
		slices.SortFunc(run, func(a, b logEntry) int {
			if a.off != b.off {
				return cmp.Compare(a.off, b.off)
			}
			if a.obsOp != b.obsOp {
				return cmp.Compare(a.obsOp, b.obsOp)
			}
			return cmp.Compare(a.obsSq, b.obsSq)
		})
	}
	return runs
}

// placeByOffset sorts the entries of one key by offset without comparing
// them, when that is easy: their offsets are distinct (no conflict, the
// usual case) and span less than twice their number (a key's log is dense),
// so each goes to the slot of its offset. It returns the scratch space,
// slot nil when it did not sort them.
func placeByOffset(run []logEntry, slot []int32, tmp []logEntry) ([]int32, []logEntry) {
	if len(run) < 2 {
		return slot[:0], tmp // nothing to sort
	}
	lo, hi := run[0].off, run[0].off
	for i := range run {
		lo, hi = min(lo, run[i].off), max(hi, run[i].off)
	}
	span := uint64(hi - lo)
	if span >= 2*uint64(len(run)) {
		return nil, tmp
	}
	slot = slices.Grow(slot[:0], int(span)+1)[:span+1]
	for i := range slot {
		slot[i] = -1
	}
	for i := range run {
		j := run[i].off - lo
		if slot[j] >= 0 {
			return nil, tmp // two values at one offset: compare
		}
		slot[j] = int32(i)
	}
	tmp = append(tmp[:0], run...)
	w := 0
	for _, i := range slot {
		if i >= 0 {
			run[w] = tmp[i]
			w++
		}
	}
	return slot, tmp
}

func lessCmp(a, b model.Atom) int {
	if a.Less(b) {
		return -1
	}
	if b.Less(a) {
		return 1
	}
	return 0
}

// pos is the position of a value for order comparisons: the last position
// at which the log holds it, whether or not it is the value listed there,
// or -1 when no completed op observed it at an offset (see the package doc).
func (c *checker) pos(m model.MsgID) int32 { return c.last[m] }

// checkRecs runs the checks that go through the ops one by one: each
// op's reads are looked at by checkInternal, checkProcesses and the search
// for the max reads of checkLostAndUnseen in turn, while they are in
// cache, rather than in three passes over the history. (checkReads makes
// a pass of its own, on the other goroutine.)
func (c *checker) checkRecs() {
	c.maxReads()
	var is internalState
	ps := processState{procs: make([]procState, len(c.procIDs))}
	for i := range c.recs {
		ri := int32(i)
		r := &c.recs[i]
		op := c.op(r.comp)
		mops := c.h.MopsOf(op)
		c.checkInternal(ri, op, mops, &is)
		c.checkProcesses(ri, r, op, mops, &ps)
		if !c.ordered {
			c.maxReader(ri, r, mops)
		}
	}
}

// checkAllReads runs checkReads on every rec.
func (c *checker) checkAllReads() {
	done := make([]int32, len(c.h.Msgs)) // rec+1 that last met the message: once per rec
	for i := range c.recs {
		r := &c.recs[i]
		c.checkReads(int32(i), r, c.mops(int32(i)), done)
	}
}

// checkReads reports G1a, precommitted-read and garbage-read in the reads
// of rec ri, whose micro-ops are mops; done[m] == ri+1 marks a message
// met in this rec already.
func (c *checker) checkReads(ri int32, r *rec, mops []model.Mop, done []int32) {
	if r.comp == r.inv {
		return
	}
	stamp := ri + 1
	reader := c.compIdx(ri)
	for mi := range mops {
		m := &mops[mi]
		if m.Kind != model.MopPoll {
			continue
		}
		for _, kp := range c.h.PollsOf(m) {
			for _, rd := range c.h.ReadsOf(&kp) {
				if done[rd.Msg] == stamp {
					continue
				}
				done[rd.Msg] = stamp
				w := c.writer[rd.Msg]
				switch {
				case w < 0:
					c.res.Add(GarbageRead, analysis.Instance{
						Key: c.keyVal(kp.Key), Value: c.msgValP(rd.Msg), Offset: analysis.IntPtr(rd.Offset()),
						Reader: analysis.IntPtr(reader), Witness: c.witness(ri),
					})
				case w == ri:
					c.res.Add(PrecommittedRead, analysis.Instance{
						Op: analysis.IntPtr(reader), Key: c.keyVal(kp.Key), Value: c.msgValP(rd.Msg),
						Witness: c.witness(ri),
					})
				case r.typ == model.OK && c.recs[w].typ == model.Fail:
					c.res.Add(G1a, analysis.Instance{
						Key: c.keyVal(kp.Key), Value: c.msgValP(rd.Msg), Offset: analysis.IntPtr(rd.Offset()),
						Reader: analysis.IntPtr(reader), Writer: analysis.IntPtr(c.compIdx(w)),
						Witness: c.witness(w, ri),
					})
				}
			}
		}
	}
}

// MaxSkipped is the most skipped values a poll-skip or int-poll-skip
// instance lists (the first ones, in log order); SkippedCount says how many
// there were in all when the list is cut (docs/queue.md#poll-skip).
const MaxSkipped = 32

// setSkipped lists in in.Skipped the values kept at positions strictly
// between a and b, at most MaxSkipped of them, and sets in.SkippedCount
// when there are more: O(MaxSkipped), so a consumer jumping back and forth
// over n values k times costs O(k), not O(k·n).
func (c *checker) setSkipped(in *analysis.Instance, k model.KeyID, a, b int32) {
	n := int64(b - a - 1)
	for p := a + 1; p < b && p <= a+MaxSkipped; p++ {
		in.Skipped = append(in.Skipped, c.msgVal(c.kept[k][p]))
	}
	if n > MaxSkipped {
		in.SkippedCount = analysis.IntPtr(n)
	}
}

// writerOfPos returns the rec that wrote the value kept at position p of k,
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
	// step compares value m, at position p, with the last value of its key
	// (seen[i], or none when i < 0) and records it; it returns m's entry.
	step := func(seen *[]lastSeen, idx *keyStamps, i int, skipT, nonmonoT string, k model.KeyID, p int32, m model.MsgID) int {
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
	for _, k := range c.h.RebalanceOf(op) {
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
						c.res.Stats.Unpositioned++
						continue
					}
					if i == -2 {
						i = at(&st.readAt, kp.Key)
					}
					i = step(&st.reads, &st.readAt, i, IntPollSkip, IntNonmonotonicPoll, kp.Key, p, rd.Msg)
				}
			}
		case model.MopSend:
			p := c.pos(m.Msg)
			if p < 0 {
				c.res.Stats.Unpositioned++
				continue
			}
			step(&st.sends, &st.sendAt, at(&st.sendAt, m.Key), IntSendSkip, IntNonmonotonicSend, m.Key, p, m.Msg)
		}
	}
}

func (c *checker) internalStep(r int32, skipT, nonmonoT string, prev lastSeen, k model.KeyID, p int32, m model.MsgID) {
	delta, ordered := step(prev.pos, prev.msg, p, m)
	if delta == 1 || !ordered {
		return
	}
	in := analysis.Instance{
		Key: c.keyVal(k), Op: analysis.IntPtr(c.compIdx(r)),
		Values: []analysis.Value{c.msgVal(prev.msg), c.msgVal(m)}, Delta: analysis.IntPtr(delta),
		Witness: c.witness(r),
	}
	if delta > 1 {
		c.setSkipped(&in, k, prev.pos, p)
		in.Witness = append(in.Witness, c.witness(c.proofOfPos(k, prev.pos+1))...)
		c.res.Add(skipT, in)
		return
	}
	c.res.Add(nonmonoT, in)
}

// procState is what the process-level checks remember per process.
type procState struct {
	subscribed bool
	assigned   []model.KeyID // nil: no assign/subscribe seen
	hasAssign  bool
	polls      posList // consumer position per key (last ok poll)
	sends      posList // producer position per key
}

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
		ps.assigned = c.h.KeysOf(op)
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

func (c *checker) processStep(proc int32, ps *procState, prev, next posAt, poll bool) {
	delta, ordered := step(prev.pos, prev.msg, next.pos, next.msg)
	if delta == 1 || (!poll && delta > 0) || !ordered {
		return
	}
	in := analysis.Instance{
		Key: c.keyVal(next.key), Process: analysis.IntPtr(int64(proc)),
		Ops:     []int64{c.compIdx(prev.rec), c.compIdx(next.rec)},
		Values:  []analysis.Value{c.msgVal(prev.msg), c.msgVal(next.msg)},
		Delta:   analysis.IntPtr(delta),
		Witness: c.witness(prev.rec, next.rec),
	}
	if !poll {
		c.res.Add(NonmonotonicSend, in)
		return
	}
	switch c.opts.SubVia {
	case SubSubscribe:
		in.Allowed = true
	case SubAuto:
		in.Allowed = ps.subscribed
	}
	if delta > 1 {
		c.setSkipped(&in, next.key, prev.pos, next.pos)
		in.Witness = append(in.Witness, c.witness(c.proofOfPos(next.key, prev.pos+1))...)
		c.res.Add(PollSkip, in)
		return
	}
	c.res.Add(NonmonotonicPoll, in)
}

// maxReads finds, per key, the highest first position any ok poll read
// (maxFirst) and a reader of it (maxRead), which maxReader then lowers to
// the lowest-indexed such reader. When the ops' indices ascend
// (c.ordered), the first ok reader of each message (okReader) is its
// lowest-indexed one, and maxReads finds the lowest-indexed reader of the
// values at maxFirst itself: maxReader has nothing to do.
func (c *checker) maxReads() {
	nk := len(c.h.Keys)
	c.maxFirst = filled(nk, -1)
	c.maxRead = filled(nk, -1)
	for m := range c.h.Msgs {
		r := c.okReader[m]
		if r < 0 || c.first[m] < 0 {
			continue
		}
		k := c.h.Msgs[m].Key
		if c.first[m] > c.maxFirst[k] {
			c.maxFirst[k] = c.first[m]
			c.maxRead[k] = r
		} else if c.ordered && c.first[m] == c.maxFirst[k] && r < c.maxRead[k] {
			c.maxRead[k] = r
		}
	}
}

// maxReader names as max_read, per key, the lowest-indexed ok poll that
// read the value at max_read_index, not just the first found: rec ri's
// reads are compared with the reader so far.
func (c *checker) maxReader(ri int32, r *rec, mops []model.Mop) {
	if r.typ != model.OK {
		return
	}
	for mi := range mops {
		for _, kp := range c.h.PollsOf(&mops[mi]) {
			for _, rd := range c.h.ReadsOf(&kp) {
				if c.first[rd.Msg] == c.maxFirst[kp.Key] && c.first[rd.Msg] >= 0 &&
					c.compIdx(ri) < c.compIdx(c.maxRead[kp.Key]) {
					c.maxRead[kp.Key] = ri
				}
			}
		}
	}
}

// checkLostAndUnseen reports lost-write, unseen and torn-transaction (after
// checkRecs, which found each key's max reads).
func (c *checker) checkLostAndUnseen() {
	nk := len(c.h.Keys)
	maxFirst, maxReader := c.maxFirst, c.maxRead
	c.lost = make([]bool, len(c.h.Msgs))
	unseen := make([][]model.MsgID, nk)
	var sentOff []int64 // made at the first lost write
	for mi := range c.h.Msgs {
		m := model.MsgID(mi)
		w := c.writer[m]
		if w < 0 || !c.committed[w] || c.okReader[m] >= 0 {
			continue
		}
		k := c.h.Msgs[m].Key
		if c.recs[w].typ == model.OK {
			unseen[k] = append(unseen[k], m)
		}
		if c.last[m] < 0 {
			c.res.Stats.Unpositioned++
			continue
		}
		if c.last[m] > maxFirst[k] {
			continue
		}
		c.lost[m] = true
		off := c.offsets[k][c.first[m]]
		if sentOff == nil {
			sentOff = c.sentOffsets()
		}
		if o := sentOff[m]; o != model.NoOffset {
			off = o
		}
		c.res.Add(LostWrite, analysis.Instance{
			Key: c.keyVal(k), Value: c.msgValP(m), Offset: analysis.IntPtr(off),
			Index: analysis.IntPtr(int64(c.first[m])), MaxReadIndex: analysis.IntPtr(int64(maxFirst[k])),
			Writer: analysis.IntPtr(c.compIdx(w)), MaxRead: analysis.IntPtr(c.compIdx(maxReader[k])),
			MaxReadOffset: analysis.IntPtr(c.offsets[k][maxFirst[k]]),
			Witness:       c.witness(w, maxReader[k]),
		})
	}
	for k, ms := range unseen {
		if len(ms) == 0 {
			continue
		}
		slices.SortFunc(ms, func(a, b model.MsgID) int {
			if x := cmp.Compare(c.last[a], c.last[b]); x != 0 {
				return x
			}
			return lessCmp(c.h.MsgValue(a), c.h.MsgValue(b))
		})
		in := analysis.Instance{Key: c.keyVal(model.KeyID(k)), Count: analysis.IntPtr(int64(len(ms)))}
		if len(ms) > c.opts.MaxUnseenValues {
			ms = ms[:c.opts.MaxUnseenValues]
			in.Truncated = true
		}
		var ws []int32
		for _, m := range ms {
			in.Values = append(in.Values, c.msgVal(m))
			ws = append(ws, c.writer[m])
		}
		in.Witness = c.witness(ws...)
		c.res.Add(Unseen, in)
	}
	// torn transactions
	var proofs []int32
	var sent []model.MsgID
	var kinds []byte
	met := make([]int32, len(c.h.Msgs)) // rec+1 that last sent the message: once per rec
	for ri, r := range c.recs {
		rr := int32(ri)
		if !c.committed[rr] && r.typ != model.Fail {
			continue
		}
		proofs = append(proofs[:0], rr)
		sent = sent[:0]
		kinds = kinds[:0] // per sent value: 1 seen, 2 missing, 0 neither
		nSeen, nMissing := 0, 0
		for _, m := range c.mops(rr) {
			if m.Kind != model.MopSend || met[m.Msg] == rr+1 || c.writer[m.Msg] != rr {
				continue
			}
			met[m.Msg] = rr + 1
			sent = append(sent, m.Msg)
			kind := byte(0)
			switch {
			case c.okReader[m.Msg] >= 0:
				kind = 1
				proofs = append(proofs, c.okReader[m.Msg])
			case c.committed[rr] && c.lost[m.Msg] && !c.anyRead[m.Msg]:
				kind = 2
				proofs = append(proofs, maxReader[m.Key])
			case r.typ == model.Fail && !c.anyRead[m.Msg] && c.last[m.Msg] < 0:
				kind = 2
			}
			kinds = append(kinds, kind)
			switch kind {
			case 1:
				nSeen++
			case 2:
				nMissing++
			}
		}
		if nSeen == 0 || nMissing == 0 {
			continue
		}
		var seen, missing []analysis.Pair
		for i, m := range sent {
			pair := analysis.Pair{*c.keyVal(c.h.Msgs[m].Key), c.msgVal(m)}
			switch kinds[i] {
			case 1:
				seen = append(seen, pair)
			case 2:
				missing = append(missing, pair)
			}
		}
		reason := "lost"
		if r.typ == model.Fail {
			reason = "aborted"
		}
		c.res.Add(TornTransaction, analysis.Instance{
			Op: analysis.IntPtr(c.compIdx(rr)), Seen: seen, Missing: missing, Reason: reason,
			Witness: c.witness(proofs...),
		})
	}
}

// sentOffsets returns, for each message, the offset its writer's ok send
// of it acknowledged (the last such send in the writer's op), or
// model.NoOffset: one pass over the sends, where looking through the
// writer's micro-ops for each lost message would cost O(sends²) on one op
// sending many.
func (c *checker) sentOffsets() []int64 {
	off := make([]int64, len(c.h.Msgs))
	for i := range off {
		off[i] = model.NoOffset
	}
	for ri := range c.recs {
		for _, mo := range c.mops(int32(ri)) {
			if mo.Kind == model.MopSend && mo.Done && mo.Offset != model.NoOffset && c.writer[mo.Msg] == int32(ri) {
				off[mo.Msg] = mo.Offset
			}
		}
	}
	return off
}
