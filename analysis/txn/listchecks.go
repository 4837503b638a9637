package txn

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds list-append's checks that need no graph
// (docs/list-append.md#types-at-a-glance).

// nonCycle finds the anomalies that need no graph
// (docs/list-append.md#types-at-a-glance).
func (la *listAppend) nonCycle() {
	c := la.c
	var lost []lostCand // lost-update candidates, grouped below
	for r := range c.recs {
		r := int32(r)
		rc := &c.recs[r]
		mops := c.mops(r)
		if rc.typ == model.OK {
			la.abortedAndIntermediate(r, mops)
			la.internal(r, mops)
			la.futureRead(r, mops)
			lost = la.lostUpdateOf(r, mops, lost)
		}
		if rc.vertex >= 0 {
			la.duplicateElements(r, mops)
			la.garbage(r, mops)
		}
	}
	// groups (key, list length and hash) in the order each was first
	// met, txns in order within each: a stable sort, then the groups by
	// their first candidate. O(g log g), cache-friendlier than a map of
	// slices.
	slices.SortStableFunc(lost, func(a, b lostCand) int {
		return cmp.Or(cmp.Compare(a.g.k, b.g.k), cmp.Compare(a.g.n, b.g.n), cmp.Compare(a.g.hash, b.g.hash))
	})
	var groups [][]lostCand
	for i := 0; i < len(lost); {
		j := i + 1
		for j < len(lost) && lost[j].g == lost[i].g {
			j++
		}
		if j-i > 1 {
			groups = append(groups, lost[i:j])
		}
		i = j
	}
	slices.SortFunc(groups, func(a, b []lostCand) int { return cmp.Compare(a[0].seq, b[0].seq) })
	for _, g := range groups {
		la.lostUpdates(g[0].g, g)
	}
	la.dirtyUpdates()
	la.duplicateAppends()
}

// lostCand is a lost-update candidate: an ok txn, the micro-op of its
// first read of the group's key, its group, and the order it was found in.
type lostCand struct {
	rec, mop int32
	seq      int32
	g        lostKey
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
// The instances of one read share one copy of it (Mop), cut to its first
// MaxMopElements elements, so a read of n aborted elements costs O(n)
// memory and output, not O(n²).
func (la *listAppend) abortedAndIntermediate(r int32, mops []model.Mop) {
	c := la.c
	for i := range mops {
		m := &mops[i]
		es, ok := la.elems(r, m)
		if !ok {
			continue
		}
		var mv *analysis.Mop
		var ml *int64
		for _, e := range es {
			if w := la.writer[e]; w >= 0 && c.recs[w].typ == model.Fail {
				if mv == nil {
					mv, ml = c.cutMop(m)
				}
				c.add(G1a, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: mv, MopElements: ml, Writer: analysis.IntPtr(c.idx(w)),
					Key: c.keyVal(m.Key), Element: analysis.AtomValuePtr(c.h.MsgValue(e)), Witness: c.witness(r, w)})
			}
		}
		if len(es) == 0 {
			continue
		}
		last := es[len(es)-1]
		if w := la.writer[last]; w >= 0 && w != r && la.interm[last] {
			if mv == nil {
				mv, ml = c.cutMop(m)
			}
			c.add(G1b, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: mv, MopElements: ml, Writer: analysis.IntPtr(c.idx(w)),
				Key: c.keyVal(m.Key), Element: analysis.AtomValuePtr(c.h.MsgValue(last)), Witness: c.witness(r, w)})
		}
	}
}

// expect is what a txn should read of a key, from its own earlier reads
// and appends (internal).
type expect struct {
	key   model.KeyID
	known bool // the whole list is known, not just its end
	isNil bool // known from a read of nil, which only nil matches
	es    []model.MsgID
}

// internal reports the first read of ok rec r that disagrees with what the
// txn itself read and appended before (Cerone et al.'s INT): its own
// appends must be the end of what it reads next. The expected state starts
// with "..." when the txn never read the key before appending. The states
// are a list, reused between txns, indexed by key (keyMarks); each read is
// compared once with a state no longer than it, so a txn costs
// O(mops + elements read).
func (la *listAppend) internal(r int32, mops []model.Mop) {
	c := la.c
	state := la.expects[:0]
	defer func() { la.expects = state[:0] }()
	at := &la.keyMarks
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
		switch m.Kind {
		case model.MopAppend:
			s := find(m.Key)
			if s == nil {
				s = add(m.Key)
			}
			s.es, s.isNil = append(s.es, m.Msg), false // after nil, an append gives [v]
		case model.MopReadList, model.MopRead:
			es, ok := la.elems(r, m)
			if !ok {
				continue
			}
			s := find(m.Key)
			if s != nil {
				bad := false
				if s.known {
					bad = !slices.Equal(s.es, es) || s.isNil != (m.Kind == model.MopRead)
				} else {
					i := len(es) - len(s.es)
					bad = i < 0 || !slices.Equal(es[i:], s.es)
				}
				if bad {
					exp := c.listVal(s.es)
					if s.isNil {
						exp = analysis.AtomValue(model.NilAtom)
					}
					if !s.known {
						exp.Elems = append([]analysis.Value{analysis.AtomValue(model.Atom{Kind: model.KOther, Text: "..."})}, exp.Elems...)
					}
					c.add(Internal, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Key: c.keyVal(m.Key),
						Expected: &exp, Witness: c.witness(r)})
					return
				}
			} else {
				s = add(m.Key)
			}
			s.known, s.isNil = true, m.Kind == model.MopRead
			s.es = append(s.es[:0], es...)
		}
	}
}

