package txn

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds rw-register's checks that need no graph
// (docs/rw-register.md#types-at-a-glance): G1a, G1b and future-read, and
// its txnView for the checks it shares with list-append (internal,
// lost-update and garbage-read: txnchecks.go, lostupdate.go);
// cyclic-versions comes with the version orders (rwversions.go) and
// duplicate-writes with the writer index (rwregister.go).

// readValue is the value a read micro-op of a txn of type typ saw: its
// message, nilVal for an ok txn's read of nil (the initial state), or
// noVal when unknown (an info txn's nil).
func readValue(m *model.Mop, typ model.OpType) model.MsgID {
	switch {
	case m.Done:
		return m.Msg
	case typ == model.OK:
		return nilVal
	}
	return noVal
}

// abortedAndIntermediate reports, for each read of ok rec r, G1a (the value
// was written by a failed txn) and G1b (it was a write its writer, another
// txn, overwrote within itself). Values written by more than one txn are
// passed over (duplicate-writes).
func (rw *rwRegister) abortedAndIntermediate(s *txnChecks, r int32, mops []model.Mop) {
	c := rw.c
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopRead || !m.Done {
			continue
		}
		w := rw.writer[m.Msg]
		if w < 0 {
			continue
		}
		if c.recs[w].vertex < 0 {
			s.add(G1a, s.dirtyRead(r, w, int32(i), m.Key, m.Msg))
		}
		if w != r && rw.interm[m.Msg] {
			s.add(G1b, s.dirtyRead(r, w, int32(i), m.Key, m.Msg))
		}
	}
}

// futureRead reports the first read of ok rec r of a value that only r
// itself writes, later (writes are unique, so nobody else wrote it). The
// values written so far are marked (msgMarks): O(mops).
func (rw *rwRegister) futureRead(s *txnChecks, r int32, mops []model.Mop) {
	c := rw.c
	written := &s.msgMarks
	written.reset()
	for i := range mops {
		m := &mops[i]
		if m.Kind == model.MopWrite {
			written.set(int32(m.Msg), 1)
		}
		if m.Kind != model.MopRead || !m.Done || rw.writer[m.Msg] != r {
			continue
		}
		if _, wroteBefore := written.get(int32(m.Msg)); !wroteBefore {
			s.add(FutureRead, &Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Subject: analysis.Subject{Key: c.keyVal(m.Key)},
				Value: analysis.AtomValuePtr(c.h.MsgValue(m.Msg)), Evidence: analysis.Evidence{Witness: c.witness(r)}})
			return
		}
	}
}

// The txnView of rw-register: a key's state is one value, a write replaces
// it.

func (rw *rwRegister) isWrite(m *model.Mop) bool { return m.Kind == model.MopWrite }

func (rw *rwRegister) isRead(m *model.Mop) bool { return m.Kind == model.MopRead }

// readOf returns the value read as a list of one (none for nil).
func (rw *rwRegister) readOf(r int32, m *model.Mop) (es []model.MsgID, isNil, ok bool) {
	if m.Kind != model.MopRead {
		return nil, false, false
	}
	switch v := readValue(m, rw.c.typOf(&rw.c.recs[r])); v {
	case noVal:
		return nil, false, false
	case nilVal:
		return nil, true, true
	default:
		return rw.msgIDs[v : v+1], false, true
	}
}

func (rw *rwRegister) overwrites() bool { return true }

// certain: a value written by more than one txn is not (usable).
func (rw *rwRegister) certain(es []model.MsgID) bool { return len(es) == 0 || rw.usable(es[0]) }

// plainRead: a read holds one value, so none is known plain beforehand.
func (rw *rwRegister) plainRead(*model.Mop) bool { return false }

// written: by one txn or more.
func (rw *rwRegister) written(e model.MsgID) bool { return rw.writer[e] != noWriter }

// readChecks: none besides garbage-read.
func (rw *rwRegister) readChecks(*txnChecks, int32, []model.Mop) {}
