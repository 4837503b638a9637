package gen

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Tuning of the simulation. Rates are per invocation of an idle worker.
const (
	assignRate    = 0.03  // an assign/subscribe op
	crashRate     = 0.001 // a :crash op (the process is replaced)
	noAssignRate  = 0.25  // an assign/subscribe op when the worker has none
	landedRate    = 0.5   // an :info send or txn was applied anyway
	nemesisEvery  = 3000  // one nemesis op per this many steps, on average
	maxPoll       = 5     // most messages a poll returns per key
	startTime     = 10_000_000
	minGap        = 100_000   // 0.1 ms between two lines, at least
	maxGap        = 5_000_000 // 5 ms at most
	reserveWindow = 300       // lines per worker of slack before recomputing the reserve
)

// entry flags.
const (
	fRead    uint8 = 1 << iota // some ok poll returned it
	fLost                      // dropped: never returned (LostWrite, TornTxn)
	fGarbage                   // stored by the Garbage fault, nobody sent it
	fAcked                     // an ok send or txn acknowledged its offset
)

// entry is one stored message of a key's log. Transaction markers and
// aborted records take offsets but have no entry.
type entry struct {
	off   int64
	val   int64
	flags uint8
}

// keyLog is one key's (topic-partition's) log.
type keyLog struct {
	entries []entry
	next    int64 // offset the next append gets
	nextVal int64 // value the next send to this key carries
	// committed: every entry below it was read by an ok poll (or is lost).
	// A consumer that is newly assigned the key starts here, like a Kafka
	// consumer starting from the group's committed offset.
	committed int32
}

// pendingOp is the op a worker has in flight.
type pendingOp struct {
	f        fn
	mops     []mop
	keys     []int32
	fault    FaultKind
	hasFault bool
	forced   opType // tInvoke: none
	partner  int32  // G1c: the worker running the other transaction
	crashed  bool   // its client crashed (Config.CrashRate): it completes :info
}

// worker is one Jepsen worker thread: it runs one client process at a time.
type worker struct {
	pid        int64
	busy       bool
	op         pendingOp
	assigned   []int32 // sorted
	isAssigned []bool
	pos        []int32 // next entry to read, per key
	hasPos     []bool  // read something since the key was assigned
	lastRead   []int64 // index of the last ok op that read the key
	lastSend   []int64 // offset of the process's last acked send to the key, -1 none
	stallKey   int32   // -1: not stalled
	stallUntil int64
	stallInj   int
	stallFirst int64 // time of the first stalled poll
	stallLastT int64
	stallLastI int64
	script     int8 // final phase: 0 crash, 1 assign, 2 polling, 3 done
	crashNext  bool // its next op is a crash (after a G1c transaction)
}

type phase uint8

const (
	phaseMain phase = iota
	phaseDrain
	phaseFinal
	phasePad
	phaseDone
)

type trigger struct {
	line int64
	kind FaultKind
}

type sim struct {
	cfg Config
	rng *rand.Rand
	bw  *bufio.Writer
	enc encoder
	buf []byte
	err error

	lines, now, steps int64
	ops               int64 // target line count

	logs     []keyLog
	workers  []worker
	idle     []int32
	inflight []int32 // worker index; len(workers) for the nemesis
	nem      nemesis

	groups  []group
	pairs   []pair
	out     []mop
	mark    []bool
	touched []int32
	keys    []int32 // 0..Keys-1
	ln      line

	phase   phase
	reserve int64

	triggers    []trigger
	nextTrigger int
	queue       []FaultKind // armed faults other than Stall, in order
	stalls      int         // armed Stall faults
	open        bool        // an op carrying a fault is in flight: inject one at a time
	garbageN    int64
	g1c         g1cPair // the G1c transactions in flight

	stats Stats
}

// Write simulates a Kafka-like broker and its clients and writes the
// resulting history to w, one op per line, in cfg.Format. It streams: memory
// is the simulated logs (O(messages)) plus O(Concurrency × Keys); the history
// itself is never held. The output depends on cfg only. Cost: O(Ops) time,
// plus O(Keys) per assign.
func Write(w io.Writer, cfg Config) (Stats, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return Stats{}, err
	}
	s := newSim(w, cfg)
	if cfg.Ops > 0 {
		s.run()
	}
	s.err = flushed(s.bw, s.err)
	s.stats.EndTime = s.now
	if s.stats.Lines == 0 {
		s.stats.EndTime = 0
	}
	return s.stats, s.err
}

// flushed flushes bw once a simulation has written its history; err is the
// simulation's first write error, which stands if there was one.
func flushed(bw *bufio.Writer, err error) error {
	if err != nil {
		return err
	}
	return bw.Flush()
}

