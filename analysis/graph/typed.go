package graph

// This file is the cycle search of the transactional workloads
// (docs/README.md#cycles and docs/list-append.md#types-at-a-glance): cycles
// classified by the relation each step stands for, with rules on how many
// anti-dependency (rw) steps a cycle has and whether two of them may follow
// each other.

// Precedence is an order of the five relations: the effective relation of
// an edge is the first of them it carries. Elle's explainers justify an
// edge in the order its workload's analyzers were combined (list-append:
// ww, wr, rw; rw-register: wr, then ww and rw), then process and realtime
// order; taking the relation Elle's explainer would name is what makes a
// cycle classify as Elle classifies it.
type Precedence [5]Rel

// DefaultPrecedence is ww, wr, rw, process, realtime (list-append, queue).
var DefaultPrecedence = Precedence{WW, WR, RW, Process, Realtime}

// WRFirst is wr, ww, rw, process, realtime (rw-register: Elle combines its
// wr-graph before its ww+rw-graph).
var WRFirst = Precedence{WR, WW, RW, Process, Realtime}

// Effective returns the first relation of p that r holds, or 0.
func (p *Precedence) Effective(r Rel) Rel {
	for _, x := range p {
		if r&x != 0 {
			return x
		}
	}
	return 0
}

// Effective returns the one relation an edge carrying the relations r
// stands for when a cycle is classified, in the default precedence: the
// first of ww, wr, rw, process, realtime that r holds, or 0.
func Effective(r Rel) Rel { return DefaultPrecedence.Effective(r) }

// RWRule says how anti-dependency (rw) steps may appear in a cycle.
type RWRule uint8

// RW rules.
const (
	// RWNone: no rw step.
	RWNone RWRule = iota
	// RWFree: rw steps like any other relation, any number.
	RWFree
	// RWSingle: exactly one rw step (G-single).
	RWSingle
	// RWAdjacent: at least two rw steps, two of them consecutive (G2-item).
	RWAdjacent
	// RWNonadjacent: at least Spec.MinRW rw steps, no two consecutive,
	// counting around the cycle (G-nonadjacent with MinRW 2; the sequential
	// extension of snapshot isolation's cycle-exists with MinRW 0).
	RWNonadjacent
)

// Spec describes the cycles a typed search wants.
type Spec struct {
	// Allowed are the relations other than rw a step may take.
	Allowed Rel
	// Required are relations each of which some step must take (at most
	// two).
	Required []Rel
	// RW is the rule for rw steps, and MinRW the least number of them under
	// RWNonadjacent.
	RW    RWRule
	MinRW int
	// Union makes every step take all the relations of Allowed its edge
	// carries at once (ShortestCycle's queries); it overrides Effective.
	Union bool
	// Effective makes every step take its edge's effective relation
	// (Effective); otherwise a step may take any relation its edge carries
	// that the spec allows.
	Effective bool
	// FirstFound stops at the first start that has a cycle: the shortest
	// cycle through it, not the shortest of the component.
	FirstFound bool
	// Precedence picks an edge's effective relation; nil means
	// DefaultPrecedence.
	Precedence *Precedence
}

func (sp *Spec) effective(r Rel) Rel {
	if sp.Precedence != nil {
		return sp.Precedence.Effective(r)
	}
	return Effective(r)
}

// options says what a step along an edge with relations r may take: a
// relation other than rw (0: none), and whether it may take rw.
func (sp *Spec) options(r Rel) (other Rel, rw bool) {
	if sp.Union {
		return r & sp.Allowed &^ RW, r&RW != 0 && sp.RW != RWNone
	}
	if sp.Effective {
		e := sp.effective(r)
		if e == RW {
			return 0, sp.RW != RWNone
		}
		return e & sp.Allowed, false
	}
	return sp.effective(r & sp.Allowed &^ RW), r&RW != 0 && sp.RW != RWNone
}

// rwStates is the number of rw-tracking states per vertex: under
// RWNonadjacent, whether the last step was rw times the rw steps so far
// (0, 1, 2 or more); under RWAdjacent, the steps so far (0, 1, 2 or more:
// the first two must be rw, so a vertex reached after one step is not the
// same state as after two); one state otherwise (RWSingle constrains the
// first step only, which leaves the start).
func (sp *Spec) rwStates() int {
	switch sp.RW {
	case RWNonadjacent:
		return 6
	case RWAdjacent:
		return 3
	}
	return 1
}

// stepRW applies a step to rw state st at depth d (the step's position in
// the cycle); rw says the step is rw. ok is false when the rule forbids it.
func (sp *Spec) stepRW(st int32, d int, rw bool) (int32, bool) {
	switch sp.RW {
	case RWNone:
		return 0, !rw
	case RWSingle:
		return 0, rw == (d == 0)
	case RWAdjacent:
		return min(st+1, 2), rw || st >= 2
	case RWNonadjacent:
		last, n := st&1, st>>1
		if !rw {
			return n << 1, true
		}
		if last == 1 {
			return 0, false
		}
		return min(n+1, 2)<<1 | 1, true
	}
	return 0, true
}

// closes reports whether a cycle whose last step left rw state st (at
// depth d) satisfies the rule.
func (sp *Spec) closes(st int32, d int) bool {
	switch sp.RW {
	case RWSingle:
		return d >= 1
	case RWAdjacent:
		return d >= 1
	case RWNonadjacent:
		// The first step followed no rw step, so the last must not be rw.
		return st&1 == 0 && int(st>>1) >= sp.MinRW
	}
	return true
}

// within is the part of a graph that partition walks: the vertices of
// comp, by position (at marks each vertex's position plus one), and the
// edges whose relations satisfy use.
type within struct {
	g    *Graph
	comp []int32
	at   []int32
	use  func(Rel) bool
}

func (w within) row(i int32) (int32, int32) { v := w.comp[i]; return w.g.start[v], w.g.start[v+1] }

func (w within) to(e int32) int32 {
	a := w.g.arcs[e]
	if !w.use(a.Rel()) {
		return -1
	}
	return w.at[a.To()] - 1
}

// startsOnRW says whether every wanted cycle can be rotated to start with
// an rw step, so that only tails of rw edges need be tried as starts.
func (sp *Spec) startsOnRW() bool { return sp.RW == RWSingle || sp.RW == RWAdjacent }

// partition returns, for each vertex of comp (by position), the number of
// its strongly connected component within comp when only edges whose
// relations satisfy use count, or -1 when that component is the vertex
// alone. comp's vertices must be marked in s.comp. O(|comp| + E_comp).
func (s *Searcher) partition(comp []int32, use func(Rel) bool) []int32 {
	g := s.g
	part := make([]int32, len(comp))
	for i := range part {
		part[i] = -1 // alone, unless pearce says otherwise
	}
	nparts := int32(0)
	pearce(make([]int32, len(comp)), within{g, comp, s.comp, use},
		func(members []int32) {
			for _, w := range members {
				part[w] = nparts
			}
			nparts++
		})
	return part
}
