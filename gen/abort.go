package gen

import (
	"fmt"
	"io"
	"strconv"
)

// AfterAbort is what the simulated consumer does with its position when
// its transaction aborts: the two contracts of docs/abort.md.
type AfterAbort uint8

const (
	// AbortAdvance keeps the position past the aborted records, as Kafka
	// does (contract kafka): the history is valid under
	// --abort-contract kafka and, once a poll aborts and the next reads
	// on without a rebalance, invalid under rewind (abort-advance).
	AbortAdvance AfterAbort = iota
	// AbortRewind returns the consumer to where the aborted transaction
	// began (contract rewind): the history is valid under both contracts.
	AbortRewind
)

var afterAbortNames = [...]string{"advance", "rewind"}

// String returns "advance" or "rewind".
func (a AfterAbort) String() string {
	if int(a) < len(afterAbortNames) {
		return afterAbortNames[a]
	}
	return "AfterAbort(" + strconv.Itoa(int(a)) + ")"
}

// ParseAfterAbort reads "advance" or "rewind".
func ParseAfterAbort(s string) (AfterAbort, error) {
	return parseKind[AfterAbort](afterAbortNames[:], "after-abort", s)
}

// Defaults of AbortConfig.
const (
	DefaultAbortRate = 0.3
	DefaultMaxPoll   = 4
)

// AbortConfig configures WriteAbort. Zero rates mean none; zero Topics
// means one per worker, zero MaxPoll DefaultMaxPoll.
type AbortConfig struct {
	Seed        int64
	Ops         int // op lines, invocations and completions (rounded up to even)
	Concurrency int // client workers
	// Topics is the number of topics, each with one partition; at least
	// Concurrency (each topic is consumed by one worker at a time).
	Topics        int
	MaxPoll       int        // most records one poll returns
	AbortRate     float64    // probability that a poll asks to abort (:abort? true)
	AfterAbort    AfterAbort // the consumer's position after an abort
	RebalanceRate float64    // probability of a rebalance during a poll
	CrashRate     float64    // probability that an op is a :crash of the client
	InfoRate      float64    // probability that a poll completes :info
	Format        Format
	Faults        []AbortFault
}

// validate checks the config and fills defaults into a copy.
func (c AbortConfig) validate() (AbortConfig, error) {
	var p problems
	p.add(c.Concurrency < 1, "concurrency must be at least 1")
	if c.Topics == 0 {
		c.Topics = c.Concurrency
	}
	p.add(c.Topics < c.Concurrency, fmt.Sprintf("--topics %d: need at least one topic per worker (--concurrency %d)", c.Topics, c.Concurrency))
	if c.MaxPoll == 0 {
		c.MaxPoll = DefaultMaxPoll
	}
	p.add(c.MaxPoll < 1 || c.Ops < 0, "ops must be >= 0 and max-poll >= 1")
	p.rates(rate{"abort rate", c.AbortRate}, rate{"rebalance rate", c.RebalanceRate}, rate{"crash rate", c.CrashRate}, rate{"info rate", c.InfoRate})
	for _, f := range c.Faults {
		p.add(f.Kind >= numAbortFaultKinds || f.Count < 0, fmt.Sprintf("bad abort fault %v", f))
	}
	p.add(c.AfterAbort > AbortRewind, fmt.Sprintf("unknown AfterAbort %d", c.AfterAbort))
	return c, p.err()
}

// AbortStats summarises what WriteAbort wrote.
type AbortStats struct {
	// Counts are the lines, bytes, processes and end time.
	Counts
	// Polls by outcome: committed, aborted on purpose, unknown (:info);
	// Empty of them read nothing.
	Committed, Aborted, Unknown, Empty int64
	Rebalances, Crashes                int64
	// Injections lists the faults carried out, in history order.
	Injections []AbortInjection
}

// String is the one-line summary histgen prints.
func (s *AbortStats) String() string {
	var b summary
	fmt.Fprintf(&b, "%d lines, %d bytes, polls: %d committed, %d aborted, %d unknown (%d empty), %d rebalances, %d crashes, %d processes",
		s.Lines, s.Bytes, s.Committed, s.Aborted, s.Unknown, s.Empty, s.Rebalances, s.Crashes, s.Processes)
	writeFaults(&b, AbortFaultKinds(), s.Injected, len(s.Injections) == 0)
	return b.String()
}