func newSim(w io.Writer, cfg Config) *sim {
	s := &sim{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x68696e6473696768)),
		bw:      bufio.NewWriterSize(w, 256<<10),
		enc:     appendEDN,
		ops:     int64(cfg.Ops),
		now:     startTime,
		logs:    make([]keyLog, cfg.Keys),
		workers: make([]worker, cfg.Concurrency),
		mark:    make([]bool, cfg.Keys),
	}
	if cfg.Format == JSON {
		s.enc = appendJSON
	}
	s.stats.FinalPhase = -1
	for k := range cfg.Keys {
		s.keys = append(s.keys, int32(k))
	}
	for i := range s.workers {
		w := &s.workers[i]
		w.pid = int64(i)
		w.isAssigned = make([]bool, cfg.Keys)
		w.pos = make([]int32, cfg.Keys)
		w.hasPos = make([]bool, cfg.Keys)
		w.lastRead = make([]int64, cfg.Keys)
		w.lastSend = make([]int64, cfg.Keys)
		for k := range w.lastSend {
			w.lastSend[k] = -1
		}
		w.stallKey = -1
		s.idle = append(s.idle, int32(i))
	}
	s.stats.Processes = int64(cfg.Concurrency)
	s.planFaults()
	return s
}

// planFaults spreads the requested injections over the first 70% of the
// history, kinds interleaved round-robin, so each has time to show.
func (s *sim) planFaults() {
	spread(s.cfg.Faults, numFaultKinds, float64(s.ops), 0.65, func(at float64, k FaultKind) {
		s.triggers = append(s.triggers, trigger{line: int64(at), kind: k})
	})
}

// spread calls add for every injection faults ask for (kinds numKinds),
// kinds interleaved round-robin, at evenly spread points from 5% of n to
// 5% + span of n.
func spread[K faultKind](faults []Injections[K], numKinds K, n, span float64, add func(at float64, k K)) {
	counts := make([]int, numKinds)
	for _, f := range faults {
		counts[f.Kind] += f.Count
	}
	kinds := interleave[K](counts)
	for i, k := range kinds {
		add(n*(0.05+span*float64(i)/float64(len(kinds))), k)
	}
}

// interleave lists counts[k] faults of each kind k, the kinds taking turns
// in their order (round-robin) while any is left.
func interleave[K ~uint8](counts []int) []K {
	left := slices.Clone(counts)
	total := 0
	for _, n := range counts {
		total += n
	}
	kinds := make([]K, 0, total)
	for len(kinds) < total {
		for k := range left {
			if left[k] > 0 {
				left[k]--
				kinds = append(kinds, K(k))
			}
		}
	}
	return kinds
}

func (s *sim) run() {
	C := int64(len(s.workers))
	for s.err == nil && s.phase != phaseDone {
		switch s.phase {
		case phaseMain:
			for s.nextTrigger < len(s.triggers) && s.triggers[s.nextTrigger].line <= s.lines {
				if k := s.triggers[s.nextTrigger].kind; k == Stall {
					s.stalls++
				} else {
					s.queue = append(s.queue, k)
				}
				s.nextTrigger++
			}
			if s.steps%128 == 0 || s.lines+s.reserve+reserveWindow*C >= s.ops {
				s.reserve = s.computeReserve()
			}
			if s.lines+2+s.reserve > s.ops {
				s.phase = phaseDrain
				continue
			}
			s.steps++
			if !s.nem.busy && s.rng.IntN(nemesisEvery) == 0 {
				s.invokeNemesis()
				continue
			}
			if s.chooseInvoke(len(s.idle)) {
				s.invokeMain(s.takeIdle(s.rng.IntN(len(s.idle))))
			} else {
				s.completeRandom()
			}
		case phaseDrain:
			if len(s.inflight) > 0 {
				s.completeRandom()
			} else {
				s.startFinal()
			}
		case phaseFinal:
			cand := 0
			for _, wi := range s.idle {
				if s.workers[wi].script < 3 {
					cand++
				}
			}
			switch {
			case cand > 0 && s.chooseInvoke(cand):
				n := s.rng.IntN(cand)
				for i, wi := range s.idle {
					if s.workers[wi].script < 3 {
						if n == 0 {
							s.invokeFinal(s.takeIdle(i))
							break
						}
						n--
					}
				}
			case len(s.inflight) > 0:
				s.completeRandom()
			default:
				s.phase = phasePad
			}
		case phasePad:
			canInvoke := len(s.idle) > 0 && s.lines+int64(len(s.inflight))+2 <= s.ops+1
			switch {
			case canInvoke && s.chooseInvoke(len(s.idle)):
				s.invokePoll(s.takeIdle(s.rng.IntN(len(s.idle))))
			case len(s.inflight) > 0:
				s.completeRandom()
			default:
				s.phase = phaseDone
			}
		}
	}
}

