package txn

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// CheckListAppend analyses a list-append history (docs/list-append.md): its
// non-cycle anomalies, the dependency graph inferred from the lists read,
// and the cycles of that graph, judged against opts.Models. pairing must
// come from model.Pair(h).
//
// Cost: O(ops + mops + read elements) for the indexes and non-cycle checks
// (plus sorting the reads of each key), O(edges) for the graph, plus the
// cycle search, bounded per component by opts.CycleBudget.
func CheckListAppend(h *model.History, pairing model.Pairing, opts Options) *analysis.Result {
	start := time.Now()
	c := newChecker(h, pairing, opts, "list-append")
	la := &listAppend{c: c}
	c.inf = la
	la.index()
	la.nonCycle()
	if opts.Series {
		for k, o := range la.order {
			if len(o) == 0 {
				continue
			}
			from := int64(-1)
			if r := la.orderSrc[k]; r >= 0 {
				from = c.idx(r)
			}
			c.res.Series.Orders = append(c.res.Series.Orders, analysis.KeyOrder{Key: model.KeyID(k), Elems: o, From: from})
		}
	}
	return c.run(start)
}

// listAppend is the list-append inference: version orders from the lists
// read, and the ww, wr and rw edges between adjacent versions.
type listAppend struct {
	c *checker
	// per message (a key and an element)
	writer  []int32 // rec that appended it, -1
	interm  []bool  // not its writer's last append to the key
	pos     []int32 // position in its key's version order, -1
	shownBy []int32 // first rec (in history order) whose read showed it in order, -1
	// per key
	order    [][]model.MsgID // version order: the longest read, without repeats
	orderSrc []int32         // rec whose read gave the version order, -1
	dupKey   []bool          // an element appended twice: the key is left out
	// readers of each state: element states are message ids, the empty
	// state of key k is len(Msgs)+k; CSR over recs
	rstart []int32
	rrecs  []int32
	// reads, in history order
	reads []readRef
	// dups: the recs appending each message more than once
	dups map[model.MsgID][]int32
	// readOrder is the order from reads alone (no single-append rule), for
	// dirty-update
	readOrder [][]model.MsgID
	// the reads sorted by key (then length, hash, rec), and where each
	// key's run starts (CSR over keys)
	byKey    []readRef
	keyStart []int32
	// clean: every read of the key, repeats dropped, is a prefix of its
	// version order, so no read contradicts any of its order pairs
	clean []bool
	// pairs: the order pairs the reads of an unclean key show, built when
	// a step first needs them
	pairs map[model.KeyID]*pairIndex
	// contested: the keys contested steps named, by their atom (orderOp)
	contested map[model.Atom]model.KeyID
	// scratch of the per-txn checks
	expects             []expect
	firsts              []firstRead
	keyMarks, keyMarks2 marks // by key
	msgMarks            marks // by message
	extBuf              []bool
}

// readRef is one list read of a vertex txn.
type readRef struct {
	rec  int32
	mop  int32
	key  model.KeyID
	n    int32
	hash uint64
	ext  bool // before the txn's first append to the key
}

// elems returns the list read by micro-op i of rec r, and false when the
// read is unknown (an info txn's nil). An ok txn's nil read counts as the
// empty list, as Elle's read index has it.
func (la *listAppend) elems(r int32, m *model.Mop) ([]model.MsgID, bool) {
	switch m.Kind {
	case model.MopReadList:
		return la.c.h.ElemsOf(m), true
	case model.MopRead:
		if !m.Done && la.c.recs[r].typ == model.OK {
			return nil, true
		}
	}
	return nil, false
}

// externals sets ext[i], for each micro-op i of mops, to whether it comes
// before the txn's first append to its key (for a read: whether it is
// external), reusing ext. O(len(mops)).
func (la *listAppend) externals(mops []model.Mop, ext []bool) []bool {
	first := &la.keyMarks
	first.reset()
	for i := range mops {
		if mops[i].Kind == model.MopAppend || mops[i].Kind == model.MopWrite {
			first.setFirst(int32(mops[i].Key), int32(i))
		}
	}
	ext = slices.Grow(ext[:0], len(mops))[:len(mops)]
	for i := range mops {
		j, ok := first.get(int32(mops[i].Key))
		ext[i] = !ok || j >= int32(i)
	}
	return ext
}

func hashElems(es []model.MsgID) uint64 {
	h := uint64(14695981039346656037)
	for _, e := range es {
		h ^= uint64(uint32(e))
		h *= 1099511628211
	}
	return h
}

