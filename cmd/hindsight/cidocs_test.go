package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
	yaml "go.yaml.in/yaml/v3"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/report"
)

var fence = regexp.MustCompile("(?ms)^```(yaml|sh)\n(.*?)^```\n")

// ciDocBlocks returns docs/ci.md's fenced yaml and sh blocks.
func ciDocBlocks(t *testing.T) (yamls, shs []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testpaths.Root(), "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range fence.FindAllStringSubmatch(string(b), -1) {
		if m[1] == "yaml" {
			yamls = append(yamls, m[2])
		} else {
			shs = append(shs, m[2])
		}
	}
	if len(yamls) != 2 || len(shs) != 1 {
		t.Fatalf("docs/ci.md: %d yaml and %d sh blocks, want 2 and 1", len(yamls), len(shs))
	}
	return yamls, shs
}

// runDocCommand runs one hindsight command line of the docs (plain
// words, no shell syntax) in the current folder; it returns the exit
// status and standard error.
func runDocCommand(t *testing.T, line string) (int, string, string) {
	t.Helper()
	args := strings.Fields(line)
	if args[0] != "hindsight" {
		t.Fatalf("not a hindsight command: %s", line)
	}
	for _, a := range args {
		if strings.ContainsAny(a, "|&;<>$`'\"") {
			t.Fatalf("shell syntax in a documented command the test runs: %s", line)
		}
	}
	code, out, stderr := runCLI(t, "", args[1:]...)
	return code, out, stderr
}

// ciSample lays out what the jobs expect: the demo sample as the test's
// history at store/latest/history.edn, in a fresh working folder.
func ciSample(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testpaths.Root(), "samples", "queue-sample.edn"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.MkdirAll(filepath.Join("store", "latest"), 0o755)
	os.WriteFile(filepath.Join("store", "latest", "history.edn"), b, 0o644)
}

// checkJobOutputs asserts what a job's check step wrote: JUnit XML with a
// failure per bad type of the sample, and the HTML report.
func checkJobOutputs(t *testing.T, junitFile, htmlFile string) {
	t.Helper()
	suites, err := junit.IngestFile(junitFile)
	if err != nil {
		t.Fatalf("%s: %v", junitFile, err)
	}
	if len(suites) != 1 || suites[0].Totals.Failed != 8 || suites[0].Properties["workload"] != "queue" {
		t.Errorf("%s: want one suite with the sample's 8 bad types, got %d suites %+v", junitFile, len(suites), suites[0].Totals)
	}
	if report.EChartsVersion() == "" {
		t.Log("ECharts not embedded (run scripts/assets.sh): the HTML report is not checked")
		return
	}
	if fi, err := os.Stat(htmlFile); err != nil || fi.Size() == 0 {
		t.Errorf("%s not written: %v", htmlFile, err)
	}
}