// chooseInvoke decides between invoking on one of n candidate idle workers
// and completing an in-flight op; about half the workers stay in flight.
func (s *sim) chooseInvoke(n int) bool {
	if n == 0 {
		return false
	}
	if len(s.inflight) == 0 {
		return true
	}
	return s.rng.IntN(n+len(s.inflight)) < n
}

// computeReserve bounds the lines the drain and the final reads still need:
// one completion per op in flight, and per worker a crash, an assign and
// enough polls of maxPoll messages per key to read every message not yet
// read (at most the backlog above the committed prefix, plus what the ops in
// flight may still append). Cost O(Keys).
func (s *sim) computeReserve() int64 {
	var backlog int64
	for i := range s.logs {
		lg := &s.logs[i]
		backlog = max(backlog, int64(len(lg.entries))-int64(lg.committed))
	}
	inflight := int64(len(s.inflight))
	polls := max(1, (backlog+5*inflight+maxPoll-1)/maxPoll)
	return inflight + int64(len(s.workers))*(4+2*polls)
}

func (s *sim) takeIdle(i int) int {
	wi := s.idle[i]
	last := len(s.idle) - 1
	s.idle[i] = s.idle[last]
	s.idle = s.idle[:last]
	return int(wi)
}

// tick advances the clock by a log-uniform gap in [minGap, maxGap).
func (s *sim) tick() int64 {
	lo, hi := math.Log(minGap), math.Log(maxGap)
	s.now += int64(math.Exp(lo + s.rng.Float64()*(hi-lo)))
	return s.now
}

// emit writes s.ln as the next line, at time t.
func (s *sim) emit(t int64) {
	s.ln.index = s.lines
	s.ln.time = t
	s.buf = s.enc(s.buf[:0], &s.ln, s.groups, s.pairs)
	s.lines++
	s.stats.Lines++
	s.stats.Bytes += int64(len(s.buf))
	if _, err := s.bw.Write(s.buf); err != nil && s.err == nil {
		s.err = err
	}
}

func (s *sim) newSend(w *worker, k int32) mop {
	lg := &s.logs[k]
	v := lg.nextVal
	lg.nextVal++
	return mop{send: true, key: k, val: v}
}

// g1cPair is the state of a G1c injection: the two workers, their
// sends' keys, and once the first transaction completed (done 1), the
// offsets both messages were stored at and its op index.
type g1cPair struct {
	w     [2]int32
	key   [2]int32
	val   [2]int64
	off   [2]int64
	done  int
	first int64 // op index of the first completion
	pid   int64 // its process
	fj    int   // which of the two completed first
}

// invokeMain starts a main-phase op on worker wi.
func (s *sim) invokeMain(wi int) {
	w := &s.workers[wi]
	op := &w.op
	*op = pendingOp{mops: op.mops[:0], keys: op.keys[:0]}
	if w.crashNext {
		w.crashNext = false
		op.f = fCrash
		s.invoke(wi)
		return
	}
	stalled := w.stallKey >= 0
	if !s.open && !stalled && len(s.queue) > 0 {
		incKey := int32(-1)
		other, k1, k2 := -1, int32(-1), int32(-1)
		k, ok := s.takeQueued(func(k FaultKind) bool {
			switch k {
			case LostWrite, Duplicate, G1a, TornTxn:
				return true
			case InconsistentOffset:
				incKey = s.findKey(s.keys, func(k int32) bool { return s.staleEntry(w, k) >= 0 })
				return incKey >= 0
			case G1c:
				other, k1, k2 = s.g1cPartner(w)
				return other >= 0
			}
			return false
		})
		if ok && k == G1c {
			s.invokeG1c(wi, other, k1, k2)
			return
		}
		if ok {
			s.makeFaultOp(w, k, incKey)
			s.invoke(wi)
			return
		}
	}
	r := s.rng.Float64()
	switch {
	case !stalled && (r < assignRate || (len(w.assigned) == 0 && (r < noAssignRate || s.cfg.PollAllKeys))):
		op.f = fAssign
		if s.cfg.Subscribe {
			op.f = fSubscribe
		}
		if s.cfg.PollAllKeys {
			op.keys = append(op.keys, s.keys...)
			break
		}
		n := 1 + s.rng.IntN(s.cfg.Keys)
		for _, k := range s.rng.Perm(s.cfg.Keys)[:n] {
			op.keys = append(op.keys, int32(k))
		}
	case !stalled && r < assignRate+crashRate:
		op.f = fCrash
	case s.rng.Float64() < s.cfg.TxnFraction:
		op.f = fTxn
		n := 1 + s.rng.IntN(4)
		for range n {
			if s.rng.IntN(2) == 0 {
				op.mops = append(op.mops, s.newSend(w, int32(s.rng.IntN(s.cfg.Keys))))
			} else {
				op.mops = append(op.mops, mop{})
			}
		}
	case s.rng.IntN(2) == 0:
		op.f = fSend
		n := 1 + s.rng.IntN(3)
		for range n {
			op.mops = append(op.mops, s.newSend(w, int32(s.rng.IntN(s.cfg.Keys))))
		}
	default:
		op.f = fPoll
		op.mops = append(op.mops, mop{})
	}
	s.invoke(wi)
}

