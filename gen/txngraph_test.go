package gen

import (
	"github.com/hindsight-dev/hindsight/analysis/graph"
)

// depGraph builds the dependency graph of docs/README.md#cycles over the ok and
// info txns (nodes 0..len(txns)-1; fail txns have no edges), plus one
// auxiliary node per line that carries the realtime order: an ok completion
// at line c links to aux c, aux i to aux i+1, and aux i to the txn invoked
// at line i, so a txn reaches another through aux nodes iff it completed
// before the other was invoked. Process edges join consecutive ok txns of a
// process. Data edges:
//   - list-append: each key's order is its longest ok read (distinct
//     elements), appends never read come after it; wr from the writer of a
//     read's last element, ww between the writers of consecutive elements,
//     rw from a reader whose read ends at element i to the writer of i+1.
//   - rw-register: wr from the ok txn whose final write of k is v to each
//     ok txn whose first access of k reads v; rw from each ok txn whose
//     first access of k reads nil to every ok txn that writes k.
//
// Only external reads (a txn's first access of the key is the read) count.
// With order false, the graph has the data edges only.
func depGraph(txns []xtxn, la bool, lines int, order bool) [][]int32 {
	n := len(txns)
	if !order {
		lines = 0
	}
	d := &depBuilder{txns: txns, adj: make([][]int32, n+lines), ext: map[int64][]extRead{},
		writerOf: map[kv]int{}, final: map[kv]int{}, appenders: map[int64][]int{}}
	if order {
		d.orderEdges(lines)
	}
	d.index()
	for _, k := range d.keys {
		if la {
			d.listEdges(k)
		} else {
			d.registerEdges(k)
		}
	}
	return d.adj
}

// extRead is an external read of an ok txn: the txn and the micro-op.
type extRead struct {
	t int
	m xmop
}

// depBuilder is the graph depGraph builds and the reads and writes its
// data edges come from.
type depBuilder struct {
	txns      []xtxn
	adj       [][]int32
	ext       map[int64][]extRead // per key, the external reads of ok txns
	writerOf  map[kv]int          // (k, v) -> the txn that wrote it
	final     map[kv]int          // (k, v) -> ok txn whose last write of k is v
	appenders map[int64][]int     // per key, the txns that write it
	keys      []int64             // in order of first appearance
}

// edge adds the edge a -> b unless it is a loop or joins a failed txn.
func (d *depBuilder) edge(a, b int) {
	if a != b && d.txns[a].typ != "fail" && d.txns[b].typ != "fail" {
		d.adj[a] = append(d.adj[a], int32(b))
	}
}

// orderEdges adds the realtime edges through the lines' auxiliary nodes
// and the process edges.
func (d *depBuilder) orderEdges(lines int) {
	n := len(d.txns)
	lastOK := map[int64]int{}
	for i, t := range d.txns {
		d.adj[n+int(t.inv)] = append(d.adj[n+int(t.inv)], int32(i))
		if t.typ == "ok" {
			d.adj[i] = append(d.adj[i], int32(n+int(t.comp)))
			if j, ok := lastOK[t.process]; ok {
				d.edge(j, i)
			}
			lastOK[t.process] = i
		}
	}
	for l := 0; l+1 < lines; l++ {
		d.adj[n+l] = append(d.adj[n+l], int32(n+l+1))
	}
}

// index records the external reads of ok txns and the writers of each
// value, skipping failed txns.
func (d *depBuilder) index() {
	for i, t := range d.txns {
		if t.typ == "fail" {
			continue
		}
		touched := map[int64]bool{}
		for _, m := range t.invMops {
			if _, ok := d.ext[m.key]; !ok {
				d.keys = append(d.keys, m.key)
				d.ext[m.key] = nil
			}
			if m.kind != "r" {
				d.writerOf[kv{m.key, m.val}] = i
				d.appenders[m.key] = append(d.appenders[m.key], i)
			}
		}
		for j, m := range t.mops {
			if m.kind == "r" && !touched[m.key] && t.typ == "ok" {
				d.ext[m.key] = append(d.ext[m.key], extRead{i, m})
			}
			touched[m.key] = true
			if m.kind != "r" && t.typ == "ok" {
				last := true
				for _, n := range t.mops[j+1:] {
					last = last && (n.kind == "r" || n.key != m.key)
				}
				if last {
					d.final[kv{m.key, m.val}] = i
				}
			}
		}
	}
}

