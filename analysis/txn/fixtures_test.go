package txn

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/jsonsubset"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

// fixtureDir is a workload's fixture set: the repository's copy in
// testdata/<workload>.
func fixtureDir(workload string) string { return testpaths.Testdata(workload) }

// check is one check of a fixture: options and what Elle said.
type fixtureCheck struct {
	Options      testhist.FixtureOptions      `json:"options"`
	From         string                       `json:"from"`
	Valid        any                          `json:"valid"`
	AnomalyTypes []string                     `json:"anomaly_types"`
	Anomalies    map[string][]json.RawMessage `json:"anomalies"`
	Not          []string                     `json:"not"`
	AlsoNot      []string                     `json:"also_not"`
}

type fixture struct {
	fixtureCheck
	OtherChecks []fixtureCheck `json:"other_checks"`
}

func (fc *fixtureCheck) options(tb testing.TB) Options {
	tb.Helper()
	return Options{Models: fc.Options.ModelList(), Anomalies: fc.Options.Anomalies, WFRKeys: fc.Options.WFRKeys,
		SequentialKeys: fc.Options.SequentialKeys, LinearizableKeys: fc.Options.LinearizableKeys,
		TransactionOrder: fc.Options.Order(tb)}
}

func (fc *fixtureCheck) describe() string {
	var flags string
	for _, f := range []struct {
		on   bool
		name string
	}{{fc.Options.WFRKeys, "wfr-keys"}, {fc.Options.SequentialKeys, "sequential-keys"},
		{fc.Options.LinearizableKeys, "linearizable-keys"}, {fc.Options.TransactionOrder != nil, "transaction-order"}} {
		if f.on {
			flags += ", " + f.name
		}
	}
	if fc.Options.Models == nil {
		return fmt.Sprintf("default models, anomalies %v%s", fc.Options.Anomalies, flags)
	}
	return fmt.Sprintf("models %v, anomalies %v%s", *fc.Options.Models, fc.Options.Anomalies, flags)
}

// refusedVerdicts pins hindsight's verdict on the histories Elle refuses with
// an exception (the fixtures ending -error): the package doc says what
// hindsight does instead, and the instances Elle's finder reports must still
// be found.
var refusedVerdicts = map[string]analysis.Verdict{
	"duplicate-appends-rejected-error":      analysis.Unknown, // duplicate-appends
	"g1a-reads-of-failed-append-error":      analysis.Invalid, // G1a, and a garbage read
	"g1b-read-of-intermediate-append-error": analysis.Invalid,
	"internal-consistent-reads-error":       analysis.Invalid, // garbage reads
	"internal-nil-then-value-error":         analysis.Invalid,
	"internal-read-append-read-error":       analysis.Invalid,
	"internal-append-then-read-error":       analysis.Invalid,
	"future-read-external-error":            analysis.Invalid,
}

// beyondElle lists, per fixture check, the types hindsight finds that
// Elle's result lacks, each a real anomaly Elle's search missed; the test
// requires exactly Elle's types plus these.
var beyondElle = map[string][]string{
	// 41 -rw-> 57 -ww-> 62 -ww-> 41: op 41 read key 8 up to 7, op 57
	// appended 12 after it (12 was never read, so it follows the last
	// element read); op 62 appended 26 to key 9 right after op 57's 22, and
	// op 41's unread 16 follows 26. Exactly one rw edge: G-single-item.
	// Elle's breadth-first search, which keeps the first cycle it reaches,
	// does not report it.
	"sim-prefix-lost-updates-invalid/0": {"G-single-item"},
}

// elleJSON rewrites Elle's spellings in an expected instance to ours: the
// list-append initial state is null.
func elleJSON(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(`":elle.list-append/init"`), []byte("null"))
}

// TestListAppendFixtures runs every check of every list-append fixture
// (Elle's own tests) and compares as the fixtures' README says: the
// verdict, the set of anomaly types, the instances the test asserts, and
// not/also_not.
func TestListAppendFixtures(t *testing.T) {
	runFixtures(t, "list-append", CheckListAppend)
}

// TestRWRegisterFixtures runs every check of every rw-register fixture
// (Elle's own tests) the same way, with the departures docs/rw-register.md
// describes (garbageFixtures).
func TestRWRegisterFixtures(t *testing.T) {
	runFixtures(t, "rw-register", CheckRWRegister)
}

// garbageFixtures are the rw-register fixtures (all their checks) that read a
// value no op wrote: hindsight reports garbage-read there, which is bad under
// every model (docs/rw-register.md#garbage-read, jepsen-io/elle#8), so their
// verdict is invalid and their types are Elle's plus garbage-read; not and
// also_not then count the garbage read as an aborted read, so they are not
// compared. Each entry names the read.
var garbageFixtures = map[string]string{
	"g-single-writes-follow-reads-invalid":              "op 1 reads :y = 1",
	"internal-consistent-reads-unknown":                 "op 1 reads :y = 2",
	"internal-stale-read-after-write-invalid":           "op 1 reads :x = 1",
	"internal-nil-then-value-invalid":                   "op 1 reads :x = 2",
	"internal-two-different-reads-invalid":              "op 1 reads :x = 1 and 2",
	"lost-update-invalid":                               "ops 1 and 3 read :x = 0",
	"read-of-unwritten-value-linearizable-keys-valid":   "op 3 reads :x = 2",
	"cyclic-versions-linearizable-keys-invalid":         "op 3 reads :x = 2",
	"scc-sort-bug-cyclic-versions-g1c-realtime-invalid": "op 1 reads :x = 1",
	"g2-item-linearizable-keys-valid":                   "op 1 reads :x = 1 and :y = 1",
	"write-skew-no-wr-cycle-valid":                      "reads of :x = 0 and :y = 0",
}

