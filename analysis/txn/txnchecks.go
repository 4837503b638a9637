package txn

import (
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds the per-txn checks list-append and rw-register share:
// internal and garbage-read (lost-update is in lostupdate.go). Both
// workloads see a key's state the same way: a list of elements, a register
// holding a list of one (docs/list-append.md, docs/rw-register.md); what
// differs is the txnView each implements.

// txnView is what the shared per-txn checks need of a workload.
type txnView interface {
	// isWrite reports whether m writes its key: list-append's append,
	// rw-register's write.
	isWrite(m *model.Mop) bool
	// isRead reports whether m reads its key, known value or not.
	isRead(m *model.Mop) bool
	// readOf returns the state read micro-op m of rec r saw: a list's
	// elements, or a register's value as a list of one (none for nil);
	// isNil for a read of nil, which only nil matches. ok is false when m
	// is no read or what it saw is unknown (an info txn's nil).
	readOf(r int32, m *model.Mop) (es []model.MsgID, isNil, ok bool)
	// overwrites reports whether a write replaces its key's state
	// (rw-register) rather than extending it (list-append).
	overwrites() bool
	// certain reports whether two reads of state es are reads of one
	// version (rw-register: not a value written by more than one txn).
	certain(es []model.MsgID) bool
	// written reports whether some op in the history wrote element e.
	written(e model.MsgID) bool
	// plainRead reports whether read micro-op m is known to hold no
	// element garbage-read (or, list-append's, G1a or duplicate-elements)
	// reports, so that they need not look through it.
	plainRead(m *model.Mop) bool
	// abortedAndIntermediate reports G1a and G1b for the reads of ok rec
	// r, futureRead future-read, and readChecks the workload's further
	// checks of the reads of vertex rec r (list-append:
	// duplicate-elements), each to s, the perTxn worker running it, with
	// s's scratch.
	abortedAndIntermediate(s *txnChecks, r int32, mops []model.Mop)
	futureRead(s *txnChecks, r int32, mops []model.Mop)
	readChecks(s *txnChecks, r int32, mops []model.Mop)
}

// txnChecks runs the shared per-txn checks on its workload (v), with the
// scratch they reuse between txns; both workloads embed it, and their own
// checks and indexes reuse its marks.
type txnChecks struct {
	c *checker
	v txnView
	// maps by key and by message, emptied per txn or per read
	keyMarks, keyMarks2 marks
	msgMarks            marks
	// per-key states of internal and lost-update, reused between txns
	expects []expect
	firsts  []firstRead
	// lost-update candidates, grouped by lostUpdates
	lost []lostCand
	// what garbage reads are built from (garbageRead)
	readSrc *readSource
	// unwritten elements of one read (garbage)
	unwritten []model.MsgID
	// found holds a perTxn worker's instances, in the order found (add;
	// perTxn reports them: only its workers add)
	found []found
}

// found is an instance a perTxn worker found, reported once every worker
// is done.
type found struct {
	typ string
	in  analysis.Instance
}

// add keeps an instance a per-txn check found (perTxn reports it).
func (tc *txnChecks) add(typ string, in analysis.Instance) {
	tc.found = append(tc.found, found{typ, in})
}

// newTxnChecks makes the shared checks of workload v, with marks for its
// keys and messages.
func newTxnChecks(c *checker, v txnView) txnChecks {
	nk, nm := len(c.h.Keys), len(c.h.Msgs)
	return txnChecks{c: c, v: v, keyMarks: newMarks(nk), keyMarks2: newMarks(nk), msgMarks: newMarks(nm),
		readSrc: &readSource{h: c.h, recs: c.recs, list: !v.overwrites()}}
}

// release drops the per-message scratch of the checks once they have run,
// before the graph is built: it is the largest of it (8 bytes a message),
// and anything that needs it again allocates it afresh (marks.reset).
func (tc *txnChecks) release() {
	tc.msgMarks = newMarks(tc.msgMarks.n)
	tc.expects, tc.firsts, tc.lost, tc.unwritten = nil, nil, nil, nil
}

// perTxnPiece is how many txns a worker of perTxn takes at a time.
const perTxnPiece = 4096

// perTxn runs the checks of each txn, in the order their instances are
// reported: on an ok txn G1a and G1b, internal, future-read and the
// lost-update candidates; on a vertex txn the workload's read checks and
// garbage-read; then it reports the lost updates. The txns are checked on
// every core, in pieces, each worker with scratch of its own (fork); what
// each piece finds is reported piece by piece, in txn order, so the
// result does not depend on the number of workers. The workers share the
// indexes read-only.
func (tc *txnChecks) perTxn() {
	c := tc.c
	n := len(c.recs)
	pieces := (n + perTxnPiece - 1) / perTxnPiece
	founds := make([][]found, pieces)
	losts := make([][]lostCand, pieces)
	par.Pieces(n, perTxnPiece, func() func(i, lo, hi int) {
		w := tc.fork()
		return func(i, lo, hi int) {
			w.found, w.lost = nil, nil
			for r := lo; r < hi; r++ {
				w.checkTxn(int32(r))
			}
			founds[i], losts[i] = w.found, w.lost
		}
	})
	for i := range pieces {
		for _, f := range founds[i] {
			c.add(f.typ, f.in)
		}
		founds[i] = nil
	}
	tc.lost = slices.Concat(losts...)
	tc.lostUpdates()
}

// fork returns a worker for perTxn: the same checker and workload, with
// scratch of its own.
func (tc *txnChecks) fork() *txnChecks {
	w := newTxnChecks(tc.c, tc.v)
	return &w
}

// checkTxn runs the per-txn checks on rec r.
func (tc *txnChecks) checkTxn(r int32) {
	c, v := tc.c, tc.v
	rc := &c.recs[r]
	mops := c.mops(r)
	if c.typOf(rc) == model.OK {
		v.abortedAndIntermediate(tc, r, mops)
		if tc.keysRepeat(mops) { // what the three look for needs a key met twice
			tc.internal(r, mops)
			v.futureRead(tc, r, mops)
			tc.lostUpdateOf(r, mops)
		}
	}
	if rc.vertex >= 0 {
		v.readChecks(tc, r, mops)
		tc.garbage(r, mops)
	}
}

// keysRepeat reports whether two of mops have one key. Without, internal,
// future-read and lost-update find nothing: each compares a micro-op with
// an earlier one of its key (a future read's value is of the key the txn
// writes it to). Most txns touch each key once (three in four of
// histgen's 1M rw-register txns); skipping the three for them took the
// phase of the per-txn checks from 158-167 to 118-135 ms on 1M
// list-append txns, from 82-98 to 73-78 ms on 1M rw-register txns
// (HINDSIGHT_PHASES=time). Pairwise for a few micro-ops, else through
// keyMarks: O(mops).
func (tc *txnChecks) keysRepeat(mops []model.Mop) bool {
	if len(mops) <= 8 {
		for i := 1; i < len(mops); i++ {
			for j := range i {
				if mops[i].Key == mops[j].Key {
					return true
				}
			}
		}
		return false
	}
	at := &tc.keyMarks
	at.reset()
	for i := range mops {
		if _, ok := at.get(int32(mops[i].Key)); ok {
			return true
		}
		at.set(int32(mops[i].Key), 0)
	}
	return false
}

// expect is what a txn should read of a key, from its own earlier reads
// and writes (internal).
type expect struct {
	key   model.KeyID
	known bool // the whole state is known, not just its end
	isNil bool // known from a read of nil, which only nil matches
	es    []model.MsgID
}

// internal reports the first read of ok rec r that disagrees with what the
// txn itself read and wrote before (Cerone et al.'s INT; Elle's
// op-internal-case): a register read must return what the txn last wrote,
// or, before any write, what it first read; a list read must end with the
// txn's own appends since it last read the key, and equal that read with
// them. A read of nil is a state of its own (a later read must be nil too,
// as Elle's fixtures assert). The expected list starts with "..." when the
// txn never read the key before appending. The states are a list, reused
// between txns, indexed by key (keyMarks); each read is compared once with a
// state no longer than it, so a txn costs O(mops + elements read).
func (tc *txnChecks) internal(r int32, mops []model.Mop) {
	v := tc.v
	state := tc.expects[:0]
	defer func() { tc.expects = state[:0] }()
	at := &tc.keyMarks
	at.reset()
	find := func(k model.KeyID) *expect {
		if i, ok := at.get(int32(k)); ok {
			return &state[i]
		}
		return nil
	}
	add := func(k model.KeyID) *expect {
		at.set(int32(k), int32(len(state)))
		if len(state) < cap(state) {
			state = state[:len(state)+1]
			es := state[len(state)-1].es[:0]
			state[len(state)-1] = expect{key: k, es: es}
		} else {
			state = append(state, expect{key: k})
		}
		return &state[len(state)-1]
	}
	for i := range mops {
		m := &mops[i]
		if v.isWrite(m) {
			s := find(m.Key)
			if s == nil {
				s = add(m.Key)
			}
			if v.overwrites() {
				s.es, s.known = s.es[:0], true
			}
			s.es, s.isNil = append(s.es, m.Msg), false // after nil, an append gives [v]
			continue
		}
		es, isNil, ok := v.readOf(r, m)
		if !ok {
			continue
		}
		s := find(m.Key)
		if s == nil {
			s = add(m.Key)
		} else if !s.matches(es, isNil) {
			tc.add(Internal, &internalRead{compactRead: tc.newCompactRead(int32(i), m.Key, r, r),
				es: slices.Clone(s.es), isNil: s.isNil, known: s.known})
			return
		}
		s.known, s.isNil = true, isNil
		s.es = append(s.es[:0], es...)
	}
}

// matches reports whether a read of es (isNil: of nil) agrees with the
// expected state: equal to it when it is known, else ending with it.
func (s *expect) matches(es []model.MsgID, isNil bool) bool {
	if s.known {
		return slices.Equal(s.es, es) && s.isNil == isNil
	}
	i := len(es) - len(s.es)
	return i >= 0 && slices.Equal(es[i:], s.es)
}

// garbage reports the elements or values vertex rec r read that no op in
// the history wrote (ours: Elle has no such check, jepsen-io/elle#8), each
// once per read of a list, and once per txn for a register, whose reads
// hold one value each (overwrites); marked in msgMarks. A list-append read
// of n unwritten elements is one instance, at O(n) memory and output.
// O(elements read).
func (tc *txnChecks) garbage(r int32, mops []model.Mop) {
	v := tc.v
	seen := &tc.msgMarks
	seen.reset()
	for i := range mops {
		m := &mops[i]
		es, _, ok := v.readOf(r, m)
		if !ok || v.plainRead(m) {
			continue
		}
		if !v.overwrites() {
			seen.reset()
		}
		bad := tc.unwritten[:0]
		for _, e := range es {
			if _, dup := seen.get(int32(e)); !v.written(e) && !dup {
				seen.set(int32(e), 1)
				bad = append(bad, e)
			}
		}
		tc.unwritten = bad[:0]
		if len(bad) == 0 {
			continue
		}
		tc.add(GarbageRead, &garbageRead{compactRead: tc.newCompactRead(int32(i), m.Key, r, r), bad: slices.Clone(bad)})
	}
}