// atopic is one simulated topic of one partition. recs are the offsets of
// its visible records, in order; the offsets between them are transaction
// markers and records of aborted producer transactions, which no
// read_committed poll returns. Consumer positions are indexes into recs.
type atopic struct {
	name      string
	recs      []int64
	end       int64 // the next offset the log will take
	committed int   // the group's committed position (index into recs)
	// okCommitted is the committed position as the history shows it: past
	// the records of the last ok poll (an :info poll may have committed).
	okCommitted int
	pos         int // the consumer's in-memory position
	owner       int // the worker consuming it, -1 none
}

// aop is what an abort worker has in flight.
type aop uint8

const (
	aNone aop = iota
	aAssign
	aPoll
	aCrash
)

// aopFn is the :f of each aop.
var aopFn = [...]fn{aNone: fPoll, aAssign: fAssign, aPoll: fPoll, aCrash: fCrash}

// aworker is one client worker: its current process, the topic it
// consumes, and the op it has in flight.
type aworker struct {
	pid        int64
	topic      int
	op         aop
	abortAsked bool
	assigned   bool
	hasPrev    bool // the process has read from its topic: its next poll makes a pair
	awaitNext  bool // an AbortOther shows in its next poll: no crash before it
}

// asim is the abort workload's simulation: see the package doc, "Abort
// simulation".
type asim struct {
	core
	cfg     AbortConfig
	topics  []atopic
	workers []aworker
	offs    []int64
	faults  schedule[AbortFaultKind] // armed at a line count
	stats   AbortStats
}

// newAsim returns the abort simulation of cfg, writing to w.
func newAsim(w io.Writer, cfg AbortConfig) *asim {
	s := &asim{
		cfg:     cfg,
		topics:  make([]atopic, cfg.Topics),
		workers: make([]aworker, cfg.Concurrency),
	}
	s.core = newCore(w, cfg.Seed, 0x61626f72742d6b66, cfg.Concurrency, cfg.Format, &s.stats.Counts)
	for i := range s.topics {
		s.topics[i] = atopic{name: "t" + strconv.Itoa(i+1), owner: -1}
	}
	for i := range s.workers {
		s.workers[i] = aworker{pid: int64(i), topic: i}
		s.topics[i].owner = i
	}
	// The faults are spread over the first 80% of the history.
	s.faults = plan(cfg.Faults, numAbortFaultKinds, float64(cfg.Ops), 0.75)
	return s
}

// result returns the stats of the history written.
func (s *asim) result() AbortStats { return s.stats }

// run writes the history, Ops lines (rounded up to even).
func (s *asim) run() {
	limit := int64(s.cfg.Ops+1) &^ 1
	for {
		open := int64(len(s.inflight))
		canInvoke := len(s.idle) > 0 && s.lines+2*open+2 <= limit
		if !canInvoke && open == 0 {
			return
		}
		// Unlike the other simulations, invoking and completing are even
		// odds here.
		if canInvoke && (open == 0 || s.rng.IntN(2) == 0) {
			wi := s.takeIdleAt(s.rng.IntN(len(s.idle)))
			s.inflight = append(s.inflight, int32(wi))
			s.invoke(wi)
			continue
		}
		wi := s.takeInflight()
		s.complete(wi)
		s.idle = append(s.idle, int32(wi))
	}
}

func (s *asim) invoke(wi int) {
	w := &s.workers[wi]
	switch {
	case !w.assigned:
		w.op = aAssign
	case s.rng.Float64() < s.cfg.CrashRate && !w.awaitNext:
		w.op = aCrash
	default:
		w.op = aPoll
		w.abortAsked = s.rng.Float64() < s.cfg.AbortRate
	}
	s.line(w, tInvoke, nil, false, "")
}

