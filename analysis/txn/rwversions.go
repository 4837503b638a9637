package txn

import (
	"cmp"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// This file infers rw-register version orders
// (docs/rw-register.md#version-orders; Elle's rw_register version-graphs):
// per key, a partial order over its values and its initial state, merged from
// the sources the options ask for, in Elle's order. A source whose edges
// would make a key's order cyclic is dropped for that key and reported as
// cyclic-versions.

// versionOrders builds rw.ver from every source asked for.
func (rw *rwRegister) versionOrders() {
	o := rw.c.opts
	srcs := []source{srcInitial}
	if o.TransactionOrder != nil {
		srcs = append(srcs, srcTxnOrder)
	}
	if o.WFRKeys {
		srcs = append(srcs, srcWFR)
	}
	if o.SequentialKeys {
		srcs = append(srcs, srcSequential)
	}
	if o.LinearizableKeys {
		srcs = append(srcs, srcLinearizable)
	}
	for i, s := range srcs {
		if s == srcInitial { // the first: nothing to merge with, and no cycle
			rw.init, rw.initSet = rw.initialEdges()
			continue
		}
		var cand []vedge
		add := func(k model.KeyID, from, to model.MsgID, a, b int32) {
			if from == to || from == noVal || to == noVal || rw.dupKey[k] || !rw.usable(from) || !rw.usable(to) {
				return
			}
			e := vedge{from: rw.nodeOf(k, from), to: rw.nodeOf(k, to), key: k, src: s, a: a, b: b}
			if n := len(cand); n > 0 && cand[n-1].pair() == e.pair() {
				return // the same edge again (frontier txns that last saw one value): the first is kept
			}
			cand = append(cand, e)
		}
		switch s {
		case srcTxnOrder:
			rw.txnOrder(add)
		case srcWFR:
			rw.wfr(add)
		case srcSequential:
			rw.sequential(add)
		case srcLinearizable:
			rw.linearizable(add)
		}
		rw.merge(s, srcs[:i], cand)
	}
}

// initialEdges returns the edges of the initial state, as the values they
// lead to and a bitset of them (rwRegister.init): nil precedes every
// value an ok or info txn read or wrote externally (Elle's
// initial-state-version-graphs; an info txn's reads count when it reports
// their values), leaving out what add in versionOrders leaves out (keys
// with duplicate writes, values written more than once). They come in the
// order merge sorts edges in, by key and then value (a counting sort by
// key of the values, in id order), so that its sort of about one edge per
// value finds them sorted: sorting them from history order took a tenth of
// a 1M-transaction rw-register check's CPU. Each pass runs on every core
// (on one, the three took about 90 ms of that check): the values seen are
// marked in a bitset from ranges of the vertices, then ranges of the
// values count their edges by key and, at the places the counts give
// each range within each key's run, write them.
func (rw *rwRegister) initialEdges() ([]model.MsgID, []uint64) {
	c := rw.c
	nm, nk := len(c.h.Msgs), len(c.h.Keys)
	seen := make([]uint32, (nm+31)/32)
	par.EachRange(len(c.vrec), 1<<12, func(lo, hi int) {
		var buf []touch
		for _, r := range c.vrec[lo:hi] {
			for _, t := range rw.touchesOf(r, &buf) {
				for _, m := range [2]model.MsgID{t.read, t.write} {
					if m >= 0 && atomic.LoadUint32(&seen[m>>5])&(1<<(m&31)) == 0 {
						atomic.OrUint32(&seen[m>>5], 1<<(m&31))
					}
				}
			}
		}
	})
	edge := func(m model.MsgID) (model.KeyID, bool) {
		k := c.h.MsgKey(m)
		return k, seen[m>>5]&(1<<(m&31)) != 0 && !rw.dupKey[k] && rw.usable(m)
	}
	pieces := min(2*runtime.GOMAXPROCS(0), max(1, nm>>12))
	size := max(1, (nm+pieces-1)/pieces) // 1 for no values: no piece
	at := make([][]int32, pieces)        // at[p][k]: where piece p's next edge of key k goes
	par.Pieces(nm, size, func() func(p, lo, hi int) {
		return func(p, lo, hi int) {
			at[p] = make([]int32, nk)
			for m := model.MsgID(lo); m < model.MsgID(hi); m++ {
				if k, ok := edge(m); ok {
					at[p][k]++
				}
			}
		}
	})
	total := int32(0)
	for k := range nk {
		for p := range at {
			if at[p] != nil {
				at[p][k], total = total, total+at[p][k]
			}
		}
	}
	edges := make([]model.MsgID, total)
	set := make([]uint64, (nm+63)/64)
	par.Pieces(nm, size, func() func(p, lo, hi int) {
		return func(p, lo, hi int) {
			for m := model.MsgID(lo); m < model.MsgID(hi); m++ {
				if k, ok := edge(m); ok {
					edges[at[p][k]] = m
					at[p][k]++
					atomic.OrUint64(&set[m>>6], 1<<(m&63)) // pieces may share a word
				}
			}
		}
	})
	return edges, set
}

// initEdge is the initial state's edge to value m: nil before m.
func (rw *rwRegister) initEdge(m model.MsgID) vedge {
	k := rw.c.h.MsgKey(m)
	return vedge{from: rw.nodeOf(k, nilVal), to: int32(m), key: k, src: srcInitial, a: -1, b: -1}
}

// hasInitEdge reports whether version node to (of one key) follows the
// initial state in the accepted order.
func (rw *rwRegister) hasInitEdge(to int32) bool {
	return to >= 0 && int(to) < len(rw.c.h.Msgs) && rw.initSet[to>>6]&(1<<(to&63)) != 0
}

// isInitEdge reports whether from → to is one of the initial state's
// accepted edges (rw.init): from is the initial state of to's key.
func (rw *rwRegister) isInitEdge(from, to int32) bool {
	return rw.hasInitEdge(to) && from == rw.nodeOf(rw.c.h.MsgKey(model.MsgID(to)), nilVal)
}

// eachVer calls f with every accepted version-order edge, in pair order:
// the other sources' (ver) merged with the initial state's (init), whose
// pairs, from a key's initial state, follow every pair from a value.
func (rw *rwRegister) eachVer(f func(e *vedge)) {
	i := 0
	for _, m := range rw.init {
		e := rw.initEdge(m)
		for ; i < len(rw.ver) && rw.ver[i].pair() < e.pair(); i++ {
			f(&rw.ver[i])
		}
		f(&e)
	}
	for ; i < len(rw.ver); i++ {
		f(&rw.ver[i])
	}
}

// wfr: an ok txn whose external read of a key saw v and which then wrote
// v' (its external write) puts v before v' (writes follow reads; Elle's
// wfr-version-graphs). A read of nil adds nothing the initial state does
// not.
func (rw *rwRegister) wfr(add func(k model.KeyID, from, to model.MsgID, a, b int32)) {
	c := rw.c
	var buf []touch
	for r := range c.recs {
		if c.typOf(&c.recs[r]) != model.OK {
			continue
		}
		for _, t := range rw.touchesOf(int32(r), &buf) {
			if t.read >= 0 && t.write >= 0 {
				add(t.key, t.read, t.write, int32(r), -1)
			}
		}
	}
}

// sequential: process order between ok txns (Elle's process graph), turned
// into version order key by key: for each process and key, the last value
// of the key a txn interacted with precedes the first value the process's
// next txn touching the key interacted with (Elle's
// transaction-graph->version-graphs, which stops at the nearest txns that
// touch the key). O(mops).
func (rw *rwRegister) sequential(add func(k model.KeyID, from, to model.MsgID, a, b int32)) {
	c := rw.c
	type last struct {
		rec   int32
		final model.MsgID
	}
	prev := map[uint64]last{}
	var buf []touch
	for r, p := range c.okTxns() {
		for _, t := range rw.touchesOf(r, &buf) {
			key := uint64(uint32(p))<<32 | uint64(uint32(t.key))
			if q, ok := prev[key]; ok {
				add(t.key, q.final, first(&t, model.OK), q.rec, r)
			}
			prev[key] = last{r, final(&t, model.OK)}
		}
	}
}

// linearizable: real-time order (an ok txn completed before another was
// invoked), turned into version order key by key, as sequential does with
// process order: the last value a txn interacted with precedes the first
// value of each nearest txn after it in real time that touches the key.
// The nearest ones are found, per key, by the frontier of Elle's realtime
// graph run over the txns touching that key only: at each invocation every
// frontier txn is linked to the invoked one; at each ok completion the
// txns that were in the frontier when it was invoked leave it and it
// joins. Info txns touch a key only by writing it, take edges in and never
// out. Members join and leave a key's frontier in completion order, so
// each frontier is a window of the key's members, and the edges a key
// would get are counted before any is made (orderBudget).
// O(mops + edges), edges ≈ mops · frontier within the budget.
func (rw *rwRegister) linearizable(add func(k model.KeyID, from, to model.MsgID, a, b int32)) {
	c := rw.c
	nk := len(c.h.Keys)
	type member struct {
		rec   int32
		final model.MsgID
	}
	type window struct {
		key    model.KeyID
		lo, hi int32
		rec    int32
		first  model.MsgID
	}
	members := make([][]member, nk) // per key, in completion order
	frontier := make([]graph.Frontier, nk)
	var windows []window
	var buf []touch
	c.eachVertexEvent(c.recAtPos(), func(i, r int32, rc *rec) {
		if i == rc.inv {
			for _, t := range rw.touchesOf(r, &buf) {
				if v2 := first(&t, c.typOf(rc)); v2 != noVal {
					if lo, hi := frontier[t.key].Window(); lo < hi {
						windows = append(windows, window{t.key, int32(lo), int32(hi), r, v2})
					}
				}
			}
		}
		if i == rc.comp && c.typOf(rc) == model.OK {
			for _, t := range rw.touchesOf(r, &buf) {
				frontier[t.key].Complete(rc.inv, i)
				members[t.key] = append(members[t.key], member{r, final(&t, model.OK)})
			}
		}
	})
	cost := make([]int64, nk)
	for _, w := range windows {
		cost[w.key] += int64(w.hi - w.lo)
	}
	dropped := rw.orderBudget(srcLinearizable, cost, "txns that ran at once")
	for _, w := range windows {
		if dropped[w.key] {
			continue
		}
		for _, f := range members[w.key][w.lo:w.hi] {
			add(w.key, f.final, w.first, f.rec, w.rec)
		}
	}
}

// orderBudget keeps a version-order source's edges linear in the history,
// as rwBudget keeps the rw edges: cost holds, per key, the candidate edges
// the source would give it; when they exceed 8 per touch of a key plus
// 2^20 in all, the keys costing the most are left out of the source until
// the rest fit, each with an unknown reason naming why (what are the
// source's own words for what made the edges many). It returns the keys
// left out.
func (rw *rwRegister) orderBudget(s source, cost []int64, what string) []bool {
	c := rw.c
	var total int64
	for _, n := range cost {
		total += n
	}
	budget := 8*rw.nTouches + 1<<20
	dropped := make([]bool, len(cost))
	if total <= budget {
		return dropped
	}
	keys := make([]model.KeyID, 0, len(cost))
	for k, n := range cost {
		if n > 0 {
			keys = append(keys, model.KeyID(k))
		}
	}
	slices.SortFunc(keys, func(x, y model.KeyID) int { return cmp.Or(cmp.Compare(cost[y], cost[x]), cmp.Compare(x, y)) })
	for _, k := range keys {
		if total <= budget {
			break
		}
		total -= cost[k]
		dropped[k] = true
		c.unknownReason("rw-register: %s would order the values of key %s by %d pairs of %s; "+
			"it was left out for that key to keep the graph linear in the history, so the version order it gives "+
			"there was not used and cycles through it were not searched", s, c.h.Keys[k], cost[k], what)
	}
	return dropped
}

// txnOrder: the commit order given (Options.TransactionOrder, Elle's
// :transaction-order): per key, the external writes of the txns it
// positions, sorted by position; each precedes the writes of the next
// position. Txns sharing a position are not ordered with each other.
// Edges: the product of the sizes of each two groups of neighbouring
// positions, under orderBudget (only many txns claiming one position make
// it large).
func (rw *rwRegister) txnOrder(add func(k model.KeyID, from, to model.MsgID, a, b int32)) {
	c := rw.c
	type pw struct {
		key   model.KeyID
		pos   int64
		rec   int32
		write model.MsgID
	}
	var ws []pw
	var buf []touch
	for r := range c.recs {
		if c.recs[r].vertex < 0 {
			continue
		}
		pos, ok := c.opts.TransactionOrder[c.idx(int32(r))]
		if !ok {
			continue
		}
		for _, t := range rw.touchesOf(int32(r), &buf) {
			if t.write >= 0 {
				ws = append(ws, pw{key: t.key, pos: pos, rec: int32(r), write: t.write})
			}
		}
	}
	slices.SortFunc(ws, func(x, y pw) int {
		switch { // first difference returns (cmp.Or compares every field)
		case x.key != y.key:
			return cmp.Compare(x.key, y.key)
		case x.pos != y.pos:
			return cmp.Compare(x.pos, y.pos)
		}
		return cmp.Compare(x.rec, y.rec)
	})
	// groups of equal positions, each to be linked to the next of its key
	type group struct{ i, j, next int }
	var groups []group
	cost := make([]int64, len(c.h.Keys))
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && ws[j].key == ws[i].key && ws[j].pos == ws[i].pos {
			j++
		}
		next := j
		for next < len(ws) && ws[next].key == ws[i].key && ws[next].pos == ws[j].pos {
			next++
		}
		groups = append(groups, group{i, j, next})
		cost[ws[i].key] += int64(j-i) * int64(next-j)
		i = j
	}
	dropped := rw.orderBudget(srcTxnOrder, cost, "txns at neighbouring positions")
	for _, g := range groups {
		if dropped[ws[g.i].key] {
			continue
		}
		for a := g.i; a < g.j; a++ {
			for b := g.j; b < g.next; b++ {
				add(ws[a].key, ws[a].write, ws[b].write, ws[a].rec, ws[b].rec)
			}
		}
	}
}

