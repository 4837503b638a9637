package queue

import (
	"strings"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// ring builds n concurrent ok transactions, each sending one value and
// reading the previous transaction's (the first reads the last's): one G1c
// cycle through all of them.
func ring(t testing.TB, n int) (*model.History, model.Pairing) {
	b := model.NewBuilder("ring")
	k := b.Key(model.IntAtom(0))
	msg := func(i int) model.MsgID { return b.Msg(k, b.Value(model.IntAtom(int64(i)))) }
	for i := range n {
		b.Add(int64(i), int64(i), model.Op{Type: model.Invoke, Process: int32(i), F: model.FTxn})
	}
	for i := range n {
		prev := (i + n - 1) % n
		b.Add(int64(n+i), int64(n+i), model.Op{Type: model.OK, Process: int32(i), F: model.FTxn,
			Mops: b.StoreMops(
				b.Send(k, msg(i), int64(i)),
				b.Spanned(model.Mop{Kind: model.MopPoll, Done: true}, b.StorePolls(
					model.KeyPoll{Key: k, Reads: b.StoreReads(model.NewRead(int64(prev), msg(prev)))})),
			)})
	}
	h := b.History()
	return h, testhist.Pair(t, h)
}

func TestCycleBudget(t *testing.T) {
	h, p := ring(t, 5000)
	t.Run("no budget - the whole ring is one G1c", func(t *testing.T) {
		opts := DefaultOptions()
		opts.CycleBudget = 0
		res := Check(h, p, opts)
		g := analysis.InstancesOf[*Instance](res, G1c)
		if res.Verdict != analysis.Invalid || len(g) != 1 || len(g[0].Cycle) != 5000 {
			t.Fatalf("verdict %v, %d G1c instances", res.Verdict, len(g))
		}
	})
	t.Run("budget exhausted - unknown with its reason, never valid", func(t *testing.T) {
		opts := DefaultOptions()
		opts.CycleBudget = time.Nanosecond
		res := Check(h, p, opts)
		if res.Verdict == analysis.Valid {
			t.Fatal("an exhausted search gave valid")
		}
		if len(res.UnknownReasons) == 0 || !strings.Contains(res.UnknownReasons[0], "ran out of its budget") {
			t.Fatalf("reasons %v", res.UnknownReasons)
		}
		if res.Verdict == analysis.Unknown && len(res.BadTypes) != 0 {
			t.Fatalf("unknown with bad types %v", res.BadTypes)
		}
	})
}
