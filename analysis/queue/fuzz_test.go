package queue

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// fuzzHistory builds a well-paired history from arbitrary bytes: each op
// takes a few bytes for its process, outcome, function and micro-ops, with
// small key, value and offset ranges so that conflicts, duplicates,
// garbage, skips and cycles all happen often.
func fuzzHistory(data []byte) *model.History {
	b := model.NewBuilder("fuzz")
	in := testhist.FuzzBytes(data)
	next := in.Next
	open := map[int32]bool{}
	t := int64(0)
	idx := int64(0)
	for in.Left() && idx < 400 {
		proc := int32(next() % 4)
		t += int64(next()%5) + 1
		if open[proc] {
			// complete it
			typ := []model.OpType{model.OK, model.OK, model.Info, model.Fail}[next()%4]
			f := []model.Func{model.FSend, model.FPoll, model.FTxn}[next()%3]
			var mops []model.Mop
			for range next()%3 + 1 {
				k := b.Key(model.IntAtom(int64(next() % 3)))
				if next()%2 == 0 {
					m := model.Mop{Kind: model.MopSend, Key: k, Msg: b.Msg(k, b.Value(model.IntAtom(int64(next()%6))))}
					if next()%4 != 0 {
						m.Done = true
						if next()%5 != 0 {
							b.SetOffset(&m, int64(next()%8)-1)
						}
					}
					mops = append(mops, m)
				} else {
					m := model.Mop{Kind: model.MopPoll, Done: next()%4 != 0}
					if m.Done {
						var kps []model.KeyPoll
						for range next() % 3 {
							kk := b.Key(model.IntAtom(int64(next() % 3)))
							var reads []model.Read
							for range next() % 4 {
								off := int64(next() % 8)
								reads = append(reads, model.NewRead(off, b.Msg(kk, b.Value(model.IntAtom(int64(next()%7))))))
							}
							kps = append(kps, model.KeyPoll{Key: kk, Reads: b.StoreReads(reads...)})
						}
						b.SetSpan(&m, b.StorePolls(kps...))
					}
					mops = append(mops, m)
				}
			}
			b.Add(idx, t, model.Op{Type: typ, Process: proc, F: f, Mops: b.StoreMops(mops...)})
			delete(open, proc)
		} else {
			op := model.Op{Type: model.Invoke, Process: proc}
			var keys []model.KeyID
			switch next() % 6 {
			case 0:
				op.F = model.FAssign
				keys = []model.KeyID{b.Key(model.IntAtom(int64(next() % 3)))}
			case 1:
				op.F = model.FSubscribe
				keys = []model.KeyID{b.Key(model.IntAtom(int64(next() % 3)))}
			default:
				op.F = model.FTxn
			}
			if keys != nil {
				b.SetKeys(b.Len(), keys)
			}
			b.Add(idx, t, op)
			if keys != nil {
				idx++
				t++
				done := op
				done.Type = []model.OpType{model.OK, model.Info, model.Fail}[next()%3]
				b.SetKeys(b.Len(), keys)
				b.Add(idx, t, done)
			} else {
				open[proc] = true
			}
		}
		idx++
	}
	return b.History()
}

// FuzzCheck: the analysis never panics, and always gives a result that
// marshals, with every instance carrying a witness, whatever the history.
func FuzzCheck(f *testing.F) {
	testhist.FuzzSeeds(f, "a history of sends and polls with conflicts at every offset")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		opts := DefaultOptions()
		opts.WWDeps = data[0]&1 != 0
		opts.Series = data[0]&2 != 0
		opts.SubVia = SubVia(data[0] >> 2 % 3)
		opts.StallThreshold = time.Duration(data[1]%8) * time.Nanosecond
		opts.CycleBudget = time.Second
		h := fuzzHistory(data[2:])
		res := Check(h, testhist.Pair(t, h), opts)
		for typ, ins := range res.Anomalies {
			for _, in := range ins {
				if len(in.InstanceEvidence().Witness) == 0 {
					t.Fatalf("%s instance without a witness: %+v", typ, in)
				}
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	})
}
