package txn

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/consistency"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// fuzzListAppend builds a well-paired list-append history from arbitrary
// bytes: each txn takes a few bytes for its process, outcome and micro-ops,
// over three keys and six values, and reads return arbitrary short lists,
// so that garbage, duplicates, incompatible orders, aborted reads and
// cycles of every kind happen often.
func fuzzListAppend(data []byte) *model.History {
	return fuzzTxns(data, model.MopAppend, func(b *model.Builder, m model.Mop, next func() int) model.Mop {
		var es []model.MsgID
		for range next() % 5 {
			es = append(es, b.Msg(m.Key, b.Value(model.IntAtom(int64(next()%6)))))
		}
		return b.Spanned(model.Mop{Kind: model.MopReadList, Key: m.Key, Done: true}, b.StoreElems(es...))
	})
}

// fuzzTxns builds a well-paired transactional history from arbitrary
// bytes: each txn takes a few bytes for its process, outcome and micro-ops
// (writes of kind write and nil reads, over three keys and six values);
// read gives what an ok txn's read returned.
func fuzzTxns(data []byte, write model.MopKind, read func(b *model.Builder, m model.Mop, next func() int) model.Mop) *model.History {
	b := model.NewBuilder("fuzz")
	in := testhist.FuzzBytes(data)
	next := in.Next
	open := map[int32][]model.Mop{}
	idx := int64(0)
	for in.Left() && idx < 300 {
		proc := int32(next() % 5)
		if inv, ok := open[proc]; ok {
			typ := []model.OpType{model.OK, model.OK, model.OK, model.Info, model.Fail}[next()%5]
			mops := make([]model.Mop, len(inv))
			for i, m := range inv {
				mops[i] = m
				if m.Kind == model.MopRead && typ == model.OK {
					mops[i] = read(b, m, next)
				}
			}
			b.Add(idx, model.NoTime, model.Op{Type: typ, Process: proc, F: model.FTxn, Mops: b.StoreMops(mops...)})
			delete(open, proc)
		} else {
			var mops []model.Mop
			for range next()%4 + 1 {
				k := b.Key(model.IntAtom(int64(next() % 3)))
				if next()%2 == 0 {
					mops = append(mops, model.Mop{Kind: write, Key: k, Done: true,
						Msg: b.Msg(k, b.Value(model.IntAtom(int64(next()%6))))})
				} else {
					mops = append(mops, model.Mop{Kind: model.MopRead, Key: k, Msg: model.NoMsg})
				}
			}
			b.Add(idx, model.NoTime, model.Op{Type: model.Invoke, Process: proc, F: model.FTxn, Mops: b.StoreMops(mops...)})
			open[proc] = mops
		}
		idx++
	}
	return b.History()
}

var fuzzModels = [][]string{nil, {"serializable"}, {"snapshot-isolation"}, {"read-committed"},
	{"strong-session-snapshot-isolation"}, {}}

// FuzzListAppend: the analysis never panics and always gives a result that
// marshals; every instance has a witness; every cycle is a closed chain of
// steps whose relations make the type it is reported as.
func FuzzListAppend(f *testing.F) {
	testhist.FuzzSeeds(f, "appends and reads of three keys, every way round")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		h := fuzzListAppend(data[1:])
		res := CheckListAppend(h, testhist.Pair(t, h), fuzzOptions(data[0]))
		checkFuzzResult(t, res, nil)
	})
}

// fuzzOptions picks the models of a fuzz run from its first byte (with G1
// and G0 as anomalies when it picks none).
func fuzzOptions(b byte) Options {
	opts := Options{Models: fuzzModels[int(b)%len(fuzzModels)], CycleBudget: time.Second}
	if len(opts.Models) == 0 && opts.Models != nil {
		opts.Anomalies = []string{"G1", "G0"}
	}
	return opts
}

// classifyRels classifies a reported cycle by its steps' relations.
func classifyRels(in *Instance) string {
	names := map[string]graph.Rel{"ww": graph.WW, "wr": graph.WR, "rw": graph.RW, "process": graph.Process, "realtime": graph.Realtime}
	rels := make([]graph.Rel, len(in.Steps))
	for i, st := range in.Steps {
		rels[i] = names[st.Rel]
	}
	return classify(rels)
}