// merge adds the candidate edges of source s to the accepted orders, key
// by key: a key whose order the new edges would make cyclic keeps its
// order without them, and each strongly connected set of its values is
// reported as cyclic-versions (prior are the sources merged before s).
// An edge another source already gave keeps that source's justification.
// Cost: O(E log E) for the sort, O(values + E) for the cycle test.
func (rw *rwRegister) merge(s source, prior []source, cand []vedge) {
	c := rw.c
	par.SortFunc(cand, compareVedges) // a total order: the same on any number of cores
	cand = slices.CompactFunc(cand, func(x, y vedge) bool { return x.pair() == y.pair() })
	// drop the edges already accepted
	w, j := 0, 0
	for _, e := range cand {
		for j < len(rw.ver) && compareEdgeKeys(rw.ver[j], e) < 0 {
			j++
		}
		if j < len(rw.ver) && compareEdgeKeys(rw.ver[j], e) == 0 || rw.isInitEdge(e.from, e.to) {
			continue
		}
		cand[w] = e
		w++
	}
	cand = cand[:w]
	if len(cand) == 0 {
		return
	}
	bad := map[model.KeyID]bool{}
	var comps [][]int32
	nk := len(c.h.Keys)
	touched := make([]bool, nk)
	for _, e := range cand {
		touched[e.key] = true
	}
	n := len(c.h.Msgs) + nk
	g := graph.BuildFunc(n, func(add func(from, to int32, rel graph.Rel)) {
		rw.eachVer(func(e *vedge) {
			if touched[e.key] {
				add(e.from, e.to, graph.WW)
			}
		})
		for _, e := range cand {
			add(e.from, e.to, graph.WW)
		}
	})
	if g == nil {
		// no candidate is accepted: one of a cyclic order would
		// make cycles of its own
		c.res.UnknownReasons = append(c.res.UnknownReasons, graph.TooLarge(n))
		cand = nil
	} else {
		comps = g.SCC()
	}
	for _, comp := range comps {
		bad[rw.keyOfNode(comp[0])] = true
	}
	acc := cand
	if len(bad) > 0 {
		acc = make([]vedge, 0, len(cand))
		for _, e := range cand {
			if !bad[e.key] {
				acc = append(acc, e)
			}
		}
	}
	rw.ver = mergeVedges(rw.ver, acc)
	for _, comp := range comps {
		rw.cyclicVersions(s, prior, g, comp, cand)
	}
}

// mergeVedges merges b into a, two edge lists sorted by pair with no pair
// in both, from the back within a's room (grown when short), so that the
// accepted orders are not copied into a fresh list at every source. a is
// b itself when it is empty.
func mergeVedges(a, b []vedge) []vedge {
	if len(a) == 0 || len(b) == 0 {
		if len(a) == 0 {
			return b
		}
		return a
	}
	i, j := len(a)-1, len(b)-1
	a = slices.Grow(a, len(b))[:len(a)+len(b)]
	for k := len(a) - 1; j >= 0; k-- {
		if i >= 0 && a[i].pair() > b[j].pair() {
			a[k] = a[i]
			i--
		} else {
			a[k] = b[j]
			j--
		}
	}
	return a
}