// g1cPartner finds, for a G1c injection started by worker w, an idle
// worker to run the other transaction, and the keys the two send to: each
// reads the other's key, so neither may have read that key since it was
// assigned (a read far ahead of its position would also be a skip). It
// returns the partner's index in s.idle, or -1.
func (s *sim) g1cPartner(w *worker) (int, int32, int32) {
	for i, oi := range s.idle {
		o := &s.workers[oi]
		if o.stallKey >= 0 || o.crashNext {
			continue
		}
		// w sends to k1 and reads k2; o sends to k2 and reads k1
		k1 := s.findKey(s.keys, func(k int32) bool { return !o.hasPos[k] })
		if k1 < 0 {
			continue
		}
		k2 := s.findKey(s.keys, func(k int32) bool { return !w.hasPos[k] && (k != k1 || s.cfg.Keys == 1) })
		if k2 < 0 {
			continue
		}
		return i, k1, k2
	}
	return -1, -1, -1
}

// invokeG1c invokes the two transactions of a G1c injection: worker wi
// sends to k1, the idle worker at s.idle[other] to k2, and each polls.
func (s *sim) invokeG1c(wi, other int, k1, k2 int32) {
	oi := s.takeIdle(other)
	s.open = true
	s.g1c = g1cPair{w: [2]int32{int32(wi), int32(oi)}, key: [2]int32{k1, k2}}
	for j, x := range []int{wi, oi} {
		w := &s.workers[x]
		op := &w.op
		*op = pendingOp{mops: op.mops[:0], keys: op.keys[:0], f: fTxn, fault: G1c, hasFault: true, forced: tOK,
			partner: s.g1c.w[1-j]}
		op.mops = append(op.mops, s.newSend(w, s.g1c.key[j]), mop{})
		s.g1c.val[j] = op.mops[0].val
		s.invoke(x)
	}
}

// completeG1c fills the completion of worker wi's G1c transaction: the
// first to complete stores both messages, each reads the other's.
func (s *sim) completeG1c(wi int, idx int64) {
	g := &s.g1c
	j := 0
	if g.w[1] == int32(wi) {
		j = 1
	}
	w := &s.workers[wi]
	if g.done == 0 {
		g.off[j] = s.store(g.key[j], g.val[j], fAcked, idx)
		g.off[1-j] = s.store(g.key[1-j], g.val[1-j], fAcked, idx)
		g.first, g.pid, g.fj = idx, w.pid, j
	}
	g.done++
	send := &s.out[0]
	send.off, send.done = g.off[j], true
	w.lastSend[send.key] = send.off
	// the poll: the other's message
	rk, rv, ro := g.key[1-j], g.val[1-j], g.off[1-j]
	lg := &s.logs[rk]
	for i := len(lg.entries) - 1; i >= 0; i-- {
		if lg.entries[i].off == ro {
			lg.entries[i].flags |= fRead
			break
		}
	}
	s.advanceCommitted(lg)
	p0 := int32(len(s.pairs))
	s.pairs = append(s.pairs, pair{off: ro, val: rv})
	g0 := int32(len(s.groups))
	s.groups = append(s.groups, group{key: rk, p0: p0, p1: p0 + 1})
	s.out[1].g0, s.out[1].g1, s.out[1].done = g0, g0+1, true
	s.markers(&w.op, 0)
	w.crashNext = true
	if g.done == 2 {
		in := Injection{Fault: G1c, Process: g.pid, Key: int(g.key[g.fj]), Ops: []int64{g.first, idx}}
		for _, k := range []int{g.fj, 1 - g.fj} {
			in.Msgs = append(in.Msgs, Msg{Key: int(g.key[k]), Value: g.val[k], Offset: g.off[k]})
		}
		s.stats.Injections = append(s.stats.Injections, in)
		s.open = false
	}
}

// makeFaultOp turns the op about to be invoked into the carrier of fault k.
func (s *sim) makeFaultOp(w *worker, k FaultKind, key int32) {
	op := &w.op
	op.fault, op.hasFault, op.forced = k, true, tOK
	s.open = true
	if k == TornTxn {
		op.f = fTxn
		k1 := int32(s.rng.IntN(s.cfg.Keys))
		k2 := k1
		if s.cfg.Keys > 1 {
			k2 = (k1 + 1 + int32(s.rng.IntN(s.cfg.Keys-1))) % int32(s.cfg.Keys)
		}
		op.mops = append(op.mops, s.newSend(w, k1))
		if s.rng.IntN(2) == 0 {
			op.mops = append(op.mops, mop{})
		}
		op.mops = append(op.mops, s.newSend(w, k2))
		return
	}
	op.f = fSend
	if key < 0 {
		key = int32(s.rng.IntN(s.cfg.Keys))
	}
	op.mops = append(op.mops, s.newSend(w, key))
	if k == G1a {
		op.forced = tFail
	}
}

