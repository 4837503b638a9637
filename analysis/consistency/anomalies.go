package consistency

import (
	"cmp"
	"slices"
)

// impliedEdges is Elle's implied-anomalies (consistency_model.clj 55-161), in
// Elle's order: the presence of From means each of To is present too.
var impliedEdges = []edges{
	{"G0", []string{"G1c", "G0-process"}},
	{"G0-process", []string{"G1c-process", "G0-realtime"}},
	{"G0-realtime", []string{"G1c-realtime"}},

	{"G1a", []string{"G1"}},
	{"G1b", []string{"G1"}},
	{"G1c", []string{"G1", "G1c-process"}},

	{"G1c-process", []string{"G1c-realtime", "G1-process"}},
	{"G1c-realtime", []string{"G1-realtime"}},
	{"G1", []string{"G1-process"}},
	{"G1-process", []string{"G1-realtime"}},

	{"G-single-item", []string{"G-single", "G-single-item-process", "G-nonadjacent-item"}},
	{"G-single-item-process", []string{"G-single-process", "G-single-item-realtime", "G-nonadjacent-item-process"}},
	{"G-single-item-realtime", []string{"G-single-realtime", "G-nonadjacent-item-realtime"}},

	{"G-single", []string{"G-nonadjacent", "GSIb", "G-single-process"}},
	{"G-single-process", []string{"G-nonadjacent-process", "G-single-realtime"}},
	{"G-single-realtime", []string{"G-nonadjacent-realtime"}},

	{"G-nonadjacent-item", []string{"G-nonadjacent", "G2-item", "G-nonadjacent-item-process"}},
	{"G-nonadjacent-item-process", []string{"G-nonadjacent-process", "G2-item-process", "G-nonadjacent-item-realtime"}},
	{"G-nonadjacent-item-realtime", []string{"G2-item-realtime", "G-nonadjacent-realtime"}},

	{"G-nonadjacent", []string{"G2", "G-nonadjacent-process"}},
	{"G-nonadjacent-process", []string{"G2-process", "G-nonadjacent-realtime"}},
	{"G-nonadjacent-realtime", []string{"G2-realtime"}},

	{"G2", []string{"G2-process"}},
	{"G2-item", []string{"G2", "G2-item-process"}},
	{"G2-item-process", []string{"G2-process", "G2-item-realtime"}},
	{"G2-item-realtime", []string{"G2-realtime"}},
	{"G2-process", []string{"G2-realtime"}},

	{"GSIa", []string{"GSI"}},
	{"GSIb", []string{"GSI"}},

	{"incompatible-order", []string{"G1a"}},
	{"future-read", []string{"G1c"}},
	{"dirty-update", []string{"G1a"}},
	{"lost-update", []string{"write-skew", "G2-item"}},
	{"write-skew", []string{"G2"}},
}

// severityEdges is Elle's anomaly-severity-graph (consistency_model.clj
// 163-178): From is worse than each of To though it does not imply it. It
// only orders the cycle search.
var severityEdges = []edges{
	{"G0", []string{"G1c"}},
	{"G0-process", []string{"G1c-process"}},
	{"G0-realtime", []string{"G1c-realtime"}},
	{"G1c", []string{"G-single", "G2-item"}},
	{"G1c-process", []string{"G-single-process", "G2-item-process"}},
	{"G1c-realtime", []string{"G-single-realtime", "G2-item-realtime"}},
	{"G2", []string{"G0-process"}},
	{"G2-process", []string{"G0-realtime"}},
}

