package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// TestMain runs the package's tests outside GitHub Actions whatever runs
// them, so that outputs compared with golden files carry no annotations
// (TestAnnotations sets the variables it needs).
func TestMain(m *testing.M) {
	os.Unsetenv("GITHUB_ACTIONS")
	os.Unsetenv("GITHUB_WORKSPACE")
	os.Exit(m.Run())
}

var update = flag.Bool("update", false, "rewrite the golden files")

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// runExpect runs hindsight with args and checks that it exits with code
// and that its standard error mentions stderrHas; it reports whether the
// exit status was right.
func runExpect(t *testing.T, code int, stderrHas string, args ...string) bool {
	t.Helper()
	got, _, stderr := runCLI(t, "", args...)
	if got != code {
		t.Errorf("exit %d, want %d; stderr: %s", got, code, stderr)
	}
	if !strings.Contains(stderr, stderrHas) {
		t.Errorf("stderr %q does not mention %q", stderr, stderrHas)
	}
	return got == code
}

var (
	elapsed = regexp.MustCompile(`("elapsed_ms":)\d+|(; )\d+( ms)`)
	build   = regexp.MustCompile(`"hindsight":\{[^}]*\}`)
)

// stable masks the run time and the build (its Go release and revision),
// the only parts of the output allowed to change.
func stable(s string) string {
	return build.ReplaceAllString(elapsed.ReplaceAllString(s, "${1}${2}0${3}"), `"hindsight":{"version":"(build)"}`)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/hindsight -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; diff it with -update and git diff\n--- got ---\n%s", name, got)
	}
}

// fixtures are the queue specification fixtures (testdata/queue at the
// repository root).
var fixtures = testpaths.Testdata("queue")

// incident is a real-incident history (testdata/incidents).
var incident = testpaths.Testdata("incidents", "timeout-retry-duplicate-invalid.edn")

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.edn")
	os.WriteFile(bad, []byte("{:index 0 :type :invoke :process 0 :f :send :value [[:send 1 2]]}\n{:index 1 :type :ok :process 0 :f :send :value [[:send 1 [0 2]}\n"), 0o644)
	unclosed := filepath.Join(dir, "unclosed.edn")
	os.WriteFile(unclosed, []byte("{:index 0 :type :invoke :process 0 :f :send :value [[:send 1 2]]}\n{:index 1 :type :ok :process 0 :f :send :value [[:send 1 [0 2]]]\n{:index 2 :type :invoke :process 0 :f :poll :value [[:poll]]}\n"), 0o644)
	unpaired := filepath.Join(dir, "unpaired.edn")
	os.WriteFile(unpaired, []byte("{:index 0 :type :ok :process 0 :f :send :value [[:send 1 [0 2]]]}\n"), 0o644)
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"incident - invalid - 1", []string{"check", incident}, 1, ""},
		{"sample demo - invalid - 1", []string{"demo"}, 1, ""},
		{"unknown history - 2", []string{"check", fixtures + "/empty-no-send-or-poll-unknown.edn"}, 2, ""},
		{"valid history - 0", []string{"check", fixtures + "/unseen-drains-to-zero-valid.edn"}, 0, ""},
		{"worst over several - 1", []string{"check", fixtures + "/unseen-drains-to-zero-valid.edn", fixtures + "/g1c-wr-cycle-invalid.edn"}, 1, ""},
		{"missing file - 3", []string{"check", filepath.Join(dir, "nope.edn")}, 3, "nope.edn"},
		{"syntax error names line and column - 3", []string{"check", bad}, 3, "bad.edn:2:"},
		{"op left unclosed before the next op, not truncated - 3", []string{"check", unclosed}, 3, "unclosed.edn:2:1: the op that starts here is not closed before the next op begins on line 3"},
		{"unpaired completion named - 3", []string{"check", unpaired}, 3, "op 0"},
		{"bad flag - 3", []string{"check", "--format", "yaml", bad}, 3, "--format"},
		{"no history - 3", []string{"check"}, 3, "arg"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runExpect(t, tc.code, tc.stderr, tc.args...)
		})
	}
}