// invokeFinal starts the next step of worker wi's final reads: crash (so a
// fresh process with no positions takes over), assign or subscribe every
// key, then poll until it has read everything.
func (s *sim) invokeFinal(wi int) {
	w := &s.workers[wi]
	op := &w.op
	*op = pendingOp{mops: op.mops[:0], keys: op.keys[:0], forced: tOK}
	switch w.script {
	case 0:
		op.f, op.forced = fCrash, tInfo
	case 1:
		op.f = fAssign
		if s.cfg.Subscribe {
			op.f = fSubscribe
		}
		for k := range s.cfg.Keys {
			op.keys = append(op.keys, int32(k))
		}
	default:
		op.f = fPoll
		op.mops = append(op.mops, mop{})
	}
	s.invoke(wi)
}

// invokePoll starts a final, always-ok poll (padding after the final reads).
func (s *sim) invokePoll(wi int) {
	op := &s.workers[wi].op
	*op = pendingOp{mops: append(op.mops[:0], mop{}), keys: op.keys[:0], f: fPoll, forced: tOK}
	s.invoke(wi)
}

// invoke writes the invocation line of worker wi's op.
func (s *sim) invoke(wi int) {
	w := &s.workers[wi]
	op := &w.op
	w.busy = true
	s.inflight = append(s.inflight, int32(wi))
	s.stats.Invocations++
	switch op.f {
	case fSend:
		s.stats.Sends++
	case fPoll:
		s.stats.Polls++
	case fTxn:
		s.stats.Txns++
	case fAssign:
		s.stats.Assigns++
	case fSubscribe:
		s.stats.Subscribes++
	case fCrash:
		s.stats.Crashes++
	}
	s.ln = line{typ: tInvoke, pid: w.pid, f: op.f, mops: op.mops, keys: op.keys}
	s.emit(s.tick())
}

func (s *sim) invokeNemesis() {
	s.inflight = append(s.inflight, int32(len(s.workers)))
	s.stats.Invocations++
	s.stats.Nemesis++
	s.ln = s.nem.invoke()
	s.emit(s.tick())
}

func (s *sim) completeNemesis(t int64) {
	s.ln = s.nem.complete(s.rng)
	s.emit(t)
}

func (s *sim) completeRandom() {
	i := s.rng.IntN(len(s.inflight))
	slot := s.inflight[i]
	last := len(s.inflight) - 1
	s.inflight[i] = s.inflight[last]
	s.inflight = s.inflight[:last]
	t := s.tick()
	if int(slot) == len(s.workers) {
		s.completeNemesis(t)
		return
	}
	s.complete(int(slot), t)
}

// crashError is the :error of an op whose client crashed (Config.CrashRate),
// in the form Jepsen's interpreter gives it: "indeterminate: " and the
// exception's message.
const crashError = "indeterminate: client crashed"

var failErrors = [...]string{"not-leader-or-follower", "unknown-topic-or-partition", "request-rejected"}

// outcome decides the completion type of worker w's op.
func (s *sim) outcome(w *worker) opType {
	op := &w.op
	if op.forced != tInvoke {
		return op.forced
	}
	switch op.f {
	case fAssign, fSubscribe:
		return tOK
	case fCrash:
		return tInfo
	}
	if w.stallKey >= 0 || s.phase >= phaseFinal {
		return tOK
	}
	if s.cfg.CrashRate > 0 && s.rng.Float64() < s.cfg.CrashRate {
		op.crashed = true
		return tInfo
	}
	r := s.rng.Float64()
	switch {
	case r < s.cfg.InfoRate:
		return tInfo
	case r < s.cfg.InfoRate+s.cfg.FailRate:
		return tFail
	}
	return tOK
}

