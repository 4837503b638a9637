package workload_test

import (
	"fmt"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// A workload's catalogue lists every anomaly type its checker reports,
// each with its meaning, when it makes a history invalid, and its section
// in the docs.
func Example() {
	w := workload.MustLookup("queue")
	for _, t := range w.Types[:3] {
		fmt.Printf("%s (%s, %s): %s [%s]\n", t.Name, t.Severity, t.When, t.Meaning, t.Doc)
	}
	t, _ := workload.Describe("rw-register", "G1a")
	fmt.Println(t.Workload, t.Name, t.Severity)
	// Output:
	// inconsistent-offsets (bad, always): One offset of a key holds two or more different values: the log is not a single sequence. [docs/queue.md#inconsistent-offsets]
	// duplicate (bad, always): One value of a key sits at two or more offsets: a message was written twice. [docs/queue.md#duplicate]
	// G1a (bad, always): An ok poll read a value whose send failed (aborted read). [docs/queue.md#g1a]
	// rw-register G1a conditional
}

// An entry words one instance from the instance's own fields; with an
// OpLookup over the history (report.HistoryLookup) it also names each
// op's process.
func ExampleDescribe() {
	e, _ := workload.Describe("queue", "lost-write")
	off, maxOff, writer, reader := int64(3), int64(7), int64(4), int64(19)
	in := &queue.Instance{Subject: analysis.Subject{Key: analysis.AtomValuePtr(model.IntAtom(1))},
		Value: analysis.AtomValuePtr(model.IntAtom(42)), Offset: &off, Writer: &writer, MaxRead: &reader, MaxReadOffset: &maxOff}
	fmt.Println(e.Explain(in, nil))
	// Output:
	// key 1: value 42, sent at offset 3 by op 4, was never read, though op 19 read past it (offset 7).
}