// fuzzRWRegister builds a well-paired rw-register history from arbitrary
// bytes, as fuzzListAppend does: writes of six values over three keys
// (so duplicate writes happen), and ok reads that return any of them or
// nil, so garbage, aborted and intermediate reads, internal anomalies,
// contradictory version orders and cycles of every kind happen often.
func fuzzRWRegister(data []byte) *model.History {
	return fuzzTxns(data, model.MopWrite, func(b *model.Builder, m model.Mop, next func() int) model.Mop {
		if v := next() % 7; v < 6 {
			return model.Mop{Kind: model.MopRead, Key: m.Key, Done: true, Msg: b.Msg(m.Key, b.Value(model.IntAtom(int64(v))))}
		}
		return m // nil: the initial state
	})
}

// FuzzRWRegister: the analysis never panics and always gives a result that
// marshals, under any version-order sources; every instance has a witness;
// every cycle is a closed chain of steps whose relations make the type it
// is reported as, and every ww or rw step names the source of its version
// order; every cyclic-versions instance holds a closed cycle of values, each
// edge with its source, the last source merged among them.
func FuzzRWRegister(f *testing.F) {
	testhist.FuzzSeeds(f, "writes and reads of three registers, every way round")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		opts := fuzzOptions(data[0])
		opts.WFRKeys, opts.SequentialKeys, opts.LinearizableKeys = data[0]&0x10 != 0, data[0]&0x20 != 0, data[0]&0x40 != 0
		h := fuzzRWRegister(data[1:])
		res := CheckRWRegister(h, testhist.Pair(t, h), opts)
		checkFuzzResult(t, res, func(typ string, in *Instance) {
			if typ == CyclicVersions {
				checkVersionCycle(t, in)
			}
			if in.CycleFields == nil {
				return
			}
			for i, st := range in.Steps {
				if (st.Rel == "ww" || st.Rel == "rw") && (st.OrderBy == "" || len(st.Values) != 2) {
					t.Fatalf("%s: step %d (%s) does not say why its version order holds: %+v", typ, i, st.Rel, st)
				}
				if st.Rel == "wr" && (st.Key == nil || st.Value == nil) {
					t.Fatalf("%s: step %d (wr) names no read: %+v", typ, i, st)
				}
			}
		})
	})
}

// checkVersionCycle checks a cyclic-versions instance: its version cycle
// closes, every edge names its source, one of the sources merged.
func checkVersionCycle(t *testing.T, in *Instance) {
	t.Helper()
	vc := in.VersionCycle
	if len(vc) < 2 || len(in.Sources) < 2 {
		t.Fatalf("cyclic-versions without a cycle or sources: %+v", in)
	}
	for i, e := range vc {
		next := vc[(i+1)%len(vc)]
		if len(e.Values) != 2 || len(next.Values) != 2 || e.Values[1].String() != next.Values[0].String() {
			t.Fatalf("version cycle does not close at edge %d: %+v", i, vc)
		}
		found := false
		for _, s := range in.Sources {
			found = found || s == e.OrderBy
		}
		if !found {
			t.Fatalf("edge %d by %q, not one of the sources %v", i, e.OrderBy, in.Sources)
		}
	}
}

// checkFuzzResult checks what every result must hold: each instance has a
// witness (but empty-transaction-graph), each cycle's steps go round it,
// each cycle's steps classify as its type (unless the search timed out),
// and the result marshals. extra, if not nil, checks each instance
// further.
func checkFuzzResult(t *testing.T, res *analysis.Result, extra func(typ string, in *Instance)) {
	t.Helper()
	for typ, ins := range res.Anomalies {
		for _, ai := range ins {
			in, ok := analysis.Full(ai).(*Instance)
			if !ok {
				t.Fatalf("%s instance of type %T", typ, ai)
			}
			if len(in.Witness) == 0 && typ != EmptyTransactionGraph {
				t.Fatalf("%s instance without a witness: %+v", typ, in)
			}
			if extra != nil {
				extra(typ, in)
			}
			if in.CycleFields == nil || len(in.Steps) == 0 {
				continue
			}
			if len(in.Steps) != len(in.Cycle) {
				t.Fatalf("%s: %d steps for a cycle of %d", typ, len(in.Steps), len(in.Cycle))
			}
			for i, st := range in.Steps {
				if st.From != in.Cycle[i] || st.To != in.Cycle[(i+1)%len(in.Cycle)] {
					t.Fatalf("%s: step %d goes %d -> %d in cycle %v", typ, i, st.From, st.To, in.Cycle)
				}
			}
			if consistency.IsCycleType(typ) && typ != classifyRels(in) && len(analysis.InstancesOf[*Instance](res, CycleSearchTimeout)) == 0 {
				t.Fatalf("%s cycle classifies as %s: %+v", typ, classifyRels(in), in.Steps)
			}
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
}