// complete applies worker wi's op to the broker (every op takes effect at
// its completion, which is what keeps fault-free histories free of cycles)
// and writes the completion line at time t.
func (s *sim) complete(wi int, t int64) {
	w := &s.workers[wi]
	op := &w.op
	idx := s.lines
	typ := s.outcome(w)
	s.groups, s.pairs = s.groups[:0], s.pairs[:0]
	s.out = append(s.out[:0], op.mops...) // invocation form until filled in
	s.ln = line{typ: typ, pid: w.pid, f: op.f, mops: s.out, keys: op.keys}

	switch typ {
	case tOK:
		s.stats.OK++
	case tInfo:
		s.stats.Info++
	case tFail:
		s.stats.Fail++
	}
	switch {
	case op.crashed:
		s.stats.ClientCrashes++
		s.ln.err, s.ln.errText = crashError, true
	case typ == tInfo && op.f != fCrash:
		s.ln.err = "net-timeout"
	}
	if typ == tFail {
		s.ln.err = failErrors[s.rng.IntN(len(failErrors))]
	}

	switch op.f {
	case fSend:
		switch {
		case typ == tOK:
			for i := range s.out {
				s.out[i].off = s.storeSend(w, op, s.out[i], idx)
				w.lastSend[s.out[i].key] = s.out[i].off
				s.out[i].done = true
			}
		case typ == tInfo && s.rng.Float64() < landedRate:
			s.stats.InfoLanded++
			for _, m := range op.mops {
				s.store(m.key, m.val, 0, idx)
			}
		case typ == tFail && op.hasFault && op.fault == G1a:
			in := Injection{Fault: G1a, Process: w.pid, Key: int(op.mops[0].key), Ops: []int64{idx}}
			for _, m := range op.mops {
				off := s.store(m.key, m.val, 0, idx)
				in.Msgs = append(in.Msgs, Msg{Key: int(m.key), Value: m.val, Offset: off})
			}
			s.stats.Injections = append(s.stats.Injections, in)
			s.open = false
		}
	case fTxn:
		switch {
		case typ == tOK && op.hasFault && op.fault == G1c:
			s.completeG1c(wi, idx)
		case typ == tOK:
			for i := range s.out {
				if !s.out[i].send {
					s.out[i].g0, s.out[i].g1 = s.poll(wi, idx, t, false)
					s.out[i].done = true
				}
			}
			var kept Msg
			nsend := 0
			for i := range s.out {
				m := &s.out[i]
				if !m.send {
					continue
				}
				nsend++
				flags := fAcked
				torn := op.hasFault && op.fault == TornTxn && nsend == 2
				if torn {
					flags |= fLost
				}
				m.off = s.store(m.key, m.val, flags, idx)
				w.lastSend[m.key] = m.off
				m.done = true
				if nsend == 1 {
					kept = Msg{Key: int(m.key), Value: m.val, Offset: m.off}
				}
				if torn {
					s.stats.Injections = append(s.stats.Injections, Injection{
						Fault: TornTxn, Process: w.pid, Key: int(m.key), Ops: []int64{idx},
						Msgs: []Msg{kept, {Key: int(m.key), Value: m.val, Offset: m.off}},
					})
					s.open = false
				}
			}
			s.markers(op, 0)
		case typ == tInfo && s.rng.Float64() < landedRate:
			s.stats.InfoLanded++
			for _, m := range op.mops {
				if m.send {
					s.store(m.key, m.val, 0, idx)
				}
			}
			s.markers(op, 0)
		case typ == tFail:
			s.markers(op, 1) // aborted records and the abort marker
		}
	case fPoll:
		if typ == tOK {
			s.out[0].g0, s.out[0].g1 = s.poll(wi, idx, t, true)
			s.out[0].done = true
		}
	case fAssign, fSubscribe:
		s.applyAssign(w)
	}

	s.emit(t)

	w.busy = false
	s.idle = append(s.idle, int32(wi))
	if typ == tInfo {
		s.retire(w)
	}
	if s.phase == phaseFinal {
		switch {
		case w.script < 2:
			w.script++
		case w.script == 2 && s.caughtUp(w):
			w.script = 3
		}
	}
}

// storeSend stores one message of an ok send, applying the op's fault, and
// returns the offset to acknowledge.
func (s *sim) storeSend(w *worker, op *pendingOp, m mop, idx int64) int64 {
	if !op.hasFault {
		return s.store(m.key, m.val, fAcked, idx)
	}
	in := Injection{Fault: op.fault, Process: w.pid, Key: int(m.key), Ops: []int64{idx}}
	var off int64
	switch op.fault {
	case LostWrite:
		off = s.store(m.key, m.val, fLost|fAcked, idx)
		in.Msgs = []Msg{{Key: int(m.key), Value: m.val, Offset: off}}
		s.open = false
	case Duplicate:
		off = s.store(m.key, m.val, fAcked, idx)
		off2 := s.store(m.key, m.val, 0, idx)
		in.Msgs = []Msg{{Key: int(m.key), Value: m.val, Offset: off}, {Key: int(m.key), Value: m.val, Offset: off2}}
		s.open = false
	case InconsistentOffset:
		// Acknowledge the offset of a message already stored and seen, and
		// store nothing (see staleEntry). invokeMain chose a key that had
		// one; it still has, since entries only gain flags.
		i := s.staleEntry(w, m.key)
		if i < 0 {
			panic("gen: InconsistentOffset lost its stale entry")
		}
		e := s.logs[m.key].entries[i]
		off = e.off
		in.Msgs = []Msg{{Key: int(m.key), Value: e.val, Offset: off}, {Key: int(m.key), Value: m.val, Offset: off}}
		s.open = false
	default:
		return s.store(m.key, m.val, fAcked, idx)
	}
	s.stats.Injections = append(s.stats.Injections, in)
	return off
}

