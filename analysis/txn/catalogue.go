package txn

import (
	"strings"

	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/consistency"
)

// The transactional workloads' names in the registry and the JSON, and
// their documentation pages (each type has a section headed by its name).
const (
	ListAppend    = "list-append"
	RWRegister    = "rw-register"
	ListAppendDoc = "docs/list-append.md"
	RWRegisterDoc = "docs/rw-register.md"
)

// byModel is When of the types the consistency models decide.
const byModel = "bad under the consistency models that forbid it (--model; the JSON's not and also_not say which it rules out)"

// ListAppendCatalogue returns the entry of every anomaly type the
// list-append checker reports, in the order summaries list them (package
// catalog): its own non-cycle types, then those both transactional
// workloads share (catalogue).
func ListAppendCatalogue() []catalog.Entry {
	w := ListAppend
	return catalogue(w, ListAppendDoc, DuplicateAppends, []catalog.Entry{
		{Name: G1a, Meaning: "An ok transaction read an element that a failed transaction appended (aborted read).",
			Explain: wording(w, G1a, explainG1a)},
		{Name: G1b, Meaning: "An ok transaction read a list ending in an element another transaction later overwrote within itself (intermediate read).",
			Explain: wording(w, G1b, explainG1bList)},
		{Name: Internal, Meaning: "A transaction read a key inconsistently with its own earlier reads and appends.",
			Explain: wording(w, Internal, explainInternal)},
		{Name: FutureRead, Meaning: "A transaction read an element it only appends later in itself.",
			Explain: wording(w, FutureRead, explainFutureReadList)},
		{Name: IncompatibleOrder, Meaning: "Two reads of one key disagree: neither list is a prefix of the other.",
			Explain: wording(w, IncompatibleOrder, explainIncompatibleOrder), SideBySide: true},
		{Name: DuplicateElements, Meaning: "One read list holds an element more than once.",
			Explain: wording(w, DuplicateElements, explainDuplicateElements)},
		{Name: DirtyUpdate, Meaning: "A failed transaction's element is followed in the version order by a committed transaction's.",
			Explain: wording(w, DirtyUpdate, explainDirtyUpdate)},
		{Name: LostUpdate, Meaning: "Two committed transactions read the same state of a key and both appended to it.",
			Explain: wording(w, LostUpdate, explainLostUpdate)},
	})
}

// RWRegisterCatalogue returns the entry of every anomaly type the
// rw-register checker reports, in the order summaries list them.
func RWRegisterCatalogue() []catalog.Entry {
	w := RWRegister
	return catalogue(w, RWRegisterDoc, DuplicateWrites, []catalog.Entry{
		{Name: G1a, Meaning: "An ok transaction read a value that a failed transaction wrote (aborted read).",
			Explain: wording(w, G1a, explainG1a)},
		{Name: G1b, Meaning: "An ok transaction read a value its writer overwrote within itself (intermediate read).",
			Explain: wording(w, G1b, explainG1bRegister)},
		{Name: Internal, Meaning: "A transaction read a key inconsistently with its own earlier reads and writes.",
			Explain: wording(w, Internal, explainInternal)},
		{Name: FutureRead, Meaning: "A transaction read a value it only writes later in itself.",
			Explain: wording(w, FutureRead, explainFutureReadRegister)},
		{Name: LostUpdate, Meaning: "Two committed transactions read the same value of a key and both wrote it.",
			Explain: wording(w, LostUpdate, explainLostUpdate)},
		{Name: CyclicVersions, Meaning: "A source of version order (--wfr-keys, --sequential-keys, --linearizable-keys, --transaction-order) contradicts the others for a key; it is dropped for that key.",
			Explain: wording(w, CyclicVersions, cyclicVersions)},
	})
}

// cycleMeanings say what each base cycle type is, in a sentence.
var cycleMeanings = map[string]string{
	G0:               "A cycle of write-write dependencies: the transactions' writes are ordered differently on different keys.",
	G1c:              "A cycle of write-write and write-read dependencies, at least one a read: circular information flow.",
	GSingleItem:      "A dependency cycle with exactly one anti-dependency (a read that missed a write): read skew.",
	GNonadjacentItem: "A dependency cycle with two or more anti-dependencies, no two in a row.",
	G2Item:           "A dependency cycle with two or more anti-dependencies, two of them in a row: write skew and its kin.",
}

// catalogue completes the non-cycle types of a transactional workload
// with the ones every such workload shares: garbage reads, the cycle types
// and their forms (consistency.CycleTypes), the cycle-exists types
// (consistency.Projections), and the undecided types.
func catalogue(w, doc, duplicates string, own []catalog.Entry) []catalog.Entry {
	for i := range own {
		own[i].Severity, own[i].When = catalog.Conditional, byModel
	}
	es := append(own,
		catalog.Entry{Name: GarbageRead, Meaning: "A read returned a value that no transaction in the history wrote.",
			When: "always, under every model", Explain: wording(w, GarbageRead, explainGarbageRead)},
	)
	for _, ct := range consistency.CycleTypes() {
		if ct.Predicate {
			continue
		}
		m := cycleMeanings[ct.Base]
		switch {
		case strings.HasSuffix(ct.Name, "-process"):
			m = strings.TrimSuffix(m, ".") + ", with process order."
		case strings.HasSuffix(ct.Name, "-realtime"):
			m = strings.TrimSuffix(m, ".") + ", with realtime order."
		}
		es = append(es, catalog.Entry{Name: ct.Name, Meaning: m, Severity: catalog.Conditional, When: byModel,
			Explain: wording(w, ct.Name, nil)})
	}
	for _, p := range consistency.Projections() {
		es = append(es, catalog.Entry{Name: p.Anomaly(), Severity: catalog.Conditional,
			Meaning: "A cycle exists in the part of the dependency graph that " + p.Not() + " must keep acyclic; no more specific anomaly was found to show it.",
			When:    "bad under " + p.Not() + " and every stronger model",
			Doc:     doc + "#" + strings.ToLower(p.Anomaly()),
			Explain: wording(w, p.Anomaly(), nil)})
	}
	dup := catalog.Entry{Name: duplicates, Severity: catalog.Undecided, When: "never bad; the verdict is at best unknown",
		Meaning: "One value was appended to one key more than once, so that key's order cannot be inferred; it is left out.",
		Explain: wording(w, duplicates, explainDuplicateAppends)}
	if duplicates == DuplicateWrites {
		dup.Explain = wording(w, duplicates, explainDuplicateWrites)
		dup.Meaning = "One value was written to one key by more than one transaction and read, so which write the read saw cannot be told; the key is left out."
	}
	return catalog.Complete(w, doc, append(es, dup,
		catalog.Entry{Name: EmptyTransactionGraph, Severity: catalog.Undecided,
			Meaning: "No transaction depends on another, so nothing could be judged.",
			When:    "never bad; the verdict is at best unknown",
			Explain: wording(w, EmptyTransactionGraph, explainEmptyGraph)},
		catalog.Entry{Name: CycleSearchTimeout, Severity: catalog.Undecided,
			Meaning: "The cycle search of a component ran out of its budget (--cycle-budget); cycles may be missing.",
			When:    "never bad; the verdict is at best unknown",
			Explain: wording(w, CycleSearchTimeout, explainCycleSearchTimeout)},
	))
}
