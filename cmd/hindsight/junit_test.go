package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/workload"
)

// xmllint checks that doc is well-formed XML with Debian's xmllint
// (libxml2-utils; scripts/install-tools.sh). Without it the test is
// skipped with one line, except in CI (CI set), where it fails.
func xmllint(t *testing.T, doc []byte) {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint not found (scripts/install-tools.sh installs it)")
		}
		t.Skip("xmllint not found: JUnit well-formedness not checked (scripts/install-tools.sh installs it)")
	}
	cmd := exec.Command(bin, "--noout", "-")
	cmd.Stdin = strings.NewReader(string(doc))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
}

// ingestJUnit reads a JUnit document back with go-junit, a reader written
// independently of ours.
func ingestJUnit(t *testing.T, doc []byte) map[string]junit.Suite {
	t.Helper()
	suites, err := junit.Ingest(doc)
	if err != nil {
		t.Fatalf("go-junit: %v", err)
	}
	out := map[string]junit.Suite{}
	for _, s := range suites {
		if _, dup := out[s.Name]; dup {
			t.Errorf("two suites named %s", s.Name)
		}
		out[s.Name] = s
	}
	return out
}

// jsonResult is what the JUnit of a history is compared with: the v1
// JSON of the same check.
type jsonResult struct {
	Source         string                       `json:"source"`
	SHA256         string                       `json:"sha256"`
	Workload       string                       `json:"workload"`
	Valid          any                          `json:"valid"`
	AnomalyTypes   []string                     `json:"anomaly_types"`
	BadTypes       []string                     `json:"bad_anomaly_types"`
	UnknownReasons []string                     `json:"unknown_reasons"`
	Anomalies      map[string][]json.RawMessage `json:"anomalies"`
}

// TestJUnitFixtures: the JUnit of every fixture is well-formed, reads
// back with one suite per history, one case per type the workload knows,
// a failure exactly for each bad type (with its count), a skip for each
// other type found, an error for an unknown verdict or an unreadable
// file, and the properties naming workload, build and digest.
func TestJUnitFixtures(t *testing.T) {
	for _, set := range []string{"queue", "list-append", "rw-register", "incidents", "types"} {
		t.Run(set, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(testpaths.Testdata(set), "*.edn"))
			if len(files) == 0 {
				t.Skip("no fixtures")
			}
			_, js, _ := runCLI(t, "", append([]string{"check", "--format", "json"}, files...)...)
			_, doc, _ := runCLI(t, "", append([]string{"check", "--format", "junit"}, files...)...)
			xmllint(t, []byte(doc))
			suites := ingestJUnit(t, []byte(doc))
			if len(suites) != len(files) {
				t.Fatalf("%d suites for %d histories", len(suites), len(files))
			}
			results := map[string]jsonResult{}
			for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
				var r jsonResult
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				results[r.Source] = r
			}
			for _, f := range files {
				s, ok := suites[f]
				if !ok {
					t.Errorf("%s: no suite", f)
					continue
				}
				r, ok := results[f]
				if !ok { // unreadable: one error case
					if len(s.Tests) != 1 || s.Tests[0].Status != junit.StatusError || s.Tests[0].Name != "read" {
						t.Errorf("%s: unreadable, want one error case \"read\", got %+v", f, s.Tests)
					}
					continue
				}
				checkSuite(t, s, r)
			}
		})
	}
}

func checkSuite(t *testing.T, s junit.Suite, r jsonResult) {
	t.Helper()
	w, _ := workload.Lookup(r.Workload)
	for prop, want := range map[string]string{"workload": r.Workload, "sha256": r.SHA256, "source": r.Source} {
		if s.Properties[prop] != want {
			t.Errorf("%s: property %s = %q, want %q", r.Source, prop, s.Properties[prop], want)
		}
	}
	if !strings.HasPrefix(s.Properties["hindsight"], "hindsight ") {
		t.Errorf("%s: property hindsight = %q", r.Source, s.Properties["hindsight"])
	}
	var failed, skipped, errored, names []string
	for _, c := range s.Tests {
		names = append(names, c.Name)
		switch c.Status {
		case junit.StatusFailed:
			failed = append(failed, c.Name)
			if !strings.Contains(c.Message, c.Name+": ") || c.Error == nil || !strings.Contains(c.Error.Error(), "- ") {
				t.Errorf("%s: failure of %s without its count and examples: %q", r.Source, c.Name, c.Message)
			}
		case junit.StatusSkipped:
			skipped = append(skipped, c.Name)
		case junit.StatusError:
			errored = append(errored, c.Name)
		}
	}
	for _, typ := range w.TypeNames() {
		if !slices.Contains(names, typ) {
			t.Errorf("%s: no case for %s", r.Source, typ)
		}
	}
	slices.Sort(failed)
	if !slices.Equal(failed, r.BadTypes) && !(len(failed) == 0 && len(r.BadTypes) == 0) {
		t.Errorf("%s: failed cases %v, bad types %v", r.Source, failed, r.BadTypes)
	}
	for _, typ := range r.AnomalyTypes {
		if !slices.Contains(r.BadTypes, typ) && !slices.Contains(skipped, typ) && !slices.Contains(errored, typ) {
			t.Errorf("%s: type %s found, not bad, neither skipped nor in error", r.Source, typ)
		}
	}
	if r.Valid == "unknown" && len(errored) == 0 || r.Valid == true && len(errored) > 0 {
		t.Errorf("%s: verdict %v, error cases %v", r.Source, r.Valid, errored)
	}
}