// staleEntry returns the index of the newest entry of key k that an
// InconsistentOffset send of worker w can be acknowledged at: stored and
// already seen (acked or read, so the version order keeps it at its offset),
// not lost or garbage, and above w's last acked send to k (else the ack
// would also be a nonmonotonic-send). -1 when there is none.
func (s *sim) staleEntry(w *worker, k int32) int {
	es := s.logs[k].entries
	for i := len(es) - 1; i >= 0 && es[i].off > w.lastSend[k]; i-- {
		if es[i].flags&(fRead|fAcked) != 0 && es[i].flags&(fLost|fGarbage) == 0 {
			return i
		}
	}
	return -1
}

// takeQueued removes and returns the first armed fault ok accepts.
func (s *sim) takeQueued(ok func(FaultKind) bool) (FaultKind, bool) {
	for i, k := range s.queue {
		if ok(k) {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			return k, true
		}
	}
	return 0, false
}

// store appends one message to key k's log and returns its offset.
func (s *sim) store(k int32, v int64, flags uint8, idx int64) int64 {
	lg := &s.logs[k]
	off := lg.next
	lg.next++
	lg.entries = append(lg.entries, entry{off: off, val: v, flags: flags})
	if flags&(fLost|fGarbage) == 0 {
		s.stats.Messages++
	}
	if flags&fLost != 0 {
		s.advanceCommitted(lg)
	}
	return off
}

// markers takes the offsets of transaction markers: one per key the txn
// sent to, plus (aborted > 0) one per record of an aborted txn, which
// read_committed consumers never see.
func (s *sim) markers(op *pendingOp, aborted int64) {
	s.touched = s.touched[:0]
	for _, m := range op.mops {
		if !m.send {
			continue
		}
		seen := false
		for _, k := range s.touched {
			seen = seen || k == m.key
		}
		if !seen {
			s.touched = append(s.touched, m.key)
		}
	}
	for _, k := range s.touched {
		if aborted > 0 {
			for _, m := range op.mops {
				if m.send && m.key == k {
					s.logs[k].next += aborted
				}
			}
		}
		s.logs[k].next++
	}
}

func (s *sim) advanceCommitted(lg *keyLog) {
	for int(lg.committed) < len(lg.entries) && lg.entries[lg.committed].flags&(fRead|fLost) != 0 {
		lg.committed++
	}
}

// visibleAhead reports whether key k's log has at least need messages a
// consumer at position p has yet to read.
func (s *sim) visibleAhead(k int32, p int32, need int) bool {
	es := s.logs[k].entries
	for ; int(p) < len(es) && need > 0; p++ {
		if es[p].flags&fLost == 0 {
			need--
		}
	}
	return need == 0
}

func (s *sim) caughtUp(w *worker) bool {
	for _, k := range w.assigned {
		if s.visibleAhead(k, w.pos[k], 1) {
			return false
		}
	}
	return true
}