func TestStdin(t *testing.T) {
	h := "{:index 0, :time 1, :type :invoke, :process 0, :f :send, :value [[:send 1 5]]}\n" +
		"{:index 1, :time 2, :type :ok, :process 0, :f :send, :value [[:send 1 [0 5]]]}\n" +
		"{:index 2, :time 3, :type :invoke, :process 1, :f :poll, :value [[:poll]]}\n" +
		"{:index 3, :time 4, :type :ok, :process 1, :f :poll, :value [[:poll {1 [[0 5]]}]]}\n"
	code, out, stderr := runCLI(t, h, "check", "--format", "json", "-")
	if code != 0 || !strings.Contains(out, `"valid":true`) {
		t.Fatalf("exit %d, out %s, stderr %s", code, out, stderr)
	}
}

// TestGoldenDemo pins the text and JSON output on the embedded sample,
// and checks that JSON is byte-identical across runs.
func TestGoldenDemo(t *testing.T) {
	_, text, _ := runCLI(t, "", "demo")
	golden(t, "demo.txt", stable(text))
	_, j1, _ := runCLI(t, "", "demo", "--format", "json")
	_, j2, _ := runCLI(t, "", "demo", "--format", "json")
	if stable(j1) != stable(j2) {
		t.Error("JSON differs between two runs")
	}
	golden(t, "demo.json", stable(j1))
}

// TestGoldenFixtures pins the output for a few fixtures with cycles and
// conflicts, under the options their expectations use.
func TestGoldenFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"g1c-wr-cycle-invalid", nil},
		{"g1c-ww-wr-cycle-allowed-unseen-invalid", []string{"--ww-deps"}},
		{"g0-allowed-write-cycle-unseen-invalid", []string{"--ww-deps"}},
		{"realtime-lag-reassign-invalid", nil},
		{"version-order-info-txn-conflict-invalid", nil},
		{"poll-skip-two-skips-invalid", []string{"--sub-via", "assign"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			args := append([]string{"check", fixtures + "/" + tc.file + ".edn", "--max-examples", "10"}, tc.args...)
			_, text, _ := runCLI(t, "", args...)
			golden(t, tc.file+".txt", stable(strings.ReplaceAll(text, fixtures+"/", "")))
			_, js, _ := runCLI(t, "", append(args, "--format", "json")...)
			golden(t, tc.file+".json", stable(strings.ReplaceAll(js, fixtures+"/", "")))
		})
	}
}

// TestGoldenListAppend pins the text and JSON output for list-append
// fixtures: each non-cycle type, and cycles of several kinds with their
// step-by-step explanations, under the models their checks use.
func TestGoldenListAppend(t *testing.T) {
	dir := testpaths.Testdata("list-append")
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"g1c-with-incompatible-read-orders-invalid", nil},
		{"g-single-realtime-stale-read-invalid", nil},
		{"lost-update-and-g2-item-invalid", nil},
		{"dirty-update-indirect-invalid", nil},
		{"g-nonadjacent-process-invalid", []string{"--model", "strong-session-snapshot-isolation"}},
		{"internal-read-append-read-error", nil},
		{"duplicate-appends-rejected-error", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			args := append([]string{"check", filepath.Join(dir, tc.file+".edn"), "--max-examples", "10"}, tc.args...)
			_, text, _ := runCLI(t, "", args...)
			golden(t, "list-append-"+tc.file+".txt", stable(strings.ReplaceAll(text, dir+"/", "")))
			_, js, _ := runCLI(t, "", append(args, "--format", "json")...)
			golden(t, "list-append-"+tc.file+".json", stable(strings.ReplaceAll(js, dir+"/", "")))
		})
	}
}

