package abort

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// hist builds an abort history, one op per line.
type hist struct {
	sb strings.Builder
	n  int
}

func (h *hist) op(typ string, p int, f, val, extra string) {
	fmt.Fprintf(&h.sb, "{:index %d :type :%s :process %d :f :%s :value %s%s}\n", h.n, typ, p, f, val, extra)
	h.n++
}

// poll adds a poll's invocation and completion: typ is ok, fail or info;
// offs nil makes an empty poll; reb, when not "", is the completion's
// :rebalance-log.
func (h *hist) poll(p int, topic, typ string, offs []int64, reb string) *hist {
	h.op("invoke", p, "poll", fmt.Sprintf("{:topic %q}", topic), "")
	v := fmt.Sprintf("{:topic %q}", topic)
	if offs != nil {
		v = fmt.Sprintf("{:topic %q :offsets %v}", topic, offs)
	}
	extra := ""
	if reb != "" {
		extra = " :rebalance-log " + reb
	}
	h.op(typ, p, "poll", v, extra)
	return h
}

func (h *hist) String() string { return h.sb.String() }

func o(xs ...int64) []int64 { return xs }

const during = `{:during [{:type :revoked :keys ["t1"]}]}`
const before = `{:before [{:type :assigned :keys ["t1"]}]}`

var opts = ingest.Options{Decoders: []ingest.ValueDecoder{Decoder{}}}

// check reads src (EDN or JSON) and checks it under contract c.
func check(t *testing.T, src string, c Contract) *analysis.Result {
	t.Helper()
	h, p := readPaired(t, "t.edn", src)
	return Check(h, p, Options{Contract: c})
}

// types lists the result's instances as "type class P>N" strings, in
// order.
func types(res *analysis.Result) []string {
	var out []string
	for _, typ := range res.AnomalyTypes {
		for _, in := range instancesOf(res, typ) {
			s := typ
			if in.Pair != nil {
				s += fmt.Sprintf(" %s %d>%d", in.Class, in.P.Op, in.N.Op)
			} else {
				s += fmt.Sprintf(" op %d", *in.Op)
			}
			out = append(out, s)
		}
	}
	return out
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestClassesAndTypes: one pair of each class after an abort, after a
// commit and after an info poll.
func TestClassesAndTypes(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    *hist
		want []string
	}{
		{"abort then advance", new(hist).poll(0, "t1", "fail", o(2, 3), "").poll(0, "t1", "ok", o(5, 6), ""),
			[]string{"abort-advance advance 1>3"}},
		{"abort then rewind", new(hist).poll(0, "t1", "fail", o(2, 3), "").poll(0, "t1", "ok", o(2, 3), ""),
			[]string{"abort-rewind rewind 1>3"}},
		{"abort then rewind further, no resume point", new(hist).poll(0, "t1", "fail", o(2, 3), "").poll(0, "t1", "ok", o(1, 2), ""),
			[]string{"abort-other rewind-further 1>3"}},
		{"abort then other", new(hist).poll(0, "t1", "fail", o(2, 3, 4), "").poll(0, "t1", "ok", o(3, 4), ""),
			[]string{"abort-other other 1>3"}},
		{"commit then advance", new(hist).poll(0, "t1", "ok", o(2, 3), "").poll(0, "t1", "ok", o(4), ""), nil},
		{"commit then rewind", new(hist).poll(0, "t1", "ok", o(2, 3), "").poll(0, "t1", "ok", o(2), ""),
			[]string{"committed-redelivery rewind 1>3"}},
		{"info then rewind", new(hist).poll(0, "t1", "info", o(2, 3), "").poll(0, "t1", "ok", o(2), ""),
			[]string{"unknown-outcome-pair rewind 1>3"}},
		{"info then advance", new(hist).poll(0, "t1", "info", o(2, 3), "").poll(0, "t1", "ok", o(5), ""),
			[]string{"unknown-outcome-pair advance 1>3"}},
		{"abort below the committed position", new(hist).poll(0, "t1", "ok", o(0, 1, 2), "").poll(0, "t1", "fail", o(3), "").poll(0, "t1", "ok", o(2, 3), ""),
			[]string{"committed-redelivery rewind-further 3>5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			equal(t, types(check(t, tc.h.String(), ContractKafka)), tc.want)
		})
	}
}

