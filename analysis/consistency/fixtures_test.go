package consistency

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// elleCheck is one check of a fixture's NAME.expected.json (see the README
// of the fixture folders): the options Elle ran with and what it answered.
type elleCheck struct {
	Options struct {
		// ConsistencyModels is nil when absent (Elle's default applies);
		// an empty list stands for Elle's nil: no models.
		ConsistencyModels *[]string `json:"consistency_models"`
		Anomalies         []string  `json:"anomalies"`
	} `json:"options"`
	From         string   `json:"from"`
	Valid        any      `json:"valid"` // true, false, "unknown" or "error"
	AnomalyTypes []string `json:"anomaly_types"`
	Not          []string `json:"not"`
	AlsoNot      []string `json:"also_not"`
}

type elleExpected struct {
	elleCheck
	OtherChecks []elleCheck `json:"other_checks"`
}

func (c elleCheck) models() []string {
	if c.Options.ConsistencyModels == nil {
		return DefaultModels
	}
	return *c.Options.ConsistencyModels
}

// verdict is the check's valid field as a word.
func (c elleCheck) verdict() string {
	switch v := c.Valid.(type) {
	case bool:
		if v {
			return "true"
		}
		return "false"
	case string:
		return v
	}
	return "?"
}

// unreported lists, per fixture check, the anomaly types Elle found in the
// history but did not report under that check's options. Elle's result-map
// computes the boundary over every anomaly it found and lists only the
// reportable ones, so these checks' `not` cannot be derived from their
// `anomaly_types` alone. The key is "<workload>/<fixture> #<check>", 0 being
// the main check. The test holds each entry to two conditions: the type is
// not reportable under that check's options, and Elle reported it for the
// same history under another check's options.
var unreported = map[string][]string{
	"list-append/g1a-read-of-failed-append-invalid #1":       {"G1a"}, // models read-uncommitted
	"list-append/g1a-read-of-failed-append-invalid #2":       {"G1a"}, // anomalies G2
	"list-append/g1b-intermediate-read-g-single-invalid #3":  {"G1b"}, // anomalies G2
	"list-append/internal-read-misses-own-append-invalid #0": {"G0"},  // anomalies internal
	"rw-register/g1b-read-of-intermediate-write-invalid #2":  {"G1b"}, // anomalies G0
}

// TestElleFixtures checks Boundary, Prohibited and Reportable against every
// check of Elle's list-append and rw-register fixtures: Boundary of the
// anomaly types gives Elle's `not` and `also_not` exactly; every reported
// type is reportable; the verdict is false exactly when a reported type is
// prohibited, unknown when only unknown-verdict types remain.
func TestElleFixtures(t *testing.T) {
	// Checks whose history Elle refuses (valid "error") have no verdict or
	// boundary to compare with; they are named in the log instead of run
	// as skipped subtests, so that a skip in this package always means
	// missing data.
	var refused []string
	defer func() {
		t.Logf("%d checks not compared, Elle refuses their histories: %s", len(refused), strings.Join(refused, ", "))
	}()
	for _, workload := range []string{"list-append", "rw-register"} {
		dir := testpaths.Testdata(workload)
		files, err := filepath.Glob(filepath.Join(dir, "*.expected.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no *.expected.json in %s (%v)", dir, err)
		}
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), ".expected.json")
			var exp elleExpected
			testhist.ReadJSON(t, file, &exp)
			checks := append([]elleCheck{exp.elleCheck}, exp.OtherChecks...)
			for i, c := range checks {
				key := workload + "/" + name + " #" + strconv.Itoa(i)
				if c.verdict() == "error" {
					refused = append(refused, key)
					continue
				}
				t.Run(key, func(t *testing.T) {
					checkAgainstElle(t, key, c, checks)
				})
			}
		}
	}
}

// TestElleReference does the same for the larger generated histories of
// ../shared/reference/txn, each checked by Elle under three models.
func TestElleReference(t *testing.T) {
	dir := filepath.Join(testpaths.Reference(t), "txn")
	files, _ := filepath.Glob(filepath.Join(dir, "*.elle.json"))
	if len(files) == 0 {
		t.Fatalf("no Elle reference results in %s", dir)
	}
	for _, file := range files {
		var ref struct {
			Runs []struct {
				elleCheck
				ConsistencyModels []string `json:"consistency_models"`
			} `json:"runs"`
		}
		testhist.ReadJSON(t, file, &ref)
		if len(ref.Runs) == 0 {
			t.Fatalf("%s: no runs", file)
		}
		for _, r := range ref.Runs {
			c := r.elleCheck
			c.Options.ConsistencyModels = &r.ConsistencyModels
			key := strings.TrimSuffix(filepath.Base(file), ".elle.json") + " " + strings.Join(r.ConsistencyModels, ",")
			t.Run(key, func(t *testing.T) { checkAgainstElle(t, key, c, nil) })
		}
	}
}

// checkAgainstElle compares one Elle check with Prohibited, Reportable and
// Boundary; all holds every check of the same history.
func checkAgainstElle(t *testing.T, key string, c elleCheck, all []elleCheck) {
	if c.verdict() == "error" {
		t.Skip("Elle refuses this history: no verdict or boundary to compare")
	}
	prohibited, err := Prohibited(c.models(), c.Options.Anomalies)
	if err != nil {
		t.Fatal(err)
	}
	reportable, err := Reportable(c.models(), c.Options.Anomalies)
	if err != nil {
		t.Fatal(err)
	}
	bad := false
	for _, a := range c.AnomalyTypes {
		if !reportable.Has(a) {
			t.Errorf("Elle reported %s, which is not reportable under models %v, anomalies %v",
				a, c.models(), c.Options.Anomalies)
		}
		bad = bad || prohibited.Has(a)
	}
	want := c.verdict()
	got := "true"
	switch {
	case bad:
		got = "false"
	case len(c.AnomalyTypes) > 0:
		got = "unknown"
	}
	if got != want {
		t.Errorf("types %v under models %v, anomalies %v: verdict %s, Elle says %s",
			c.AnomalyTypes, c.models(), c.Options.Anomalies, got, want)
	}

	types := slices.Clone(c.AnomalyTypes)
	for _, extra := range unreported[key] {
		if reportable.Has(extra) {
			t.Errorf("%s is listed as unreported here, but it is reportable", extra)
		}
		if !slices.ContainsFunc(all, func(o elleCheck) bool { return slices.Contains(o.AnomalyTypes, extra) }) {
			t.Errorf("%s is listed as unreported here, but no check of this history reports it", extra)
		}
		types = append(types, extra)
	}
	not, alsoNot := Boundary(types)
	if !slices.Equal(not, nonNil(c.Not)) {
		t.Errorf("Boundary(%v) not = %v, Elle %v", types, not, c.Not)
	}
	if !slices.Equal(alsoNot, nonNil(c.AlsoNot)) {
		t.Errorf("Boundary(%v) also_not = %v, Elle %v", types, alsoNot, c.AlsoNot)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
