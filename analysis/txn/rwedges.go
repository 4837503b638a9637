package txn

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds rw-register's data edges (docs/rw-register.md#the-workload):
// the readers of each version, the wr, ww and rw edges, the bound on rw
// edges, why each edge exists, and the version orders kept for the report.

// readers indexes, for each version, the vertex recs whose external read of
// the key saw it (keys left out excepted).
func (rw *rwRegister) readers() {
	c := rw.c
	rw.byState.build(len(c.h.Msgs)+len(c.h.Keys), len(c.vrec), func(lo, hi int, f func(st, r int32)) {
		var buf []touch
		for _, r := range c.vrec[lo:hi] {
			for _, t := range rw.touchesOf(r, &buf) {
				if t.read != noVal && !rw.dupKey[t.key] {
					f(rw.nodeOf(t.key, t.read), r)
				}
			}
		}
	})
}

func (rw *rwRegister) readersOf(st int32) []int32 { return rw.byState.of(st) }

// built drops the readers index: only edges and rwBudget read it.
func (rw *rwRegister) built() { rw.byState = readerIndex{} }

// edges generates the data edges (docs/rw-register.md#the-workload): wr
// from the writer of each value to each txn whose external read saw it;
// and for each edge v1 < v2 of a key's version order, ww from the writer
// of v1 and rw from each reader of v1 to the writer of v2. Writers are the
// txns whose external (last) write of the key it was. Self-edges are
// dropped by the graph builder.
//
// The wr edges come in ranges of vertices (emitWR) and the initial
// state's version edges in ranges of rw.init (emitInit), on every core;
// the other sources' version edges (rw.ver, none unless a flag asks for
// one) come from one goroutine beside them (emitVer). The initial state's
// are most of a history's version edges, one per value: on 1M rw-register
// txns that goroutine took 0.18 s of the build's CPU, twice what the
// ranges took, while the ranges were done.
func (rw *rwRegister) edges() graph.Edges {
	nv := len(rw.c.vrec)
	return graph.Edges{Items: nv + len(rw.init), Range: func(lo, hi int, add graph.AddFunc) {
		if lo < nv {
			rw.emitWR(lo, min(hi, nv), add)
		}
		if hi > nv {
			rw.emitInit(rw.init[max(lo, nv)-nv:hi-nv], add)
		}
	}, Serial: rw.emitVer}
}

// emitWR adds the wr edges into the vertices lo..hi-1. It only reads rw,
// so ranges can be emitted at once.
func (rw *rwRegister) emitWR(lo, hi int, add graph.AddFunc) {
	c := rw.c
	var buf []touch
	for v := int32(lo); v < int32(hi); v++ {
		for _, t := range rw.touchesOf(c.vrec[v], &buf) {
			if t.read < 0 || rw.dupKey[t.key] {
				continue
			}
			if w := rw.extWriter(t.read); w >= 0 {
				add(c.recs[w].vertex, v, graph.WR)
			}
		}
	}
}

// emitVer adds the ww and rw edges along the version orders' edges from
// sources other than the initial state.
func (rw *rwRegister) emitVer(add graph.AddFunc) {
	for i := range rw.ver {
		rw.emitVedge(&rw.ver[i], add)
	}
}

// emitInit adds the rw edges along the initial state's version edges to
// the values init (a range of rw.init): nil has no writer, so no ww edge.
// It only reads rw, so ranges can be emitted at once.
func (rw *rwRegister) emitInit(init []model.MsgID, add graph.AddFunc) {
	for _, m := range init {
		e := rw.initEdge(m)
		rw.emitVedge(&e, add)
	}
}

// emitVedge adds the ww and rw edges along the version edge e.
func (rw *rwRegister) emitVedge(e *vedge, add graph.AddFunc) {
	c := rw.c
	w2 := rw.nodeWriter(e.to)
	if w2 < 0 {
		return
	}
	to := c.recs[w2].vertex
	if w1 := rw.nodeWriter(e.from); w1 >= 0 {
		add(c.recs[w1].vertex, to, graph.WW)
	}
	if rw.noRW[e.from] {
		return
	}
	for _, q := range rw.readersOf(e.from) {
		add(c.recs[q].vertex, to, graph.RW)
	}
}

