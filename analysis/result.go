// Package analysis defines what every checker returns: a verdict, the anomaly
// instances with their witnesses, statistics, and the time series and
// version orders the HTML report draws. Checkers live in subpackages
// (analysis/queue, analysis/txn, analysis/abort); they return a *Result and
// never print. Package report turns a Result into text, JSON or HTML without
// searching the history again.
//
// An anomaly instance is of its workload's own type (queue.Instance,
// txn.Instance, abort.Instance), which embeds the pieces every instance
// shares: Subject (the key), *CycleFields (a cycle, its steps and what
// they rest on; nil for the other types) and Evidence (allowed, truncated,
// witness). Instance is the interface those pieces give it; a Result holds
// pointers, and code that serves every workload (Result.Finish, the
// report's shared parts, scan's rows, the proof checker) reads only the
// interface, and Listed for the values a row names. Stats likewise: the
// counts every workload keeps are Stats' fields, a workload's own counts
// its own struct in Stats.Own, and Stats.MarshalJSON writes the v1 stats
// object of docs/README.md#json-output from both.
package analysis

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/internal/version"
)

// Schema is the version tag of the JSON result (docs/README.md#json-output).
const Schema = "hindsight.check/v1"

// Verdict is the outcome of a check.
type Verdict uint8

// Verdicts. Unknown always comes with at least one reason in
// Result.UnknownReasons.
const (
	Valid Verdict = iota
	Invalid
	Unknown
)

// String returns "valid", "invalid" or "unknown".
func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "unknown"
}

// MarshalJSON writes true, false or "unknown", the `valid` field of results.md.
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch v {
	case Valid:
		return []byte("true"), nil
	case Invalid:
		return []byte("false"), nil
	}
	return []byte(`"unknown"`), nil
}

// ExitCode maps a verdict to the process exit status of
// docs/README.md#exit-status.
func (v Verdict) ExitCode() int {
	switch v {
	case Valid:
		return 0
	case Invalid:
		return 1
	}
	return 2
}

// Options echoes the options a check ran with; each workload fills the
// ones it reads (the others stay out of the JSON).
type Options struct {
	WWDeps         *bool    `json:"ww_deps,omitempty"`
	SubVia         string   `json:"sub_via,omitempty"`
	CycleBudgetS   float64  `json:"cycle_budget_s"`
	StallThreshold *float64 `json:"stall_threshold_s,omitempty"`
	// Anomalies are the extra anomaly types a transactional check was asked
	// to rule out (Elle's :anomalies).
	Anomalies []string `json:"anomalies,omitempty"`
	// The version-order sources an rw-register check used (nil for other
	// workloads).
	WFRKeys          *bool `json:"wfr_keys,omitempty"`
	SequentialKeys   *bool `json:"sequential_keys,omitempty"`
	LinearizableKeys *bool `json:"linearizable_keys,omitempty"`
	// TransactionOrder is the number of txns an rw-register check was given
	// a commit order for (Elle's :transaction-order), when it was.
	TransactionOrder *int64 `json:"transaction_order,omitempty"`
	// AbortContract is the contract an abort check judged by ("kafka" or
	// "rewind"; analysis/abort).
	AbortContract string `json:"abort_contract,omitempty"`
}

