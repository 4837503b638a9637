package consistency

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/analysis/graph"
)

// CycleType is one of the cycle anomaly types Elle's transactional checker
// searches for (elle.txn base-cycle-anomaly-specs and
// cycle-anomaly-spec-variant): a base type and its -process and -realtime
// forms.
type CycleType struct {
	// Name is the anomaly type, e.g. "G-single-item-process".
	Name string
	// Base is the type without its variant suffix, e.g. "G-single-item".
	Base string
	// Variant is 0 for the plain form, graph.Process for the -process form
	// (a process edge and no realtime edge on the cycle), graph.Realtime for
	// the -realtime form (a realtime edge on the cycle).
	Variant graph.Rel
	// Predicate marks G-single, G-nonadjacent and G2 (and their forms):
	// Elle classifies a cycle as these only when it has a predicate edge
	// (wwp, wrp, rwp), which list-append and rw-register histories never
	// have, so searches on them can skip these types.
	Predicate bool
}

// baseCycleTypes is elle.txn's base-cycle-anomaly-specs, by name.
var baseCycleTypes = []struct {
	name      string
	predicate bool
}{
	{"G0", false},
	{"G1c", false},
	{"G-single-item", false},
	{"G-single", true},
	{"G-nonadjacent-item", false},
	{"G-nonadjacent", true},
	{"G2-item", false},
	{"G2", true},
}

// cycleTypes is every CycleType in search order: the plain forms, then the
// -process forms, then the -realtime forms, each group ordered by
// CompareDepth.
var cycleTypes = func() []CycleType {
	var ts []CycleType
	for _, b := range baseCycleTypes {
		ts = append(ts,
			CycleType{b.name, b.name, 0, b.predicate},
			CycleType{b.name + "-process", b.name, graph.Process, b.predicate},
			CycleType{b.name + "-realtime", b.name, graph.Realtime, b.predicate})
	}
	group := func(t CycleType) int {
		switch t.Variant {
		case graph.Process:
			return 1
		case graph.Realtime:
			return 2
		}
		return 0
	}
	slices.SortFunc(ts, func(a, b CycleType) int {
		if c := cmp.Compare(group(a), group(b)); c != 0 {
			return c
		}
		return CompareDepth(a.Name, b.Name)
	})
	return ts
}()

// CycleTypes returns every cycle anomaly type in the order a component is
// searched for them: data-only cycles first, then -process, then -realtime,
// each group in Elle's anomaly-depth order (CompareDepth). This is the order
// Elle's severity graph means to give ("process anomalies are not as bad as
// pure data violations"), but not quite the one it gives: that graph predates
// the -item types, so Elle's own depth order puts G-single-item-process
// (depth 1) before G1c and G2-item. Both are topological orders of the
// implication graph, so a search that skips the types implied by those
// already found in a component (ImpliedAnomalies) finds the same types in
// either; the order matters only for what a time-limited search reaches.
func CycleTypes() []CycleType { return slices.Clone(cycleTypes) }

// IsCycleType reports whether name is one of CycleTypes.
func IsCycleType(name string) bool {
	return slices.ContainsFunc(cycleTypes, func(t CycleType) bool { return t.Name == name })
}

// OrderRel returns the ordering relation Elle adds to the dependency graph
// for these options (elle.txn additional-graphs): graph.Realtime when any
// reportable cycle type is a -realtime form, else graph.Process when any is a
// -process form, else 0. With realtime edges Elle adds no process edges: a
// cycle through a process's order then shows up as its -realtime form.
func OrderRel(models, anomalies []string) (graph.Rel, error) {
	rep, err := Reportable(models, anomalies)
	if err != nil {
		return 0, err
	}
	var rel graph.Rel
	for _, t := range cycleTypes {
		if rep.Has(t.Name) && t.Variant == graph.Realtime {
			return graph.Realtime, nil
		}
		if rep.Has(t.Name) && t.Variant == graph.Process {
			rel = graph.Process
		}
	}
	return rel, nil
}