// TestContract: abort-advance is allowed under kafka and bad under
// rewind; the rest does not change.
func TestContract(t *testing.T) {
	src := new(hist).poll(0, "t1", "fail", o(2, 3), "").poll(0, "t1", "ok", o(5, 6), "").
		poll(0, "t1", "fail", o(7), during).poll(0, "t1", "ok", o(7, 8), "").String()
	k := check(t, src, ContractKafka)
	if k.Verdict != analysis.Valid || len(k.BadTypes) != 0 || !instancesOf(k, AbortAdvance)[0].Allowed || k.Options.AbortContract != "kafka" {
		t.Errorf("kafka: %v %v %+v", k.Verdict, k.BadTypes, k.Options)
	}
	r := check(t, src, ContractRewind)
	if r.Verdict != analysis.Invalid || !slices.Equal(r.BadTypes, []string{AbortAdvance}) || instancesOf(r, AbortAdvance)[0].Allowed || r.Options.AbortContract != "rewind" {
		t.Errorf("rewind: %v %v %+v", r.Verdict, r.BadTypes, r.Options)
	}
	equal(t, types(r), types(k))
}

// TestFreshStarts: a crash, a poll of another topic and an assign of
// another topic start a process afresh; an assign of the same topic and
// another process's polls do not.
func TestFreshStarts(t *testing.T) {
	h := new(hist).poll(0, "t1", "fail", o(2), "")
	h.op("invoke", 0, "crash", "nil", "")
	h.op("info", 0, "crash", "nil", "")
	h.poll(0, "t1", "ok", o(5), "") // no pair across the crash
	h.poll(0, "t2", "fail", o(0), "")
	h.poll(0, "t1", "ok", o(6), "") // none across a topic switch
	h.op("invoke", 0, "assign", `"t2"`, "")
	h.op("ok", 0, "assign", `"t2"`, "")
	h.poll(0, "t1", "ok", o(7), "") // none across an assign of t2
	h.op("invoke", 0, "subscribe", `"t1"`, "")
	h.op("ok", 0, "subscribe", `"t1"`, "")
	h.poll(1, "t1", "fail", o(9), "")
	h.poll(0, "t1", "fail", o(8), "") // pairs with op 13 (7), across a subscribe of t1 and process 1's poll
	h.poll(0, "t1", "ok", o(10), "")
	res := check(t, h.String(), ContractKafka)
	equal(t, types(res), []string{"abort-advance advance 19>21"})
	if n := pairsIn(res); n != 2 {
		t.Errorf("%d pairs, want 2 (7 then 8, 8 then 10)", n)
	}
}

func pairsIn(res *analysis.Result) int64 {
	var n int64
	for _, r := range res.PairCounts {
		n += r.Pairs
	}
	return n
}

// TestRebalanceCarried: empty polls are skipped, but their rebalances
// (before or during) are carried by the next pair and join its witness;
// rebalances before P belong to the pair before.
func TestRebalanceCarried(t *testing.T) {
	h := new(hist).poll(0, "t1", "ok", o(0), "")
	h.poll(0, "t1", "fail", o(2, 3), before) // before P: the pair 1>3's
	h.poll(0, "t1", "ok", nil, "")
	h.poll(0, "t1", "info", nil, during)
	h.poll(0, "t1", "ok", o(2, 3), "")
	res := check(t, h.String(), ContractKafka)
	equal(t, types(res), []string{"abort-rewind rewind 3>9"})
	in := instancesOf(res, AbortRewind)[0]
	if !in.Rebalance || len(in.RebalanceEvents) != 1 || in.RebalanceEvents[0].Op != 7 || in.RebalanceEvents[0].When != "during" ||
		in.RebalanceEvents[0].Type.String() != ":revoked" {
		t.Errorf("rebalance %v %+v", in.Rebalance, in.RebalanceEvents)
	}
	if !slices.Equal(in.Witness, []int64{2, 3, 6, 7, 8, 9}) {
		t.Errorf("witness %v, want P, the empty poll with a rebalance, N", in.Witness)
	}
	// 0 then 2 3: a committed advance, with the rebalance logged before N
	if c := cell(res, Committed, Advance); c.Pairs != 1 || c.WithRebalance != 1 {
		t.Errorf("committed advance %+v", c)
	}
}

