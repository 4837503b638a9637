package txn

import (
	"encoding/json"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds list-append's checks that need no graph
// (docs/list-append.md#types-at-a-glance): G1a, G1b, future-read,
// duplicate-elements, dirty-update and duplicate-appends, and its
// txnView for the checks it shares with rw-register (internal, lost-update
// and garbage-read: txnchecks.go, lostupdate.go).

// nonCycle finds the anomalies that need no graph
// (docs/list-append.md#types-at-a-glance).
func (la *listAppend) nonCycle() {
	la.perTxn()
	la.dirtyUpdates()
	la.duplicateAppends()
}

// MaxMopElements is the most elements of a read a G1a or G1b instance's
// mop lists (the first ones); when the read holds more, the instance's
// mop_elements says how many (docs/list-append.md#g1a). Elle prints the
// whole read in each G1a instance, one instance per aborted element, so a
// read of n such elements would print n² of them.
const MaxMopElements = 32

// cutMop renders read m for a G1a or G1b instance: the whole micro-op, or,
// for a list of more than MaxMopElements elements, its first
// MaxMopElements and the list's length.
func (c *checker) cutMop(m *model.Mop) (*analysis.Mop, *int64) {
	es := c.h.ElemsOf(m)
	if m.Kind != model.MopReadList || len(es) <= MaxMopElements {
		return c.mopVal(m), nil
	}
	mv := &analysis.Mop{F: ":" + m.Kind.String(), Key: analysis.AtomValue(c.h.Keys[m.Key]), Value: c.listVal(es[:MaxMopElements])}
	return mv, analysis.IntPtr(int64(len(es)))
}

// abortedAndIntermediate reports G1a (an element of a failed append) and
// G1b (a list ending in another txn's intermediate append) for ok rec r.
// Each instance is kept compact (dirtyRead) and shows the read cut to its
// first MaxMopElements elements, so a read of n aborted elements costs
// O(n) memory and output, not O(n²).
func (la *listAppend) abortedAndIntermediate(s *txnChecks, r int32, mops []model.Mop) {
	c := la.c
	for i := range mops {
		m := &mops[i]
		es, ok := la.elems(r, m)
		if !ok {
			continue
		}
		g1a := es
		if la.plainRead(m) {
			g1a = nil // known to hold none
		}
		for _, e := range g1a {
			if w := la.writer[e]; w >= 0 && c.recs[w].vertex < 0 {
				s.add(G1a, s.dirtyRead(r, w, int32(i), m.Key, e))
			}
		}
		if len(es) == 0 {
			continue
		}
		last := es[len(es)-1]
		if w := la.writer[last]; w >= 0 && w != r && la.interm[last] {
			s.add(G1b, s.dirtyRead(r, w, int32(i), m.Key, last))
		}
	}
}

// futureRead reports the first append of ok rec r whose element the txn
// had already read, with the first read that showed it. O(mops + elements
// read): the first read of each element the txn appends is indexed
// (msgMarks).
func (la *listAppend) futureRead(s *txnChecks, r int32, mops []model.Mop) {
	c := la.c
	readAt := &s.msgMarks
	readAt.reset()
	has := false
	for i := range mops {
		if mops[i].Kind == model.MopAppend {
			readAt.set(int32(mops[i].Msg), -1) // appended: its first read goes here
			has = true
		}
	}
	if !has {
		return
	}
	for j := range mops {
		es, ok := la.elems(r, &mops[j])
		if !ok {
			continue
		}
		for _, e := range es {
			if at, ok := readAt.get(int32(e)); ok && at < 0 && c.h.MsgKey(e) == mops[j].Key {
				readAt.set(int32(e), int32(j))
			}
		}
	}
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopAppend {
			continue
		}
		if j, _ := readAt.get(int32(m.Msg)); j >= 0 && j < int32(i) {
			s.add(FutureRead, &Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(&mops[j]), Subject: analysis.Subject{Key: c.keyVal(m.Key)},
				Element: analysis.AtomValuePtr(c.h.MsgValue(m.Msg)), Evidence: analysis.Evidence{Witness: c.witness(r)}})
			return
		}
	}
}

// readChecks reports duplicate-elements.
func (la *listAppend) readChecks(s *txnChecks, r int32, mops []model.Mop) {
	la.duplicateElements(s, r, mops)
}

// duplicateElements reports each read of rec r holding an element twice,
// counting occurrences by element (msgMarks): O(elements read).
func (la *listAppend) duplicateElements(s *txnChecks, r int32, mops []model.Mop) {
	c := la.c
	count := &s.msgMarks
	var dups []model.MsgID
	for i := range mops {
		m := &mops[i]
		es, ok := la.elems(r, m)
		if !ok || len(es) < 2 || la.plainRead(m) {
			continue
		}
		count.reset()
		dups = dups[:0]
		for _, e := range es {
			n, _ := count.get(int32(e))
			count.set(int32(e), n+1)
			if n == 1 {
				dups = append(dups, e)
			}
		}
		if len(dups) == 0 {
			continue
		}
		dup := make(map[string]int64, len(dups))
		for _, e := range dups {
			n, _ := count.get(int32(e))
			b, _ := json.Marshal(c.msgVal(e))
			dup[string(b)] = int64(n)
		}
		s.add(DuplicateElements, &Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Subject: analysis.Subject{Key: c.keyVal(m.Key)},
			Duplicates: dup, Evidence: analysis.Evidence{Witness: c.witness(r)}})
	}
}

