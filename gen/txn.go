package gen

import (
	"errors"
	"io"
	"slices"
)

// txnInfoError is the :error of an :info txn.
const txnInfoError = "net-timeout"

var txnFailErrors = [...]string{"conflict", "aborted", "nocluster"}

// tkey is one key of the simulated multi-version store.
type tkey struct {
	// vals holds what committed txns wrote to the key, in commit order: the
	// list itself (list-append) or the register's successive versions
	// (rw-register). Reads take a prefix, so a slice of it stays valid as
	// the key grows.
	vals []int64
	// commits holds, with ReadLag, the commit number of each entry of vals,
	// so that a stale read never splits one txn's writes.
	commits []int64
	// writes counts the values handed out by invocations; the next is
	// writes+1, so values are unique per key.
	writes int64
	// limit is the number of writes after which the key is retired.
	limit int64
}

// tworker is one Jepsen worker thread: it runs one client process at a time.
type tworker struct {
	pid     int64
	mops    []tmop   // invocation form of the txn in flight (random traffic)
	carrier *carrier // the fault-script txn in flight, if that is what it runs
}

// tsim is the state of one WriteTxn run.
type tsim struct {
	core
	cfg       TxnConfig
	la        bool
	readKind  mopKind
	writeKind mopKind
	lag       bool

	invoked int
	commitN int64 // commits so far (ReadLag only)

	keys     []tkey
	slots    []int64 // the active keys
	workers  []tworker
	eligible []int32

	out []tmop
	ln  txnLine

	faults     schedule[TxnFaultKind] // armed at a count of invoked txns
	queue      []TxnFaultKind
	scriptLens [numTxnFaultKinds]int
	reserved   int // fault-script txns not yet invoked, of the open and queued scripts
	ep         *episode
	garbageN   int64

	stats TxnStats
}

// newTsim returns the transactional simulation of cfg, writing to w.
func newTsim(w io.Writer, cfg TxnConfig) *tsim {
	s := &tsim{
		cfg:       cfg,
		la:        cfg.Workload == ListAppend,
		readKind:  mReadReg,
		writeKind: mWrite,
		lag:       cfg.ReadLag > 0,
		workers:   make([]tworker, cfg.Concurrency),
	}
	s.core = newCore(w, cfg.Seed, 0x656c6c652d747873, cfg.Concurrency, cfg.Format, &s.stats.Counts)
	if s.la {
		s.readKind, s.writeKind = mReadList, mAppend
	}
	for range cfg.Keys {
		s.slots = append(s.slots, s.newKey())
	}
	for i := range s.workers {
		s.workers[i].pid = int64(i)
	}
	for k := range s.scriptLens {
		if TxnFaultKind(k).AppliesTo(cfg.Workload) {
			stages, _, _ := s.script(TxnFaultKind(k), func() int64 { return 0 }, 0)
			for _, st := range stages {
				s.scriptLens[k] += len(st)
			}
		}
	}
	// The scripts are spread over the first 90% of the txns.
	s.faults = plan(cfg.Faults, numTxnFaultKinds, float64(cfg.Txns), 0.85)
	return s
}

// newKey adds a fresh key to the store and returns it. Its write limit is
// drawn uniformly from [⌈MaxWritesPerKey/2⌉, MaxWritesPerKey], so that keys
// started together are not all retired together.
func (s *tsim) newKey() int64 {
	hi := int64(s.cfg.MaxWritesPerKey)
	lo := (hi + 1) / 2
	s.keys = append(s.keys, tkey{limit: lo + s.rng.Int64N(hi-lo+1)})
	s.stats.Keys++
	return int64(len(s.keys) - 1)
}

// arm queues a script of kind k, unless the txns left cannot hold it and
// the scripts already queued (then it is dropped: Stats tell).
func (s *tsim) arm(k TxnFaultKind) {
	n := s.scriptLens[k]
	if s.invoked+s.reserved+n > s.cfg.Txns {
		return
	}
	s.queue = append(s.queue, k)
	s.reserved += n
}

// result returns the stats of the history written.
func (s *tsim) result() TxnStats { return s.stats }

// run writes the history: every txn, each fault script in its turn, and
// the nemesis ops.
func (s *tsim) run() {
	total := s.cfg.Txns
	for s.err == nil {
		for k, ok := s.faults.due(int64(s.invoked)); ok; k, ok = s.faults.due(int64(s.invoked)) {
			s.arm(k)
		}
		if s.ep == nil && len(s.queue) > 0 {
			s.activate(s.queue[0])
			s.queue = s.queue[1:]
		}
		if s.invoked >= total && len(s.inflight) == 0 && s.ep == nil {
			return
		}
		if s.cfg.Nemesis && s.invoked < total && s.startNemesis() {
			s.stats.Nemesis++
			continue
		}
		s.eligible = s.eligible[:0]
		starting := false // a script stage is being invoked: no other txn starts
		if ep := s.ep; ep != nil && ep.next < len(ep.stages[ep.stage]) {
			starting = true
			for _, wi := range s.idle {
				if !slices.Contains(ep.prev, wi) {
					s.eligible = append(s.eligible, wi)
				}
			}
			if len(s.eligible) == 0 && len(s.inflight) == 0 {
				// Only with fewer workers than validate allows; never stall.
				s.eligible = append(s.eligible, s.idle...)
			}
		}
		canRandom := !starting && len(s.idle) > 0 && s.invoked+s.reserved < total
		n := len(s.eligible)
		if n == 0 && canRandom {
			n = len(s.idle)
		}
		if s.chooseInvoke(n) {
			if len(s.eligible) > 0 {
				s.invokeCarrier(s.takeIdle(s.eligible[s.rng.IntN(len(s.eligible))]))
			} else {
				s.invokeRandom(s.takeIdleAt(s.rng.IntN(len(s.idle))))
			}
			continue
		}
		if len(s.inflight) == 0 {
			s.err = errors.New("gen: internal error: the transactional simulation is stuck")
			return
		}
		s.completeRandom()
	}
}