// rwBudget keeps the rw edges linear in the history. Each reader of a
// version v1 gets an rw edge to the writer of every v2 the orders put right
// after v1, so a version read by n txns and followed by m values costs n·m
// edges: with the initial state, whose successors are all of a key's
// values, a store whose reads keep returning nil while writes go on would
// make the graph quadratic (Elle builds it anyway). When all such edges
// together exceed 8 per touch of a key plus 2^20, the versions costing the
// most lose their rw edges until the rest fit; each is an unknown reason
// (cycles through those reads are not searched), never a silent gap.
func (rw *rwRegister) rwBudget() {
	c := rw.c
	nm := int32(len(c.h.Msgs))
	type cost struct {
		from  int32
		edges int64
	}
	var costs []cost
	var total int64
	addCost := func(from int32, succ int64) {
		if n := int64(len(rw.readersOf(from))) * succ; n > 0 {
			costs = append(costs, cost{from, n})
			total += n
		}
	}
	// each initial state's successors with a writer, counted in ranges of
	// rw.init on every core (sorted by key: a range adds once per run of
	// a key); they are most of the version edges
	initSucc := make([]int64, len(c.h.Keys))
	par.EachRange(len(rw.init), minRange, func(lo, hi int) {
		for i := lo; i < hi; {
			k, n := c.h.MsgKey(rw.init[i]), int64(0)
			for ; i < hi && c.h.MsgKey(rw.init[i]) == k; i++ {
				if rw.extWriter(rw.init[i]) >= 0 {
					n++
				}
			}
			atomic.AddInt64(&initSucc[k], n)
		}
	})
	// the other sources' edges come grouped by from (pair order); an
	// initial state's group adds its count from rw.init
	for i := 0; i < len(rw.ver); {
		from, succ := rw.ver[i].from, int64(0)
		for ; i < len(rw.ver) && rw.ver[i].from == from; i++ {
			if rw.nodeWriter(rw.ver[i].to) >= 0 {
				succ++
			}
		}
		if from >= nm {
			succ += initSucc[from-nm]
			initSucc[from-nm] = 0
		}
		addCost(from, succ)
	}
	for k, succ := range initSucc {
		if succ > 0 {
			addCost(nm+int32(k), succ)
		}
	}
	budget := 8*rw.nTouches + 1<<20
	if total <= budget {
		return
	}
	slices.SortFunc(costs, func(x, y cost) int { return cmp.Or(cmp.Compare(y.edges, x.edges), cmp.Compare(x.from, y.from)) })
	rw.noRW = map[int32]bool{}
	for _, k := range costs {
		if total <= budget {
			break
		}
		total -= k.edges
		rw.noRW[k.from] = true
		key := rw.keyOfNode(k.from)
		c.unknownReason("rw-register: %d txns read key %s = %s and %d values follow it in the version order; "+
			"the %d anti-dependency (rw) edges from those reads were left out to keep the graph linear in the history, "+
			"so cycles through them were not searched", len(rw.readersOf(k.from)), c.h.Keys[key], rw.valueOf(k.from),
			k.edges/int64(len(rw.readersOf(k.from))), k.edges)
	}
}

// edge finds the accepted version-order edge from → to (of one key).
func (rw *rwRegister) edge(from, to int32) (vedge, bool) {
	if rw.isInitEdge(from, to) {
		return rw.initEdge(model.MsgID(to)), true
	}
	i, ok := slices.BinarySearchFunc(rw.ver, vedge{from: from, to: to}, compareEdgeKeys)
	if !ok {
		return vedge{}, false
	}
	return rw.ver[i], true
}