// poll reads, for every key assigned to worker wi, the next messages from
// its position, and returns the range of groups written. plain is true for
// a :poll op (not a txn): only those start the poll-level faults.
func (s *sim) poll(wi int, idx, t int64, plain bool) (int32, int32) {
	w := &s.workers[wi]
	g0 := int32(len(s.groups))
	if w.stallKey >= 0 && t >= w.stallUntil {
		s.endStall(w)
	}
	skipKey, garbKey := int32(-1), int32(-1)
	if plain && s.phase == phaseMain && len(w.assigned) > 0 {
		if w.stallKey < 0 && s.stalls > 0 {
			s.startStall(w, idx, t)
		}
		if !s.open && w.stallKey < 0 && len(s.queue) > 0 {
			s.takeQueued(func(k FaultKind) bool {
				switch k {
				case PollSkip:
					skipKey = s.findKey(w.assigned, func(k int32) bool { return w.hasPos[k] && s.visibleAhead(k, w.pos[k], 2) })
					return skipKey >= 0
				case Garbage:
					garbKey = s.findKey(w.assigned, func(k int32) bool { return !s.visibleAhead(k, w.pos[k], 1) })
					return garbKey >= 0
				}
				return false
			})
		}
	}
	for _, k := range w.assigned {
		lg := &s.logs[k]
		n := maxPoll
		if s.phase == phaseMain || s.phase == phaseDrain {
			n = s.rng.IntN(maxPoll + 1)
		}
		p := w.pos[k]
		switch k {
		case w.stallKey:
			n = 0
			w.stallLastT, w.stallLastI = t, idx
		case skipKey:
			for lg.entries[p].flags&fLost != 0 {
				p++
			}
			e := lg.entries[p]
			s.stats.Injections = append(s.stats.Injections, Injection{
				Fault: PollSkip, Process: w.pid, Key: int(k), Ops: []int64{w.lastRead[k], idx},
				Msgs: []Msg{{Key: int(k), Value: e.val, Offset: e.off}},
			})
			p++
			n = max(n, 1)
		case garbKey:
			s.garbageN++
			v := -s.garbageN
			off := s.store(k, v, fGarbage, idx)
			s.stats.Injections = append(s.stats.Injections, Injection{
				Fault: Garbage, Process: w.pid, Key: int(k), Ops: []int64{idx},
				Msgs: []Msg{{Key: int(k), Value: v, Offset: off}},
			})
			n = max(n, 1)
		}
		p0 := int32(len(s.pairs))
		for n > 0 && int(p) < len(lg.entries) {
			e := &lg.entries[p]
			p++
			if e.flags&fLost != 0 {
				continue
			}
			s.pairs = append(s.pairs, pair{off: e.off, val: e.val})
			e.flags |= fRead
			n--
		}
		w.pos[k] = p
		if p1 := int32(len(s.pairs)); p1 > p0 {
			w.hasPos[k] = true
			w.lastRead[k] = idx
			s.advanceCommitted(lg)
		}
		s.groups = append(s.groups, group{key: k, p0: p0, p1: int32(len(s.pairs))})
	}
	return g0, int32(len(s.groups))
}

// findKey returns a key of keys (trying them from a random one on) that
// satisfies ok, or -1.
func (s *sim) findKey(keys []int32, ok func(int32) bool) int32 {
	n := len(keys)
	if n == 0 {
		return -1
	}
	start := s.rng.IntN(n)
	for i := range n {
		k := keys[(start+i)%n]
		if ok(k) {
			return k
		}
	}
	return -1
}

func (s *sim) startStall(w *worker, idx, t int64) {
	k := w.assigned[s.rng.IntN(len(w.assigned))]
	s.stalls--
	w.stallKey = k
	w.stallUntil = t + int64(s.cfg.StallDuration)
	w.stallFirst = t
	w.stallInj = len(s.stats.Injections)
	in := Injection{Fault: Stall, Process: w.pid, Key: int(k), Ops: []int64{idx}}
	es := s.logs[k].entries
	for p := w.pos[k]; int(p) < len(es); p++ {
		if es[p].flags&fLost == 0 {
			in.Msgs = []Msg{{Key: int(k), Value: es[p].val, Offset: es[p].off}}
			break
		}
	}
	s.stats.Injections = append(s.stats.Injections, in)
}

func (s *sim) endStall(w *worker) {
	in := &s.stats.Injections[w.stallInj]
	in.Ops = append(in.Ops, w.stallLastI)
	in.Duration = time.Duration(w.stallLastT - w.stallFirst)
	w.stallKey = -1
}

// applyAssign gives worker w the keys of its assign/subscribe op. Keys it
// keeps keep their position; a newly assigned key starts at the key's
// committed prefix (like a Kafka consumer starting from the group's
// committed offset), which is never a skip since the process had no position.
func (s *sim) applyAssign(w *worker) {
	op := &w.op
	for _, k := range op.keys {
		s.mark[k] = true
	}
	for _, k := range w.assigned {
		if !s.mark[k] {
			w.isAssigned[k] = false
			w.hasPos[k] = false
		}
	}
	w.assigned = w.assigned[:0]
	for k := range s.mark {
		if !s.mark[k] {
			continue
		}
		s.mark[k] = false
		if !w.isAssigned[k] {
			w.isAssigned[k] = true
			w.pos[k] = s.logs[k].committed
			w.hasPos[k] = false
		}
		w.assigned = append(w.assigned, int32(k))
	}
}

// retire replaces worker w's process by a new one (Jepsen: after an :info the
// worker takes process id + concurrency), with no assignment.
func (s *sim) retire(w *worker) {
	w.pid += int64(len(s.workers))
	s.stats.Processes++
	for _, k := range w.assigned {
		w.isAssigned[k] = false
		w.hasPos[k] = false
	}
	w.assigned = w.assigned[:0]
	for k := range w.lastSend {
		w.lastSend[k] = -1
	}
}

// startFinal ends every stall and starts the final reads.
func (s *sim) startFinal() {
	s.phase = phaseFinal
	s.stats.FinalPhase = s.lines
	s.queue = s.queue[:0]
	s.stalls = 0
	for i := range s.workers {
		w := &s.workers[i]
		if w.stallKey >= 0 {
			s.endStall(w)
		}
		w.script = 0
	}
}
