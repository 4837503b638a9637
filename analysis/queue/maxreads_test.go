package queue

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// TestMaxReadsOrdered checks maxReads' shortcut for histories whose op
// indices ascend against maxReader's pass over every read.
func TestMaxReadsOrdered(t *testing.T) {
	var faults []gen.Fault
	for _, k := range gen.FaultKinds() {
		faults = append(faults, gen.Fault{Kind: k, Count: 4})
	}
	cfg := gen.Config{Seed: 5, Ops: 30000, Concurrency: 12, Keys: 6, TxnFraction: 0.3,
		InfoRate: 0.03, FailRate: 0.02, Faults: faults}
	h, p := testhist.Queue(t, cfg)
	c := check(h, p, DefaultOptions())
	if len(analysis.InstancesOf[*Instance](c.res, LostWrite)) == 0 {
		t.Fatal("no lost-write: max_read is not in the output")
	}
	sameMaxReads(t, c)
	// Two values at the highest offset read, the one interned first read
	// last: the reader of the other one is the max reader.
	b := model.NewBuilder("conflict")
	k := b.Key(model.IntAtom(0))
	va, vb := b.Msg(k, b.Value(model.IntAtom(1))), b.Msg(k, b.Value(model.IntAtom(2)))
	i := int64(0)
	add := func(proc int32, f model.Func, mop model.Mop) {
		b.Add(i, i, model.Op{Type: model.Invoke, Process: proc, F: f})
		b.Add(i+1, i+1, model.Op{Type: model.OK, Process: proc, F: f, Mops: b.StoreMops(mop)})
		i += 2
	}
	poll := func(m model.MsgID) model.Mop {
		return b.Spanned(model.Mop{Kind: model.MopPoll, Done: true}, b.StorePolls(
			model.KeyPoll{Key: k, Reads: b.StoreReads(model.NewRead(5, m))}))
	}
	add(0, model.FSend, b.Send(k, va, 5))
	add(1, model.FSend, b.Send(k, vb, 5))
	add(2, model.FPoll, poll(vb))
	add(3, model.FPoll, poll(va))
	h2 := b.History()
	p2, err := model.Pair(h2)
	if err != nil {
		t.Fatal(err)
	}
	c = check(h2, p2, DefaultOptions())
	if len(analysis.InstancesOf[*Instance](c.res, InconsistentOffsets)) != 1 {
		t.Fatalf("anomalies %v, want an inconsistent offset", c.res.AnomalyTypes)
	}
	if got := c.compIdx(c.maxRead[k]); got != 5 {
		t.Errorf("max read %d, want op 5 (the first ok poll of offset 5)", got)
	}
	sameMaxReads(t, c)
}

// sameMaxReads checks the max readers c found with the ones maxReader's
// pass over every read finds.
func sameMaxReads(t *testing.T, c *checker) {
	t.Helper()
	if !c.ordered {
		t.Fatal("indices do not ascend")
	}
	fast := slices.Clone(c.maxRead)
	c.ordered = false
	c.maxReads()
	for ri := range c.recs {
		r := &c.recs[ri]
		c.maxReader(int32(ri), r, c.mops(int32(ri)))
	}
	c.ordered = true
	if !slices.Equal(fast, c.maxRead) {
		t.Errorf("max readers %v with ordered indices, %v by every read", fast, c.maxRead)
	}
}
