package gen

import "io"

// Tuning of the simulation. Rates are per invocation of an idle worker.
const (
	assignRate    = 0.03  // an assign/subscribe op
	crashRate     = 0.001 // a :crash op (the process is replaced)
	noAssignRate  = 0.25  // an assign/subscribe op when the worker has none
	landedRate    = 0.5   // an :info send or txn was applied anyway
	maxPoll       = 5     // most messages a poll returns per key
	reserveWindow = 300   // lines per worker of slack before recomputing the reserve
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

// sim is the state of one Write run.
type sim struct {
	core
	cfg Config

	steps int64
	ops   int64 // target line count

	logs    []keyLog
	workers []worker

	groups  []group
	pairs   []pair
	out     []mop
	mark    []bool
	touched []int32
	keys    []int32 // 0..Keys-1
	ln      line

	phase   phase
	reserve int64

	faults   schedule[FaultKind] // armed at a line count
	queue    []FaultKind         // armed faults other than Stall, in order
	stalls   int                 // armed Stall faults
	open     bool                // an op carrying a fault is in flight: inject one at a time
	garbageN int64
	g1c      g1cPair // the G1c transactions in flight

	stats Stats
}

// newSim returns the queue simulation of cfg, writing to w.
func newSim(w io.Writer, cfg Config) *sim {
	s := &sim{
		cfg:     cfg,
		ops:     int64(cfg.Ops),
		logs:    make([]keyLog, cfg.Keys),
		workers: make([]worker, cfg.Concurrency),
		mark:    make([]bool, cfg.Keys),
	}
	s.core = newCore(w, cfg.Seed, 0x68696e6473696768, cfg.Concurrency, cfg.Format, &s.stats.Counts)
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
	}
	// The faults are spread over the first 70% of the history, so each has
	// time to show.
	s.faults = plan(cfg.Faults, numFaultKinds, float64(s.ops), 0.65)
	return s
}

// run writes the history: the main phase, the drain, the final reads and
// the padding; nothing when Ops is 0.
func (s *sim) run() {
	if s.ops <= 0 {
		return
	}
	C := int64(len(s.workers))
	for s.err == nil && s.phase != phaseDone {
		switch s.phase {
		case phaseMain:
			for k, ok := s.faults.due(s.lines); ok; k, ok = s.faults.due(s.lines) {
				if k == Stall {
					s.stalls++
				} else {
					s.queue = append(s.queue, k)
				}
			}
			if s.steps%128 == 0 || s.lines+s.reserve+reserveWindow*C >= s.ops {
				s.reserve = s.computeReserve()
			}
			if s.lines+2+s.reserve > s.ops {
				s.phase = phaseDrain
				continue
			}
			s.steps++
			if s.startNemesis() {
				s.stats.Invocations++
				s.stats.Nemesis++
				continue
			}
			if s.chooseInvoke(len(s.idle)) {
				s.invokeMain(s.takeIdleAt(s.rng.IntN(len(s.idle))))
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
							s.invokeFinal(s.takeIdleAt(i))
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
				s.invokePoll(s.takeIdleAt(s.rng.IntN(len(s.idle))))
			case len(s.inflight) > 0:
				s.completeRandom()
			default:
				s.phase = phaseDone
			}
		}
	}
}

// result returns the stats of the history written.
func (s *sim) result() Stats { return s.stats }

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

// emit writes s.ln as the next line, at time t.
func (s *sim) emit(t int64) {
	s.emitLine(&s.ln, t, s.groups, s.pairs)
}

func (s *sim) newSend(w *worker, k int32) mop {
	lg := &s.logs[k]
	v := lg.nextVal
	lg.nextVal++
	return mop{send: true, key: k, val: v}
}