func filledInt32(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// index builds the writer, version-order and reader indexes.
func (la *listAppend) index() {
	c := la.c
	h := c.h
	nm, nk := len(h.Msgs), len(h.Keys)
	la.writer = filledInt32(nm, -1)
	la.interm = make([]bool, nm)
	la.dupKey = make([]bool, nk)
	la.keyMarks, la.keyMarks2, la.msgMarks = newMarks(nk), newMarks(nk), newMarks(nm)
	appends := make([]int32, nk) // appends per key by ok and info txns
	single := make([]model.MsgID, nk)
	for r := range c.recs {
		r := int32(r)
		mops := c.mops(r)
		for i := range mops {
			m := &mops[i]
			if m.Kind != model.MopAppend {
				continue
			}
			if w := la.writer[m.Msg]; w >= 0 {
				if la.dups == nil {
					la.dups = map[model.MsgID][]int32{}
				}
				if len(la.dups[m.Msg]) == 0 {
					la.dups[m.Msg] = []int32{w}
				}
				la.dups[m.Msg] = append(la.dups[m.Msg], r)
				la.dupKey[m.Key] = true
			} else {
				la.writer[m.Msg] = r
			}
			if c.recs[r].vertex >= 0 {
				appends[m.Key]++
				single[m.Key] = m.Msg
			}
		}
		// an append followed by another to its key in the txn is
		// intermediate
		later := &la.keyMarks
		later.reset()
		for i := len(mops) - 1; i >= 0; i-- {
			if m := &mops[i]; m.Kind == model.MopAppend {
				if _, ok := later.get(int32(m.Key)); ok {
					la.interm[m.Msg] = true
				}
				later.set(int32(m.Key), 1)
			}
		}
		if c.recs[r].vertex < 0 {
			continue
		}
		la.extBuf = la.externals(mops, la.extBuf)
		for i := range mops {
			es, ok := la.elems(r, &mops[i])
			if !ok {
				continue
			}
			la.reads = append(la.reads, readRef{rec: r, mop: int32(i), key: mops[i].Key, n: int32(len(es)), hash: hashElems(es), ext: la.extBuf[i]})
		}
	}
	c.res.Stats.Messages = int64(nm)

	// Version orders: per key, the distinct non-empty lists read, by length;
	// each must be a prefix of the next (else incompatible-order), and the
	// longest, without repeated elements, is the order.
	la.order = make([][]model.MsgID, nk)
	la.readOrder = make([][]model.MsgID, nk)
	la.orderSrc = filledInt32(nk, -1)
	sorted := slices.Clone(la.reads)
	slices.SortFunc(sorted, func(a, b readRef) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.n, b.n), cmp.Compare(a.hash, b.hash), cmp.Compare(a.rec, b.rec))
	})
	la.byKey = sorted
	la.keyStart = make([]int32, nk+1)
	for i := 0; i < len(sorted); {
		k := sorted[i].key
		j := i
		for j < len(sorted) && sorted[j].key == k {
			j++
		}
		la.orderKey(k, sorted[i:j], appends[k] == 1, single[k])
		la.keyStart[k+1] = int32(j - i)
		i = j
	}
	for k := range nk {
		la.keyStart[k+1] += la.keyStart[k]
	}
	for k := range nk {
		if appends[k] == 1 && la.order[k] == nil {
			la.order[k] = []model.MsgID{single[k]}
		}
	}
	la.pos = filledInt32(nm, -1)
	for _, o := range la.order {
		for p, m := range o {
			la.pos[m] = int32(p)
		}
	}
	la.clean = make([]bool, nk)
	for k := range nk {
		la.clean[k] = true
		for _, rd := range la.byKey[la.keyStart[k]:la.keyStart[k+1]] {
			es, _ := la.elems(rd.rec, &c.mops(rd.rec)[rd.mop])
			if !la.prefixOfOrder(model.KeyID(k), es) {
				la.clean[k] = false
				break
			}
		}
	}
	// shownBy: the first read, in history order, that showed each element
	// at its place in the order.
	la.shownBy = filledInt32(nm, -1)
	covered := make([]int32, nk)
	for _, rd := range la.reads {
		o := la.order[rd.key]
		if rd.n <= covered[rd.key] {
			continue
		}
		es, _ := la.elems(rd.rec, &c.mops(rd.rec)[rd.mop])
		if len(es) > len(o) {
			es = withoutRepeats(es) // a read with duplicate elements shows the order too
		}
		if len(es) > len(o) || !slices.Equal(es, o[:len(es)]) {
			continue
		}
		for p := covered[rd.key]; p < int32(len(es)); p++ {
			la.shownBy[o[p]] = rd.rec
		}
		covered[rd.key] = max(covered[rd.key], int32(len(es)))
	}
	la.readers()
}

// withoutRepeats returns es with every element after its first occurrence
// dropped (a new slice).
func withoutRepeats(es []model.MsgID) []model.MsgID {
	seen := make(map[model.MsgID]bool, len(es))
	o := make([]model.MsgID, 0, len(es))
	for _, e := range es {
		if !seen[e] {
			seen[e] = true
			o = append(o, e)
		}
	}
	return o
}

