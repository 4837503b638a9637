package consistency

import (
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis/graph"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"read-uncommitted is PL-1", "read-uncommitted", "PL-1"},
		{"read-committed is PL-2", "read-committed", "PL-2"},
		{"repeatable-read is PL-2.99", "repeatable-read", "PL-2.99"},
		{"serializable is PL-3", "serializable", "PL-3"},
		{"conflict-serializable is PL-3", "conflict-serializable", "PL-3"},
		{"snapshot-isolation is PL-SI", "snapshot-isolation", "PL-SI"},
		{"strict-serializable is PL-SS", "strict-serializable", "PL-SS"},
		{"strong-serializable is PL-SS", "strong-serializable", "PL-SS"},
		{"consistent-view is PL-2+", "consistent-view", "PL-2+"},
		{"cursor-stability is PL-CS", "cursor-stability", "PL-CS"},
		{"monotonic-view is PL-2L", "monotonic-view", "PL-2L"},
		{"update-serializable is PL-3U", "update-serializable", "PL-3U"},
		{"forward-consistent-view is PL-FCV", "forward-consistent-view", "PL-FCV"},
		{"monotonic-snapshot-read is PL-MSR", "monotonic-snapshot-read", "PL-MSR"},
		{"strong-session-read-committed is strong-session-PL-2", "strong-session-read-committed", "strong-session-PL-2"},
		{"a canonical name is its own", "PL-SI", "PL-SI"},
		{"a model without alias is its own", "causal", "causal"},
		{"a leading colon is dropped", ":serializable", "PL-3"},
		{"a canonical name with a colon", ":PL-2.99", "PL-2.99"},
		{"strong-session-snapshot-isolation is known", "strong-session-snapshot-isolation", "strong-session-snapshot-isolation"},
		{"PRAM is known", "PRAM", "PRAM"},
		{"read-atomic is known", "read-atomic", "read-atomic"},
		{"update-atomic is known", "update-atomic", "update-atomic"},
		{"linearizable is known", "linearizable", "linearizable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Canonical(tc.in)
			if !ok || got != tc.want {
				t.Errorf("Canonical(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "serialisable", "Serializable", "::serializable", "G1c"} {
		if got, ok := Canonical(bad); ok {
			t.Errorf("Canonical(%q) = %q, true; want unknown", bad, got)
		}
	}
}

func TestParseModelsNamesTheKnownModels(t *testing.T) {
	_, err := ParseModels([]string{"serializable", "snapshot-isolaton"})
	if err == nil {
		t.Fatal("a misspelt model was accepted")
	}
	for _, want := range []string{`"snapshot-isolaton"`, "snapshot-isolation", "strict-serializable", "PL-2.99", "causal"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	got, err := ParseModels([]string{"serializable", ":PL-3", "read-committed"})
	if err != nil || !slices.Equal(got, []string{"PL-3", "PL-2"}) {
		t.Errorf("ParseModels = %v, %v; want [PL-3 PL-2] (aliases merged)", got, err)
	}
}

func TestFriendly(t *testing.T) {
	for in, want := range map[string]string{
		"PL-2":                  "read-committed",
		"PL-3":                  "serializable",
		"conflict-serializable": "serializable",
		"PL-SS":                 "strong-serializable",
		"strict-serializable":   "strong-serializable",
		"strong-PL-1":           "strong-read-uncommitted",
		"prefix":                "prefix",
		":PL-SI":                "snapshot-isolation",
	} {
		if got := Friendly(in); got != want {
			t.Errorf("Friendly(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestImplies(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{"strict-serializable implies serializable", "strict-serializable", "serializable", true},
		{"strict-serializable implies linearizable", "strict-serializable", "linearizable", true},
		{"strict-serializable implies read-uncommitted", "strict-serializable", "read-uncommitted", true},
		{"serializable implies snapshot-isolation", "serializable", "snapshot-isolation", true},
		{"serializable implies repeatable-read", "serializable", "repeatable-read", true},
		{"serializable does not imply strong-session-serializable", "serializable", "strong-session-serializable", false},
		{"snapshot-isolation does not imply repeatable-read", "snapshot-isolation", "repeatable-read", false},
		{"repeatable-read does not imply snapshot-isolation", "repeatable-read", "snapshot-isolation", false},
		{"snapshot-isolation implies read-atomic through parallel SI", "snapshot-isolation", "read-atomic", true},
		{"strong-snapshot-isolation implies strong-read-committed", "strong-snapshot-isolation", "strong-read-committed", true},
		{"linearizable implies PRAM", "linearizable", "PRAM", true},
		{"read-committed does not imply read-atomic", "read-committed", "read-atomic", false},
		{"a model implies itself", "causal", "causal", true},
		{"unknown names imply nothing", "fast", "read-committed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Implies(tc.a, tc.b); got != tc.want {
				t.Errorf("Implies(%s, %s) = %v", tc.a, tc.b, got)
			}
		})
	}
}

// everythingAboveReadUncommitted is every model a G0 rules out besides
// read-uncommitted, under Elle's printed names: G0's also_not in Elle's
// fixtures.
var everythingAboveReadUncommitted = []string{"causal-cerone", "consistent-view",
	"cursor-stability", "forward-consistent-view", "monotonic-atomic-view",
	"monotonic-snapshot-read", "monotonic-view", "parallel-snapshot-isolation", "prefix",
	"read-atomic", "read-committed", "repeatable-read", "serializable", "snapshot-isolation",
	"strong-read-committed", "strong-read-uncommitted", "strong-serializable",
	"strong-session-read-committed", "strong-session-read-uncommitted",
	"strong-session-serializable", "strong-session-snapshot-isolation",
	"strong-snapshot-isolation", "update-atomic", "update-serializable"}

func without(all []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(all), func(s string) bool { return slices.Contains(drop, s) })
}

func TestBoundary(t *testing.T) {
	for _, tc := range []struct {
		name         string
		types        []string
		not, alsoNot []string // alsoNot nil: not checked
	}{
		{"G1c rules out read-committed and everything stronger", []string{"G1c"},
			[]string{"read-committed"},
			without(everythingAboveReadUncommitted, "read-committed", "strong-read-uncommitted",
				"strong-session-read-uncommitted")},
		{"G0 rules out read-uncommitted and everything stronger", []string{"G0"},
			[]string{"read-uncommitted"}, everythingAboveReadUncommitted},
		{"G1a rules out read-committed", []string{"G1a"}, []string{"read-committed"}, nil},
		{"incompatible-order is a G1a: read-committed", []string{"incompatible-order"}, []string{"read-committed"}, nil},
		{"dirty-update is a G1a: read-committed", []string{"dirty-update"}, []string{"read-committed"}, nil},
		{"future-read is a G1c: read-committed", []string{"future-read"}, []string{"read-committed"}, nil},
		{"internal rules out read-atomic", []string{"internal"}, []string{"read-atomic"},
			[]string{"causal-cerone", "parallel-snapshot-isolation", "prefix", "serializable",
				"snapshot-isolation", "strong-serializable", "strong-session-serializable",
				"strong-session-snapshot-isolation", "strong-snapshot-isolation", "update-atomic"}},
		{"G2-item rules out repeatable-read", []string{"G2-item"}, []string{"repeatable-read"},
			[]string{"serializable", "strong-serializable", "strong-session-serializable"}},
		{"G-single-item rules out consistent-view and repeatable-read", []string{"G-single-item"},
			[]string{"consistent-view", "repeatable-read"}, nil},
		{"G-nonadjacent-item rules out repeatable-read and snapshot-isolation", []string{"G-nonadjacent-item"},
			[]string{"repeatable-read", "snapshot-isolation"}, nil},
		{"lost-update rules out cursor-stability and update-atomic", []string{"lost-update"},
			[]string{"cursor-stability", "update-atomic"}, nil},
		{"G-single-item-process rules out strong-session-snapshot-isolation", []string{"G-single-item-process"},
			[]string{"strong-session-snapshot-isolation"},
			[]string{"strong-serializable", "strong-session-serializable", "strong-snapshot-isolation"}},
		{"G1c-process rules out strong-session-read-committed", []string{"G1c-process"},
			[]string{"strong-session-read-committed"}, nil},
		{"G1c-realtime rules out strong-read-committed", []string{"G1c-realtime"},
			[]string{"strong-read-committed"}, []string{"strong-serializable", "strong-snapshot-isolation"}},
		{"G0-realtime rules out strong-read-uncommitted", []string{"G0-realtime"},
			[]string{"strong-read-uncommitted"}, nil},
		{"G2-item-realtime rules out strict serializability only", []string{"G2-item-realtime"},
			[]string{"strong-serializable"}, []string{}},
		{"duplicate-elements rules out read-uncommitted", []string{"duplicate-elements"},
			[]string{"read-uncommitted"}, nil},
		{"cyclic-versions rules out read-uncommitted", []string{"cyclic-versions"},
			[]string{"read-uncommitted"}, nil},
		{"a cycle-exists type rules out its model", []string{"PL-SI-cycle-exists"},
			[]string{"snapshot-isolation"}, nil},
		{"G2-item with a strong-SI cycle: two weakest models", []string{"G2-item", "strong-snapshot-isolation-cycle-exists"},
			[]string{"repeatable-read", "strong-snapshot-isolation"},
			[]string{"serializable", "strong-serializable", "strong-session-serializable"}},
		{"the weakest of several anomalies wins", []string{"G2-item", "G1b", "G0"},
			[]string{"read-uncommitted"}, everythingAboveReadUncommitted},
		{"empty-transaction-graph rules out nothing", []string{"empty-transaction-graph"}, []string{}, []string{}},
		{"no anomalies rule out nothing", nil, []string{}, []string{}},
		{"a type Elle does not know rules out nothing", []string{"garbage-read"}, []string{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			not, alsoNot := Boundary(tc.types)
			if !slices.Equal(not, tc.not) {
				t.Errorf("not = %v, want %v", not, tc.not)
			}
			if tc.alsoNot != nil && !slices.Equal(alsoNot, tc.alsoNot) {
				t.Errorf("also_not = %v, want %v", alsoNot, tc.alsoNot)
			}
			if !slices.IsSorted(not) || !slices.IsSorted(alsoNot) {
				t.Errorf("not sorted: %v / %v", not, alsoNot)
			}
			for _, n := range not {
				if slices.Contains(alsoNot, n) {
					t.Errorf("%s is in both not and also_not", n)
				}
			}
		})
	}
}

func TestProhibited(t *testing.T) {
	for _, tc := range []struct {
		name       string
		models     []string
		anomalies  []string
		yes, no    []string
		wantLength int // 0: not checked
	}{
		{"strict-serializable prohibits every detectable anomaly", DefaultModels, nil,
			[]string{"G0", "G1a", "G1b", "G1c", "G1c-realtime", "G-single-item", "G-single-item-realtime",
				"G-nonadjacent-item-process", "G2-item", "G2-item-realtime", "internal", "future-read",
				"lost-update", "incompatible-order", "dirty-update", "duplicate-elements", "cyclic-versions",
				"PL-SS-cycle-exists", "strong-snapshot-isolation-cycle-exists", "PL-1-cycle-exists"},
			[]string{"empty-transaction-graph", "cycle-search-timeout", "GSI"}, 0},
		{"serializable leaves realtime and process cycles alone", []string{"serializable"}, nil,
			[]string{"G2-item", "G-single-item", "G0", "internal", "lost-update", "PL-3-cycle-exists", "PL-SI-cycle-exists"},
			[]string{"G2-item-realtime", "G-single-item-process", "G1c-realtime", "G0-process",
				"PL-SS-cycle-exists", "strong-session-PL-2-cycle-exists"}, 0},
		{"snapshot-isolation prohibits G-single-item but not G2-item", []string{"snapshot-isolation"}, nil,
			[]string{"G-single-item", "G-nonadjacent-item", "G1c", "internal", "lost-update", "PL-SI-cycle-exists"},
			[]string{"G2-item", "G2", "PL-3-cycle-exists", "PL-2.99-cycle-exists"}, 0},
		{"repeatable-read prohibits G2-item and G-single-item but not predicate G-single", []string{"repeatable-read"}, nil,
			[]string{"G2-item", "G-single-item", "G-nonadjacent-item", "lost-update", "G1b"},
			[]string{"G-single", "G2", "internal", "PL-SI-cycle-exists"}, 0},
		{"read-committed prohibits G1 and what implies it", []string{"read-committed"}, nil,
			[]string{"G0", "G1", "G1a", "G1b", "G1c", "future-read", "incompatible-order", "dirty-update",
				"duplicate-elements", "cyclic-versions", "PL-2-cycle-exists"},
			[]string{"G-single-item", "G2-item", "lost-update", "internal", "G1c-process"}, 0},
		{"read-uncommitted prohibits G0 but not G1a", []string{"read-uncommitted"}, nil,
			[]string{"G0", "duplicate-elements", "cyclic-versions", "PL-1-cycle-exists"},
			[]string{"G1a", "G1c", "G0-process"}, 4},
		{"strong-session-snapshot-isolation prohibits process cycles, not realtime", []string{"strong-session-snapshot-isolation"}, nil,
			[]string{"G-single-item-process", "G-nonadjacent-item-process", "G1c-process", "G0-process",
				"G-single-item", "strong-session-snapshot-isolation-cycle-exists", "strong-session-PL-2-cycle-exists"},
			[]string{"G2-item", "G2-item-process", "G-single-item-realtime", "G1c-realtime"}, 0},
		{"no models prohibit nothing", []string{}, nil, nil, []string{"G0", "G1c"}, 0},
		{"the G1 anomaly option prohibits G1a, G1b, G1c and G0", []string{}, []string{"G1"},
			[]string{"G1", "G1a", "G1b", "G1c", "G0", "future-read", "incompatible-order", "dirty-update"},
			[]string{"G1c-process", "G-single-item", "internal"}, 0},
		{"the G2 anomaly option prohibits G2-item but not G1a", []string{}, []string{":G2"},
			[]string{"G2", "G2-item", "G-single-item", "G-nonadjacent-item", "lost-update", "write-skew"},
			[]string{"G1a", "G0", "G2-item-realtime"}, 0},
		{"models and anomalies add up", []string{"read-uncommitted"}, []string{"internal"},
			[]string{"G0", "internal"}, []string{"G1a"}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Prohibited(tc.models, tc.anomalies)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range tc.yes {
				if !p.Has(a) {
					t.Errorf("%s is not prohibited", a)
				}
			}
			for _, a := range tc.no {
				if p.Has(a) {
					t.Errorf("%s is prohibited", a)
				}
			}
			if tc.wantLength > 0 && len(p) != tc.wantLength {
				t.Errorf("prohibited %v, want %d types", p.Sorted(), tc.wantLength)
			}
		})
	}
	if _, err := Prohibited([]string{"serializable"}, []string{"G3"}); err == nil ||
		!strings.Contains(err.Error(), `"G3"`) || !strings.Contains(err.Error(), "G2-item") {
		t.Errorf("unknown anomaly option: err = %v, want one naming G3 and the known types", err)
	}
	if _, err := Prohibited([]string{"serialisable"}, nil); err == nil {
		t.Error("unknown model accepted")
	}
}

func TestReportableAddsTheUnknownVerdictTypes(t *testing.T) {
	r, err := Reportable([]string{"read-uncommitted"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Sorted(); !slices.Equal(got, []string{"G0", "PL-1-cycle-exists", "cycle-search-timeout",
		"cyclic-versions", "duplicate-elements", "empty-transaction-graph"}) {
		t.Errorf("Reportable(read-uncommitted) = %v", got)
	}
}

// TestTablesAreAcyclic checks that the model DAG and the anomaly
// implication graph (with and without the severity edges) have no cycle,
// and that every anomaly got a depth.
func TestTablesAreAcyclic(t *testing.T) {
	for name, d := range map[string]*dag{
		"models":                newDAG(modelEdges),
		"canonical models":      models,
		"implied anomalies":     implied,
		"implied with severity": newDAG(impliedEdges, severityEdges),
		"proscriptions":         proscribed,
	} {
		if _, ok := d.depths(); !ok {
			t.Errorf("%s: the graph has a cycle", name)
		}
	}
	for _, a := range Anomalies() {
		if Depth(a) < 0 && !slices.Contains(unknownTypes, a) {
			t.Errorf("%s has no depth", a)
		}
	}
	// The depths check itself: a two-vertex loop is a cycle.
	if _, ok := newDAG([]edges{{"a", []string{"b"}}, {"b", []string{"a"}}}).depths(); ok {
		t.Error("depths missed a cycle")
	}
}

// TestEveryNameIsKnown checks that every anomaly and model named in any
// table is one the package knows.
func TestEveryNameIsKnown(t *testing.T) {
	for _, table := range [][]edges{impliedEdges, severityEdges} {
		for _, e := range table {
			for _, a := range append([]string{e.From}, e.To...) {
				if !Known(a) {
					t.Errorf("anomaly %s is not known", a)
				}
			}
		}
	}
	for _, e := range proscribedEdges {
		if _, ok := Canonical(e.From); !ok {
			t.Errorf("model %s proscribes anomalies but is not a known model", e.From)
		}
		if !slices.Contains(models.verts, canonical(e.From)) {
			t.Errorf("model %s is not in the model DAG", e.From)
		}
		for _, a := range e.To {
			if !Known(a) {
				t.Errorf("anomaly %s is not known", a)
			}
		}
	}
	for _, e := range modelEdges {
		for _, m := range append([]string{e.From}, e.To...) {
			if _, ok := Canonical(m); !ok {
				t.Errorf("model %s is not known", m)
			}
		}
	}
	for c := range friendly {
		if !slices.Contains(models.verts, c) {
			t.Errorf("friendly name for %s, which is not in the model DAG", c)
		}
	}
	for _, ct := range CycleTypes() {
		if !Known(ct.Name) {
			t.Errorf("cycle type %s is not known", ct.Name)
		}
		if !IsCycleType(ct.Name) {
			t.Errorf("IsCycleType(%s) is false", ct.Name)
		}
	}
	for _, p := range Projections() {
		if !Known(p.Anomaly()) {
			t.Errorf("projection anomaly %s is not known", p.Anomaly())
		}
		if _, ok := Canonical(p.Model); !ok {
			t.Errorf("projection model %s is not known", p.Model)
		}
	}
	if IsCycleType("G1a") || IsCycleType("PL-SI-cycle-exists") {
		t.Error("IsCycleType accepts a non-cycle type")
	}
	if Known("garbage-read") || Known("G3") {
		t.Error("Known accepts names Elle does not have")
	}
}

func TestCycleTypesOrder(t *testing.T) {
	ts := CycleTypes()
	if len(ts) != 24 {
		t.Fatalf("%d cycle types, want 8 base types in 3 forms", len(ts))
	}
	pos := map[string]int{}
	for i, ct := range ts {
		pos[ct.Name] = i
	}
	// An implying type comes before every type it implies.
	for _, ct := range ts {
		for a := range ImpliedAnomalies(ct.Name) {
			if j, ok := pos[a]; ok && j < pos[ct.Name] {
				t.Errorf("%s implies %s but comes after it", ct.Name, a)
			}
		}
	}
	// Data cycles, then process, then realtime.
	group := func(r graph.Rel) int { return map[graph.Rel]int{0: 0, graph.Process: 1, graph.Realtime: 2}[r] }
	for i := 1; i < len(ts); i++ {
		if group(ts[i-1].Variant) > group(ts[i].Variant) {
			t.Errorf("%s before %s", ts[i-1].Name, ts[i].Name)
		}
	}
	want := []string{"G-single-item", "G0", "G-nonadjacent-item", "G1c", "G-single", "G2-item", "G-nonadjacent", "G2"}
	if got := names(ts[:8]); !slices.Equal(got, want) {
		t.Errorf("data cycle order %v, want %v", got, want)
	}
	// Elle's own depth order, which CompareDepth keeps, interleaves the -item
	// process forms with the data types.
	if CompareDepth("G-single-item-process", "G1c") >= 0 || CompareDepth("G0", "G1c") >= 0 ||
		CompareDepth("G2", "G0-process") >= 0 || CompareDepth("G2-process", "G0-realtime") >= 0 {
		t.Error("CompareDepth does not follow Elle's depths")
	}
}

func names(ts []CycleType) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestSearchTypes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		models  []string
		rel     graph.Rel
		include []string
		exclude []string
	}{
		{"strict-serializable searches data and realtime cycles", DefaultModels, graph.Realtime,
			[]string{"G0", "G2-item", "G1c-realtime", "G2-item-realtime"},
			[]string{"G1c-process", "G-single", "G2-realtime"}},
		{"strong-session-snapshot-isolation searches process cycles", []string{"strong-session-snapshot-isolation"}, graph.Process,
			[]string{"G0", "G-single-item-process", "G2-item-process"},
			[]string{"G1c-realtime"}},
		{"serializable searches data cycles only", []string{"serializable"}, 0,
			[]string{"G0", "G1c", "G-single-item", "G-nonadjacent-item", "G2-item"},
			[]string{"G0-process", "G0-realtime", "G2"}},
		{"read-committed still searches every data cycle, as Elle does", []string{"read-committed"}, 0,
			[]string{"G-single-item", "G2-item"}, []string{"G1c-process"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel, err := OrderRel(tc.models, nil)
			if err != nil || rel != tc.rel {
				t.Errorf("OrderRel = %v, %v; want %v", rel, err, tc.rel)
			}
			ts, err := SearchTypes(tc.models, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := names(ts)
			for _, n := range tc.include {
				if !slices.Contains(got, n) {
					t.Errorf("%s not searched (%v)", n, got)
				}
			}
			for _, n := range tc.exclude {
				if slices.Contains(got, n) {
					t.Errorf("%s searched (%v)", n, got)
				}
			}
		})
	}
}

func TestProjections(t *testing.T) {
	byModel := map[string]Projection{}
	for _, p := range Projections() {
		byModel[p.Model] = p
	}
	for _, tc := range []struct {
		model        string
		keep, extend graph.Rel
		anomaly, not string
	}{
		{"PL-1", graph.WW, 0, "PL-1-cycle-exists", "read-uncommitted"},
		{"PL-2", graph.WW | graph.WR, 0, "PL-2-cycle-exists", "read-committed"},
		{"PL-SI", graph.WW | graph.WR, graph.RW, "PL-SI-cycle-exists", "snapshot-isolation"},
		{"PL-2.99", graph.WW | graph.WR | graph.RW, 0, "PL-2.99-cycle-exists", "repeatable-read"},
		{"PL-3", graph.WW | graph.WR | graph.RW, 0, "PL-3-cycle-exists", "serializable"},
		{"strong-session-PL-1", graph.WW | graph.Process, 0, "strong-session-PL-1-cycle-exists", "strong-session-read-uncommitted"},
		{"strong-session-snapshot-isolation", graph.WW | graph.WR | graph.Process, graph.RW,
			"strong-session-snapshot-isolation-cycle-exists", "strong-session-snapshot-isolation"},
		{"strong-session-serializable", graph.WW | graph.WR | graph.RW | graph.Process, 0,
			"strong-session-serializable-cycle-exists", "strong-session-serializable"},
		{"strong-PL-2", graph.WW | graph.WR | graph.Realtime, 0, "strong-PL-2-cycle-exists", "strong-read-committed"},
		{"strong-snapshot-isolation", graph.WW | graph.WR | graph.Realtime, graph.RW,
			"strong-snapshot-isolation-cycle-exists", "strong-snapshot-isolation"},
		{"PL-SS", graph.WW | graph.WR | graph.RW | graph.Realtime, 0, "PL-SS-cycle-exists", "strong-serializable"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			p, ok := byModel[tc.model]
			if !ok {
				t.Fatalf("no projection for %s", tc.model)
			}
			if p.Keep != tc.keep || p.Extend != tc.extend || p.Anomaly() != tc.anomaly || p.Not() != tc.not {
				t.Errorf("got %v keep %v extend %v %s %s", p.Model, p.Keep, p.Extend, p.Anomaly(), p.Not())
			}
		})
	}
	if len(byModel) != 13 {
		t.Errorf("%d projections, want Elle's 13", len(byModel))
	}
}

func TestProjectionsFor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		models []string
		want   []string
	}{
		{"strict-serializable checks all thirteen", DefaultModels, []string{"PL-1", "PL-2", "PL-SI", "PL-2.99", "PL-3",
			"strong-session-PL-1", "strong-session-PL-2", "strong-session-snapshot-isolation",
			"strong-session-serializable", "strong-PL-1", "strong-PL-2", "strong-snapshot-isolation", "PL-SS"}},
		{"serializable checks the data-only five", []string{"serializable"}, []string{"PL-1", "PL-2", "PL-SI", "PL-2.99", "PL-3"}},
		{"snapshot-isolation checks PL-1, PL-2 and PL-SI", []string{"snapshot-isolation"}, []string{"PL-1", "PL-2", "PL-SI"}},
		{"strong-session-snapshot-isolation adds the session forms", []string{"strong-session-snapshot-isolation"},
			[]string{"PL-1", "PL-2", "PL-SI", "strong-session-PL-1", "strong-session-PL-2", "strong-session-snapshot-isolation"}},
		{"read-atomic checks PL-1 and PL-2, as it implies read-committed", []string{"read-atomic"}, []string{"PL-1", "PL-2"}},
		{"causal has no projection", []string{"causal"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := ProjectionsFor(tc.models)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Model)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCycleExists(t *testing.T) {
	for _, tc := range []struct {
		name         string
		cyclic       []string // models whose projection has a cycle
		wantChecked  []string
		wantFound    []string
		impossibleOK []string // cycle types that must be impossible
		possibleOK   []string // cycle types that must stay possible
	}{
		{"a PL-2 cycle skips every model stronger than read-committed",
			[]string{"PL-2", "PL-SI", "PL-3", "PL-SS"},
			[]string{"PL-1", "PL-2", "strong-session-PL-1", "strong-PL-1"},
			[]string{"PL-2"},
			[]string{"G0", "G0-process", "G0-realtime"},
			[]string{"G1c", "G2-item", "G1c-realtime", "G-single-item-process"}},
		{"no cycle anywhere: every cycle type is impossible", nil,
			names13(), nil, cycleNames(), nil},
		{"only a PL-SS cycle leaves G2-item-realtime and G2-realtime to search", []string{"PL-SS"},
			names13(), []string{"PL-SS"},
			without(cycleNames(), "G2-item-realtime", "G2-realtime"),
			[]string{"G2-item-realtime", "G2-realtime"}},
		{"a PL-SI cycle without PL-2 leaves the rw cycles", []string{"PL-SI", "PL-3", "PL-2.99", "PL-SS"},
			[]string{"PL-1", "PL-2", "PL-SI", "PL-2.99", "strong-session-PL-1", "strong-session-PL-2", "strong-PL-1", "strong-PL-2"},
			[]string{"PL-SI", "PL-2.99"},
			[]string{"G0", "G1c", "G1c-realtime"},
			[]string{"G-single-item", "G-nonadjacent-item", "G2-item", "G2-item-realtime"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var checked []string
			found := CycleExists(Projections(), func(p Projection) bool {
				checked = append(checked, p.Model)
				return slices.Contains(tc.cyclic, p.Model)
			})
			if !slices.Equal(checked, tc.wantChecked) {
				t.Errorf("checked %v, want %v", checked, tc.wantChecked)
			}
			var got []string
			for _, p := range found {
				got = append(got, p.Model)
			}
			if !slices.Equal(got, tc.wantFound) {
				t.Errorf("found %v, want %v", got, tc.wantFound)
			}
			imp := ImpossibleCycleTypes(Projections(), found)
			for _, n := range tc.impossibleOK {
				if !imp.Has(n) {
					t.Errorf("%s should be impossible (%v)", n, imp.Sorted())
				}
			}
			for _, n := range tc.possibleOK {
				if imp.Has(n) {
					t.Errorf("%s should stay possible", n)
				}
			}
		})
	}
}

func names13() []string {
	var out []string
	for _, p := range Projections() {
		out = append(out, p.Model)
	}
	return out
}

func cycleNames() []string { return names(CycleTypes()) }

func TestRemoveRedundantCycleExists(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in, want []string
	}{
		{"G2-item makes PL-2.99-cycle-exists redundant, not strong-SI's",
			[]string{"G2-item", "PL-2.99-cycle-exists", "strong-snapshot-isolation-cycle-exists"},
			[]string{"G2-item", "strong-snapshot-isolation-cycle-exists"}},
		{"cycle-exists alone stays", []string{"PL-SI-cycle-exists", "cycle-search-timeout"},
			[]string{"PL-SI-cycle-exists", "cycle-search-timeout"}},
		{"G0 makes every cycle-exists redundant",
			[]string{"G0", "PL-1-cycle-exists", "PL-SS-cycle-exists"}, []string{"G0"}},
		{"G1c-realtime does not cover PL-SI", []string{"G1c-realtime", "PL-SI-cycle-exists", "strong-PL-2-cycle-exists"},
			[]string{"G1c-realtime", "PL-SI-cycle-exists"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RemoveRedundantCycleExists(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestImpossibleCycleTypesRemembered: the remembered answers of
// ImpossibleCycleTypes are the ones worked out, for every set of
// projections found among the first few and asked three times, and a caller
// that adds to the set it got (as the search does with the anomalies a
// found cycle implies) changes no later answer.
func TestImpossibleCycleTypesRemembered(t *testing.T) {
	all := Projections()
	first := all[:min(len(all), 8)]
	for mask := range 1 << len(first) {
		var found []Projection
		for i, p := range first {
			if mask&(1<<i) != 0 {
				found = append(found, p)
			}
		}
		want := impossibleCycleTypes(all, found).Sorted()
		for try := range 3 {
			got := ImpossibleCycleTypes(all, found)
			if !slices.Equal(got.Sorted(), want) {
				t.Fatalf("found %d (try %d): %v, want %v", mask, try, got.Sorted(), want)
			}
			got.add("not-a-type")
		}
	}
}
