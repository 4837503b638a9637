package queue

import (
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/model"
)

// buildGraph builds the dependency graph of docs/README.md#cycles on the send,
// poll and txn records, every edge of it, the plain way: each relation's
// edges emitted in turn. It returns the graph and, per vertex, its record.
// cycles works on the same graph held as a depGraph, which makes only the
// edges inside cyclic components; the tests check one against the other.
func (c *checker) buildGraph() (*graph.Graph, []int32) {
	var vrec []int32
	for ri, r := range c.recs {
		if r.vertex >= 0 {
			vrec = append(vrec, int32(ri))
		}
	}
	// the vertex of each message's writer, or -1
	wv := make([]int32, len(c.writer))
	for m, w := range c.writer {
		wv[m] = -1
		if w >= 0 {
			wv[m] = c.recs[w].vertex
		}
	}
	var win realtimeWindow
	g := graph.BuildFunc(len(vrec), func(add func(from, to int32, rel graph.Rel)) {
		// wr: writer -> reader
		for _, ri := range vrec {
			r := &c.recs[ri]
			if r.comp == r.inv {
				continue
			}
			mops := c.mops(ri)
			for mi := range mops {
				if mops[mi].Kind != model.MopPoll {
					continue
				}
				for _, kp := range c.h.PollsOf(&mops[mi]) {
					for _, rd := range c.h.ReadsOf(&kp) {
						if w := wv[rd.Msg]; w >= 0 {
							add(w, r.vertex, graph.WR)
						}
					}
				}
			}
		}
		// ww: writer of each listed value -> writer of the one listed at the
		// next position (values sharing a position get none: package doc)
		if c.opts.WWDeps {
			for _, kept := range c.kept {
				for p := 1; p < len(kept); p++ {
					if w1, w2 := wv[kept[p-1]], wv[kept[p]]; w1 >= 0 && w2 >= 0 {
						add(w1, w2, graph.WW)
					}
				}
			}
		}
		// process order
		lastOf := filled(len(c.procIDs), -1) // vertex
		for _, ri := range vrec {
			r := &c.recs[ri]
			if prev := lastOf[r.proc]; prev >= 0 {
				add(prev, r.vertex, graph.Process)
			}
			lastOf[r.proc] = r.vertex
		}
		// realtime: the frontier to each invocation
		win.walk(c, func(v int32) {
			for _, f := range win.members() {
				add(f, v, graph.Realtime)
			}
		})
	})
	return g, vrec
}
