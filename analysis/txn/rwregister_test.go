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

// TestTouchesOf: the touches touchesOf derives (or index kept) are, for
// every rec, one per key the txn reads or writes, in the order of the
// key's first micro-op, with the value that micro-op read and the txn's
// last write of the key, as a plain pass with a map finds them; on random
// txns of 1 to 20 micro-ops over 6 keys, so that keys repeat in txns of at
// most pairwiseMops micro-ops (merged pairwise) and in longer ones (kept),
// with reads in invocation form in ok, info and open txns.
func TestTouchesOf(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 21))
	b := model.NewBuilder("touches")
	var keys []model.KeyID
	for k := range 6 {
		keys = append(keys, b.Key(model.IntAtom(int64(k))))
	}
	idx, val := int64(0), int64(0)
	add := func(typ model.OpType, proc int32, mops []model.Mop) {
		b.Add(idx, model.NoTime, model.Op{Type: typ, Process: proc, F: model.FTxn, Mops: b.StoreMops(mops...)})
		idx++
	}
	for i := range 3000 {
		mops := make([]model.Mop, 1+rnd.IntN(20))
		for j := range mops {
			k := keys[rnd.IntN(len(keys))]
			if rnd.IntN(2) == 0 {
				val++
				mops[j] = model.Mop{Kind: model.MopWrite, Key: k, Done: true, Msg: b.Msg(k, b.Value(model.IntAtom(val)))}
				continue
			}
			mops[j] = model.Mop{Kind: model.MopRead, Key: k, Msg: model.NoMsg}
			if rnd.IntN(3) > 0 {
				val++
				mops[j].Done, mops[j].Msg = true, b.Msg(k, b.Value(model.IntAtom(val)))
			}
		}
		proc := int32(i)
		add(model.Invoke, proc, mops)
		switch rnd.IntN(4) {
		case 0: // left open: info
		case 1:
			add(model.Info, proc, mops)
		case 2:
			add(model.Fail, proc, mops)
		default:
			add(model.OK, proc, mops)
		}
	}
	h := b.History()
	p, _ := model.Pair(h)
	c, rw := indexedRW(h, p)
	var buf []touch
	var total int64
	merged, kept := 0, 0
	for r := range c.recs {
		r := int32(r)
		want := plainTouches(c, r)
		rwMops := len(c.mops(r)) // reads and writes only
		if len(want) < rwMops {
			if rwMops > pairwiseMops {
				kept++
			} else {
				merged++
			}
		}
		total += int64(len(want))
		if got := rw.touchesOf(r, &buf); !slices.Equal(got, want) {
			t.Fatalf("rec %d (%d micro-ops): touches %v, want %v", r, rwMops, got, want)
		}
	}
	if merged == 0 || kept == 0 || len(rw.big) != kept {
		t.Errorf("%d recs merged pairwise, %d kept (index kept %d): want both", merged, kept, len(rw.big))
	}
	if rw.nTouches != total {
		t.Errorf("nTouches %d, want %d", rw.nTouches, total)
	}
}

// indexedRW is the rw-register inference of h, paired by p, once index
// has run.
func indexedRW(h *model.History, p model.Pairing) (*checker, *rwRegister) {
	c := newChecker(h, p, DefaultOptions(), "rw-register")
	rw := &rwRegister{}
	rw.txnChecks = newTxnChecks(c, rw)
	c.inf = rw
	rw.index()
	return c, rw
}

// plainTouches is rec r's touches as a plain pass with a map finds them:
// one per key it reads or writes, in the order of the key's first such
// micro-op, with the value that micro-op read and the txn's last write.
func plainTouches(c *checker, r int32) []touch {
	var ts []touch
	at := map[model.KeyID]int{}
	for _, m := range c.mops(r) {
		if m.Kind != model.MopWrite && m.Kind != model.MopRead {
			continue
		}
		j, ok := at[m.Key]
		if !ok {
			j = len(ts)
			at[m.Key] = j
			ts = append(ts, touch{key: m.Key, read: noVal, write: noVal})
			if m.Kind == model.MopRead {
				ts[j].read = readValue(&m, c.typOf(&c.recs[r]))
			}
		}
		if m.Kind == model.MopWrite {
			ts[j].write = m.Msg
		}
	}
	return ts
}