// futureRead reports the first append of ok rec r whose element the txn
// had already read, with the first read that showed it. O(mops + elements
// read): the first read of each element the txn appends is indexed
// (msgMarks).
func (la *listAppend) futureRead(r int32, mops []model.Mop) {
	c := la.c
	readAt := &la.msgMarks
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
			c.add(FutureRead, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(&mops[j]), Key: c.keyVal(m.Key),
				Element: analysis.AtomValuePtr(c.h.MsgValue(m.Msg)), Witness: c.witness(r)})
			return
		}
	}
}

// duplicateElements reports each read of rec r holding an element twice,
// counting occurrences by element (msgMarks): O(elements read).
func (la *listAppend) duplicateElements(r int32, mops []model.Mop) {
	c := la.c
	count := &la.msgMarks
	var dups []model.MsgID
	for i := range mops {
		m := &mops[i]
		es, ok := la.elems(r, m)
		if !ok || len(es) < 2 {
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
		c.add(DuplicateElements, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Key: c.keyVal(m.Key),
			Duplicates: dup, Witness: c.witness(r)})
	}
}

// garbage reports each read of rec r holding elements that no op in the
// history appended (ours: Elle has no such check): one instance per read,
// with the first such element (Element) and all of them, each once, in
// the order read (Values). One instance per read keeps a read of n
// unwritten elements at O(n) memory and output. O(elements read).
func (la *listAppend) garbage(r int32, mops []model.Mop) {
	c := la.c
	seen := &la.msgMarks
	for i := range mops {
		m := &mops[i]
		es, ok := la.elems(r, m)
		if !ok {
			continue
		}
		// count them first, so that the list is made once at its size, not
		// regrown (a Value is tens of bytes)
		n := 0
		seen.reset()
		for _, e := range es {
			if _, dup := seen.get(int32(e)); la.writer[e] < 0 && !dup {
				seen.set(int32(e), 1)
				n++
			}
		}
		if n == 0 {
			continue
		}
		bad := make([]analysis.Value, 0, n)
		seen.reset()
		for _, e := range es {
			if _, dup := seen.get(int32(e)); la.writer[e] < 0 && !dup {
				seen.set(int32(e), 1)
				bad = append(bad, c.msgVal(e))
			}
		}
		if len(bad) == 0 {
			continue
		}
		c.add(GarbageRead, analysis.Instance{Op: analysis.IntPtr(c.idx(r)), Mop: c.mopVal(m), Key: c.keyVal(m.Key),
			Element: &bad[0], Values: bad, Witness: c.witness(r)})
	}
}

// dirtyUpdates walks each key's version order (from the reads) with the
// type of each element's writer and reports a failed append followed by a
// committed one (Elle's dirty-update-cases): the elements from the failed
// one's to the committed one's, and the two txns. Elements nobody appended
// are taken as info (nothing can be said).
func (la *listAppend) dirtyUpdates() {
	c := la.c
	for k, o := range la.readOrder {
		if la.dupKey[k] {
			continue
		}
		t1, t1typ := int32(-1), model.OK // the initial state counts as committed
		var vs []model.MsgID
		for _, e := range o {
			t2, t2typ := la.writer[e], model.Info
			if t2 >= 0 {
				t2typ = c.recs[t2].typ
			}
			switch {
			case t2typ == model.OK && t1typ == model.Fail:
				vs = append(vs, e)
				in := analysis.Instance{Key: c.keyVal(model.KeyID(k)), Witness: c.witness(t1, t2)}
				for _, x := range vs {
					in.Values = append(in.Values, c.msgVal(x))
				}
				in.Txns = []analysis.Value{analysis.AtomValue(model.IntAtom(c.idx(t1))),
					analysis.AtomValue(model.Atom{Kind: model.KOther, Text: "..."}), analysis.AtomValue(model.IntAtom(c.idx(t2)))}
				c.add(DirtyUpdate, in)
				t1, t1typ, vs = t2, t2typ, []model.MsgID{e}
			case t2typ == model.OK || t2typ == model.Fail && t1typ != model.Fail:
				t1, t1typ, vs = t2, t2typ, []model.MsgID{e}
			default: // info after anything, or fail after fail: keep the range
				vs = append(vs, e)
			}
		}
	}
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
		c.add(DuplicateAppends, analysis.Instance{Key: c.keyVal(k), Value: analysis.AtomValuePtr(c.h.MsgValue(m)), Ops: ops,
			Witness: c.witness(recs...)})
		c.unknownReason("%s: value %s was appended to key %s by %s, so the order of that key cannot be inferred; "+
			"it was left out of the dependency graph", DuplicateAppends, c.h.MsgValue(m), c.h.Keys[k], opList(ops))
	}
}