// orderKey sets key k's version order from its reads (sorted by length,
// hash and rec) and reports the first incompatible pair, unless k has a
// single append, whose order is that append alone (Elle's
// values-from-single-appends).
func (la *listAppend) orderKey(k model.KeyID, reads []readRef, singleAppend bool, single model.MsgID) {
	c := la.c
	type distinct struct {
		ref readRef
		es  []model.MsgID
	}
	var ds []distinct
	for _, rd := range reads {
		if rd.n == 0 {
			continue
		}
		es, _ := la.elems(rd.rec, &c.mops(rd.rec)[rd.mop])
		if n := len(ds); n > 0 && ds[n-1].ref.n == rd.n && ds[n-1].ref.hash == rd.hash && slices.Equal(ds[n-1].es, es) {
			continue
		}
		ds = append(ds, distinct{rd, es})
	}
	if len(ds) == 0 {
		return
	}
	slices.SortStableFunc(ds, func(a, b distinct) int {
		return cmp.Or(cmp.Compare(a.ref.n, b.ref.n), cmp.Compare(a.ref.rec, b.ref.rec))
	})
	longest := ds[len(ds)-1]
	o := withoutRepeats(longest.es)
	la.readOrder[k] = o
	if singleAppend {
		la.order[k] = []model.MsgID{single}
		return
	}
	la.order[k], la.orderSrc[k] = o, longest.ref.rec
	for i := 1; i < len(ds); i++ {
		a, b := ds[i-1], ds[i]
		if len(a.es) <= len(b.es) && slices.Equal(a.es, b.es[:len(a.es)]) {
			continue
		}
		c.add(IncompatibleOrder, analysis.Instance{
			Key:     c.keyVal(k),
			Values:  []analysis.Value{c.listVal(a.es), c.listVal(b.es)},
			Ops:     []int64{c.idx(a.ref.rec), c.idx(b.ref.rec)},
			Witness: c.witness(a.ref.rec, b.ref.rec),
		})
		return
	}
}

// state is the state a read ended in: its last element, or the empty state
// of its key.
func (la *listAppend) state(k model.KeyID, es []model.MsgID) int32 {
	if len(es) == 0 {
		return int32(len(la.c.h.Msgs)) + int32(k)
	}
	return int32(es[len(es)-1])
}

// readers indexes, for each state, the vertex txns whose external read of
// the key ended in it (keys with duplicate appends left out).
func (la *listAppend) readers() {
	c := la.c
	n := len(c.h.Msgs) + len(c.h.Keys)
	la.rstart = make([]int32, n+1)
	each := func(f func(st, r int32)) {
		for _, rd := range la.reads {
			if la.dupKey[rd.key] || !rd.ext {
				continue
			}
			es, _ := la.elems(rd.rec, &c.mops(rd.rec)[rd.mop])
			f(la.state(rd.key, es), rd.rec)
		}
	}
	each(func(st, _ int32) { la.rstart[st+1]++ })
	for i := 1; i <= n; i++ {
		la.rstart[i] += la.rstart[i-1]
	}
	la.rrecs = make([]int32, la.rstart[n])
	fill := slices.Clone(la.rstart[:n])
	each(func(st, r int32) {
		// the same txn may read a state twice; keep it once
		if fill[st] > la.rstart[st] && la.rrecs[fill[st]-1] == r {
			return
		}
		la.rrecs[fill[st]] = r
		fill[st]++
	})
	// compact rows shortened by repeats
	w := int32(0)
	for st := 0; st < n; st++ {
		a, b := la.rstart[st], fill[st]
		la.rstart[st] = w
		w += int32(copy(la.rrecs[w:], la.rrecs[a:b]))
	}
	la.rstart[n] = w
	la.rrecs = la.rrecs[:w]
}

func (la *listAppend) readersOf(st int32) []int32 { return la.rrecs[la.rstart[st]:la.rstart[st+1]] }

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

