package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/report"
)

func needAssets(t *testing.T) {
	t.Helper()
	if err := report.AssetsAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ECharts is not embedded in CI: %v", err)
		}
		t.Skipf("ECharts not embedded (run scripts/assets.sh): %v", err)
	}
}

func TestReportCommand(t *testing.T) {
	needAssets(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	la := filepath.Join(testpaths.Root(), "report", "testdata", "list-append", "g1c-with-incompatible-read-orders-invalid.edn")
	cases := []struct {
		name   string
		args   []string
		code   int
		file   string
		stderr string
		// want is text the page must hold
		want string
	}{
		{"invalid sample - 1, file written", []string{"report", "../../samples/queue-sample.edn", "-o", out}, 1, out, "report written", "Offset timeline"},
		{"no -o - 3", []string{"report", "../../samples/queue-sample.edn"}, 3, "", "-o", ""},
		{"check --html - verdict exit, file written", []string{"check", "--html", filepath.Join(dir, "c.html"), incident}, 1, filepath.Join(dir, "c.html"), "", ""},
		{"check --html with two histories - 3", []string{"check", "--html", filepath.Join(dir, "x.html"),
			incident, "../../samples/queue-sample.edn"}, 3, "", "html", ""},
		{"list-append --max-txns - 1, its timeline sampled", []string{"report", filepath.Join(testpaths.Root(), "report", "testdata", "list-append", "g-single-realtime-stale-read-invalid.edn"),
			"-o", filepath.Join(dir, "la.html"), "--max-txns", "3"}, 1,
			filepath.Join(dir, "la.html"), "report written", "Transaction timeline: 3 of 4 transactions are drawn"},
		{"check --html on list-append - 1", []string{"check", "--html", filepath.Join(dir, "lc.html"), la}, 1,
			filepath.Join(dir, "lc.html"), "", `id="chart-txn-timeline"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !runExpect(t, tc.code, tc.stderr, tc.args...) {
				t.FailNow()
			}
			if tc.file != "" {
				b, err := os.ReadFile(tc.file)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), "INVALID") || strings.Contains(string(b), "<script src") {
					t.Errorf("%s does not look like a self-contained invalid report", tc.file)
				}
				if !strings.Contains(string(b), tc.want) {
					t.Errorf("%s lacks %q", tc.file, tc.want)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "x.html")); err == nil {
		t.Error("check --html with two histories wrote a file")
	}
	// each page's header names the command line that wrote it
	for file, args := range map[string][]string{
		out: cases[0].args, filepath.Join(dir, "c.html"): cases[2].args} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := report.ShellJoin(append([]string{"hindsight"}, args...))
		if !strings.Contains(html.UnescapeString(string(b)), "<th>command</th><td>"+want+"</td>") {
			t.Errorf("%s: the header does not name the command %s", file, want)
		}
	}
}

func TestShrinkCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "small.edn")
	code, _, stderr := runCLI(t, "", "shrink", "../../samples/queue-sample.edn", "--anomaly", "G1a", "-o", out)
	if code != 0 || !strings.Contains(stderr, "ops remain") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	code, stdout, _ := runCLI(t, "", "check", "--format", "json", out)
	if code != 1 || !strings.Contains(stdout, `"G1a"`) {
		t.Fatalf("the shrunk history does not show G1a: exit %d, %s", code, stdout)
	}
	if code, _, _ := runCLI(t, "", "shrink", "../../samples/queue-sample.edn", "--anomaly", "no-such-type"); code != 3 {
		t.Errorf("unknown anomaly type: exit %d, want 3", code)
	}
}

// TestCheckDigestWhereShown: check hashes the history only for an output
// that shows the digest (JSON, JUnit, the --html page), and then the
// digest is the file's; the text output, which shows none, skips it
// (check.Options.NoDigest).
func TestCheckDigestWhereShown(t *testing.T) {
	needAssets(t)
	const sample = "../../samples/queue-sample.edn"
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	dir := t.TempDir()
	page, junit := filepath.Join(dir, "c.html"), filepath.Join(dir, "c.xml")
	for _, args := range [][]string{
		{"check", "--format", "json", sample},
		{"check", "--format", "junit", sample},
		{"check", "--html", page, sample},
		{"check", "--junit", junit, sample},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 1 {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
		out := stdout
		for _, f := range []string{page, junit} {
			if slices.Contains(args, f) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				out = string(b)
			}
		}
		if !strings.Contains(out, digest) {
			t.Errorf("%v: the output does not hold the file's sha256 %s", args, digest)
		}
	}
	if code, stdout, _ := runCLI(t, string(b), "check", "--format", "json", "-"); code != 1 || !strings.Contains(stdout, digest) {
		t.Errorf("standard input, JSON: exit %d, the output does not hold the sha256 %s", code, digest)
	}
	opts := check.DefaultOptions()
	opts.NoDigest = true
	res, _, err := check.File(sample, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.SHA256 != "" || res.Bytes != 0 {
		t.Errorf("NoDigest: sha256 %q, bytes %d", res.SHA256, res.Bytes)
	}
	if res, _, err = check.ReadDigest(bytes.NewReader(b), "-", opts); err != nil || res.SHA256 != "" || res.Bytes != 0 {
		t.Errorf("NoDigest, standard input: sha256 %q, bytes %d, %v", res.SHA256, res.Bytes, err)
	}
}
