package abort

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/testhist"
)

// fuzzAbort writes an abort history in EDN from arbitrary bytes: four
// processes on three topics, polls that list offsets out of order, repeat
// them or list none, ask to abort or not, commit, fail or end in doubt,
// with rebalances logged before or during them; assigns that switch a
// process's topic, and crashes (an info completion, then a new process).
// Small ranges make every pair class and type happen often.
func fuzzAbort(data []byte) string {
	in := testhist.FuzzBytes(data)
	next := in.Next
	var b strings.Builder
	proc := [4]int{0, 1, 2, 3}
	open := [4]string{} // the open invocation's value, "" for none
	idx, t := 0, 0
	op := func(typ string, p int, f, value, extra string) {
		t += int(next()%3) + 1
		fmt.Fprintf(&b, "{:index %d :time %d :type :%s :process %d :f :%s :value %s%s}\n", idx, t, typ, p, f, value, extra)
		idx++
	}
	for in.Left() && idx < 300 {
		w := int(next() % 4)
		p := proc[w]
		if open[w] == "" {
			if next()%6 == 0 {
				topic := fmt.Sprintf("%q", fmt.Sprintf("t%d", next()%3))
				op("invoke", p, "assign", topic, "")
				op([]string{"ok", "ok", "fail", "info"}[next()%4], p, "assign", topic, "")
				continue
			}
			v := fmt.Sprintf("{:topic \"t%d\"", next()%3)
			if next()%2 == 0 {
				v += " :abort? true"
			}
			open[w] = v
			op("invoke", p, "poll", v+"}", "")
			continue
		}
		v := open[w]
		open[w] = ""
		typ := []string{"ok", "ok", "fail", "info"}[next()%4]
		value := v + "}"
		if next()%5 != 0 {
			var offs []string
			base := int(next() % 12)
			for i := range int(next() % 5) {
				o := base + i
				if next()%7 == 0 {
					o = base - int(next()%3) // backwards or repeated
				}
				offs = append(offs, fmt.Sprint(o))
			}
			value = v + " :offsets [" + strings.Join(offs, " ") + "]}"
		} else if next()%2 == 0 {
			value = "nil"
		}
		extra := ""
		if next()%6 == 0 {
			when := []string{":before", ":during"}[next()%2]
			extra = fmt.Sprintf(" :rebalance-log {%s [{:type :revoked :keys [\"t%d\"]} {:type :assigned :keys [\"t%d\"]}]}",
				when, next()%3, next()%3)
		}
		if typ == "fail" {
			extra += " :error :intentional-abort"
		}
		op(typ, p, "poll", value, extra)
		if typ == "info" && next()%2 == 0 {
			proc[w] += 4 // crashed: the worker comes back as a new process
		}
	}
	return b.String()
}

// FuzzAbort: whatever the history, reading and checking it never panics;
// under both contracts the check finds the same types, with as many
// instances each (only abort-advance's allowed flag and the verdict
// differ), every
// instance has a witness, no more pair instances than pairs counted, and a
// pair instance's JSON is its Instance's.
func FuzzAbort(f *testing.F) {
	testhist.FuzzSeeds(f, "polls that abort, rewind, advance and rebalance on three topics")
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzAbort(data)
		h, p := readPaired(t, "fuzz.edn", src)
		var shapes [2]string
		for ci, c := range []Contract{ContractKafka, ContractRewind} {
			res := Check(h, p, Options{Contract: c})
			var shape strings.Builder
			for _, typ := range res.AnomalyTypes {
				fmt.Fprintf(&shape, "%s:%d ", typ, len(res.Anomalies[typ]))
				for _, in := range res.Anomalies[typ] {
					if len(in.InstanceEvidence().Witness) == 0 {
						t.Fatalf("%s instance without a witness\n%s", typ, src)
					}
					full := AsInstance(in)
					if full == nil {
						t.Fatalf("%s instance %T is not the abort workload's", typ, in)
					}
					if x, ok := in.(*pairInstance); ok {
						if got, want := string(x.AppendJSON(nil)), encode(t, full); got != want {
							t.Fatalf("%s: compact JSON\n%s\nInstance JSON\n%s", typ, got, want)
						}
					}
				}
			}
			shapes[ci] = shape.String()
			pairs, pairInstances := int64(0), int64(0)
			for _, row := range res.PairCounts {
				pairs += row.Pairs
			}
			for typ, ins := range res.Anomalies {
				if typ != IntNonmonotonicPoll {
					pairInstances += int64(len(ins))
				}
			}
			if pairs > int64(len(h.Ops)) || pairInstances > pairs {
				t.Fatalf("%d pairs counted, %d pair instances, in a history of %d ops\n%s", pairs, pairInstances, len(h.Ops), src)
			}
			if pairs == 0 && res.Verdict != analysis.Unknown && len(res.BadTypes) == 0 {
				t.Fatalf("no pair, verdict %v without a bad type\n%s", res.Verdict, src)
			}
			if _, err := json.Marshal(res); err != nil {
				t.Fatal(err)
			}
		}
		if shapes[0] != shapes[1] {
			t.Fatalf("types differ by contract: kafka %s, rewind %s\n%s", shapes[0], shapes[1], src)
		}
	})
}

// TestFuzzAbortHistory: the fuzzer's histories read and pair (the fuzz
// target fails on one that does not, which would test the reader instead
// of the check) and make pairs of every class on the seeds.
func TestFuzzAbortHistory(t *testing.T) {
	classes := map[string]bool{}
	for seed := range 200 {
		data := make([]byte, 600)
		for i := range data {
			data[i] = byte((seed+1)*(i+7)*2654435761>>13) ^ byte(i*seed)
		}
		h, p := readPaired(t, "fuzz.edn", fuzzAbort(data))
		for _, in := range Check(h, p, Options{}).Anomalies {
			for _, x := range in {
				if _, _, _, _, class, ok := PairEnds(x); ok {
					classes[class] = true
				}
			}
		}
	}
	for _, c := range Classes {
		if !classes[c] {
			t.Errorf("no pair of class %s in 200 fuzz histories", c)
		}
	}
}
