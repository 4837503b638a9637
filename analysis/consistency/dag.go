package consistency

import "slices"

// Set is a set of names (models or anomaly types). Read it through Sorted
// when order matters: a Go map's order is random.
type Set map[string]struct{}

// Has reports whether name is in s.
func (s Set) Has(name string) bool {
	_, ok := s[name]
	return ok
}

// Sorted returns the names of s in byte order, which for these ASCII names is
// the order Elle's sorted sets of keywords print in.
func (s Set) Sorted() []string {
	out := make([]string, 0, len(s))
	for n := range s {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (s Set) add(name string) { s[name] = struct{}{} }

// edges is one entry of an adjacency table as Elle writes it: From → each
// of To.
type edges struct {
	From string
	To   []string
}

// dag is a small directed graph of names, kept as adjacency lists in both
// directions. The tables here have a few dozen vertices, so plain maps and
// breadth-first closures are all it needs.
type dag struct {
	succ, pred map[string][]string
	verts      []string // sorted
}

// direction selects successors (out) or predecessors (in).
type direction bool

const (
	out direction = false
	in  direction = true
)

func newDAG(tables ...[]edges) *dag {
	d := &dag{succ: map[string][]string{}, pred: map[string][]string{}}
	vs := Set{}
	for _, table := range tables {
		for _, e := range table {
			vs.add(e.From)
			for _, t := range e.To {
				vs.add(t)
				if !slices.Contains(d.succ[e.From], t) {
					d.succ[e.From] = append(d.succ[e.From], t)
					d.pred[t] = append(d.pred[t], e.From)
				}
			}
		}
	}
	d.verts = vs.Sorted()
	return d
}

// next returns v's neighbours in direction dir (none for a name not in d).
func (d *dag) next(v string, dir direction) []string {
	if dir == in {
		return d.pred[v]
	}
	return d.succ[v]
}

// reach returns the starting names and every name reachable from them in
// direction dir. Starting names need not be vertices of d; they are kept
// (Elle's g/bfs does the same).
func (d *dag) reach(start []string, dir direction) Set {
	seen := Set{}
	queue := make([]string, 0, len(start))
	for _, v := range start {
		if !seen.Has(v) {
			seen.add(v)
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range d.next(v, dir) {
			if !seen.Has(w) {
				seen.add(w)
				queue = append(queue, w)
			}
		}
	}
	return seen
}

// depths returns each vertex's topological depth, as Elle's g/topo-depths
// computes it: vertices without predecessors have depth 0; then they are
// removed and the vertices left without predecessors have depth 1, and so
// on. ok is false if d has a cycle (some vertex is never freed).
func (d *dag) depths() (depth map[string]int, ok bool) {
	indeg := make(map[string]int, len(d.verts))
	for _, v := range d.verts {
		indeg[v] = len(d.pred[v])
	}
	depth = make(map[string]int, len(d.verts))
	var level []string
	for _, v := range d.verts {
		if indeg[v] == 0 {
			level = append(level, v)
		}
	}
	for n := 0; len(level) > 0; n++ {
		var nextLevel []string
		for _, v := range level {
			depth[v] = n
			for _, w := range d.succ[v] {
				indeg[w]--
				if indeg[w] == 0 {
					nextLevel = append(nextLevel, w)
				}
			}
		}
		level = nextLevel
	}
	return depth, len(depth) == len(d.verts)
}
