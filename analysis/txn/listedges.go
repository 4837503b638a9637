package txn

import (
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds list-append's data edges (docs/list-append.md#the-workload)
// and why each exists: the read or order pair behind it, and the reads that
// contradict that pair (package doc, "Proofs and contested orders").

// prev returns the element appended right before m (a message of key k) in
// the version order, or, for an element no read showed, the last element of
// the order (it came after everything read); init is true when that is the
// empty state.
func (la *listAppend) prev(k model.KeyID, m model.MsgID) (p model.MsgID, init bool) {
	o := la.order[k]
	switch i := la.pos[m]; {
	case i > 0:
		return o[i-1], false
	case i == 0 || len(o) == 0:
		return 0, true
	}
	return o[len(o)-1], false
}

// edges generates the data edges (docs/list-append.md#the-workload): wr
// from the appender of the last element of each external read to the
// reader; ww from the appender of each element to the appender of the
// next; rw from each txn whose external read ended in a state to the
// appender of the next element. Each vertex's edges in are emitted with
// it, in ranges of vertices (emit). Self-edges are dropped by the graph
// builder.
func (la *listAppend) edges() graph.Edges {
	return graph.Edges{Items: len(la.c.vrec), Range: la.emit}
}

// emit adds the data edges into the vertices lo..hi-1, as edges says. It
// only reads la (its scratch marks come from the pool), so ranges can be
// emitted at once.
func (la *listAppend) emit(lo, hi int, add graph.AddFunc) {
	c := la.c
	first := la.marksPool.Get().(*marks)
	defer la.marksPool.Put(first)
	var ext []bool
	for v := int32(lo); v < int32(hi); v++ {
		r := c.vrec[v]
		mops := c.mops(r)
		ext = externalsWith(first, mops, ext)
		for i := range mops {
			m := &mops[i]
			if la.dupKey[m.Key] {
				continue
			}
			switch m.Kind {
			case model.MopReadList:
				es := c.h.ElemsOf(m)
				if len(es) == 0 || !ext[i] {
					continue
				}
				if w := la.writer[es[len(es)-1]]; w >= 0 && c.recs[w].vertex >= 0 {
					add(c.recs[w].vertex, v, graph.WR)
				}
			case model.MopAppend:
				p, init := la.prev(m.Key, m.Msg)
				st := int32(len(c.h.Msgs)) + int32(m.Key)
				if !init {
					st = int32(p)
					if w := la.writer[p]; w >= 0 && c.recs[w].vertex >= 0 {
						add(c.recs[w].vertex, v, graph.WW)
					}
				}
				for _, q := range la.readersOf(st) {
					add(c.recs[q].vertex, v, graph.RW)
				}
			}
		}
	}
}

// appendIndex finds the micro-op of rec r appending m, or -1.
func (la *listAppend) appendIndex(r int32, m model.MsgID) int {
	return slices.IndexFunc(la.c.mops(r), func(x model.Mop) bool { return x.Kind == model.MopAppend && x.Msg == m })
}

// explain says why the data edge from rec u to rec v exists, the way emit
// made it: which read, which pair of adjacent elements, and which read
// showed that order.
func (la *listAppend) explain(u, v int32, rel graph.Rel) analysis.Step {
	c := la.c
	st := analysis.Step{From: c.idx(u), To: c.idx(v), Rel: rel.String()}
	mops := c.mops(v)
	ext := la.externals(mops, nil)
	var uReads map[readEnd]int // u's external reads by key and end, when needed
	for i := range mops {
		m := &mops[i]
		if la.dupKey[m.Key] {
			continue
		}
		switch {
		case rel == graph.WR && m.Kind == model.MopReadList && ext[i]:
			es := c.h.ElemsOf(m)
			if len(es) > 0 && la.writer[es[len(es)-1]] == u {
				last := es[len(es)-1]
				st.Key, st.Value = c.keyVal(m.Key), analysis.AtomValuePtr(c.h.MsgValue(last))
				st.Mops = []int{la.appendIndex(u, last), i}
				return st
			}
		case (rel == graph.WW || rel == graph.RW) && m.Kind == model.MopAppend:
			p, init := la.prev(m.Key, m.Msg)
			from := -1
			if rel == graph.WW && !init && la.writer[p] == u {
				from = la.appendIndex(u, p)
			}
			if rel == graph.RW {
				if uReads == nil {
					uReads = la.readIndexes(u)
				}
				from = -1
				if i, ok := uReads[readEnd{m.Key, p, init}]; ok {
					from = i
				}
			}
			if from < 0 {
				continue
			}
			pv := analysis.AtomValue(model.NilAtom)
			if !init {
				pv = c.msgVal(p)
			}
			st.Key, st.Values, st.Mops = c.keyVal(m.Key), []analysis.Value{pv, c.msgVal(m.Msg)}, []int{from, i}
			la.justify(&st, m, p, init)
			return st
		}
	}
	return st
}

// readEnd is where a read of a key ended: its last element, or the empty
// state (init).
type readEnd struct {
	k    model.KeyID
	p    model.MsgID
	init bool
}

// readIndexes indexes rec u's external reads by key and end state, each
// end to its first read: one pass over u's micro-ops, where looking the
// read up for each append of the other txn would cost O(mops²) on two
// huge txns.
func (la *listAppend) readIndexes(u int32) map[readEnd]int {
	mops := la.c.mops(u)
	ext := la.externals(mops, nil)
	idx := map[readEnd]int{}
	for i := range mops {
		if !ext[i] || mops[i].Kind != model.MopReadList && mops[i].Kind != model.MopRead {
			continue
		}
		es, ok := la.elems(u, &mops[i])
		if !ok {
			continue
		}
		e := readEnd{k: mops[i].Key, init: true}
		if len(es) > 0 {
			e = readEnd{k: mops[i].Key, p: es[len(es)-1]}
		}
		if _, dup := idx[e]; !dup {
			idx[e] = i
		}
	}
	return idx
}

// justify names the read behind a ww or rw step onto append m, whose
// element b came right after p (the empty state when init) in the version
// order (the order pair p, b; package doc, "Proofs and contested orders").
// On a clean key (every read a prefix of the order) that is the first read
// that showed b in the order, or, for an element no read showed, the read
// the order comes from (b came after its last element: Unread). On any
// other key the step names a read that shows p right before b when there
// is one; else, when no read shows b, it is Unread as above; else the
// order placed b where no read shows it, from the read the order comes
// from. Either way the reads that contradict the pair, if any, make the
// step Contested and are listed (the first few) in ContradictedBy.
func (la *listAppend) justify(st *analysis.Step, m *model.Mop, p model.MsgID, init bool) {
	c := la.c
	k := m.Key
	if la.clean[k] {
		if la.pos[m.Msg] >= 0 {
			if r := la.shownBy[m.Msg]; r >= 0 {
				st.OrderOp = analysis.IntPtr(c.idx(r))
			}
			return
		}
		st.Unread = true
		if r := la.orderSrc[k]; r >= 0 {
			st.OrderOp = analysis.IntPtr(c.idx(r))
		}
		return
	}
	a := p
	if init {
		a = model.NoMsg
	}
	pi := la.pairIndexOf(k)
	sup, read := pi.claim(a, m.Msg)
	switch {
	case sup >= 0:
		st.OrderOp = analysis.IntPtr(c.idx(sup))
	default:
		st.Unread, st.Placed = !read, read
		if r := la.orderSrc[k]; r >= 0 {
			st.OrderOp = analysis.IntPtr(c.idx(r))
		}
	}
	if ops := pi.contradictions(c, a, m.Msg); len(ops) > 0 {
		st.Contested, st.ContradictedBy = true, ops
		if la.contested == nil {
			la.contested = map[model.Atom]model.KeyID{}
		}
		la.contested[c.h.Keys[k]] = k
	}
}

// orderOp returns the op whose read gave the version order of a key a
// contested step named, or nil.
func (la *listAppend) orderOp(key *analysis.Value) *int64 {
	k, ok := la.contested[key.Atom]
	if !ok || la.orderSrc[k] < 0 {
		return nil
	}
	return analysis.IntPtr(la.c.idx(la.orderSrc[k]))
}

// maxContradictions is how many contradicting reads a contested step
// names.
const maxContradictions = 3

// pairIndex holds the order pairs the reads of one key show: each element
// with the element right before it in some read (model.NoMsg: it was the
// first), repeats dropped, and the first read (lowest op index) showing
// each pair.
type pairIndex struct {
	first map[[2]model.MsgID]int32
	preds map[model.MsgID][]model.MsgID // element -> distinct elements right before it
	succs map[model.MsgID][]model.MsgID // element (NoMsg: the empty state) -> distinct elements right after it
}

// pairIndexOf builds (once) the pair index of key k from its reads.
// O(elements read of k).
func (la *listAppend) pairIndexOf(k model.KeyID) *pairIndex {
	if pi := la.pairs[k]; pi != nil {
		return pi
	}
	c := la.c
	pi := &pairIndex{first: map[[2]model.MsgID]int32{}, preds: map[model.MsgID][]model.MsgID{}, succs: map[model.MsgID][]model.MsgID{}}
	for _, rd := range la.byKey[la.keyStart[k]:la.keyStart[k+1]] {
		es := la.list(&rd)
		es = withoutRepeats(es)
		prev := model.NoMsg
		for _, e := range es {
			pr := [2]model.MsgID{prev, e}
			if r, ok := pi.first[pr]; !ok {
				pi.first[pr] = rd.rec
				pi.preds[e] = append(pi.preds[e], prev)
				pi.succs[prev] = append(pi.succs[prev], e)
			} else if c.idx(rd.rec) < c.idx(r) {
				pi.first[pr] = rd.rec
			}
			prev = e
		}
	}
	if la.pairs == nil {
		la.pairs = map[model.KeyID]*pairIndex{}
	}
	la.pairs[k] = pi
	return pi
}

// claim returns the first read showing a right before b (a = NoMsg: b
// first), or -1, and whether any read shows b at all.
func (pi *pairIndex) claim(a, b model.MsgID) (sup int32, read bool) {
	sup = -1
	if r, ok := pi.first[[2]model.MsgID{a, b}]; ok {
		sup = r
	}
	return sup, len(pi.preds[b]) > 0
}

// contradictions lists the op indices of reads that contradict the order
// pair a, b: first the reads that show b right after something other than
// a (or first, when a is an element), then those that show a right before
// something other than b; each group by op index, the first
// maxContradictions in all. O(distinct neighbours of a and b).
func (pi *pairIndex) contradictions(c *checker, a, b model.MsgID) []int64 {
	var showB, other []int64
	for _, x := range pi.preds[b] {
		if x != a {
			showB = append(showB, c.idx(pi.first[[2]model.MsgID{x, b}]))
		}
	}
	for _, y := range pi.succs[a] {
		if y != b {
			other = append(other, c.idx(pi.first[[2]model.MsgID{a, y}]))
		}
	}
	slices.Sort(showB)
	slices.Sort(other)
	var ops []int64
	for _, x := range append(showB, other...) {
		if len(ops) < maxContradictions && !slices.Contains(ops, x) {
			ops = append(ops, x)
		}
	}
	return ops
}
