package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/internal/jsonsubset"
	"github.com/hindsight-dev/hindsight/internal/testfixture"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

func verdictFromName(t *testing.T, name string) analysis.Verdict {
	t.Helper()
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), filepath.Ext(strings.TrimSuffix(name, ".gz")))
	switch {
	case strings.HasSuffix(base, "-invalid"):
		return analysis.Invalid
	case strings.HasSuffix(base, "-unknown"):
		return analysis.Unknown
	case strings.HasSuffix(base, "-valid"):
		return analysis.Valid
	}
	t.Fatalf("%s: name does not end in -valid, -invalid or -unknown", name)
	return 0
}

// TestIncidents checks the histories built after real incidents (issue 2):
// each must get its verdict and exactly its anomaly types.
func TestIncidents(t *testing.T) {
	cases := []struct {
		file  string
		types []string
	}{
		{"kafka-21062-stale-leader-truncation-invalid.edn",
			[]string{queue.InconsistentOffsets, queue.LostWrite, queue.Unseen}},
		// The retried value is read twice in one poll: a repeat inside the
		// op, besides the duplicate. It is neither lost nor unseen.
		{"timeout-retry-duplicate-invalid.edn",
			[]string{queue.Duplicate, queue.IntNonmonotonicPoll}},
		{"iggy-4438-stale-replica-stall-invalid.edn",
			[]string{queue.StalledConsumer, queue.Unseen}},
		{"bufstream-findings-invalid.edn",
			[]string{queue.Duplicate, queue.G1a, queue.InconsistentOffsets, queue.LostWrite,
				queue.PollSkip, queue.TornTransaction, queue.Unseen}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := testpaths.Testdata("incidents", tc.file)
			res, _, err := File(path, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if want := verdictFromName(t, tc.file); res.Verdict != want {
				t.Errorf("verdict %v, want %v", res.Verdict, want)
			}
			want := slices.Sorted(slices.Values(tc.types))
			if !slices.Equal(res.AnomalyTypes, want) {
				t.Errorf("anomaly types %v, want %v", res.AnomalyTypes, want)
			}
		})
	}
}