func cell(res *analysis.Result, outcome, class string) analysis.PairCount {
	for _, r := range res.PairCounts {
		if r.Outcome == outcome && r.Class == class {
			return r
		}
	}
	return analysis.PairCount{}
}

// TestCountTable: every pair is counted by P's outcome, class and
// rebalance, in a table of every outcome and class.
func TestCountTable(t *testing.T) {
	h := new(hist).poll(0, "t1", "ok", o(0), "")
	h.poll(0, "t1", "fail", o(2, 3), "")   // committed advance, no rebalance
	h.poll(0, "t1", "fail", o(5), "")      // aborted advance
	h.poll(0, "t1", "ok", o(5, 6), before) // aborted rewind, with a rebalance
	h.poll(0, "t1", "info", o(8), "")      // committed advance
	h.poll(0, "t1", "ok", o(8, 9), "")     // unknown rewind
	res := check(t, h.String(), ContractKafka)
	if len(res.PairCounts) != 12 {
		t.Fatalf("%d rows", len(res.PairCounts))
	}
	for _, tc := range []struct {
		outcome, class string
		pairs, reb     int64
	}{{Committed, Advance, 2, 0}, {Aborted, Advance, 1, 0}, {Aborted, Rewind, 1, 1}, {Unknown, Rewind, 1, 0}, {Aborted, Other, 0, 0}} {
		if c := cell(res, tc.outcome, tc.class); c.Pairs != tc.pairs || c.WithRebalance != tc.reb {
			t.Errorf("%s %s: %+v, want %d (%d with a rebalance)", tc.outcome, tc.class, c, tc.pairs, tc.reb)
		}
	}
	lines := CountTable(res)
	want := []string{
		"Pairs of polls: 5 (contract kafka)",
		"  after committed poll: 2 advance (0 with a rebalance), 0 rewind (0 with a rebalance), 0 rewind-further (0 with a rebalance), 0 other (0 with a rebalance)",
		"  after aborted poll: 1 advance (0 with a rebalance), 1 rewind (1 with a rebalance), 0 rewind-further (0 with a rebalance), 0 other (0 with a rebalance)",
		"  after unknown poll: 0 advance (0 with a rebalance), 1 rewind (0 with a rebalance), 0 rewind-further (0 with a rebalance), 0 other (0 with a rebalance)",
		"  after an abort: 0 rewinds came without a rebalance (Kafka does not promise them), 0 advances came with one",
	}
	equal(t, lines, want)
	if CountTable(&analysis.Result{}) != nil {
		t.Error("a result without a table has lines")
	}
}

// TestCommittedPosition: commits by any process move a topic's committed
// position, but only those completed before N is invoked; info polls
// never move it; each topic has its own.
func TestCommittedPosition(t *testing.T) {
	h := new(hist).poll(1, "t1", "ok", o(0, 1, 2, 3), "")
	h.poll(2, "t2", "ok", o(10), "")
	h.poll(1, "t1", "info", o(4, 5), "")
	h.poll(0, "t1", "fail", o(4), "")
	// N is invoked, then process 1 commits 4..6 before N completes: it
	// does not count for N
	h.op("invoke", 0, "poll", `{:topic "t1"}`, "")
	h.poll(1, "t1", "ok", o(4, 5, 6), "")
	h.op("ok", 0, "poll", `{:topic "t1" :offsets [4]}`, "")
	h.poll(0, "t1", "ok", o(3), "") // below 7, set by op 10
	res := check(t, h.String(), ContractKafka)
	equal(t, types(res), []string{"abort-rewind rewind 7>11", "committed-redelivery rewind-further 11>13", "unknown-outcome-pair rewind 5>10"})
	rw := instancesOf(res, AbortRewind)[0]
	if *rw.CommittedPosition != 4 || *rw.CommittedBy != 1 {
		t.Errorf("abort-rewind: committed position %d by %d, want 4 by op 1", *rw.CommittedPosition, *rw.CommittedBy)
	}
	cr := instancesOf(res, CommittedRedelivery)[0]
	if *cr.CommittedPosition != 7 || *cr.CommittedBy != 10 || !slices.Equal(cr.Witness, []int64{8, 9, 10, 11, 12, 13}) {
		t.Errorf("committed-redelivery: %d by %d, witness %v", *cr.CommittedPosition, *cr.CommittedBy, cr.Witness)
	}
}