// TestCIDocsGitHub parses the GitHub Actions job of docs/ci.md and runs
// its hindsight step against the sample: exit 1 (invalid), the JUnit
// file the test-report step reads and the HTML report the artifact step
// uploads, and annotations on stderr under GITHUB_ACTIONS=true.
func TestCIDocsGitHub(t *testing.T) {
	yamls, _ := ciDocBlocks(t)
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				If   string            `yaml:"if"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(yamls[0]), &wf); err != nil {
		t.Fatalf("GitHub job: %v", err)
	}
	job, ok := wf.Jobs["jepsen"]
	if !ok || len(job.Steps) == 0 {
		t.Fatalf("GitHub job: no jobs.jepsen.steps")
	}
	ciSample(t)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_WORKSPACE", ".")
	var ran int
	var junitFile, artifacts string
	for _, st := range job.Steps {
		for _, line := range strings.Split(st.Run, "\n") {
			if !strings.HasPrefix(line, "hindsight ") {
				continue
			}
			code, _, stderr := runDocCommand(t, line)
			ran++
			if code != 1 {
				t.Errorf("%s: exit %d, want 1 (the sample is invalid)\n%s", line, code, stderr)
			}
			if !strings.Contains(stderr, "::error file=store/latest/history.edn,line=") {
				t.Errorf("%s: no annotation with a file under GITHUB_ACTIONS=true:\n%s", line, stderr)
			}
		}
		if strings.HasPrefix(st.Uses, "mikepenz/action-junit-report") {
			junitFile = st.With["report_paths"]
			if st.If != "always()" {
				t.Errorf("the test-report step must run after a failed check (if: always())")
			}
		}
		if strings.HasPrefix(st.Uses, "actions/upload-artifact") {
			artifacts = st.With["path"]
		}
	}
	if ran != 1 || junitFile == "" || !strings.Contains(artifacts, "hindsight-report.html") {
		t.Fatalf("GitHub job: %d hindsight commands, junit %q, artifacts %q", ran, junitFile, artifacts)
	}
	checkJobOutputs(t, junitFile, "hindsight-report.html")
}

// TestCIDocsGitLab does the same for the GitLab CI job.
func TestCIDocsGitLab(t *testing.T) {
	yamls, _ := ciDocBlocks(t)
	var ci map[string]struct {
		Image        string   `yaml:"image"`
		BeforeScript []string `yaml:"before_script"`
		Script       []string `yaml:"script"`
		Artifacts    struct {
			When    string   `yaml:"when"`
			Paths   []string `yaml:"paths"`
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal([]byte(yamls[1]), &ci); err != nil {
		t.Fatalf("GitLab job: %v", err)
	}
	job, ok := ci["jepsen"]
	if !ok || job.Artifacts.Reports.JUnit == "" || job.Artifacts.When != "always" {
		t.Fatalf("GitLab job: want jepsen with artifacts when always and reports:junit, got %+v", job)
	}
	ciSample(t)
	ran := 0
	for _, line := range job.Script {
		if strings.HasPrefix(line, "hindsight ") {
			if code, _, stderr := runDocCommand(t, line); code != 1 {
				t.Errorf("%s: exit %d, want 1\n%s", line, code, stderr)
			}
			if !strings.Contains(line, "--junit "+job.Artifacts.Reports.JUnit) {
				t.Errorf("%s does not write the junit report the job keeps (%s)", line, job.Artifacts.Reports.JUnit)
			}
			ran++
		}
	}
	if ran != 1 || len(job.Artifacts.Paths) == 0 {
		t.Fatalf("GitLab job: %d hindsight commands, artifacts %v", ran, job.Artifacts.Paths)
	}
	checkJobOutputs(t, job.Artifacts.Reports.JUnit, job.Artifacts.Paths[0])
}

// TestCIDocsDiff runs the release-to-release workflow of docs/ci.md on
// two archives, the second with an injected anomalous history: the scans
// succeed (--exit-zero), and both diffs exit 1 naming that history and
// its type.
func TestCIDocsDiff(t *testing.T) {
	_, shs := ciDocBlocks(t)
	dir := t.TempDir()
	at := func(p ...string) string { return filepath.Join(append([]string{dir, "archive"}, p...)...) }
	for _, rel := range []string{"v1.2", "v1.3"} {
		copyFixture(t, "unseen-drains-to-zero-valid.edn", at(rel, "run1", "history.edn"))
		copyFixture(t, "empty-no-send-or-poll-unknown.edn", at(rel, "run2", "history.edn"))
	}
	copyFixture(t, "g1c-wr-cycle-invalid.edn", at("v1.3", "run3", "history.edn"))
	t.Chdir(dir)
	diffs := 0
	for _, line := range strings.Split(strings.TrimSpace(shs[0]), "\n") {
		code, out, stderr := runDocCommand(t, line)
		switch {
		case strings.HasPrefix(line, "hindsight scan"):
			if code != 0 {
				t.Errorf("%s: exit %d\n%s", line, code, stderr)
			}
		case strings.HasPrefix(line, "hindsight diff"):
			diffs++
			if code != 1 || !strings.Contains(out, "archive/v1.3/run3/history.edn") || !strings.Contains(out, "G1c") {
				t.Errorf("%s: exit %d, want 1 naming run3 and G1c:\n%s%s", line, code, out, stderr)
			}
		}
	}
	if diffs != 2 {
		t.Errorf("%d diff commands, want 2", diffs)
	}
}