// proscribedEdges is Elle's direct-proscribed-anomalies
// (consistency_model.clj 408-520), in Elle's order and with Elle's names:
// a history with any of To violates model From. Stronger models inherit
// these through the model DAG; the names are canonicalized when the table is
// built (serializable's entry merges into PL-3's).
//
// Elle spells two Adya anomalies both ways: the implication table has GSIb
// and GSI, this one G-SIb and G-SI, so nothing links them. Kept as Elle has
// it, since Elle's results depend on it.
var proscribedEdges = []edges{
	{"causal-cerone", []string{"internal", "G1a"}},
	{"cursor-stability", []string{"G1", "G-cursor", "lost-update"}},
	{"monotonic-view", []string{"G1", "G-monotonic"}},
	{"monotonic-snapshot-read", []string{"G1", "G-MSR"}},
	{"consistent-view", []string{"G1", "G-single"}},
	{"forward-consistent-view", []string{"G1", "G-SIb"}},
	{"parallel-snapshot-isolation", []string{"internal", "G1a"}},
	{"PL-3", []string{"G1", "G2", "predicate-read-miss", "PL-3-cycle-exists"}},
	{"PL-2", []string{"G1", "PL-2-cycle-exists"}},
	{"PL-1", []string{"G0", "duplicate-elements", "cyclic-versions", "PL-1-cycle-exists"}},
	{"prefix", []string{"internal", "G1a"}},
	{"serializable", []string{"internal"}},
	{"snapshot-isolation", []string{"internal", "G1", "G-SI", "G-nonadjacent", "PL-SI-cycle-exists"}},
	{"read-atomic", []string{"internal", "G1a", "future-read"}},
	{"repeatable-read", []string{"G1", "G2-item", "PL-2.99-cycle-exists", "lost-update"}},
	{"update-atomic", []string{"lost-update"}},
	{"strict-serializable", []string{"G1", "G1c-realtime", "G2-realtime", "PL-SS-cycle-exists"}},
	{"strong-session-PL-1", []string{"strong-session-PL-1-cycle-exists", "G0-process"}},
	{"strong-session-PL-2", []string{"strong-session-PL-2-cycle-exists", "G1c-process"}},
	{"strong-PL-1", []string{"strong-PL-1-cycle-exists", "G0-realtime"}},
	{"strong-PL-2", []string{"strong-PL-2-cycle-exists", "G1c-realtime"}},
	{"strong-session-snapshot-isolation", []string{"internal", "G1-process", "G-nonadjacent-process",
		"strong-session-snapshot-isolation-cycle-exists"}},
	{"strong-snapshot-isolation", []string{"internal", "G1-realtime", "G-nonadjacent-realtime",
		"strong-snapshot-isolation-cycle-exists"}},
	{"strong-session-serializable", []string{"G1-process", "G2-process",
		"strong-session-serializable-cycle-exists"}},
	{"update-serializable", []string{"G1", "G-update"}},
}

// Anomaly types Elle's transactional checker reports without their making a
// history invalid: they make the verdict unknown (elle.txn
// unknown-anomaly-types).
const (
	// EmptyTransactionGraph: the dependency graph has no edges at all.
	EmptyTransactionGraph = "empty-transaction-graph"
	// CycleSearchTimeout: a component's cycle search ran out of budget.
	CycleSearchTimeout = "cycle-search-timeout"
)

// unknownTypes is elle.txn's unknown-anomaly-types.
var unknownTypes = []string{EmptyTransactionGraph, CycleSearchTimeout}

var (
	implied = newDAG(impliedEdges)

	// proscribed links canonical model names to anomaly types.
	proscribed = func() *dag {
		canon := make([]edges, len(proscribedEdges))
		for i, e := range proscribedEdges {
			canon[i] = edges{canonical(e.From), e.To}
		}
		return newDAG(canon)
	}()

	// depth is Elle's anomaly-depths (consistency_model.clj 522-536): the
	// topological depth in the implication and severity graphs together, 0
	// for a directly proscribed anomaly that is in neither.
	depth = func() map[string]int {
		// The tables are acyclic (TestTablesAreAcyclic); on a cycle, depths
		// would leave its vertices out.
		d, _ := newDAG(impliedEdges, severityEdges).depths()
		for _, e := range proscribedEdges {
			for _, a := range e.To {
				if _, seen := d[a]; !seen {
					d[a] = 0
				}
			}
		}
		return d
	}()

	// allAnomalies is Elle's all-anomalies (consistency_model.clj 549-552) in
	// Elle's order, followed by elle.txn's unknown-anomaly-types.
	allAnomalies = func() []string {
		var as []string
		for a := range depth {
			as = append(as, a)
		}
		slices.SortFunc(as, CompareDepth)
		return append(as, unknownTypes...)
	}()
)

// Anomalies returns every anomaly type Elle's lattice names (implied,
// severity and proscription tables), ordered by CompareDepth, followed by
// the two types that only make a verdict unknown (EmptyTransactionGraph,
// CycleSearchTimeout).
func Anomalies() []string { return slices.Clone(allAnomalies) }

// Known reports whether Anomalies includes name.
func Known(name string) bool {
	_, ok := depth[name]
	return ok || slices.Contains(unknownTypes, name)
}

// Depth returns an anomaly type's depth in Elle's implication and severity
// graphs (0: nothing implies it or is worse than it); -1 for a type not in
// them.
func Depth(anomaly string) int {
	if d, ok := depth[anomaly]; ok {
		return d
	}
	return -1
}

// CompareDepth orders anomaly types as Elle's anomaly-depth-compare
// (consistency_model.clj 538-547) does: by depth, then by name. An implying
// type always comes before the types it implies.
func CompareDepth(a, b string) int {
	if c := cmp.Compare(Depth(a), Depth(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// ImpliedAnomalies returns the given anomaly types and every type they imply
// (Elle's all-implied-anomalies, consistency_model.clj 187-192). A cycle
// search that found one of these in a component need not look for the
// others there.
func ImpliedAnomalies(types ...string) Set { return implied.reach(types, out) }

// AnomaliesImplying returns the given anomaly types and every type that
// implies one of them (Elle's all-anomalies-implying, consistency_model.clj
// 180-185).
func AnomaliesImplying(types ...string) Set { return implied.reach(types, in) }