// TestResumePoints: after several aborts N may go back to the committed
// position, to an earlier aborted poll's start, or past an info poll's
// end; offsets no poll read (transaction markers) may lie in between; an
// offset some poll read in between makes it abort-other. A commit ends
// the aborted polls' resume points.
func TestResumePoints(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      *hist
		want   []string
		point  int64
		fromOp int64
	}{
		{"back to the committed position", new(hist).poll(0, "t1", "ok", o(0, 1), "").poll(0, "t1", "fail", o(3, 4), "").
			poll(0, "t1", "fail", o(6), "").poll(0, "t1", "ok", o(3, 4), ""),
			[]string{"abort-advance advance 3>5", "abort-rewind-further rewind-further 5>7"}, 3, 3},
		{"past markers to the committed position", new(hist).poll(0, "t1", "ok", o(0, 1), "").poll(0, "t1", "fail", o(6), "").
			poll(0, "t1", "ok", o(4), ""),
			[]string{"abort-rewind-further rewind-further 3>5"}, 2, 1},
		{"to an earlier aborted poll", new(hist).poll(0, "t1", "ok", o(0), "").poll(1, "t1", "fail", o(3, 4), "").
			poll(0, "t1", "fail", o(6), "").poll(0, "t1", "ok", o(3), ""),
			[]string{"abort-rewind-further rewind-further 5>7"}, 3, 3},
		{"past an info poll", new(hist).poll(0, "t1", "ok", o(0), "").poll(1, "t1", "info", o(1, 2), "").
			poll(0, "t1", "fail", o(6), "").poll(0, "t1", "ok", o(3), ""),
			[]string{"abort-rewind-further rewind-further 5>7"}, 3, 3},
		{"a record read in between", new(hist).poll(0, "t1", "ok", o(0), "").poll(1, "t1", "fail", o(1, 2), "").
			poll(0, "t1", "fail", o(6), "").poll(0, "t1", "ok", o(2), ""),
			[]string{"abort-other rewind-further 5>7"}, 0, 0},
		{"an abort before the latest commit", new(hist).poll(2, "t1", "fail", o(2), "").poll(1, "t1", "fail", o(3), "").
			poll(1, "t1", "ok", o(1), "").poll(0, "t1", "fail", o(6), "").poll(0, "t1", "ok", o(3, 4), ""),
			[]string{"abort-other rewind-further 3>5", "abort-other rewind-further 7>9"}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := check(t, tc.h.String(), ContractKafka)
			equal(t, types(res), tc.want)
			if tc.point == 0 {
				return
			}
			in := instancesOf(res, AbortRewindFurther)[0]
			if *in.ResumePoint != tc.point || *in.ResumedFrom != tc.fromOp {
				t.Errorf("resume point %d from op %d, want %d from op %d", *in.ResumePoint, *in.ResumedFrom, tc.point, tc.fromOp)
			}
			if !slices.Contains(in.Witness, tc.fromOp) {
				t.Errorf("witness %v lacks op %d", in.Witness, tc.fromOp)
			}
		})
	}
}

// TestIntNonmonotonicPoll: a poll whose offsets do not strictly increase;
// its pairs are still classified.
func TestIntNonmonotonicPoll(t *testing.T) {
	src := new(hist).poll(0, "t1", "fail", o(2, 3, 3), "").poll(0, "t1", "ok", o(4), "").String()
	res := check(t, src, ContractKafka)
	equal(t, types(res), []string{"abort-advance advance 1>3", "int-nonmonotonic-poll op 1"})
	in := instancesOf(res, IntNonmonotonicPoll)[0]
	if *in.Index != 2 || !slices.Equal(in.Offsets, o(2, 3, 3)) || res.Verdict != analysis.Invalid {
		t.Errorf("%+v %v", in, res.Verdict)
	}
	if s := explainIntNonmonotonicPoll(in, nil); !strings.Contains(s, "3 then 3") {
		t.Error(s)
	}
}