// explain says why the data edge from rec u to rec v exists, the way emit
// made it: which read (wr), or which version-order edge and the source
// that established it (ww, rw). The first of v's keys that explains it
// wins.
func (rw *rwRegister) explain(u, v int32, rel graph.Rel) analysis.Step {
	c := rw.c
	st := analysis.Step{From: c.idx(u), To: c.idx(v), Rel: rel.String()}
	// u's touches by key (keyMarks): one pass, where looking each key of
	// v up in u's touches would cost O(keys²) on two huge txns
	uAt := &rw.keyMarks
	uAt.reset()
	var bu, bv []touch
	tus := rw.touchesOf(u, &bu)
	for j := range tus {
		uAt.set(int32(tus[j].key), int32(j))
	}
	for _, tv := range rw.touchesOf(v, &bv) {
		if rw.dupKey[tv.key] {
			continue
		}
		k := tv.key
		switch rel {
		case graph.WR:
			if tv.read >= 0 && rw.extWriter(tv.read) == u {
				st.Key, st.Value = c.keyVal(k), analysis.AtomValuePtr(c.h.MsgValue(tv.read))
				_, uw := rw.extMops(u, k)
				vr, _ := rw.extMops(v, k)
				st.Mops = []int{uw, vr}
				return st
			}
		case graph.WW, graph.RW:
			if tv.write < 0 || rw.extWriter(tv.write) != v {
				continue
			}
			j, ok := uAt.get(int32(k))
			if !ok {
				continue
			}
			tu := &tus[j]
			from := tu.write
			if rel == graph.RW {
				from = tu.read
			}
			if from == noVal || rel == graph.WW && rw.extWriter(from) != u {
				continue
			}
			e, ok := rw.edge(rw.nodeOf(k, from), int32(tv.write))
			if !ok {
				continue
			}
			ur, uw := rw.extMops(u, k)
			mop := uw
			if rel == graph.RW {
				mop = ur
			}
			st.Key = c.keyVal(k)
			st.Values = []analysis.Value{rw.valueOf(e.from), rw.valueOf(e.to)}
			_, vw := rw.extMops(v, k)
			st.Mops = []int{mop, vw}
			st.OrderBy, st.OrderOp, st.OrderOps = rw.justification(e)
			return st
		}
	}
	return st
}

// orderOp is nil: rw-register's version orders are never contested (a
// source that contradicts the others for a key is dropped for it:
// cyclic-versions).
func (rw *rwRegister) orderOp(*analysis.Value) *int64 { return nil }

// extMops finds the micro-ops of rec r's external read and external write
// of key k (-1: none).
func (rw *rwRegister) extMops(r int32, k model.KeyID) (read, write int) {
	read, write = -1, -1
	for i, m := range rw.c.mops(r) {
		if m.Key != k || m.Kind != model.MopRead && m.Kind != model.MopWrite {
			continue
		}
		if m.Kind == model.MopWrite {
			write = i
		} else if read < 0 && write < 0 {
			read = i
		}
	}
	var buf []touch
	if t, ok := rw.touchOf(r, k, &buf); !ok || t.read == noVal {
		read = -1
	}
	return read, write
}

// justification names the source of a version-order edge and its ops.
func (rw *rwRegister) justification(e vedge) (by string, op *int64, ops []int64) {
	ops = rw.justifyingOps(e, nil)
	if e.src == srcWFR {
		return e.src.String(), &ops[0], nil
	}
	return e.src.String(), nil, ops
}

// justifyingOps appends to dst the ops that justify e: none for the
// initial state, the txn for wfr, the two txns for the other sources.
func (rw *rwRegister) justifyingOps(e vedge, dst []int64) []int64 {
	switch e.src {
	case srcInitial:
		return dst
	case srcWFR:
		return append(dst, rw.c.idx(e.a))
	}
	return append(dst, rw.c.idx(e.a), rw.c.idx(e.b))
}

// series keeps each key's accepted version order for the report.
func (rw *rwRegister) series() {
	c := rw.c
	nm := int32(len(c.h.Msgs))
	msg := func(n int32) model.MsgID {
		if n >= nm {
			return model.NoMsg
		}
		return model.MsgID(n)
	}
	byKey := make([]vedge, 0, len(rw.init)+len(rw.ver))
	rw.eachVer(func(e *vedge) { byKey = append(byKey, *e) })
	slices.SortStableFunc(byKey, func(x, y vedge) int { return int(x.key) - int(y.key) })
	for i := 0; i < len(byKey); {
		k := byKey[i].key
		end := i + 1
		for end < len(byKey) && byKey[end].key == k {
			end++
		}
		// sized once: a key's edges grown by append were copied about five
		// times over (0.3 s of a 1M-txn report)
		kv := analysis.KeyVersions{Key: k, Edges: make([]analysis.VersionEdge, 0, end-i)}
		// the edges' ops share one array (an edge names at most two):
		// one small slice each made a million allocations at 1M txns
		slab := make([]int64, 0, 2*(end-i))
		for ; i < end; i++ {
			e := byKey[i]
			n := len(slab)
			slab = rw.justifyingOps(e, slab) // within its capacity
			var ops []int64
			if len(slab) > n {
				ops = slab[n:len(slab):len(slab)]
			}
			kv.Edges = append(kv.Edges, analysis.VersionEdge{From: msg(e.from), To: msg(e.to), By: e.src.String(), Ops: ops})
		}
		c.res.Series.Versions = append(c.res.Series.Versions, kv)
	}
}