// TestVersion: --version names the build and the embedded ECharts, and the
// JSON result carries the build that produced it.
func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "hindsight ") || !strings.Contains(out, "; ECharts ") || !strings.Contains(out, "go1.") {
		t.Fatalf("exit %d, %q", code, out)
	}
	_, out, _ = runCLI(t, "", "demo", "--format", "json")
	var res struct {
		Hindsight struct{ Version, Go string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Hindsight.Version == "" || res.Hindsight.Go == "" {
		t.Fatalf("no build in the JSON (%v): %s", err, out)
	}
}

// TestGoldenRWRegister pins the text and JSON output for rw-register
// fixtures and hand-made cases: each non-cycle type, and cycles whose
// ww and rw steps rest on each version-order source (the initial state,
// --wfr-keys, --sequential-keys, --linearizable-keys, --transaction-order),
// with the explanation of why each order holds, under the options of
// their checks.
func TestGoldenRWRegister(t *testing.T) {
	dir := testpaths.Testdata("rw-register")
	cases := testpaths.Testdata("rw-register-cases")
	for _, tc := range []struct {
		dir, file string
		args      []string
	}{
		{dir, "g-single-initial-state-invalid", []string{"--model", "serializable"}},
		{dir, "g-single-writes-follow-reads-invalid", []string{"--model", "serializable", "--wfr-keys"}},
		{dir, "g0-sequential-keys-invalid", []string{"--model", "serializable", "--sequential-keys"}},
		{dir, "scc-sort-bug-cyclic-versions-g1c-realtime-invalid", []string{"--wfr-keys", "--linearizable-keys"}},
		{dir, "g2-item-transaction-order-invalid", []string{"--model", "serializable", "--transaction-order", "testdata/g2-item-transaction-order.json"}},
		{dir, "cyclic-versions-sequential-keys-invalid", []string{"--sequential-keys"}},
		{dir, "g1a-read-of-failed-write-invalid", nil},
		{dir, "g1b-read-of-intermediate-write-invalid", []string{"--model", "repeatable-read"}},
		{dir, "internal-stale-read-after-write-invalid", nil},
		{dir, "lost-update-invalid", nil},
		{dir, "final-value-read-not-g1b-invalid", nil},
		{cases, "duplicate-writes-and-g1c-invalid", nil},
		{cases, "future-read-invalid", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			args := append([]string{"check", filepath.Join(tc.dir, tc.file+".edn"), "--max-examples", "10"}, tc.args...)
			_, text, _ := runCLI(t, "", args...)
			golden(t, "rw-register-"+tc.file+".txt", stable(strings.ReplaceAll(text, tc.dir+"/", "")))
			_, js, _ := runCLI(t, "", append(args, "--format", "json")...)
			golden(t, "rw-register-"+tc.file+".json", stable(strings.ReplaceAll(js, tc.dir+"/", "")))
		})
	}
}

// docsCommand is the first line of an example output block in docs/: the
// command whose output the rest of the block shows.
var docsCommand = regexp.MustCompile("(?m)^```\\n\\$ (hindsight [^\\n]*)\\n((?s:.*?))^```$")