// TestUnknown: no pair, a cut-off history, and a cut-off history that
// already shows a bad type.
func TestUnknown(t *testing.T) {
	one := new(hist).poll(0, "t1", "ok", o(0), "").poll(1, "t1", "ok", o(1), "")
	res := check(t, one.String(), ContractKafka)
	if res.Verdict != analysis.Unknown || len(res.UnknownReasons) != 1 || !strings.Contains(res.UnknownReasons[0], "no pair") {
		t.Errorf("%v %v", res.Verdict, res.UnknownReasons)
	}
	cut := new(hist).poll(0, "t1", "fail", o(2), "").poll(0, "t1", "ok", o(3), "").String() + `{:index 4 :type :invoke :process 0 :f :poll :value {:topic "t1"`
	if res := check(t, cut, ContractKafka); res.Verdict != analysis.Unknown || len(res.UnknownReasons) != 1 {
		t.Errorf("cut: %v %v", res.Verdict, res.UnknownReasons)
	}
	if res := check(t, cut, ContractRewind); res.Verdict != analysis.Invalid {
		t.Errorf("cut, rewind: %v", res.Verdict)
	}
}

// TestOpenAndNilPolls: an invocation never completed and polls whose
// values are nil are empty polls; the open one counts as info.
func TestOpenAndNilPolls(t *testing.T) {
	h := new(hist).poll(0, "t1", "fail", o(2), "")
	h.op("invoke", 0, "poll", "nil", "")
	h.op("ok", 0, "poll", "nil", " :rebalance-log "+during)
	h.poll(0, "t1", "ok", o(2), "")
	h.op("invoke", 0, "poll", "nil", "")
	res := check(t, h.String(), ContractKafka)
	equal(t, types(res), []string{"abort-rewind rewind 1>5"})
	if !instancesOf(res, AbortRewind)[0].Rebalance || res.Stats.OpenOps != 1 || analysis.OwnOf[Stats](res.Stats).Polls != 3 {
		t.Errorf("%+v", res.Stats)
	}
}

// TestJSON: the same history in JSON, keys with and without colons, gets
// the same result.
func TestJSON(t *testing.T) {
	edn := new(hist).poll(0, "t1", "fail", o(2, 3), "").poll(0, "t1", "ok", o(2, 3), during).String()
	json := `{"index": 0, "type": "invoke", "process": 0, "f": "poll", "value": {"topic": "t1", "abort?": true}}
{"index": 1, "type": "fail", "process": 0, "f": "poll", "value": {":topic": "t1", ":abort?": true, "offsets": [2, 3]}, "error": "intentional-abort"}
{"index": 2, "type": "invoke", "process": 0, "f": "poll", "value": null}
{"index": 3, "type": "ok", "process": 0, "f": ":poll", "value": {"topic": "t1", ":offsets": [2, 3]}, "rebalance-log": {":during": [{"type": "revoked", "keys": ["t1"]}]}}
`
	a, b := check(t, edn, ContractKafka), check(t, json, ContractKafka)
	equal(t, types(b), types(a))
	if len(instancesOf(b, AbortRewind)[0].RebalanceEvents) != 1 {
		t.Errorf("%+v", instancesOf(b, AbortRewind)[0])
	}
}