// registerEdges adds the rw-register data edges of key k.
func (d *depBuilder) registerEdges(k int64) {
	for _, r := range d.ext[k] {
		if r.m.isNil {
			for _, w := range d.appenders[k] {
				if d.txns[w].typ == "ok" {
					d.edge(r.t, w)
				}
			}
		} else if w, ok := d.final[kv{k, r.m.val}]; ok {
			d.edge(w, r.t)
		}
	}
}

// listOrder returns key k's version order, its longest ok read's distinct
// elements, and each element's position in it.
func (d *depBuilder) listOrder(k int64) ([]int64, map[int64]int) {
	var order []int64
	for _, t := range d.txns {
		if t.typ != "ok" {
			continue
		}
		for _, m := range t.mops {
			if m.kind == "r" && m.key == k && len(m.list) > len(order) {
				order = m.list
			}
		}
	}
	pos := map[int64]int{}
	var distinct []int64
	for _, e := range order {
		if _, ok := pos[e]; !ok {
			pos[e] = len(distinct)
			distinct = append(distinct, e)
		}
	}
	return distinct, pos
}

// listEdges adds the list-append data edges of key k.
func (d *depBuilder) listEdges(k int64) {
	order, pos := d.listOrder(k)
	var unread []int // writers of appends no read shows
	for _, w := range d.appenders[k] {
		for _, m := range d.txns[w].invMops {
			if _, in := pos[m.val]; m.kind == "append" && m.key == k && !in {
				unread = append(unread, w)
			}
		}
	}
	wOf := func(e int64) (int, bool) { w, ok := d.writerOf[kv{k, e}]; return w, ok }
	next := func(p int) []int { // writers of what follows position p
		if p+1 < len(order) {
			if w, ok := wOf(order[p+1]); ok {
				return []int{w}
			}
			return nil
		}
		return unread
	}
	for i := 0; i+1 < len(order); i++ {
		a, ok1 := wOf(order[i])
		b, ok2 := wOf(order[i+1])
		if ok1 && ok2 {
			d.edge(a, b)
		}
	}
	if len(order) > 0 {
		if a, ok := wOf(order[len(order)-1]); ok {
			for _, u := range unread {
				d.edge(a, u)
			}
		}
	}
	for _, r := range d.ext[k] {
		p := -1
		if len(r.m.list) > 0 {
			last := r.m.list[len(r.m.list)-1]
			if w, ok := wOf(last); ok {
				d.edge(w, r.t)
			}
			q, ok := pos[last]
			if !ok {
				continue
			}
			p = q
		}
		for _, w := range next(p) {
			d.edge(r.t, w)
		}
	}
}

// sccs returns the strongly connected components of the graph that hold
// more than one of the nodes 0..n-1, as sorted lists of those nodes
// (analysis/graph's Tarjan).
func sccs(adj [][]int32, n int) [][]int {
	g := graph.BuildFunc(len(adj), func(add func(from, to int32, rel graph.Rel)) {
		for v, ws := range adj {
			for _, w := range ws {
				add(int32(v), w, graph.WW)
			}
		}
	})
	var out [][]int
	for _, comp := range g.SCC() {
		var c []int
		for _, v := range comp {
			if int(v) < n {
				c = append(c, int(v))
			}
		}
		if len(c) > 1 {
			out = append(out, c)
		}
	}
	return out
}