// TestIncidentDetails pins the witnesses users will read for two incidents.
func TestIncidentDetails(t *testing.T) {
	res, _, err := File(testpaths.Testdata("incidents", "kafka-21062-stale-leader-truncation-invalid.edn"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	lost := analysis.InstancesOf[*queue.Instance](res, queue.LostWrite)
	if len(lost) != 2 || lost[0].Value.Int != 12 || lost[1].Value.Int != 13 || *lost[0].Writer != 3 || *lost[0].MaxRead != 13 {
		t.Errorf("lost writes: %+v", lost)
	}
	res, _, err = File(testpaths.Testdata("incidents", "iggy-4438-stale-replica-stall-invalid.edn"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	st := analysis.InstancesOf[*queue.Instance](res, queue.StalledConsumer)
	if len(st) != 1 || *st[0].StuckOffset != 2 || *st[0].AckedOffset != 8 || *st[0].DurationS < 10 {
		t.Errorf("stall: %+v", st)
	}
	if u := analysis.InstancesOf[*queue.Instance](res, queue.Unseen); len(u) != 1 || *u[0].Count != 6 {
		t.Errorf("unseen: %+v", u)
	}
}

type expectFile struct {
	// Workload, when set, names the workload to check the history as.
	Workload     string                       `json:"workload"`
	Options      testhist.FixtureOptions      `json:"options"`
	Valid        any                          `json:"valid"`
	AnomalyTypes []string                     `json:"anomaly_types"`
	BadTypes     []string                     `json:"bad_anomaly_types"`
	Instances    map[string][]json.RawMessage `json:"instances"`
}

// specSets are the specification fixture sets under testdata/, one folder
// per workload. Their own tests run them (each pair's NAME.expected.json
// gives the options and the expected result), so TestTestdata leaves them out.
var specSets = []string{"queue", "list-append", "rw-register"}

// TestTestdata runs every hand-made history under testdata/ outside the
// specification fixture sets: the verdict in its name must hold, and where
// a NAME.expect.json sits beside it, the anomaly types and bad types it
// lists, under the options it gives.
func TestTestdata(t *testing.T) {
	var files []string
	root := testpaths.Testdata()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && filepath.Dir(p) == root && slices.Contains(specSets, d.Name()) {
			return filepath.SkipDir
		}
		if strings.Contains(p, "fuzz") || d.IsDir() {
			return nil
		}
		if strings.HasSuffix(p, ".edn") || strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".expect.json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no histories under testdata/")
	}
	for _, f := range files {
		t.Run(filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator))), func(t *testing.T) {
			opts := DefaultOptions()
			var exp *expectFile
			if raw, err := os.ReadFile(strings.TrimSuffix(f, filepath.Ext(f)) + ".expect.json"); err == nil {
				exp = &expectFile{}
				if err := json.Unmarshal(raw, exp); err != nil {
					t.Fatal(err)
				}
				opts.Analysis = testfixture.Options(t, &exp.Options)
			}
			res, _, err := File(f, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := verdictFromName(t, filepath.Base(f)); res.Verdict != want {
				t.Errorf("verdict %v, want %v (types %v, reasons %v)", res.Verdict, want, res.AnomalyTypes, res.UnknownReasons)
			}
			if exp != nil {
				if !slices.Equal(res.AnomalyTypes, nonNil(exp.AnomalyTypes)) {
					t.Errorf("anomaly types %v, want %v", res.AnomalyTypes, exp.AnomalyTypes)
				}
				if !slices.Equal(res.BadTypes, nonNil(exp.BadTypes)) {
					t.Errorf("bad types %v, want %v", res.BadTypes, exp.BadTypes)
				}
				for typ, want := range exp.Instances {
					got := res.Anomalies[typ]
					if len(got) != len(want) {
						t.Errorf("%s: %d instances, want %d", typ, len(got), len(want))
						continue
					}
					for i := range want {
						g, _ := json.Marshal(got[i])
						if ok, err := jsonsubset.Contains(want[i], g); err != nil || !ok {
							t.Errorf("%s[%d] = %s, want at least %s", typ, i, g, want[i])
						}
					}
				}
			}
		})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestCorpus analyses every queue history of shared/corpus and checks the
// verdict SOURCES.md records for today's checker; the history Jepsen's
// checker crashes on must get a verdict here.
func TestCorpus(t *testing.T) {
	corpusDir := testpaths.Corpus(t)
	cases := []struct {
		dir     string
		verdict analysis.Verdict
		types   []string
	}{
		// SOURCES.md: invalid, unseen on keys "31", "46", "47".
		{"maelstrom-kafka-emmanuel32-small-valid", analysis.Invalid, []string{queue.Unseen}},
		{"maelstrom-kafka-yjcsivsuk", analysis.Valid, []string{}},
		// Jepsen's checker throws IndexOutOfBounds here; we find nothing.
		{"maelstrom-kafka-emmanuel32-checker-crash", analysis.Valid, []string{}},
		// Nothing was acknowledged: unknown (Jepsen: empty transaction graph).
		{"maelstrom-kafka-emmanuel32-tiny-timeouts", analysis.Unknown, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			for _, ww := range []bool{false, true} {
				opts := DefaultOptions()
				opts.Analysis.WWDeps = ww
				res, _, err := File(filepath.Join(corpusDir, tc.dir), opts) // a store folder
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != tc.verdict || !slices.Equal(res.AnomalyTypes, tc.types) {
					t.Errorf("ww-deps %v: verdict %v types %v, want %v %v", ww, res.Verdict, res.AnomalyTypes, tc.verdict, tc.types)
				}
			}
		})
	}
	t.Run("unseen keys of small-valid", func(t *testing.T) {
		res, _, err := File(filepath.Join(corpusDir, "maelstrom-kafka-emmanuel32-small-valid/history.edn"), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, in := range analysis.InstancesOf[*queue.Instance](res, queue.Unseen) {
			keys = append(keys, in.Key.Text)
		}
		slices.Sort(keys) // instances are ordered by their witnesses, not keys
		if !slices.Equal(keys, []string{"31", "46", "47"}) {
			t.Errorf("unseen keys %v, want 31 46 47", keys)
		}
	})
}

// TestCorpusListAppend checks the list-append histories of shared/corpus
// against the verdicts SOURCES.md records for them (Elle's, elle-cli's or
// the run's own results.edn), under the models those runs used.
func TestCorpusListAppend(t *testing.T) {
	corpusDir := testpaths.Corpus(t)
	for _, tc := range []struct {
		file   string
		models []string
		want   analysis.Verdict
		types  []string // nil: not pinned (no recorded types)
		not    []string
	}{
		// Elle's regression test: G2-item, so not repeatable-read, but SI holds.
		{"elle-si-without-g-single/si-without-g-single.edn", []string{"snapshot-isolation", "repeatable-read"}, analysis.Invalid,
			[]string{"G2-item"}, []string{"repeatable-read"}},
		{"elle-paper-example/paper-example.edn", nil, analysis.Invalid, nil, nil},
		{"elle-cli-paper-example-json/paper-example.json", nil, analysis.Invalid, nil, nil},
		{"elle-cli-list-append-gh30/list-append-gh-30.edn", []string{"serializable"}, analysis.Invalid, nil, nil},
		// every txn failed: Elle says unknown, empty-transaction-graph
		{"maelstrom-list-append-scalardb-allfail/history.edn", nil, analysis.Unknown, []string{"empty-transaction-graph"}, nil},
		// no recorded verdict; a real TiDB run of 10,000 txns must get one
		{"tipocket-tidb-list-append/history.edn", nil, analysis.Invalid, nil, nil},
	} {
		t.Run(filepath.Dir(tc.file), func(t *testing.T) {
			opts := DefaultOptions()
			opts.Analysis.Models = tc.models
			res, _, err := File(filepath.Join(corpusDir, tc.file), opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Workload != "list-append" || res.Verdict != tc.want {
				t.Fatalf("%s %s, want list-append %s: %v", res.Workload, res.Verdict, tc.want, res.AnomalyTypes)
			}
			if tc.types != nil && !slices.Equal(res.AnomalyTypes, tc.types) {
				t.Errorf("types %v, want %v", res.AnomalyTypes, tc.types)
			}
			if tc.not != nil && !slices.Equal(res.Not, tc.not) {
				t.Errorf("not %v, want %v", res.Not, tc.not)
			}
		})
	}
}

// TestCorpusRWRegister checks the rw-register histories of shared/corpus
// against the verdicts SOURCES.md records for them (Elle's test, elle-cli's
// test.sh, or the run's own results.edn), under the options those runs used,
// and under the default strict-serializable. Where hindsight departs by
// design it is pinned: a read of a value no op wrote is a garbage-read, bad
// under every model (docs/rw-register.md#garbage-read; Elle passes it,
// jepsen-io/elle#8).
func TestCorpusRWRegister(t *testing.T) {
	corpusDir := testpaths.Corpus(t)
	for _, tc := range []struct {
		name      string
		file      string
		models    []string
		linKeys   bool
		want      analysis.Verdict
		types     []string
		garbageOf string // the value every garbage read returned ("": any)
	}{
		// elle-cli test.sh expects valid; op 4 reads x = 3, which nobody wrote.
		{"elle-cli edn - garbage 3", "elle-cli-rw-register/rw-register.edn", nil, false, analysis.Invalid, []string{"garbage-read"}, "3"},
		{"elle-cli json - garbage 3", "elle-cli-rw-register/rw-register.json", nil, false, analysis.Invalid, []string{"garbage-read"}, "3"},
		// Elle's version-order-test: valid under strong-snapshot-isolation
		// with linearizable keys, no cyclic versions. The file is an excerpt
		// of a real history, so some values read were written outside it.
		{"elle cyclic-versions regression - no cycle", "elle-cyclic-versions/cyclic-versions.edn",
			[]string{"strong-snapshot-isolation"}, true, analysis.Invalid, []string{"garbage-read"}, ""},
		// results.edn: valid under read-uncommitted.
		{"maelstrom 1 node - read-uncommitted", "maelstrom-rw-shresth72-1node-valid", []string{"read-uncommitted"}, false, analysis.Valid, []string{}, ""},
		{"maelstrom 1 node - strict-serializable", "maelstrom-rw-shresth72-1node-valid", nil, false, analysis.Valid, []string{}, ""},
		// results.edn: valid under read-uncommitted, but the server answers
		// 0 for a key never written, where Maelstrom's nil is due: 0 is a
		// value nobody wrote.
		{"maelstrom yjcsivsuk - reads 0 for nil", "maelstrom-rw-yjcsivsuk", []string{"read-uncommitted"}, false, analysis.Invalid, []string{"garbage-read"}, "0"},
		{"maelstrom yjcsivsuk - strict-serializable", "maelstrom-rw-yjcsivsuk", nil, false, analysis.Invalid, []string{"garbage-read"}, "0"},
		// Everything crashed: results.edn says the workload is unknown,
		// empty-transaction-graph.
		{"maelstrom all info - unknown", "maelstrom-rw-shresth72-all-info", []string{"read-uncommitted"}, false, analysis.Unknown, []string{"empty-transaction-graph"}, ""},
		{"braft all info - unknown", "braft-rw-register-all-info/history.edn", nil, false, analysis.Unknown, []string{"empty-transaction-graph"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Analysis.Models = tc.models
			opts.Analysis.LinearizableKeys = tc.linKeys
			res, _, err := File(filepath.Join(corpusDir, tc.file), opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Workload != "rw-register" || res.Verdict != tc.want || !slices.Equal(res.AnomalyTypes, tc.types) {
				t.Fatalf("%s %s %v, want rw-register %s %v (%v)", res.Workload, res.Verdict, res.AnomalyTypes, tc.want, tc.types, res.UnknownReasons)
			}
			if tc.garbageOf == "" {
				return
			}
			for _, in := range analysis.InstancesOf[*txn.Instance](res, "garbage-read") {
				if in.Value == nil || in.Value.String() != tc.garbageOf {
					t.Errorf("garbage read of %v, want only reads of %s", in.Value, tc.garbageOf)
				}
			}
		})
	}
}

// TestNoTimes checks that a caller that reads no times (Options.NoTimes)
// gets a transactional history back without them, and the same result,
// while a queue history, whose check reads them, keeps them.
func TestNoTimes(t *testing.T) {
	for _, tc := range []struct {
		file  string
		drops bool
	}{
		{"list-append/adjacent-rw-edges-not-nonadjacent-valid.edn", true},
		{"queue/duplicate-in-failed-poll-invalid.edn", false},
	} {
		path := testpaths.Testdata(tc.file)
		with, hw, err := File(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		without, h, err := File(path, Options{NoTimes: true})
		if err != nil {
			t.Fatal(err)
		}
		if hw.Times.Len() == 0 || hw.Time(1) == model.NoTime {
			t.Fatalf("%s: no times read", tc.file)
		}
		if dropped := h.Times.Len() == 0 && h.Time(1) == model.NoTime; dropped != tc.drops {
			t.Errorf("%s: times dropped %v, want %v", tc.file, dropped, tc.drops)
		}
		a, _ := json.Marshal(with)
		b, _ := json.Marshal(without)
		if ms := regexp.MustCompile(`"elapsed_ms":\d+`); string(ms.ReplaceAll(a, nil)) != string(ms.ReplaceAll(b, nil)) {
			t.Errorf("%s: results differ without times:\n%s\n%s", tc.file, a, b)
		}
	}
}