// emit writes s.ln as the next line, at time t.
func (s *tsim) emit(t int64) {
	s.ln.index, s.ln.time, s.ln.omitF = s.lines, t, s.cfg.OmitF
	if s.cfg.Format == JSON {
		s.buf = appendTxnJSON(s.buf[:0], &s.ln)
	} else {
		s.buf = appendTxnEDN(s.buf[:0], &s.ln)
	}
	s.write()
}

// countMops counts the txn of mops being invoked and its micro-ops.
func (s *tsim) countMops(mops []tmop) {
	s.stats.Txns++
	for i := range mops {
		if mops[i].isRead() {
			s.stats.Reads++
		} else {
			s.stats.Writes++
		}
	}
}

// invokeRandom starts a txn of the regular workload on worker wi: 1 to
// MaxTxnLen micro-ops, each a read or a write (one chance in two) of a
// uniformly chosen active key. A key whose writes reach its limit is
// retired at once and a fresh key takes its slot.
func (s *tsim) invokeRandom(wi int) {
	w := &s.workers[wi]
	w.carrier = nil
	w.mops = w.mops[:0]
	n := 1 + s.rng.IntN(s.cfg.MaxTxnLen)
	for range n {
		slot := s.rng.IntN(len(s.slots))
		k := s.slots[slot]
		if s.rng.IntN(2) == 0 {
			w.mops = append(w.mops, tmop{kind: s.readKind, key: k})
			continue
		}
		kk := &s.keys[k]
		kk.writes++
		w.mops = append(w.mops, tmop{kind: s.writeKind, key: k, val: kk.writes})
		if kk.writes >= kk.limit {
			s.slots[slot] = s.newKey()
		}
	}
	s.invoked++
	s.countMops(w.mops)
	s.inflight = append(s.inflight, int32(wi))
	s.ln = txnLine{typ: tInvoke, pid: w.pid, mops: w.mops}
	s.emit(s.tick())
}

// completeRandom completes a random txn (or nemesis op) in flight.
func (s *tsim) completeRandom() {
	s.completeSlot(func(wi int, t int64) {
		if s.workers[wi].carrier != nil {
			s.completeCarrier(wi, t)
		} else {
			s.completeTxn(wi, t)
		}
	})
}

// completeTxn completes worker wi's regular txn at time t. An ok txn takes
// effect here, atomically (commit); an info txn took effect or not, one
// chance in two, and reports no reads; a fail txn took none.
func (s *tsim) completeTxn(wi int, t int64) {
	w := &s.workers[wi]
	typ := tOK
	switch r := s.rng.Float64(); {
	case r < s.cfg.InfoRate:
		typ = tInfo
	case r < s.cfg.InfoRate+s.cfg.FailRate:
		typ = tFail
	}
	s.ln = txnLine{typ: typ, pid: w.pid, mops: w.mops}
	switch typ {
	case tOK:
		s.stats.OK++
		s.out = s.commit(s.out[:0], w.mops, true)
		s.ln.mops = s.out
	case tInfo:
		s.stats.Info++
		s.ln.err = txnInfoError
		if s.rng.IntN(2) == 0 {
			s.stats.InfoLanded++
			s.out = s.commit(s.out[:0], w.mops, false)
		}
	case tFail:
		s.stats.Fail++
		s.ln.err = txnFailErrors[s.rng.IntN(len(txnFailErrors))]
	}
	s.emit(t)
	s.idle = append(s.idle, int32(wi))
	if typ == tInfo {
		s.newProcess(&w.pid)
	}
}

// commit applies mops to the store as one atomic step and appends their
// completion form to out (reads filled in; with reads false, as for an info
// txn, only the writes are applied). Reads see the state at this point,
// including the txn's own earlier writes. With ReadLag, the txn instead
// reads each key it does not write as it was lag writes ago (lag drawn once
// per txn from 0..ReadLag; further back if that would split a txn's
// writes): a follower per key that lags behind its leader.
func (s *tsim) commit(out []tmop, mops []tmop, reads bool) []tmop {
	lag := 0
	if s.lag {
		s.commitN++
		if reads {
			lag = s.rng.IntN(s.cfg.ReadLag + 1)
		}
	}
	for i := range mops {
		m := mops[i]
		kk := &s.keys[m.key]
		if !m.isRead() {
			kk.vals = append(kk.vals, m.val)
			if s.lag {
				kk.commits = append(kk.commits, s.commitN)
			}
			out = append(out, m)
			continue
		}
		if !reads {
			continue
		}
		n := len(kk.vals)
		if lag > 0 && !writes(mops, m.key) {
			n = max(0, n-lag)
			for n > 0 && kk.commits[n-1] == kk.commits[n] {
				n--
			}
		}
		m.done = true
		switch {
		case s.la:
			m.list = kk.vals[:n:n]
		case n == 0:
			m.isNil = true
		default:
			m.val = kk.vals[n-1]
		}
		out = append(out, m)
	}
	return out
}

// writes reports whether mops write key k.
func writes(mops []tmop, k int64) bool {
	for i := range mops {
		if !mops[i].isRead() && mops[i].key == k {
			return true
		}
	}
	return false
}
