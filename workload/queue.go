package workload

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/model"
)

func init() {
	register(withDocs(&Workload{
		Name: "queue",
		Doc:  "docs/queue.md",
		Owns: func(m *model.Mop) bool { return m.Kind == model.MopSend || m.Kind == model.MopPoll },
		Check: func(h *model.History, p model.Pairing, o Options) *analysis.Result {
			return queue.Check(h, p, queueOptions(o))
		},
		Flags: []string{"ww-deps", "sub-via", "cycle-budget", "stall-threshold"},
		Types: []AnomalyType{
			{Name: queue.InconsistentOffsets, Meaning: "One offset of a key holds two or more different values: the log is not a single sequence."},
			{Name: queue.Duplicate, Meaning: "One value of a key sits at two or more offsets: a message was written twice."},
			{Name: queue.G1a, Meaning: "An ok poll read a value whose send failed (aborted read)."},
			{Name: queue.PrecommittedRead, Meaning: "An op read a value it sent itself, before it committed."},
			{Name: queue.LostWrite, Meaning: "An acknowledged value was never read, although consumers read past its offset."},
			{Name: queue.Unseen, Meaning: "Acknowledged values that no ok poll ever read, by the end of the history."},
			{Name: queue.PollSkip, Meaning: "A consumer's next poll started past where its previous poll ended, skipping values.",
				Severity: Conditional, When: "bad for a consumer that assigned its partitions, allowed for one that subscribed (--sub-via overrides)"},
			{Name: queue.NonmonotonicPoll, Meaning: "A consumer's next poll started at or before where its previous poll ended.",
				Severity: Conditional, When: "bad for a consumer that assigned its partitions, allowed for one that subscribed (--sub-via overrides)"},
			{Name: queue.NonmonotonicSend, Meaning: "A process's next send to a key landed at or before its previous one."},
			{Name: queue.IntPollSkip, Meaning: "Inside one op, consecutive values read from a key skip positions."},
			{Name: queue.IntNonmonotonicPoll, Meaning: "Inside one op, consecutive values read from a key go backwards or repeat."},
			{Name: queue.IntSendSkip, Meaning: "Inside one op, consecutive sends to a key are not adjacent (other producers interleave).",
				Severity: Informational, When: "never: other producers may write between them"},
			{Name: queue.IntNonmonotonicSend, Meaning: "Inside one op, consecutive sends to a key land backwards or at one position."},
			{Name: queue.G0, Meaning: "A cycle of write-write dependencies.", Severity: Informational,
				When: "never: Kafka does not isolate writes (found only with --ww-deps)"},
			{Name: queue.G0Process, Meaning: "A cycle of write-write and process-order dependencies.", Severity: Informational,
				When: "never (found only with --ww-deps)"},
			{Name: queue.G0Realtime, Meaning: "A cycle of write-write and realtime dependencies.", Severity: Informational,
				When: "never (found only with --ww-deps)"},
			{Name: queue.G1c, Meaning: "A cycle of read (and write) dependencies: each op saw the next op's effect.",
				Severity: Conditional, When: "bad, except under --ww-deps when its shortest cycle needs a write-write edge"},
			{Name: queue.G1cProcess, Meaning: "A G1c cycle that also follows process order.",
				Severity: Conditional, When: "bad, except under --ww-deps when its shortest cycle needs a write-write edge"},
			{Name: queue.G1cRealtime, Meaning: "A G1c cycle that also follows realtime order: some op saw the future.",
				Severity: Conditional, When: "bad, except under --ww-deps when its shortest cycle needs a write-write edge"},
			{Name: queue.GarbageRead, Meaning: "An op read a value that no op in the history ever sent."},
			{Name: queue.TornTransaction, Meaning: "An op's sends were not atomic: some of its values were read, others lost."},
			{Name: queue.StalledConsumer, Meaning: "A consumer polled again and again without progress while newer offsets were acknowledged.",
				Severity: Informational, When: "never; reported when a stall lasts at least --stall-threshold"},
		},
	}))
}

// queueOptions turns the command's options into the queue checker's.
func queueOptions(o Options) queue.Options {
	qo := queue.Options{WWDeps: o.WWDeps, CycleBudget: o.CycleBudget, StallThreshold: o.StallThreshold, Series: o.Series}
	switch o.SubVia {
	case "assign":
		qo.SubVia = queue.SubAssign
	case "subscribe":
		qo.SubVia = queue.SubSubscribe
	}
	return qo
}