// Result is the outcome of checking one history.
type Result struct {
	// Schema is the format's version (Schema, "hindsight.check/v1"): fields
	// are only ever added; it changes if one must change.
	Schema string `json:"schema"`
	// Source names the history: model.History.Source, a path or "-".
	Source string `json:"source"`
	// SHA256 and Bytes are the SHA-256 (hex) and size of the history's
	// bytes as stored (package check fills them; a scan row's sha256 and
	// size_bytes are the same), so that results can be matched across
	// runs (hindsight diff). Left out when unknown.
	SHA256 string `json:"sha256,omitempty"`
	Bytes  int64  `json:"bytes,omitempty"`
	// Workload is the registry's name of the workload checked (detected,
	// or given with --workload).
	Workload string `json:"workload"`
	// Verdict is the history's: true, false or "unknown" in the JSON.
	Verdict Verdict `json:"valid"`
	// AnomalyTypes are the types with at least one instance, sorted;
	// BadTypes those of them that make the history invalid (Finish).
	AnomalyTypes []string `json:"anomaly_types"`
	BadTypes     []string `json:"bad_anomaly_types"`
	// UnknownReasons say, in a sentence each, what the check could not
	// decide; any of them makes a history without bad types unknown.
	UnknownReasons []string `json:"unknown_reasons"`
	// Warnings are what reading the history noticed but could judge
	// anyway (model.History.Warnings).
	Warnings []string `json:"warnings,omitempty"`
	// Anomalies maps each type to every instance of it, sorted by lowest
	// op index, then key.
	Anomalies map[string][]Instance `json:"anomalies"`
	// Models, Not and AlsoNot belong to the transactional workloads: the
	// consistency models checked (canonical names), and the models the
	// anomalies found rule out, weakest first and the stronger rest (Elle's
	// :not and :also-not). Nil for other workloads, and then left out.
	Models  []string `json:"models,omitzero"`
	Not     []string `json:"not,omitzero"`
	AlsoNot []string `json:"also_not,omitzero"`
	// PairCounts belongs to the abort workload: every pair of polls,
	// counted by the outcome of its first poll, its class and whether a
	// rebalance came with it (analysis/abort). Nil for other workloads.
	PairCounts []PairCount `json:"pair_counts,omitempty"`
	Stats      Stats       `json:"stats"`
	Options    Options     `json:"options"`
	// ProvenCycles counts, for each anomaly type with cycle instances,
	// how many of them are proven (CycleFields.Proof); Finish fills it. Nil,
	// and left out, when no instance has a proof state.
	ProvenCycles map[string]int64 `json:"proven_cycles,omitempty"`
	// Hindsight is the build that produced the result (package check fills
	// it), so that a result kept for months can be reproduced.
	Hindsight *version.Info `json:"hindsight,omitempty"`
	Series    Series        `json:"-"`
}

// Add appends an instance of type typ, sorting its witness.
func (r *Result) Add(typ string, in Instance) {
	if r.Anomalies == nil {
		r.Anomalies = map[string][]Instance{}
	}
	e := in.InstanceEvidence()
	slices.Sort(e.Witness)
	e.Witness = slices.Compact(e.Witness)
	r.Anomalies[typ] = append(r.Anomalies[typ], in)
}

// Finish sorts instances (by lowest op index in the witness, then key, then
// the order they were found), fills AnomalyTypes and BadTypes using bad, and
// sets the verdict: invalid if any bad type, else unknown if there are
// reasons, else valid.
func (r *Result) Finish(bad func(typ string, in Instance) bool) {
	r.AnomalyTypes, r.BadTypes = r.AnomalyTypes[:0], r.BadTypes[:0]
	if r.UnknownReasons == nil {
		r.UnknownReasons = []string{}
	}
	for typ, ins := range r.Anomalies {
		if len(ins) == 0 {
			delete(r.Anomalies, typ)
			continue
		}
		sortInstances(ins)
		r.AnomalyTypes = append(r.AnomalyTypes, typ)
		if slices.ContainsFunc(ins, func(in Instance) bool { return bad(typ, in) }) {
			r.BadTypes = append(r.BadTypes, typ)
		}
	}
	slices.Sort(r.AnomalyTypes)
	slices.Sort(r.BadTypes)
	r.ProvenCycles = nil
	for typ, ins := range r.Anomalies {
		for _, in := range ins {
			c := in.InstanceCycle()
			if c == nil || c.Proof == "" {
				continue
			}
			if r.ProvenCycles == nil {
				r.ProvenCycles = map[string]int64{}
			}
			n := r.ProvenCycles[typ]
			if c.Proof == Proven {
				n++
			}
			r.ProvenCycles[typ] = n
		}
	}
	if r.AnomalyTypes == nil {
		r.AnomalyTypes = []string{}
	}
	if r.BadTypes == nil {
		r.BadTypes = []string{}
	}
	if r.Anomalies == nil {
		r.Anomalies = map[string][]Instance{}
	}
	switch {
	case len(r.BadTypes) > 0:
		r.Verdict = Invalid
	case len(r.UnknownReasons) > 0:
		r.Verdict = Unknown
	default:
		r.Verdict = Valid
	}
}