// TestDecodeErrors: input errors name the file, line and column.
func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{:type :ok :process 0 :f :poll :value "t1"}`, `e.edn:1:39: the value of a poll must be a map`},
		{`{:type :ok :process 0 :f :poll :value [1 2]}`, `e.edn:1:39: :value of a poll op must be a vector of micro-ops`},
		{"{:type :ok :process 0 :f :poll\n :value {:topic \"t1\" :offsets [1 2.5]}}", `e.edn:2:34: expected an integer, found 2.5`},
		{"{:type :ok :process 0 :f :poll\n :value {:offsets [1 2]}}", `e.edn:2:9: a poll with :offsets needs a :topic`},
		{`{"type": "ok", "process": 0, "f": "poll", "value": {"offsets": [1, "2"]}}`, `e.edn:1:68: expected an integer, found the string "2"`},
		{`{"type": "ok", "process": 0, "f": "poll", "value": {"offsets": [1, 2]}}`, `e.edn:1:52: a poll with :offsets needs a :topic`},
	} {
		_, err := ingest.Read(strings.NewReader(tc.src), "e.edn", opts)
		e, ok := err.(*ingest.Error)
		if !ok {
			t.Errorf("%s: error %v, want an *ingest.Error", tc.src, err)
			continue
		}
		if got := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg); !strings.HasPrefix(got, tc.want) {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestBufstreamFinding: the acceptance fixture is valid under kafka and
// invalid under rewind with exactly abort-advance; after aborts, advances
// come without rebalances and rewinds only with them.
func TestBufstreamFinding(t *testing.T) {
	raw, err := os.ReadFile(testpaths.Testdata("abort", "bufstream-advance-without-rebalance-valid.edn"))
	if err != nil {
		t.Fatal(err)
	}
	k := check(t, string(raw), ContractKafka)
	if k.Verdict != analysis.Valid {
		t.Errorf("kafka: %v %v", k.Verdict, k.BadTypes)
	}
	r := check(t, string(raw), ContractRewind)
	if r.Verdict != analysis.Invalid || !slices.Equal(r.BadTypes, []string{AbortAdvance}) {
		t.Errorf("rewind: %v %v", r.Verdict, r.BadTypes)
	}
	adv, rew := cell(k, Aborted, Advance), cell(k, Aborted, Rewind)
	if adv.Pairs == 0 || adv.WithRebalance != 0 || rew.Pairs == 0 || rew.WithRebalance != rew.Pairs {
		t.Errorf("advances %+v, rewinds %+v", adv, rew)
	}
}

// TestCatalogueWords: every type has an entry whose Explain words an
// instance of it.
func TestCatalogueWords(t *testing.T) {
	es := Catalogue()
	for _, typ := range []string{CommittedRedelivery, UnknownOutcomePair, AbortAdvance, AbortRewind, AbortRewindFurther, AbortOther, IntNonmonotonicPoll} {
		if !slices.ContainsFunc(es, func(e catalog.Entry) bool { return e.Name == typ && e.Explain != nil }) {
			t.Errorf("%s has no entry with words", typ)
		}
	}
}

// TestFixtures checks every history under testdata/abort: the verdict its
// name ends with, and the contract, anomaly types and bad types of its
// NAME.expect.json. Under the other contract only abort-advance may change
// its verdict.
func TestFixtures(t *testing.T) {
	entries, err := os.ReadDir(testpaths.Testdata("abort"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name, ext, _ := strings.Cut(e.Name(), ".")
		if ext != "edn" && ext != "json" {
			continue
		}
		n++
		f, base := testpaths.Testdata("abort", e.Name()), testpaths.Testdata("abort", name)
		t.Run(name, func(t *testing.T) {
			var exp struct {
				Options struct {
					AbortContract string `json:"abort_contract"`
				} `json:"options"`
				Types []string `json:"anomaly_types"`
				Bad   []string `json:"bad_anomaly_types"`
			}
			testhist.ReadJSON(t, base+".expect.json", &exp)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseContract(exp.Options.AbortContract)
			if err != nil {
				t.Fatal(err)
			}
			res := check(t, string(src), c)
			var want analysis.Verdict
			switch {
			case strings.HasSuffix(base, "-invalid"):
				want = analysis.Invalid
			case strings.HasSuffix(base, "-unknown"):
				want = analysis.Unknown
			}
			if res.Verdict != want || !slices.Equal(res.AnomalyTypes, nonNil(exp.Types)) || !slices.Equal(res.BadTypes, nonNil(exp.Bad)) {
				t.Errorf("%v, types %v, bad %v; want %v, %v, %v", res.Verdict, res.AnomalyTypes, res.BadTypes, want, exp.Types, exp.Bad)
			}
			other := check(t, string(src), 1-c)
			if !slices.Equal(other.AnomalyTypes, res.AnomalyTypes) ||
				slices.Contains(res.AnomalyTypes, AbortAdvance) == slices.Equal(other.BadTypes, res.BadTypes) {
				t.Errorf("under %v: types %v, bad %v", 1-c, other.AnomalyTypes, other.BadTypes)
			}
		})
	}
	if n < 8 {
		t.Errorf("only %d fixtures under testdata/abort", n)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestPollSize holds a poll to the 40 bytes its doc counts on: a
// million-poll history keeps a million of them.
func TestPollSize(t *testing.T) {
	if got := unsafe.Sizeof(poll{}); got != 40 {
		t.Errorf("a poll takes %d bytes, want 40", got)
	}
}
