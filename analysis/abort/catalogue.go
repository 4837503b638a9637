package abort

import (
	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

// Catalogue returns the entry of every anomaly type the abort checker
// reports, in the order summaries list them (package catalog). A new type
// gets its constant in types.go, its explanation in explain.go, its entry
// here and its section in docs/abort.md.
func Catalogue() []catalog.Entry {
	never := func(why string) string { return "never: " + why }
	es := []catalog.Entry{
		{Name: CommittedRedelivery, Meaning: "A poll started below its topic's committed position: records a committed transaction consumed were delivered again."},
		{Name: AbortOther, Meaning: "After an abort, the next poll started inside the aborted range, or before it at no resume point: some aborted records were skipped, others delivered again."},
		{Name: IntNonmonotonicPoll, Meaning: "Inside one poll, the offsets read go backwards or repeat.", Explain: catalog.Own(explainIntNonmonotonicPoll)},
		{Name: AbortAdvance, Severity: catalog.Conditional, When: "allowed under --abort-contract kafka (the default), bad under rewind",
			Meaning: "After an abort, the next poll started past every record the aborted transaction read: they are not delivered again."},
		{Name: AbortRewind, Severity: catalog.Informational, When: never("a consumer sent back to the aborted records is what both contracts allow"),
			Meaning: "After an abort, the next poll started at the aborted transaction's first record."},
		{Name: AbortRewindFurther, Severity: catalog.Informational, When: never("a rebalance may send a consumer back to the committed position"),
			Meaning: "After an abort, the next poll started before the aborted transaction's first record, at the committed position or an earlier aborted poll's start."},
		{Name: UnknownOutcomePair, Meaning: "A pair of polls whose first poll's outcome is unknown (info): not judged.",
			Severity: catalog.Informational, When: never("the first poll may have committed or not")},
	}
	for i := range es {
		if es[i].Explain == nil { // every pair type
			es[i].Explain = explainAnyPair
		}
	}
	return catalog.Complete(Workload, Doc, es)
}