// TestDocsExamples runs the command of every example output block of the
// documentation (a fenced block whose first line is "$ hindsight ...",
// paths relative to the repository root) and checks that the block shows
// what the command prints today, so the docs cannot drift from the tool.
// go test ./cmd/hindsight -run TestDocsExamples -update rewrites the blocks.
func TestDocsExamples(t *testing.T) {
	root := testpaths.Root()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(files) == 0 {
		t.Fatal("no docs/*.md")
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	examples := 0
	for _, f := range files {
		name := filepath.Base(f)
		raw, err := os.ReadFile(filepath.Join("docs", name))
		if err != nil {
			t.Fatal(err)
		}
		doc := string(raw)
		updated := docsCommand.ReplaceAllStringFunc(doc, func(block string) string {
			m := docsCommand.FindStringSubmatch(block)
			examples++
			args := strings.Fields(m[1])[1:]
			_, out, stderr := runCLI(t, "", args...)
			got := docExample(out + stderr)
			if got != docExample(m[2]) && !*update {
				t.Errorf("docs/%s: `%s` prints\n%s\nbut the docs show\n%s", name, m[1], got, m[2])
			}
			return "```\n$ " + m[1] + "\n" + got + "```"
		})
		if *update && updated != doc {
			if err := os.WriteFile(filepath.Join("docs", name), []byte(updated), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if examples < 55 {
		t.Errorf("only %d example blocks found in docs/", examples)
	}
}

// docExample is command output as the docs show it: the run time masked.
func docExample(s string) string {
	s = stable(s)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

var annotation = regexp.MustCompile(`(?m)^::error (.*?)::(.*)$`)

// TestAnnotations: under GITHUB_ACTIONS=true, check prints one ::error
// per bad anomaly type on standard error, with file and line of the first
// witness op for a plain file in the workspace, and without them for a
// compressed file or standard input; standard output is unchanged; and
// nothing is printed outside GitHub Actions.
func TestAnnotations(t *testing.T) {
	h := fixtures + "/g1c-wr-cycle-invalid.edn" // G1c, witness ops 0..3: op 0 on line 1
	_, plainOut, plainErr := runCLI(t, "", "check", h)
	if annotation.MatchString(plainErr) {
		t.Fatalf("annotations outside GitHub Actions:\n%s", plainErr)
	}
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_WORKSPACE", testpaths.Root())
	_, out, stderr := runCLI(t, "", "check", h)
	if stable(out) != stable(plainOut) {
		t.Errorf("standard output changed under GitHub Actions")
	}
	m := annotation.FindAllStringSubmatch(stderr, -1)
	if len(m) != 1 {
		t.Fatalf("want one annotation, got:\n%s", stderr)
	}
	if want := "file=testdata/queue/g1c-wr-cycle-invalid.edn,line=1,title=hindsight%3A G1c (1)"; m[0][1] != want {
		t.Errorf("properties %q, want %q", m[0][1], want)
	}
	if !strings.Contains(m[0][2], "G1c, 1 found") || !strings.Contains(m[0][2], "docs/queue.md#g1c") {
		t.Errorf("message %q", m[0][2])
	}

	// The demo sample has 8 bad types; its first lost-write witness op
	// (9) is on line 14, below the file's comment lines.
	sample := testpaths.Root() + "/samples/queue-sample.edn"
	_, _, stderr = runCLI(t, "", "check", sample)
	if n := len(annotation.FindAllString(stderr, -1)); n != 8 {
		t.Errorf("%d annotations for the sample, want 8:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "::error file=samples/queue-sample.edn,line=14,title=hindsight%3A lost-write (4)::") {
		t.Errorf("lost-write annotation not at line 14:\n%s", stderr)
	}

	// Compressed, outside the workspace, standard input: no file.
	b, _ := os.ReadFile(h)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "h.edn.gz"), gz.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "h.edn"), b, 0o644)
	for _, c := range []struct {
		name, stdin string
		args        []string
	}{
		{"compressed in the workspace", "", []string{"check", filepath.Join(dir, "h.edn.gz")}},
		{"plain outside the workspace", "", []string{"check", filepath.Join(dir, "h.edn")}},
		{"standard input", string(b), []string{"check", "-"}},
	} {
		if c.name == "compressed in the workspace" {
			t.Setenv("GITHUB_WORKSPACE", dir)
		} else {
			t.Setenv("GITHUB_WORKSPACE", testpaths.Root())
		}
		_, _, stderr := runCLI(t, c.stdin, c.args...)
		m := annotation.FindAllStringSubmatch(stderr, -1)
		if len(m) != 1 || strings.Contains(m[0][1], "file=") {
			t.Errorf("%s: want one annotation without a file, got:\n%s", c.name, stderr)
		}
	}
	// Only check annotates.
	if _, _, stderr := runCLI(t, "", "demo"); annotation.MatchString(stderr) {
		t.Errorf("demo annotated:\n%s", stderr)
	}
}