// emit adds the data edges (docs/list-append.md#the-workload): wr from the
// appender of the last element of each external read to the reader; ww from
// the appender of each element to the appender of the next; rw from each
// txn whose external read ended in a state to the appender of the next
// element. Self-edges are dropped by the graph builder.
func (la *listAppend) emit(add func(from, to int32, rel graph.Rel)) {
	c := la.c
	for r := range c.recs {
		r := int32(r)
		v := c.recs[r].vertex
		if v < 0 {
			continue
		}
		mops := c.mops(r)
		la.extBuf = la.externals(mops, la.extBuf)
		for i := range mops {
			m := &mops[i]
			if la.dupKey[m.Key] {
				continue
			}
			switch m.Kind {
			case model.MopReadList:
				es := c.h.ElemsOf(m)
				if len(es) == 0 || !la.extBuf[i] {
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

// prefixOfOrder reports whether es, with repeated elements dropped, is a
// prefix of key k's version order. O(len(es)).
func (la *listAppend) prefixOfOrder(k model.KeyID, es []model.MsgID) bool {
	o := la.order[k]
	j := int32(0)
	for _, e := range es {
		switch i := la.pos[e]; {
		case i >= 0 && i < j && o[i] == e: // a repeat of an element already matched
		case int(j) < len(o) && o[j] == e:
			j++
		default:
			return false
		}
	}
	return true
}

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
		es, _ := la.elems(rd.rec, &c.mops(rd.rec)[rd.mop])
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

// lostUpdates reports the txns of one lost-update group (equal key, list
// length and hash): those whose first read of the key is the same list, two
// or more of them, one instance per distinct list, in the order each list
// was first read. Lists are compared in full: equal hashes of different
// lists are sorted apart. O(L · g log g) for g txns reading lists of
// length L, O(L · g) when all lists are equal.
func (la *listAppend) lostUpdates(g lostKey, cands []lostCand) {
	c := la.c
	if len(cands) < 2 {
		return
	}
	readOf := func(x lostCand) []model.MsgID {
		es, _ := la.elems(x.rec, &c.mops(x.rec)[x.mop])
		return es
	}
	first := readOf(cands[0])
	same := true
	for _, x := range cands[1:] {
		if !slices.Equal(readOf(x), first) {
			same = false
			break
		}
	}
	var runs [][]lostCand
	if same {
		runs = [][]lostCand{cands}
	} else {
		// a stable sort by list keeps each run in txn order, and a run's
		// first txn is where its list was first read
		sorted := slices.Clone(cands)
		slices.SortStableFunc(sorted, func(a, b lostCand) int { return slices.Compare(readOf(a), readOf(b)) })
		for i := 0; i < len(sorted); {
			j := i + 1
			for j < len(sorted) && slices.Equal(readOf(sorted[j]), readOf(sorted[i])) {
				j++
			}
			runs = append(runs, sorted[i:j])
			i = j
		}
		slices.SortFunc(runs, func(a, b []lostCand) int { return cmp.Compare(a[0].rec, b[0].rec) })
	}
	for _, run := range runs {
		if len(run) < 2 {
			continue
		}
		recs := make([]int32, len(run))
		for i, x := range run {
			recs[i] = x.rec
		}
		in := analysis.Instance{Key: c.keyVal(g.k), Witness: c.witness(recs...)}
		v := c.listVal(readOf(run[0]))
		in.Value = &v
		for _, x := range recs {
			in.Txns = append(in.Txns, analysis.AtomValue(model.IntAtom(c.idx(x))))
		}
		c.add(LostUpdate, in)
	}
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

// lostKey groups lost-update candidates: a key and the list read (its
// length and hash; lists are compared in full when a group is reported).
type lostKey struct {
	k    model.KeyID
	n    int32
	hash uint64
}

func lostKeyOf(k model.KeyID, es []model.MsgID) lostKey {
	return lostKey{k, int32(len(es)), hashElems(es)}
}

// firstRead is a key a txn touched, for lost-update: the list of its first
// read (read is false when the txn appended before reading it), and whether
// it has appended since.
type firstRead struct {
	k     model.KeyID
	read  bool
	wrote bool
	es    []model.MsgID
}

// lostUpdateOf appends to cands the lost-update candidates of ok rec r:
// for each key it read (its first read of the key, before appending to it)
// and then appended to (Elle's lost-update-cases). The keys are a list, reused
// between txns, indexed by key (keyMarks); keyMarks2 holds each key's
// first read micro-op, the list the group reports. O(mops).
func (la *listAppend) lostUpdateOf(r int32, mops []model.Mop, cands []lostCand) []lostCand {
	seen := la.firsts[:0]
	defer func() { la.firsts = seen[:0] }()
	at, firstMop := &la.keyMarks, &la.keyMarks2
	at.reset()
	firstMop.reset()
	for i := range mops {
		m := &mops[i]
		j := -1
		if x, ok := at.get(int32(m.Key)); ok {
			j = int(x)
		}
		switch m.Kind {
		case model.MopAppend:
			if j < 0 {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, firstRead{k: m.Key, wrote: true})
				continue
			}
			if seen[j].wrote {
				continue
			}
			seen[j].wrote = true
			fm, _ := firstMop.get(int32(m.Key))
			cands = append(cands, lostCand{rec: r, mop: fm, seq: int32(len(cands)), g: lostKeyOf(m.Key, seen[j].es)})
		case model.MopReadList, model.MopRead:
			firstMop.setFirst(int32(m.Key), int32(i))
			if j >= 0 {
				continue
			}
			if es, ok := la.elems(r, m); ok {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, firstRead{k: m.Key, read: true, es: es})
			}
		}
	}
	return cands
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
