package txn

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
	"iter"
)

// The order edges the models need (c.orderRel): realtime edges, which
// subsume process order since a process runs one txn at a time, or else
// process edges, or none (Elle's additional-graphs).

// emitProcess links each ok txn of a process to the process's next ok txn
// (docs/README.md#cycles).
func (c *checker) emitProcess(add func(from, to int32, rel graph.Rel)) {
	last := map[int32]int32{} // process -> vertex of its latest ok txn
	for r, p := range c.okTxns() {
		v := c.recs[r].vertex
		if prev, ok := last[p]; ok {
			add(prev, v, graph.Process)
		}
		last[p] = v
	}
}

// okTxns yields the ok txns (their records) in the order they completed,
// with their processes; an ok op without an invocation is left out.
func (c *checker) okTxns() iter.Seq2[int32, int32] {
	return func(yield func(int32, int32) bool) {
		for i, r := range c.recAtPos() {
			if r < 0 {
				continue
			}
			rc := &c.recs[r]
			if int32(i) != rc.comp || c.typOf(rc) != model.OK {
				continue
			}
			if !yield(r, c.h.Ops[i].Process) {
				return
			}
		}
	}
}

// realtimeWindows is the realtime order of the ok and info txns: A → B whenever
// ok txn A completed before B was invoked, as a transitive reduction kept
// sparse by a frontier (Elle's realtime-graph, research/elle.md A.3): the
// ok txns completed so far that no later-completed txn follows. At each
// invocation every frontier txn is linked to the invoked txn (ok or info:
// an info txn may take effect after its invocation); at each ok completion
// the txns that were in the frontier when it was invoked leave it (they
// reach later txns through it) and it joins. Failed txns are no vertices;
// info txns get edges in, never out.
//
// Txns join the frontier in completion order and leave it in the same
// order, so the frontier is a window of seq, the ok vertices in completion
// order (graph.Windows), and windows longer than graph.MinHubWindow reach
// their txn through hubs. Cost: O(ops log ops) time and edges (O(ops ·
// frontier) without hubs, frontier ≈ concurrency).
func (c *checker) realtimeWindows() *graph.Windows {
	rt := &graph.Windows{}
	var fr graph.Frontier
	// one window and at most one completion per vertex: sized once
	n := len(c.vrec)
	rt.Grow(n)
	fr.Grow(n)
	rt.Seq = make([]int32, 0, n)
	// its own map of positions, not recAtPos's: it runs beside the
	// inference (startRealtime), which may build that one
	c.eachVertexEvent(c.recPositions(), func(i, r int32, rc *rec) {
		if i == rc.inv {
			lo, hi := fr.Window()
			rt.Add(lo, hi, rc.vertex)
		}
		if i == rc.comp && c.typOf(rc) == model.OK {
			fr.Complete(rc.inv, i)
			rt.Seq = append(rt.Seq, rc.vertex)
		}
	})
	return rt
}

// eachVertexEvent calls f at each op position i that invokes or completes
// a txn that is a vertex of the graph (ok or info), with its rec r; at
// maps positions to recs (recPositions).
func (c *checker) eachVertexEvent(at []int32, f func(i, r int32, rc *rec)) {
	for i, r := range at {
		if r < 0 {
			continue
		}
		if rc := &c.recs[r]; rc.vertex >= 0 {
			f(int32(i), r, rc)
		}
	}
}

// orderStep explains a process or realtime edge from rec u to rec v.
func (c *checker) orderStep(u, v int32, rel graph.Rel) analysis.Step {
	st := analysis.Step{From: c.idx(u), To: c.idx(v), Rel: rel.String()}
	if rel == graph.Process {
		p := c.h.Ops[c.recs[u].comp].Process
		if p >= 0 {
			st.Process = analysis.IntPtr(int64(p))
		}
	}
	return st
}
