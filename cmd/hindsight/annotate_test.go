package main

import (
	"bytes"
	"compress/gzip"
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