// TestJUnitBesideText: --junit FILE leaves the text output as it was and
// writes the same XML --format junit prints.
func TestJUnitBesideText(t *testing.T) {
	file := filepath.Join(t.TempDir(), "junit.xml")
	h := fixtures + "/g1c-wr-cycle-invalid.edn"
	code0, text0, _ := runCLI(t, "", "check", h)
	code1, text1, _ := runCLI(t, "", "check", "--junit", file, h)
	_, doc, _ := runCLI(t, "", "check", "--format", "junit", h)
	if code0 != 1 || code1 != 1 || stable(text0) != stable(text1) {
		t.Errorf("--junit changed the text output or exit status (%d, %d):\n%s", code0, code1, text1)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The check's own time (each suite's time attribute) differs between
	// two runs.
	times := regexp.MustCompile(` time="[0-9.]+"`)
	if times.ReplaceAllString(string(b), "") != times.ReplaceAllString(doc, "") {
		t.Errorf("--junit file differs from --format junit")
	}
	if c, _, _ := runCLI(t, "", "report", "--format", "junit", h, "-o", filepath.Join(t.TempDir(), "r.html")); c != 3 {
		t.Errorf("report --format junit: exit %d, want 3 (usage)", c)
	}
}

// TestJUnitScan: scan --format junit gives a suite per history row, read
// back from the scan's table, its failures the row's bad types.
func TestJUnitScan(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	for _, n := range []string{"g1c-wr-cycle-invalid.edn", "unseen-drains-to-zero-valid.edn", "empty-no-send-or-poll-unknown.edn"} {
		b, _ := os.ReadFile(filepath.Join(fixtures, n))
		os.WriteFile(filepath.Join(in, n), b, 0o644)
	}
	os.WriteFile(filepath.Join(in, "broken.edn"), []byte("{:index 0 :type :invoke :process 0 :f :send :value [[:send 1 2]]}\n{:index 1 :type :ok :process 0 :f :send :value [[:send 1 [0 2]}\n"), 0o644)
	out := filepath.Join(dir, "out")
	file := filepath.Join(dir, "scan.xml")
	code, doc, stderr := runCLI(t, "", "scan", "--format", "junit", "--junit", file, "-o", out, in)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (one unreadable)\n%s", code, stderr)
	}
	xmllint(t, []byte(doc))
	suites := ingestJUnit(t, []byte(doc))
	if len(suites) != 4 {
		t.Fatalf("%d suites, want 4: %v", len(suites), suites)
	}
	want := map[string]junit.Status{"g1c-wr-cycle-invalid.edn": junit.StatusFailed, "empty-no-send-or-poll-unknown.edn": junit.StatusError, "broken.edn": junit.StatusError}
	for name, s := range suites {
		base := filepath.Base(name)
		if s.Properties["sha256"] == "" {
			t.Errorf("%s: no sha256 property", name)
		}
		got := map[junit.Status]int{}
		for _, c := range s.Tests {
			got[c.Status]++
		}
		if st, ok := want[base]; ok && got[st] == 0 {
			t.Errorf("%s: no %s case: %v", base, st, got)
		}
		if base == "unseen-drains-to-zero-valid.edn" && (got[junit.StatusFailed] > 0 || got[junit.StatusError] > 0) {
			t.Errorf("%s: valid, but %v", base, got)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != doc {
		t.Errorf("--junit file differs from standard output (%v)", err)
	}
}
