package txn

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds rw-register's checks that need no graph
// (docs/rw-register.md#types-at-a-glance): G1a, G1b, internal, future-read,
// lost-update and garbage-read; cyclic-versions comes with the version
// orders (rwversions.go) and duplicate-writes with the writer index
// (rwregister.go).

// nonCycle runs the per-txn checks and reports lost updates.
func (rw *rwRegister) nonCycle() {
	c := rw.c
	var lost []regLost
	for r := range c.recs {
		r := int32(r)
		rc := &c.recs[r]
		mops := c.mops(r)
		if rc.typ == model.OK {
			rw.abortedAndIntermediate(r, mops)
			rw.internal(r, mops)
			rw.futureRead(r, mops)
			rw.lostUpdateOf(r, mops, &lost)
		}
		if rc.vertex >= 0 {
			rw.garbage(r, mops)
		}
	}
	// group the candidates by key and value (a stable sort keeps each
	// group's txns in order), then report the groups of two or more in
	// the order their first candidate was found
	slices.SortStableFunc(lost, func(a, b regLost) int {
		return cmp.Or(cmp.Compare(a.k, b.k), cmp.Compare(a.v, b.v))
	})
	type group struct{ first, from, to int }
	var groups []group
	for i := 0; i < len(lost); {
		j := i + 1
		for j < len(lost) && lost[j].regLostKey == lost[i].regLostKey {
			j++
		}
		if j-i > 1 {
			groups = append(groups, group{lost[i].seq, i, j})
		}
		i = j
	}
	slices.SortFunc(groups, func(a, b group) int { return cmp.Compare(a.first, b.first) })
	var recs []int32
	for _, gr := range groups {
		g := lost[gr.from].regLostKey
		recs = recs[:0]
		for _, x := range lost[gr.from:gr.to] {
			recs = append(recs, x.r)
		}
		in := analysis.Instance{Key: c.keyVal(g.k), Witness: c.witness(recs...)}
		v := analysis.AtomValue(model.NilAtom)
		if g.v != nilVal {
			v = c.msgVal(g.v)
		}
		in.Value = &v
		for _, x := range recs {
			in.Txns = append(in.Txns, analysis.AtomValue(model.IntAtom(c.idx(x))))
		}
		c.add(LostUpdate, in)
	}
}

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
func (rw *rwRegister) abortedAndIntermediate(r int32, mops []model.Mop) {
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
		if c.recs[w].typ == model.Fail {
			c.add(G1a, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Writer: analysis.IntPtr(c.idx(w)),
				Key: c.keyVal(m.Key), Value: analysis.AtomValuePtr(c.h.MsgValue(m.Msg)), Witness: c.witness(r, w)})
		}
		if w != r && rw.interm[m.Msg] {
			c.add(G1b, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Writer: analysis.IntPtr(c.idx(w)),
				Key: c.keyVal(m.Key), Value: analysis.AtomValuePtr(c.h.MsgValue(m.Msg)), Witness: c.witness(r, w)})
		}
	}
}

// regState is what a txn should read of a key, from its own earlier reads
// and writes (internal).
type regState struct {
	key model.KeyID
	val model.MsgID // a message or nilVal
}

// internal reports the first read of ok rec r that disagrees with the
// txn's own earlier read or write of the key (Elle's op-internal-case): a
// read must return what the txn last wrote, or, before any write, what it
// first read; a read of nil is a state of its own (a later read must be nil
// too, as Elle's fixtures assert). The states are a list, reused between
// txns, indexed by key (keyMarks): O(mops).
func (rw *rwRegister) internal(r int32, mops []model.Mop) {
	c := rw.c
	state := rw.states[:0]
	defer func() { rw.states = state[:0] }()
	at := &rw.keyMarks
	at.reset()
	for i := range mops {
		m := &mops[i]
		var v model.MsgID
		switch m.Kind {
		case model.MopWrite:
			v = m.Msg
		case model.MopRead:
			v = readValue(m, model.OK)
		default:
			continue
		}
		j, ok := at.get(int32(m.Key))
		if !ok {
			at.set(int32(m.Key), int32(len(state)))
			state = append(state, regState{m.Key, v})
			continue
		}
		if m.Kind == model.MopRead && state[j].val != v {
			exp := analysis.AtomValue(model.NilAtom)
			if state[j].val != nilVal {
				exp = c.msgVal(state[j].val)
			}
			c.add(Internal, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Key: c.keyVal(m.Key),
				Expected: &exp, Witness: c.witness(r)})
			return
		}
		state[j].val = v
	}
}

// futureRead reports the first read of ok rec r of a value that only r
// itself writes, later (writes are unique, so nobody else wrote it). The
// values written so far are marked (msgMarks): O(mops).
func (rw *rwRegister) futureRead(r int32, mops []model.Mop) {
	c := rw.c
	written := &rw.msgMarks
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
			c.add(FutureRead, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Key: c.keyVal(m.Key),
				Value: analysis.AtomValuePtr(c.h.MsgValue(m.Msg)), Witness: c.witness(r)})
			return
		}
	}
}

// regLost is one lost-update candidate: ok rec r read value v of key k
// and then wrote k; seq is its place in the order found.
type regLost struct {
	regLostKey
	r   int32
	seq int
}

// regLostKey groups lost-update candidates: a key and the value read.
type regLostKey struct {
	k model.KeyID
	v model.MsgID
}

// regFirst is a key a txn touched, for lost-update: the value of its first
// read (read is false when it wrote the key before reading it), and
// whether it has written since.
type regFirst struct {
	k     model.KeyID
	read  bool
	wrote bool
	v     model.MsgID
}

// lostUpdateOf adds ok rec r to the lost-update groups: for each key it
// read (its first access being a read) and then wrote, the value it read
// (Elle's lost-update-cases; nil counts). A value written by more than one
// txn is passed over: two reads of it need not be of one version. The keys
// are a list indexed by key (keyMarks): O(mops).
func (rw *rwRegister) lostUpdateOf(r int32, mops []model.Mop, cands *[]regLost) {
	seen := rw.firsts[:0]
	defer func() { rw.firsts = seen[:0] }()
	at := &rw.keyMarks
	at.reset()
	for i := range mops {
		m := &mops[i]
		j := -1
		if x, ok := at.get(int32(m.Key)); ok {
			j = int(x)
		}
		switch m.Kind {
		case model.MopWrite:
			if j < 0 {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, regFirst{k: m.Key, wrote: true})
				continue
			}
			if seen[j].wrote || !seen[j].read {
				continue
			}
			seen[j].wrote = true
			if !rw.usable(seen[j].v) {
				continue
			}
			*cands = append(*cands, regLost{regLostKey{m.Key, seen[j].v}, r, len(*cands)})
		case model.MopRead:
			if j < 0 {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, regFirst{k: m.Key, read: true, v: readValue(m, model.OK)})
			}
		}
	}
}

// garbage reports each value rec r read that no op in the history wrote
// (ours: Elle has no such check, jepsen-io/elle#8); a value read twice by
// one txn is reported once (msgMarks): O(mops).
func (rw *rwRegister) garbage(r int32, mops []model.Mop) {
	c := rw.c
	seen := &rw.msgMarks
	seen.reset()
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopRead || !m.Done || rw.writer[m.Msg] != noWriter {
			continue
		}
		if _, dup := seen.get(int32(m.Msg)); dup {
			continue
		}
		seen.set(int32(m.Msg), 1)
		c.add(GarbageRead, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Key: c.keyVal(m.Key),
			Value: analysis.AtomValuePtr(c.h.MsgValue(m.Msg)), Witness: c.witness(r)})
	}
}