// compareInstances is the order of a type's instances (Finish): by
// lowest witness op, then by key (an instance without one first), and
// equal otherwise (a stable sort keeps them in the order found).
func compareInstances(a, b Instance) int {
	if c := cmp.Compare(lowest(a.InstanceEvidence().Witness), lowest(b.InstanceEvidence().Witness)); c != 0 {
		return c
	}
	return compareKeys(a.InstanceKey(), b.InstanceKey())
}

// compareKeys orders two instance keys, nil first.
func compareKeys(a, b *Value) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	case a.Less(b.Atom):
		return -1
	case b.Less(a.Atom):
		return 1
	}
	return 0
}

// sortInstances sorts ins as slices.SortStableFunc(ins, compareInstances)
// does, in O(n log n) and with each instance's key made once: it sorts
// their lowest witnesses, read once into an array, with their positions
// to break ties (on every core, par.SortFunc, for a large list), and only
// each run of instances that share a lowest witness by key. The stable
// sort it replaced compared through two interface calls, each making a
// compact instance's key afresh (analysis.Lazy), and its merges moved
// O(n log² n) elements: 1.2M queue poll-skip instances that all share
// their lowest witness (the history's first send) took 5.5 s of a check
// to sort. BenchmarkSortInstances (210,075 instances in random order,
// 2026-12-08): 39 ms against the stable sort's 202 ms where no two share
// their lowest witness, 100 ms against 205 ms where all do. It holds the
// keys of one run at a time and puts the instances in order in place: a
// first cut that kept every key to the end and the order in a copy took
// the check of 2.1M rw-register garbage reads and internal reads from a
// peak of 682-691 MiB (the stable sort's) to 743-790; this one peaks at
// 703-713 (two runs each, GNU time).
func sortInstances(ins []Instance) {
	if len(ins) < 2 {
		return
	}
	type keyed struct {
		low int64
		at  int
	}
	ks := make([]keyed, len(ins))
	for i, in := range ins {
		ks[i] = keyed{low: lowest(in.InstanceEvidence().Witness), at: i}
	}
	sortKeyed(ks, func(a, b keyed) int {
		if a.low != b.low {
			return cmp.Compare(a.low, b.low)
		}
		return cmp.Compare(a.at, b.at)
	})
	// each run of one low by key: the keys of one run at a time, let go
	// after it (a compact instance makes its key afresh)
	type keyAt struct {
		key *Value
		at  int
	}
	var run []keyAt
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ks[j].low == ks[i].low {
			j++
		}
		if j-i > 1 {
			run = run[:0]
			for _, k := range ks[i:j] {
				run = append(run, keyAt{ins[k.at].InstanceKey(), k.at})
			}
			sortKeyed(run, func(a, b keyAt) int {
				if c := compareKeys(a.key, b.key); c != 0 {
					return c
				}
				return cmp.Compare(a.at, b.at)
			})
			for x, r := range run {
				ks[i+x].at = r.at
			}
			clear(run)
		}
		i = j
	}
	// ins[i] = the old ins[ks[i].at], in place, cycle by cycle (at -1:
	// placed)
	for i := range ks {
		if ks[i].at < 0 || ks[i].at == i {
			continue
		}
		first, j := ins[i], i
		for {
			k := ks[j].at
			ks[j].at = -1
			if k == i {
				ins[j] = first
				break
			}
			ins[j] = ins[k]
			j = k
		}
	}
}

// sortKeyed sorts s by c, on every core when it is long.
func sortKeyed[E any](s []E, c func(a, b E) int) {
	if len(s) < keyedSortMin {
		slices.SortFunc(s, c)
	} else {
		par.SortFunc(s, c)
	}
}

// keyedSortMin is the fewest elements sortKeyed sorts on every core.
const keyedSortMin = 4096

func lowest(w []int64) int64 {
	if len(w) == 0 {
		return 1<<63 - 1
	}
	return w[0] // witnesses are sorted by Add
}

// InstancesOf returns the instances of type typ that are of the workload
// instance type T, in the result's order (the others left out), a Lazy
// instance as the full one it stands for (built afresh). O(n) in the
// type's instances.
func InstancesOf[T Instance](r *Result, typ string) []T {
	var out []T
	for _, in := range r.Anomalies[typ] {
		if t, ok := Full(in).(T); ok {
			out = append(out, t)
		}
	}
	return out
}
