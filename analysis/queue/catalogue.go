package queue

import (
	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

// Workload is the queue workload's name in the registry and the JSON.
const Workload = "queue"

// Doc is the queue workload's documentation page; each type has a section
// headed by its name.
const Doc = "docs/queue.md"

const (
	subVia = "bad for a consumer that assigned its partitions, allowed for one that subscribed (--sub-via overrides)"
	wwOnly = "bad, except under --ww-deps when its shortest cycle needs a write-write edge"
)

// Catalogue returns the entry of every anomaly type the queue checker
// reports, in the order summaries list them (package catalog). A new type
// gets its constant in types.go, its explanation in explain.go, its entry
// here and its section in docs/queue.md.
func Catalogue() []catalog.Entry {
	return catalog.Complete(Workload, Doc, []catalog.Entry{
		{Name: InconsistentOffsets, Meaning: "One offset of a key holds two or more different values: the log is not a single sequence.",
			Explain: catalog.Own(explainInconsistentOffsets), Mark: catalog.Mark{Symbol: "diamond", Color: "#9467bd", Place: catalog.AtOpsOffset}},
		{Name: Duplicate, Meaning: "One value of a key sits at two or more offsets: a message was written twice.",
			Explain: catalog.Own(explainDuplicate), Mark: catalog.Mark{Symbol: "rect", Color: "#ff7f0e", Place: catalog.AtOffsets}},
		{Name: G1a, Meaning: "An ok poll read a value whose send failed (aborted read).",
			Explain: catalog.Own(explainG1a), Mark: catalog.Mark{Symbol: "roundRect", Color: "#bcbd22", Place: catalog.AtReader}},
		{Name: PrecommittedRead, Meaning: "An op read a value it sent itself, before it committed.",
			Explain: catalog.Own(explainPrecommittedRead), Mark: catalog.Mark{Place: catalog.AtOp}},
		{Name: LostWrite, Meaning: "An acknowledged value was never read, although consumers read past its offset.",
			Explain: catalog.Own(explainLostWrite), Mark: catalog.Mark{Symbol: "pin", Color: "#d62728", Place: catalog.AtWriter}},
		{Name: Unseen, Meaning: "Acknowledged values that no ok poll ever read, by the end of the history.",
			Explain: catalog.Own(explainUnseen), Mark: catalog.Mark{Symbol: "emptyCircle", Color: "#8c564b", Place: catalog.AtUnseenSends}},
		{Name: PollSkip, Meaning: "A consumer's next poll started past where its previous poll ended, skipping values.",
			Severity: catalog.Conditional, When: subVia,
			Explain: catalog.Own(explainPollSkip), Mark: catalog.Mark{Symbol: "triangle", Color: "#e377c2", Place: catalog.AtLaterOp}},
		{Name: NonmonotonicPoll, Meaning: "A consumer's next poll started at or before where its previous poll ended.",
			Severity: catalog.Conditional, When: subVia,
			Explain: catalog.Own(explainNonmonotonicPoll), Mark: catalog.Mark{Symbol: "emptyTriangle", Color: "#e377c2", Place: catalog.AtLaterOp}},
		{Name: NonmonotonicSend, Meaning: "A process's next send to a key landed at or before its previous one.",
			Explain: catalog.Own(explainNonmonotonicSend), Mark: catalog.Mark{Symbol: "emptyRect", Color: "#ff7f0e", Place: catalog.AtLaterOp}},
		{Name: IntPollSkip, Meaning: "Inside one op, consecutive values read from a key skip positions.",
			Explain: catalog.Own(explainIntPollSkip), Mark: catalog.Mark{Place: catalog.AtOpSecond}},
		{Name: IntNonmonotonicPoll, Meaning: "Inside one op, consecutive values read from a key go backwards or repeat.",
			Explain: catalog.Own(explainIntNonmonotonicPoll), Mark: catalog.Mark{Place: catalog.AtOpSecond}},
		{Name: IntSendSkip, Meaning: "Inside one op, consecutive sends to a key are not adjacent (other producers interleave).",
			Severity: catalog.Informational, When: "never: other producers may write between them",
			Explain: catalog.Own(explainIntSendSkip), Mark: catalog.Mark{Place: catalog.AtOpSecond}},
		{Name: IntNonmonotonicSend, Meaning: "Inside one op, consecutive sends to a key land backwards or at one position.",
			Explain: catalog.Own(explainIntNonmonotonicSend), Mark: catalog.Mark{Place: catalog.AtOpSecond}},
		{Name: G0, Meaning: "A cycle of write-write dependencies.", Severity: catalog.Informational,
			When:    "never: Kafka does not isolate writes (found only with --ww-deps)",
			Explain: catalog.Own(explainCycle("the writes of these ops are ordered differently on different keys, a G0 (write cycle)"))},
		{Name: G0Process, Meaning: "A cycle of write-write and process-order dependencies.", Severity: catalog.Informational,
			When:    "never (found only with --ww-deps)",
			Explain: catalog.Own(explainCycle("with process order, the writes form a cycle, a G0-process"))},
		{Name: G0Realtime, Meaning: "A cycle of write-write and realtime dependencies.", Severity: catalog.Informational,
			When:    "never (found only with --ww-deps)",
			Explain: catalog.Own(explainCycle("with realtime order, the writes form a cycle, a G0-realtime"))},
		{Name: G1c, Meaning: "A cycle of read (and write) dependencies: each op saw the next op's effect.",
			Severity: catalog.Conditional, When: wwOnly,
			Explain: catalog.Own(explainCycle("each op saw the effect of the next, all the way round, a G1c cycle"))},
		{Name: G1cProcess, Meaning: "A G1c cycle that also follows process order.",
			Severity: catalog.Conditional, When: wwOnly,
			Explain: catalog.Own(explainCycle("with process order, each op saw the effect of the next, all the way round, a G1c-process cycle"))},
		{Name: G1cRealtime, Meaning: "A G1c cycle that also follows realtime order: some op saw the future.",
			Severity: catalog.Conditional, When: wwOnly,
			Explain: catalog.Own(explainCycle("with realtime order, each op depends on the next, all the way round, a G1c-realtime cycle: some op saw the future"))},
		{Name: GarbageRead, Meaning: "An op read a value that no op in the history ever sent.",
			Explain: catalog.Own(explainGarbageRead), Mark: catalog.Mark{Symbol: "arrow", Color: "#17becf", Place: catalog.AtReader}},
		{Name: TornTransaction, Meaning: "An op's sends were not atomic: some of its values were read, others lost.",
			Explain: catalog.Own(explainTornTransaction), Mark: catalog.Mark{Symbol: "emptyDiamond", Color: "#d62728", Place: catalog.AtMissing}},
		{Name: StalledConsumer, Meaning: "A consumer polled again and again without progress while newer offsets were acknowledged.",
			Severity: catalog.Informational, When: "never; reported when a stall lasts at least --stall-threshold",
			Explain: catalog.Own(explainStalledConsumer), Mark: catalog.Mark{Color: "#d62728", Place: catalog.Segment}},
	})
}

// names lists the names of entries, in order.
func names(es []catalog.Entry) []string {
	ns := make([]string, len(es))
	for i, e := range es {
		ns[i] = e.Name
	}
	return ns
}

// informational are the names of the types that never make a history
// invalid.
func informational(es []catalog.Entry) map[string]bool {
	m := map[string]bool{}
	for _, e := range es {
		if e.Severity == catalog.Informational {
			m[e.Name] = true
		}
	}
	return m
}