func runFixtures(t *testing.T, workload string, check func(*model.History, model.Pairing, Options) *analysis.Result) {
	dir := fixtureDir(workload)
	testhist.Fixtures(t, dir, func(t *testing.T, name string, fx *fixture, h *model.History, p model.Pairing) {
		checks := append([]fixtureCheck{fx.fixtureCheck}, fx.OtherChecks...)
		for i, fc := range checks {
			res := check(h, p, fc.options(t))
			label := fmt.Sprintf("check %d (%s)", i, fc.describe())
			fc.AnomalyTypes = append(fc.AnomalyTypes, beyondElle[fmt.Sprintf("%s/%d", name, i)]...)
			if _, ok := garbageFixtures[name]; ok && workload == "rw-register" {
				if len(analysis.InstancesOf[*Instance](res, GarbageRead)) == 0 {
					t.Errorf("%s: no garbage-read, though %s", label, garbageFixtures[name])
				}
				fc.AnomalyTypes = append(fc.AnomalyTypes, GarbageRead)
				fc.Valid, fc.Not, fc.AlsoNot = false, nil, nil
			}
			slices.Sort(fc.AnomalyTypes)
			compareCheck(t, name, label, &fc, res)
		}
	})
}

func compareCheck(t *testing.T, name, label string, fc *fixtureCheck, res *analysis.Result) {
	t.Helper()
	got, _ := json.Marshal(res)
	if fc.Valid == "error" {
		if want, ok := refusedVerdicts[name]; ok && res.Verdict != want {
			t.Errorf("%s: verdict %s, want %s (pinned for a history Elle refuses)\n%s", label, res.Verdict, want, got)
		}
	} else {
		wantV := map[any]analysis.Verdict{true: analysis.Valid, false: analysis.Invalid, "unknown": analysis.Unknown}[fc.Valid]
		if res.Verdict != wantV {
			t.Errorf("%s: verdict %s, Elle %v\n%s", label, res.Verdict, fc.Valid, got)
		}
		want := slices.Clone(fc.AnomalyTypes)
		if want == nil {
			want = []string{}
		}
		if !slices.Equal(res.AnomalyTypes, want) {
			t.Errorf("%s: anomaly types %v, Elle %v\n%s", label, res.AnomalyTypes, want, got)
		}
		if fc.Not != nil && !slices.Equal(res.Not, fc.Not) {
			t.Errorf("%s: not %v, Elle %v", label, res.Not, fc.Not)
		}
		if fc.AlsoNot != nil && !slices.Equal(res.AlsoNot, fc.AlsoNot) {
			t.Errorf("%s: also_not %v, Elle %v", label, res.AlsoNot, fc.AlsoNot)
		}
	}
	for typ, wants := range fc.Anomalies {
		ins := analysis.InstancesOf[*Instance](res, typ)
		if len(ins) != len(wants) {
			t.Errorf("%s: %d %s instances, Elle %d\n%s", label, len(ins), typ, len(wants), got)
			continue
		}
		used := make([]bool, len(ins))
		for _, w := range wants {
			match := -1
			for j := range ins {
				if used[j] {
					continue
				}
				b, _ := json.Marshal(ins[j])
				want := elleJSON(w)
				if typ == CyclicVersions {
					want = elleCyclicVersions(t, want)
				}
				if ok, err := jsonsubset.Contains(want, b); err != nil {
					t.Fatal(err)
				} else if ok || typ == "incompatible-order" && sameLengthSwapped(w, ins[j]) {
					match = j
					break
				}
			}
			if match < 0 {
				t.Errorf("%s: no %s instance matches Elle's %s\ngot %s", label, typ, w, got)
				continue
			}
			used[match] = true
		}
	}
}

// elleCyclicVersions rewrites Elle's cyclic-versions instance to ours: its
// scc (a set of values) is our values, listed with the initial state
// (null) first and then ascending; its sources are keywords, ours plain
// names.
func elleCyclicVersions(t *testing.T, b []byte) []byte {
	var in map[string]any
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if scc, ok := in["scc"].([]any); ok {
		slices.SortFunc(scc, func(x, y any) int {
			switch {
			case x == nil:
				return -1
			case y == nil:
				return 1
			}
			if a, ok := x.(float64); ok {
				if b, ok := y.(float64); ok {
					return cmp.Compare(a, b)
				}
			}
			return strings.Compare(fmt.Sprint(x), fmt.Sprint(y))
		})
		delete(in, "scc")
		in["values"] = scc
	}
	if srcs, ok := in["sources"].([]any); ok {
		for i, x := range srcs {
			srcs[i] = strings.TrimPrefix(fmt.Sprint(x), ":")
		}
	}
	out, _ := json.Marshal(in)
	return out
}

// sameLengthSwapped accepts an incompatible-order instance of the same key
// whose two lists have the length of Elle's two, when those are equally
// long: Elle sorts the distinct reads of a key by length only, so which two
// equally long reads it meets first is its hash order; hindsight's is the
// order of their first readers.
func sameLengthSwapped(want json.RawMessage, got *Instance) bool {
	var w struct {
		Key    any     `json:"key"`
		Values [][]any `json:"values"`
	}
	if json.Unmarshal(want, &w) != nil || len(w.Values) != 2 || len(got.Values) != 2 || len(w.Values[0]) != len(w.Values[1]) {
		return false
	}
	k, _ := json.Marshal(w.Key)
	gk, _ := json.Marshal(got.Key)
	return bytes.Equal(k, gk) && got.Values[0].Len() == len(w.Values[0]) && got.Values[1].Len() == len(w.Values[0])
}
