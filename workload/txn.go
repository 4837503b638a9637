package workload

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/consistency"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/txnview"
)

func init() {
	register(&Workload{
		Name: txn.ListAppend,
		Doc:  txn.ListAppendDoc,
		Owns: func(k model.MopKind, _ bool) bool { return k == model.MopAppend || k == model.MopReadList },
		Check: func(h *model.History, p model.Pairing, o Options) *analysis.Result {
			return txn.CheckListAppend(h, p, txnOptions(o))
		},
		Flags:        []string{"model", "cycle-budget"},
		Memory:       MemoryLiveHeap,
		IgnoresTimes: true,
		Types:        txn.ListAppendCatalogue(),
		ExplainStep:  stepIn(txn.ListAppend),
		Layout:       txnview.Layout{List: true, Unit: "elements"},
	})
	register(&Workload{
		Name: txn.RWRegister,
		Doc:  txn.RWRegisterDoc,
		Owns: func(k model.MopKind, done bool) bool { return k == model.MopWrite || k == model.MopRead && done },
		Check: func(h *model.History, p model.Pairing, o Options) *analysis.Result {
			return txn.CheckRWRegister(h, p, txnOptions(o))
		},
		Flags:        []string{"model", "cycle-budget", "wfr-keys", "sequential-keys", "linearizable-keys", "transaction-order"},
		Memory:       MemoryLiveHeap,
		IgnoresTimes: true,
		Types:        txn.RWRegisterCatalogue(),
		ExplainStep:  stepIn(txn.RWRegister),
		Layout:       txnview.Layout{Unit: "values", Sources: txn.VersionSources},
	})
}

// stepIn is the step explainer of the transactional workload w.
func stepIn(w string) func(analysis.Step, catalog.OpLookup) string {
	return func(st analysis.Step, lookup catalog.OpLookup) string { return txn.ExplainStep(w, st, lookup) }
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