// SearchTypes returns the cycle types Elle can find for these options, in
// CycleTypes order: the plain forms, and the forms of the relation OrderRel
// adds, leaving out the predicate types (CycleType.Predicate). Elle searches
// them all, reportable or not, and its boundary counts every one it finds; a
// checker that only wants the verdict and `anomaly-types` may keep just the
// Reportable ones.
func SearchTypes(models, anomalies []string) ([]CycleType, error) {
	rel, err := OrderRel(models, anomalies)
	if err != nil {
		return nil, err
	}
	var ts []CycleType
	for _, t := range cycleTypes {
		if !t.Predicate && (t.Variant == 0 || t.Variant == rel) {
			ts = append(ts, t)
		}
	}
	return ts, nil
}

// CycleExistsSuffix ends the name of every cycle-exists anomaly type.
const CycleExistsSuffix = "-cycle-exists"

// Projection is one of Elle's cycle-exists specifications (elle.txn
// cycle-exists-specs): if Model holds, the dependency graph projected to
// these relations has no cycle, so a cycle there is the anomaly
// Model-cycle-exists, evidence against Model without a typed witness.
//
// The projected graph is A, the edges carrying any relation of Keep, or,
// when Extend is not 0, A ∪ (A;B): A plus an edge x → z for every x → y in A
// and y → z in B, the edges carrying a relation of Extend (rw). A cycle
// there is a cycle of the full graph in which every rw step directly
// follows a non-rw one: no two rw edges adjacent, as snapshot isolation
// forbids (G-nonadjacent). Such a graph can have a one-vertex cycle (x ww y,
// y rw x gives x → x), which Elle counts; graph.SCC does not report
// one-vertex components, so self-loops must be checked apart.
//
// Elle's specs also keep the predicate relations wwp, wrp and rwp; these
// workloads have none, so PL-2.99 (which keeps rw but not rwp) projects to
// the same graph as PL-3 here.
type Projection struct {
	// Model is the canonical model name, e.g. "PL-SI".
	Model string
	// Keep is the relations of A.
	Keep graph.Rel
	// Extend is the relation of B for a sequential extension; 0 for none.
	Extend graph.Rel
}

// Anomaly returns the anomaly type a cycle in p's projection gives, e.g.
// "PL-SI-cycle-exists".
func (p Projection) Anomaly() string { return p.Model + CycleExistsSuffix }

// Not returns the name Elle prints for the model a cycle in p's projection
// rules out (the anomaly's `:not`), e.g. "snapshot-isolation".
func (p Projection) Not() string { return Friendly(p.Model) }

// The relations of the projections, for the table below.
const (
	ww, wr, rw        = graph.WW, graph.WR, graph.RW
	process, realtime = graph.Process, graph.Realtime
)

// projections is elle.txn's cycle-exists-specs in Elle's order (weaker
// models first within each family), without the predicate relations.
var projections = []Projection{
	{"PL-1", ww, 0},
	{"PL-2", ww | wr, 0},
	{"PL-SI", ww | wr, rw},
	{"PL-2.99", ww | wr | rw, 0},
	{"PL-3", ww | wr | rw, 0},
	{"strong-session-PL-1", ww | process, 0},
	{"strong-session-PL-2", ww | wr | process, 0},
	{"strong-session-snapshot-isolation", ww | wr | process, rw},
	{"strong-session-serializable", ww | wr | rw | process, 0},
	{"strong-PL-1", ww | realtime, 0},
	{"strong-PL-2", ww | wr | realtime, 0},
	{"strong-snapshot-isolation", ww | wr | realtime, rw},
	{"PL-SS", ww | wr | rw | realtime, 0},
}

// Projections returns all of Elle's cycle-exists projections, in Elle's
// order. Elle checks them all in every component, whatever the models
// asked for, and reports the reportable ones.
func Projections() []Projection { return slices.Clone(projections) }

