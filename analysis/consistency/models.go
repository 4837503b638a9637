package consistency

import (
	"fmt"
	"slices"
	"strings"
)

// aliases maps each friendly model name to its canonical one: Elle's
// canonical-model-names (consistency_model.clj 194-230). A name that is not a
// key here is its own canonical name.
var aliases = map[string]string{
	"consistent-view":                 "PL-2+",
	"conflict-serializable":           "PL-3",
	"cursor-stability":                "PL-CS",
	"forward-consistent-view":         "PL-FCV",
	"monotonic-snapshot-read":         "PL-MSR",
	"monotonic-view":                  "PL-2L",
	"read-committed":                  "PL-2",
	"read-uncommitted":                "PL-1",
	"repeatable-read":                 "PL-2.99",
	"serializable":                    "PL-3",
	"snapshot-isolation":              "PL-SI",
	"strict-serializable":             "PL-SS",
	"strong-serializable":             "PL-SS",
	"update-serializable":             "PL-3U",
	"strong-session-read-uncommitted": "strong-session-PL-1",
	"strong-session-read-committed":   "strong-session-PL-2",
	"strong-read-uncommitted":         "strong-PL-1",
	"strong-read-committed":           "strong-PL-2",
}

// friendly maps a canonical model name to the name Elle prints for it
// (friendly-model-names, consistency_model.clj 232-239: the inverse of
// aliases, with PL-3 pinned to "serializable"). PL-SS has two friendly names;
// Elle's inverse keeps whichever its hash map yields last, which is
// "strong-serializable" in every result Elle printed for our fixtures, so
// that is the name used here.
var friendly = map[string]string{
	"PL-2+":               "consistent-view",
	"PL-3":                "serializable",
	"PL-CS":               "cursor-stability",
	"PL-FCV":              "forward-consistent-view",
	"PL-MSR":              "monotonic-snapshot-read",
	"PL-2L":               "monotonic-view",
	"PL-2":                "read-committed",
	"PL-1":                "read-uncommitted",
	"PL-2.99":             "repeatable-read",
	"PL-SI":               "snapshot-isolation",
	"PL-SS":               "strong-serializable",
	"PL-3U":               "update-serializable",
	"strong-session-PL-1": "strong-session-read-uncommitted",
	"strong-session-PL-2": "strong-session-read-committed",
	"strong-PL-1":         "strong-read-uncommitted",
	"strong-PL-2":         "strong-read-committed",
}

// modelEdges is Elle's model hierarchy (models, consistency_model.clj
// 251-344), in Elle's order and with Elle's (not yet canonical) names: a
// history satisfying From also satisfies each of To. The names are
// canonicalized when the DAG is built, as Elle's map-vertices does.
var modelEdges = []edges{
	{"causal-cerone", []string{"read-atomic"}},
	{"consistent-view", []string{"cursor-stability", "monotonic-view"}},
	{"conflict-serializable", []string{"view-serializable"}},
	{"cursor-stability", []string{"read-committed", "PL-2"}},
	{"forward-consistent-view", []string{"consistent-view"}},
	{"PL-2", []string{"PL-1"}},
	{"PL-3", []string{"repeatable-read", "update-serializable"}},
	{"update-serializable", []string{"forward-consistent-view"}},
	{"monotonic-atomic-view", []string{"read-committed"}},
	{"monotonic-view", []string{"PL-2"}},
	{"monotonic-snapshot-read", []string{"PL-2"}},
	{"parallel-snapshot-isolation", []string{"causal-cerone", "update-atomic"}},
	{"prefix", []string{"causal-cerone"}},
	{"read-atomic", []string{"monotonic-atomic-view"}},
	{"read-committed", []string{"read-uncommitted"}},
	{"repeatable-read", []string{"cursor-stability", "monotonic-atomic-view"}},
	{"update-atomic", []string{"read-atomic"}},
	{"serializable", []string{"repeatable-read", "snapshot-isolation", "view-serializable"}},
	{"session-serializable", []string{"1SR"}},
	{"snapshot-isolation", []string{"forward-consistent-view", "monotonic-atomic-view",
		"monotonic-snapshot-read", "parallel-snapshot-isolation", "prefix"}},
	{"strict-serializable", []string{"PL-3", "serializable", "linearizable",
		"snapshot-isolation", "strong-snapshot-isolation", "strong-session-serializable"}},
	{"strong-session-PL-1", []string{"PL-1"}},
	{"strong-session-PL-2", []string{"PL-2", "strong-session-PL-1"}},
	{"strong-PL-1", []string{"strong-session-PL-1"}},
	{"strong-PL-2", []string{"strong-session-PL-2", "strong-PL-1"}},
	{"strong-session-serializable", []string{"serializable", "strong-session-snapshot-isolation"}},
	{"strong-session-snapshot-isolation", []string{"snapshot-isolation", "strong-session-PL-2"}},
	{"strong-serializable", []string{"session-serializable"}},
	{"strong-snapshot-isolation", []string{"strong-session-snapshot-isolation", "strong-PL-2"}},
	{"linearizable", []string{"sequential"}},
	{"sequential", []string{"causal"}},
	{"causal", []string{"writes-follow-reads", "PRAM"}},
	{"PRAM", []string{"monotonic-reads", "monotonic-writes", "read-your-writes"}},
}