// dirtyUpdates walks each key's version order (from the reads) with the
// type of each element's writer and reports a failed append followed by a
// committed one (Elle's dirty-update-cases): the elements from the failed
// one's to the committed one's, and the two txns. Elements nobody appended
// are taken as info (nothing can be said). The keys are walked on every
// core, in pieces, and reported in key order (it was 30 to 36 ms on one
// core of a 1M-txn check, most of it a slice allocated per element).
func (la *listAppend) dirtyUpdates() {
	nk := len(la.readOrder)
	found := make([][]*Instance, (nk+dirtyPiece-1)/dirtyPiece)
	par.Pieces(nk, dirtyPiece, func() func(i, lo, hi int) {
		var vs []model.MsgID
		return func(i, lo, hi int) {
			for k := lo; k < hi; k++ {
				vs = la.dirtyUpdatesOf(model.KeyID(k), vs, &found[i])
			}
		}
	})
	for _, ins := range found {
		for _, in := range ins {
			la.c.add(DirtyUpdate, in)
		}
	}
}

// dirtyPiece is how many keys a worker of dirtyUpdates takes at a time.
const dirtyPiece = 1024

// dirtyUpdatesOf adds to found the dirty updates of key k, as dirtyUpdates
// says, with vs as its scratch (returned for reuse).
func (la *listAppend) dirtyUpdatesOf(k model.KeyID, vs []model.MsgID, found *[]*Instance) []model.MsgID {
	c := la.c
	if la.dupKey[k] {
		return vs
	}
	t1, t1typ := int32(-1), model.OK // the initial state counts as committed
	vs = vs[:0]
	for _, e := range la.readOrder[k] {
		t2, t2typ := la.writer[e], model.Info
		if t2 >= 0 {
			t2typ = c.typOf(&c.recs[t2])
		}
		switch {
		case t2typ == model.OK && t1typ == model.Fail:
			vs = append(vs, e)
			in := &Instance{Subject: analysis.Subject{Key: c.keyVal(k)}, Evidence: analysis.Evidence{Witness: c.witness(t1, t2)}}
			for _, x := range vs {
				in.Values = append(in.Values, c.msgVal(x))
			}
			in.Txns = []analysis.Value{analysis.AtomValue(model.IntAtom(c.idx(t1))),
				analysis.AtomValue(model.Atom{Kind: model.KOther, Text: "..."}), analysis.AtomValue(model.IntAtom(c.idx(t2)))}
			*found = append(*found, in)
			t1, t1typ, vs = t2, t2typ, append(vs[:0], e)
		case t2typ == model.OK || t2typ == model.Fail && t1typ != model.Fail:
			t1, t1typ, vs = t2, t2typ, append(vs[:0], e)
		default: // info after anything, or fail after fail: keep the range
			vs = append(vs, e)
		}
	}
	return vs
}

// duplicateAppends reports the values appended more than once to a key:
// the key's order cannot be trusted, so it is left out of the graph and the
// verdict is at best unknown (ours: Elle refuses the whole history).
func (la *listAppend) duplicateAppends() {
	c := la.c
	if len(la.dups) == 0 {
		return
	}
	ms := make([]model.MsgID, 0, len(la.dups))
	for m := range la.dups {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	for _, m := range ms {
		recs := la.dups[m]
		k := c.h.MsgKey(m)
		var ops []int64
		for _, r := range recs {
			ops = append(ops, c.idx(r))
		}
		c.add(DuplicateAppends, &Instance{Subject: analysis.Subject{Key: c.keyVal(k)}, Value: analysis.AtomValuePtr(c.h.MsgValue(m)), Ops: ops,
			Evidence: analysis.Evidence{Witness: c.witness(recs...)}})
		c.unknownReason("%s: value %s was appended to key %s by %s, so the order of that key cannot be inferred; "+
			"it was left out of the dependency graph", DuplicateAppends, c.h.MsgValue(m), c.h.Keys[k], opList(ops))
	}
}

// The txnView of list-append: a key's state is the list read, an append
// extends it.

func (la *listAppend) isWrite(m *model.Mop) bool { return m.Kind == model.MopAppend }

func (la *listAppend) isRead(m *model.Mop) bool {
	return m.Kind == model.MopReadList || m.Kind == model.MopRead
}

// readOf returns the list read (elems); a read of nil is a MopRead.
func (la *listAppend) readOf(r int32, m *model.Mop) (es []model.MsgID, isNil, ok bool) {
	es, ok = la.elems(r, m)
	return es, ok && m.Kind == model.MopRead, ok
}

func (la *listAppend) overwrites() bool { return false }

func (la *listAppend) certain([]model.MsgID) bool { return true }

func (la *listAppend) written(e model.MsgID) bool { return la.writer[e] >= 0 }