// ProjectionsFor returns, in Elle's order, the projections whose model the
// given models imply: the ones whose cycle-exists anomaly they prohibit.
func ProjectionsFor(models []string) ([]Projection, error) {
	ms, err := ImpliedModels(models)
	if err != nil {
		return nil, err
	}
	var ps []Projection
	for _, p := range projections {
		if ms.Has(p.Model) {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// CycleExists walks ps in order, as Elle's cycle-exists-cases does: it asks
// cyclic whether p's projection of a component has a cycle, unless an
// earlier hit already ruled p's model out (p's model implies the model of a
// projection that had a cycle), and returns the projections that had one.
func CycleExists(ps []Projection, cyclic func(Projection) bool) []Projection {
	var found []Projection
	ruledOut := Set{}
	for _, p := range ps {
		if ruledOut.Has(p.Model) {
			continue
		}
		if cyclic(p) {
			found = append(found, p)
			for m := range impossibleModels([]string{p.Model}) {
				ruledOut.add(m)
			}
		}
	}
	return found
}

// ImpossibleCycleTypes returns the cycle types a component cannot contain
// after CycleExists checked the projections checked and found cycles in
// found (Elle's cycle-exists-cases->impossible-cycle-anomalies): every cycle
// type prohibited by the checked models that found did not rule out. A
// search can skip them. The set is the caller's to change.
//
// A check asks once for each cyclic component, nearly always with the
// same arguments, so the answers are remembered by the models named
// (impossibleMemo): 100k components of two txns each (a list-append
// history of 100k write skews) spent 1.6 s of their 6.5 s working the
// lattice out again and again.
func ImpossibleCycleTypes(checked, found []Projection) Set {
	var b strings.Builder
	for _, p := range checked {
		b.WriteString(p.Model)
		b.WriteByte(',')
	}
	b.WriteByte('|')
	for _, p := range found {
		b.WriteString(p.Model)
		b.WriteByte(',')
	}
	key := b.String()
	if s, ok := impossibleMemo.Load(key); ok {
		return maps.Clone(s.(Set))
	}
	s := impossibleCycleTypes(checked, found)
	if impossibleMemoSize.Add(1) <= maxImpossibleMemo {
		impossibleMemo.Store(key, maps.Clone(s))
	}
	return s
}

// impossibleMemo holds ImpossibleCycleTypes' answers (Sets no caller
// holds) by their arguments' models, at most maxImpossibleMemo of them
// (impossibleMemoSize counts the stores): found is a subset of checked,
// and checked is the same few projections in every call a check makes.
var (
	impossibleMemo     sync.Map
	impossibleMemoSize atomic.Int64
)

const maxImpossibleMemo = 1024

// impossibleCycleTypes is ImpossibleCycleTypes, worked out.
func impossibleCycleTypes(checked, found []Projection) Set {
	var hit []string
	for _, p := range found {
		hit = append(hit, p.Model)
	}
	ruledOut := impossibleModels(hit)
	var possible []string
	for _, p := range checked {
		if !ruledOut.Has(p.Model) {
			possible = append(possible, p.Model)
		}
	}
	prohibited, _ := ProhibitedBy(possible) // canonical names from the table: no error
	s := Set{}
	for _, t := range cycleTypes {
		if prohibited.Has(t.Name) {
			s.add(t.Name)
		}
	}
	return s
}

// RemoveRedundantCycleExists drops, keeping the order of the rest, each
// cycle-exists type whose model the other (non-cycle-exists) types already
// rule out (Elle's remove-redundant-cycle-exists): the fallback evidence is
// not reported when a specific anomaly proves the same.
func RemoveRedundantCycleExists(types []string) []string {
	var others []string
	for _, t := range types {
		if !strings.HasSuffix(t, CycleExistsSuffix) {
			others = append(others, t)
		}
	}
	ruledOut := ImpossibleModels(others)
	var kept []string
	for _, t := range types {
		if i := slices.IndexFunc(projections, func(p Projection) bool { return p.Anomaly() == t }); i >= 0 &&
			ruledOut.Has(projections[i].Model) {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}
