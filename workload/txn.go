package workload

import (
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/consistency"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/model"
)

func init() {
	register(withDocs(&Workload{
		Name: "list-append",
		Doc:  "docs/list-append.md",
		Owns: func(m *model.Mop) bool { return m.Kind == model.MopAppend || m.Kind == model.MopReadList },
		Check: func(h *model.History, p model.Pairing, o Options) *analysis.Result {
			return txn.CheckListAppend(h, p, txnOptions(o))
		},
		Flags: []string{"model", "cycle-budget"},
		Types: txnTypes("docs/list-append.md", txn.DuplicateAppends, []AnomalyType{
			{Name: txn.G1a, Meaning: "An ok transaction read an element that a failed transaction appended (aborted read)."},
			{Name: txn.G1b, Meaning: "An ok transaction read a list ending in an element another transaction later overwrote within itself (intermediate read)."},
			{Name: txn.Internal, Meaning: "A transaction read a key inconsistently with its own earlier reads and appends."},
			{Name: txn.FutureRead, Meaning: "A transaction read an element it only appends later in itself."},
			{Name: txn.IncompatibleOrder, Meaning: "Two reads of one key disagree: neither list is a prefix of the other."},
			{Name: txn.DuplicateElements, Meaning: "One read list holds an element more than once."},
			{Name: txn.DirtyUpdate, Meaning: "A failed transaction's element is followed in the version order by a committed transaction's."},
			{Name: txn.LostUpdate, Meaning: "Two committed transactions read the same state of a key and both appended to it."},
		}),
	}))
	register(withDocs(&Workload{
		Name: "rw-register",
		Doc:  "docs/rw-register.md",
		Owns: func(m *model.Mop) bool { return m.Kind == model.MopWrite || m.Kind == model.MopRead && m.Done },
		Check: func(h *model.History, p model.Pairing, o Options) *analysis.Result {
			return txn.CheckRWRegister(h, p, txnOptions(o))
		},
		Flags: []string{"model", "cycle-budget", "wfr-keys", "sequential-keys", "linearizable-keys", "transaction-order"},
		Types: txnTypes("docs/rw-register.md", txn.DuplicateWrites, []AnomalyType{
			{Name: txn.G1a, Meaning: "An ok transaction read a value that a failed transaction wrote (aborted read)."},
			{Name: txn.G1b, Meaning: "An ok transaction read a value its writer overwrote within itself (intermediate read)."},
			{Name: txn.Internal, Meaning: "A transaction read a key inconsistently with its own earlier reads and writes."},
			{Name: txn.FutureRead, Meaning: "A transaction read a value it only writes later in itself."},
			{Name: txn.LostUpdate, Meaning: "Two committed transactions read the same value of a key and both wrote it."},
			{Name: txn.CyclicVersions, Meaning: "A source of version order (--wfr-keys, --sequential-keys, --linearizable-keys, --transaction-order) contradicts the others for a key; it is dropped for that key."},
		}),
	}))
}

// txnOptions turns the command's options into the transactional checkers'.
func txnOptions(o Options) txn.Options {
	return txn.Options{Models: o.Models, Anomalies: o.Anomalies, CycleBudget: o.CycleBudget, Series: o.Series,
		WFRKeys: o.WFRKeys, SequentialKeys: o.SequentialKeys, LinearizableKeys: o.LinearizableKeys,
		TransactionOrder: o.TransactionOrder}
}

// ValidateModels checks --model names (Elle's names and aliases) and
// returns an error listing the known ones for an unknown name.
func ValidateModels(models []string) error {
	_, err := consistency.ParseModels(models)
	return err
}

// cycleMeanings say what each base cycle type is, in a sentence.
var cycleMeanings = map[string]string{
	txn.G0:               "A cycle of write-write dependencies: the transactions' writes are ordered differently on different keys.",
	txn.G1c:              "A cycle of write-write and write-read dependencies, at least one a read: circular information flow.",
	txn.GSingleItem:      "A dependency cycle with exactly one anti-dependency (a read that missed a write): read skew.",
	txn.GNonadjacentItem: "A dependency cycle with two or more anti-dependencies, no two in a row.",
	txn.G2Item:           "A dependency cycle with two or more anti-dependencies, two of them in a row: write skew and its kin.",
}

// txnTypes completes the non-cycle types of a transactional workload with
// the ones every such workload shares: garbage reads, the undecided types,
// the cycle types and their forms, and the cycle-exists types.
func txnTypes(doc, duplicates string, own []AnomalyType) []AnomalyType {
	const byModel = "bad under the consistency models that forbid it (--model; the JSON's not and also_not say which it rules out)"
	for i := range own {
		own[i].Severity, own[i].When = Conditional, byModel
	}
	ts := append(own,
		AnomalyType{Name: txn.GarbageRead, Meaning: "A read returned a value that no transaction in the history wrote.",
			When: "always, under every model"},
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
		ts = append(ts, AnomalyType{Name: ct.Name, Meaning: m, Severity: Conditional, When: byModel})
	}
	for _, p := range consistency.Projections() {
		ts = append(ts, AnomalyType{Name: p.Anomaly(), Severity: Conditional,
			Meaning: "A cycle exists in the part of the dependency graph that " + p.Not() + " must keep acyclic; no more specific anomaly was found to show it.",
			When:    "bad under " + p.Not() + " and every stronger model",
			Doc:     doc + "#" + strings.ToLower(p.Anomaly())})
	}
	return append(ts,
		duplicatesType(duplicates),
		AnomalyType{Name: txn.EmptyTransactionGraph, Severity: Undecided,
			Meaning: "No transaction depends on another, so nothing could be judged.",
			When:    "never bad; the verdict is at best unknown"},
		AnomalyType{Name: txn.CycleSearchTimeout, Severity: Undecided,
			Meaning: "The cycle search of a component ran out of its budget (--cycle-budget); cycles may be missing.",
			When:    "never bad; the verdict is at best unknown"},
	)
}

// duplicatesType describes the workload's undecided type for a value
// written twice: duplicate-appends or duplicate-writes.
func duplicatesType(name string) AnomalyType {
	t := AnomalyType{Name: name, Severity: Undecided, When: "never bad; the verdict is at best unknown",
		Meaning: "One value was appended to one key more than once, so that key's order cannot be inferred; it is left out."}
	if name == txn.DuplicateWrites {
		t.Meaning = "One value was written to one key by more than one transaction and read, so which write the read saw cannot be told; the key is left out."
	}
	return t
}