func (s *asim) complete(wi int) {
	w := &s.workers[wi]
	t := &s.topics[w.topic]
	switch w.op {
	case aAssign:
		w.assigned = true
		t.pos = t.committed // a new consumer starts at the committed position
		s.line(w, tOK, nil, false, "")
	case aCrash:
		s.stats.Crashes++
		s.line(w, tInfo, nil, false, "")
		s.replace(wi)
	case aPoll:
		s.produce(t)
		fault, inject := s.faultFor(w, t)
		if inject && fault == CommittedRedelivery {
			t.pos = t.okCommitted - 1
		}
		first := t.pos
		n := min(1+s.rng.IntN(s.cfg.MaxPoll), len(t.recs)-first)
		switch {
		case inject && fault == AbortOther:
			n = 2
		case inject && fault == NonmonotonicPoll:
			n = 3
		}
		s.offs = append(s.offs[:0], t.recs[first:first+n]...)
		t.pos += n
		if n == 0 {
			s.stats.Empty++
		}
		if inject && fault == NonmonotonicPoll {
			s.offs[n-2], s.offs[n-1] = s.offs[n-1], s.offs[n-2]
		}
		reb := s.rng.Float64() < s.cfg.RebalanceRate && !inject
		info := s.rng.Float64() < s.cfg.InfoRate && !inject
		if w.awaitNext {
			s.stats.Injections[len(s.stats.Injections)-1].Op = s.lines
			w.awaitNext = false
		}
		if inject {
			in := AbortInjection{Fault: fault, Topic: t.name, Process: w.pid, Op: s.lines}
			s.stats.Injections = append(s.stats.Injections, in)
		}
		switch {
		case info:
			s.stats.Unknown++
			if n > 0 && s.rng.IntN(2) == 0 {
				t.committed = t.pos // it did commit
			}
			s.line(w, tInfo, s.offs, reb, "net-timeout")
		case w.abortAsked:
			s.stats.Aborted++
			if s.cfg.AfterAbort == AbortRewind {
				t.pos = first
			}
			if inject { // AbortOther: resume at its second record
				t.pos = first + 1
				w.awaitNext = true
			}
			s.line(w, tFail, s.offs, reb, "intentional-abort")
		default:
			s.stats.Committed++
			if n > 0 {
				t.committed, t.okCommitted = t.pos, t.pos
			}
			s.line(w, tOK, s.offs, reb, "")
		}
		if n > 0 {
			w.hasPrev = true
		}
		if reb {
			s.stats.Rebalances++
			t.pos = t.committed
		}
		if info {
			s.replace(wi)
		}
	}
	w.op = aNone
}

// replace gives worker wi a new client: a new process id, which must
// assign a topic first, a free one chosen at random.
func (s *asim) replace(wi int) {
	w := &s.workers[wi]
	s.newProcess(&w.pid)
	w.assigned, w.hasPrev = false, false
	s.topics[w.topic].owner = -1
	var free []int
	for i := range s.topics {
		if s.topics[i].owner < 0 {
			free = append(free, i)
		}
	}
	w.topic = free[s.rng.IntN(len(free))]
	s.topics[w.topic].owner = wi
}

// produce appends to t what its producer sent since the last poll: a
// transaction of 0 to 3 records and its marker, aborted one time in ten
// (its records are never visible).
func (s *asim) produce(t *atopic) {
	n := s.rng.IntN(4)
	if n == 0 {
		return
	}
	if s.rng.IntN(10) != 0 {
		for i := range int64(n) {
			t.recs = append(t.recs, t.end+i)
		}
	}
	t.end += int64(n) + 1
}

// line writes one op line of worker w: its current op with type typ, the
// offsets a poll completion read, a rebalance during it and an error.
func (s *asim) line(w *aworker, typ opType, offs []int64, reb bool, errName string) {
	edn := s.cfg.Format != JSON
	sx, kw := &jsonLine, func(k string) string { return `"` + k + `":` }
	sep, elem, open, close, null := ",", ",", `"`, `"`, "null"
	if edn {
		sx, kw = &ednLine, func(k string) string { return ":" + k + " " }
		sep, elem, open, close, null = ", ", " ", ":", "", "nil"
	}
	topic := strconv.Quote(s.topics[w.topic].name)
	b := sx.appendHead(s.buf[:0], s.lines, s.tick(), typ)
	b = strconv.AppendInt(b, w.pid, 10)
	b = append(b, sep+kw("f")+open+fnNames[aopFn[w.op]]+close+sep+kw("value")...)
	switch w.op {
	case aAssign:
		b = append(b, topic...)
	case aCrash:
		b = append(b, null...)
	default:
		b = append(b, "{"+kw("topic")+topic...)
		if w.abortAsked {
			b = append(b, sep+kw("abort?")+"true"...)
		}
		if typ != tInvoke && len(offs) > 0 {
			b = append(b, sep+kw("offsets")+"["...)
			for i, o := range offs {
				if i > 0 {
					b = append(b, elem...)
				}
				b = strconv.AppendInt(b, o, 10)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if errName != "" {
		b = append(b, sep+kw("error")+open+errName+close...)
	}
	if reb {
		t := s.topics[w.topic].name
		ev := func(typ string) string {
			return "{" + kw("type") + open + typ + close + sep + kw("keys") + "[" + strconv.Quote(t) + "]}"
		}
		b = append(b, sep+kw("rebalance-log")+"{"+kw("during")+"["+ev("revoked")+sep+ev("assigned")+"]}"...)
	}
	b = append(b, "}\n"...)
	s.buf = b
	s.write()
}
