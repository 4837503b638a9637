package txn

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// nilReadStorm builds a history of one key where n txns write 1..n and n
// others, each after a write completed, read nil: a store whose reads
// keep returning the initial state. Every nil reader anti-depends on every
// writer: n² rw edges if all were kept.
func nilReadStorm(n int) *model.History {
	b := model.NewBuilder("storm")
	x := b.Key(model.KeywordAtom(":x"))
	idx := int64(0)
	op := func(typ model.OpType, proc int32, m model.Mop) {
		b.Add(idx, model.NoTime, model.Op{Type: typ, Process: proc, F: model.FTxn, Mops: b.StoreMops(m)})
		idx++
	}
	for i := 1; i <= n; i++ {
		w := model.Mop{Kind: model.MopWrite, Key: x, Done: true, Msg: b.Msg(x, b.Value(model.IntAtom(int64(i))))}
		op(model.Invoke, 0, w)
		op(model.OK, 0, w)
		r := model.Mop{Kind: model.MopRead, Key: x, Msg: model.NoMsg}
		op(model.Invoke, 1, r)
		op(model.OK, 1, r)
	}
	return b.History()
}

// TestNilReadStorm: below the budget every stale nil read is a
// G-single-item-realtime; far above it, the rw edges of the initial state
// are left out, the graph stays linear in the history, and the verdict says
// why it is unknown.
func TestNilReadStorm(t *testing.T) {
	h := nilReadStorm(50)
	p, _ := model.Pair(h)
	res := CheckRWRegister(h, p, DefaultOptions())
	if res.Verdict != analysis.Invalid || len(analysis.InstancesOf[*Instance](res, "G-single-item-realtime")) == 0 {
		t.Fatalf("small storm: %s %v %v", res.Verdict, res.AnomalyTypes, res.UnknownReasons)
	}
	h = nilReadStorm(3000) // 9M rw edges without the budget
	p, _ = model.Pair(h)
	res = CheckRWRegister(h, p, DefaultOptions())
	if res.Stats.GraphEdges > 8*6000+1<<20 {
		t.Errorf("%d edges for 6000 txns: not linear", res.Stats.GraphEdges)
	}
	if res.Verdict != analysis.Unknown || len(res.UnknownReasons) != 1 ||
		!strings.Contains(res.UnknownReasons[0], "3000 txns read key :x = nil and 3000 values follow it") {
		t.Errorf("large storm: %s %v %q", res.Verdict, res.AnomalyTypes, res.UnknownReasons)
	}
}

// TestMergeVedges: merging in place from the back gives the sorted union of
// two disjoint sorted edge lists, whether a has room for b or not, and
// leaves b's elements as they were.
func TestMergeVedges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		var all []vedge
		for p := range 60 {
			if rng.IntN(2) == 0 {
				all = append(all, vedge{from: int32(p / 7), to: int32(p % 7), a: int32(round)})
			}
		}
		var a, b []vedge
		for _, e := range all {
			if rng.IntN(2) == 0 {
				a = append(a, e)
			} else {
				b = append(b, e)
			}
		}
		if rng.IntN(2) == 0 {
			a = slices.Grow(a, rng.IntN(40)) // room, sometimes enough
		}
		bWas := slices.Clone(b)
		got := mergeVedges(a, b)
		if !slices.Equal(got, all) {
			t.Fatalf("round %d: merged %v, want %v", round, got, all)
		}
		if !slices.Equal(b, bWas) {
			t.Fatalf("round %d: b changed", round)
		}
	}
}
