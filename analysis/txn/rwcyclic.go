package txn

import (
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// This file reports rw-register's cyclic-versions: a strongly connected set
// of values that merging a version-order source would make, with a shortest
// cycle through it and the justification of each of its edges.

// keyOfNode is the key of version node n.
func (rw *rwRegister) keyOfNode(n int32) model.KeyID {
	nm := int32(len(rw.c.h.Msgs))
	if n >= nm {
		return model.KeyID(n - nm)
	}
	return rw.c.h.MsgKey(model.MsgID(n))
}

// cyclicVersions reports one strongly connected set of values comp of the
// version graph g, made by merging source s (cand its sorted new edges)
// into the orders of prior, with a shortest cycle through its first value
// and the justification of each of its edges.
func (rw *rwRegister) cyclicVersions(s source, prior []source, g *graph.Graph, comp []int32, cand []vedge) {
	c := rw.c
	k := rw.keyOfNode(comp[0])
	if rw.dropped == nil {
		rw.dropped = map[model.KeyID]uint8{}
	}
	var sources []string
	for _, p := range prior {
		if rw.dropped[k]&(1<<p) == 0 {
			sources = append(sources, p.String())
		}
	}
	sources = append(sources, s.String())
	rw.dropped[k] |= 1 << s
	// values: the initial state first, then by value
	vals := slices.Clone(comp)
	nm := int32(len(c.h.Msgs))
	slices.SortFunc(vals, func(x, y int32) int {
		switch {
		case x >= nm && y >= nm:
			return 0
		case x >= nm:
			return -1
		case y >= nm:
			return 1
		}
		a, b := c.h.MsgValue(model.MsgID(x)), c.h.MsgValue(model.MsgID(y))
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	in := &Instance{Subject: analysis.Subject{Key: c.keyVal(k)}, Sources: sources}
	for _, v := range vals {
		in.Values = append(in.Values, rw.valueOf(v))
	}
	cycle := shortestCycleThrough(g, comp, vals[0])
	var recs []int32
	for i, from := range cycle {
		to := cycle[(i+1)%len(cycle)]
		e, ok := rw.edge(from, to)
		if !ok {
			j, found := slices.BinarySearchFunc(cand, vedge{from: from, to: to}, compareEdgeKeys)
			if !found {
				continue // cannot happen: every edge of g is accepted or new
			}
			e = cand[j]
		}
		by, op, ops := rw.justification(e)
		in.VersionCycle = append(in.VersionCycle, analysis.VersionStep{
			Values: []analysis.Value{rw.valueOf(from), rw.valueOf(to)}, OrderBy: by, OrderOp: op, OrderOps: ops})
		for _, r := range [2]int32{e.a, e.b} {
			if r >= 0 {
				recs = append(recs, r)
			}
		}
	}
	in.Witness = c.witness(recs...)
	c.add(CyclicVersions, in)
}

// shortestCycleThrough finds a shortest cycle of g through vertex start
// within comp (a strongly connected component holding it), by breadth-first
// search back to start. O(|comp| + E_comp).
func shortestCycleThrough(g *graph.Graph, comp []int32, start int32) []int32 {
	prev := make(map[int32]int32, len(comp))
	for _, v := range comp {
		prev[v] = -1
	}
	queue := []int32{start}
	seen := map[int32]bool{start: true}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, a := range g.Out(u) {
			w := a.To()
			if _, in := prev[w]; !in {
				continue
			}
			if w == start {
				var path []int32
				for x := u; x != -1; x = prev[x] {
					path = append(path, x)
				}
				slices.Reverse(path)
				return path
			}
			if !seen[w] {
				seen[w] = true
				prev[w] = u
				queue = append(queue, w)
			}
		}
	}
	return []int32{start}
}
