package abort

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
)

// instancesOf returns the instances of type typ in res as Instances (a
// pair instance built in full).
func instancesOf(res *analysis.Result, typ string) []*Instance {
	var out []*Instance
	for _, in := range res.Anomalies[typ] {
		if x := AsInstance(in); x != nil {
			out = append(out, x)
		}
	}
	return out
}

// TestPairInstanceCompact: every pair instance of the fixtures and the
// generated history, under both contracts, is kept compact, and its JSON
// (AppendJSON, and MarshalJSON through encoding/json) is the JSON of the
// Instance it stands for, which PairEnds agrees with.
func TestPairInstanceCompact(t *testing.T) {
	compact, rebalanced := 0, 0
	for name, src := range sources(t) {
		h, p := readPaired(t, name, src)
		for _, c := range []Contract{ContractKafka, ContractRewind} {
			res := Check(h, p, Options{Contract: c})
			for _, typ := range res.AnomalyTypes {
				for _, in := range res.Anomalies[typ] {
					x, ok := in.(*pairInstance)
					if typ == IntNonmonotonicPoll {
						if ok {
							t.Fatalf("%s: %s kept as a pair instance", name, typ)
						}
						continue
					}
					if !ok {
						t.Fatalf("%s: %s instance is a %T, not compact", name, typ, in)
					}
					compact++
					full := AsInstance(in)
					if len(full.RebalanceEvents) > 0 {
						rebalanced++
					}
					want := encode(t, full)
					if got := string(x.AppendJSON(nil)); got != want {
						t.Fatalf("%s: AppendJSON\n%s\nthe Instance's JSON\n%s", name, got, want)
					}
					viaJSON, err := json.Marshal(in)
					if err != nil {
						t.Fatal(err)
					}
					direct, _ := json.Marshal(full)
					if !bytes.Equal(viaJSON, direct) {
						t.Fatalf("%s: json.Marshal\n%s\nof the Instance\n%s", name, viaJSON, direct)
					}
					pOp, nOp, pLast, nFirst, class, ok := PairEnds(in)
					if !ok || pOp != full.P.Op || nOp != full.N.Op || pLast != full.P.Offsets[len(full.P.Offsets)-1] ||
						nFirst != full.N.Offsets[0] || class != full.Class {
						t.Fatalf("%s: PairEnds %d %d %d %d %q, %v, for %+v", name, pOp, nOp, pLast, nFirst, class, ok, full.Pair)
					}
				}
			}
		}
	}
	if compact < 100 || rebalanced == 0 {
		t.Fatalf("%d compact instances, %d with rebalance events: the sources do not cover them", compact, rebalanced)
	}
}