// models is the model DAG over canonical names.
var models = func() *dag {
	canon := make([]edges, len(modelEdges))
	for i, e := range modelEdges {
		to := make([]string, len(e.To))
		for j, t := range e.To {
			to[j] = canonical(t)
		}
		canon[i] = edges{canonical(e.From), to}
	}
	return newDAG(canon)
}()

// allModels is every model name Elle accepts (all-models,
// consistency_model.clj 346-351): the DAG's vertices, the aliases and their
// canonical names, sorted as Elle sorts them.
var allModels = func() []string {
	set := Set{}
	for _, v := range models.verts {
		set.add(v)
	}
	for a, c := range aliases {
		set.add(a)
		set.add(c)
	}
	return set.Sorted()
}()

// canonical is Elle's canonical-model-name: the alias's target, or name.
func canonical(name string) string {
	if c, ok := aliases[name]; ok {
		return c
	}
	return name
}

// Canonical returns the canonical name of a consistency model (PL-3 for
// "serializable", PL-SS for "strict-serializable", "causal" for "causal"),
// accepting a canonical name or an alias, with or without Elle's leading
// colon. ok is false for a name Elle does not know.
func Canonical(name string) (string, bool) {
	name = strings.TrimPrefix(name, ":")
	if _, found := slices.BinarySearch(allModels, name); !found {
		return "", false
	}
	return canonical(name), true
}

// ParseModels canonicalizes each name (see Canonical), keeping their order
// and dropping repeats. An unknown name is an error that lists every name
// Elle knows.
func ParseModels(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		c, ok := Canonical(n)
		if !ok {
			return nil, fmt.Errorf("unknown consistency model %q; known models are: %s",
				n, strings.Join(allModels, ", "))
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Friendly returns the name Elle prints for a model: "read-committed" for
// PL-2, "serializable" for PL-3, "strong-serializable" for PL-SS; a model
// without an alias ("causal", "prefix") is printed as its canonical name.
// It accepts aliases too.
func Friendly(model string) string {
	c := canonical(strings.TrimPrefix(model, ":"))
	if f, ok := friendly[c]; ok {
		return f
	}
	return c
}

// ModelNames returns every model name Elle accepts, canonical names and
// aliases alike, sorted.
func ModelNames() []string { return slices.Clone(allModels) }

// ImpliedModels returns the canonical names of the models that hold whenever
// all the given ones do, the given ones included (Elle's
// all-implied-models). Unknown names are an error (see ParseModels).
func ImpliedModels(names []string) (Set, error) {
	ms, err := ParseModels(names)
	if err != nil {
		return nil, err
	}
	return models.reach(ms, out), nil
}

// Implies reports whether every history satisfying model a satisfies model b
// (a reaches b in Elle's model DAG, or a and b are the same model). Unknown
// names imply nothing.
func Implies(a, b string) bool {
	ca, okA := Canonical(a)
	cb, okB := Canonical(b)
	if !okA || !okB {
		return false
	}
	return models.reach([]string{ca}, out).Has(cb)
}

// impossibleModels is Elle's all-impossible-models: the given (canonical)
// models and every model that implies one of them.
func impossibleModels(ms []string) Set { return models.reach(ms, in) }

// weakest keeps the models of s that imply no other model of s (Elle's
// weakest-models; on a DAG the result does not depend on the order Elle
// visits them in).
func weakest(s Set) Set {
	w := Set{}
	for m := range s {
		below := models.reach([]string{m}, out)
		minimal := true
		for o := range s {
			if o != m && below.Has(o) {
				minimal = false
				break
			}
		}
		if minimal {
			w.add(m)
		}
	}
	return w
}
