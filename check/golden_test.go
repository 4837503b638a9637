package check

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testfixture"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/report"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/results.sha256 from this build's output")

// goldenFile holds one line per history and options: the SHA-256 of the
// JSON result (stats.elapsed_ms and the build masked) and the case's name.
var goldenFile = testpaths.Testdata("golden", "results.sha256")

// goldenCase is one history checked under one set of options.
type goldenCase struct {
	name string // path under the repository root or ../shared, then the options
	path string
	opts Options
}

// TestGoldenJSON computes the JSON result (`check --format json`) of every
// history under testdata/, under the default options, under the options its
// NAME.expect(ed).json gives when it gives some, and for an abort history
// under both contracts; and of every history of ../shared/reference/txn
// (skipped with one line when absent). Each must hash to its line of
// testdata/golden/results.sha256; -update rewrites the file. A mismatch
// writes the new JSON to a temporary file and names it, so that a diff
// against the old build's output is one command.
func TestGoldenJSON(t *testing.T) {
	want := readGolden(t)
	got := map[string]string{}
	t.Run("testdata", func(t *testing.T) { runGolden(t, testdataCases(t), want, got) })
	refPresent := false
	t.Run("reference", func(t *testing.T) {
		dir := filepath.Join(testpaths.Reference(t), "txn")
		refPresent = true
		runGolden(t, referenceCases(t, dir), want, got)
	})
	for name := range want {
		if _, ok := got[name]; !ok && (refPresent || !strings.HasPrefix(name, "reference/")) && !*update {
			t.Errorf("%s: in %s but no longer produced (run with -update if that is intended)", name, goldenFile)
		}
	}
	if *update {
		if !refPresent { // keep the lines of the histories not here
			for name, sum := range want {
				if strings.HasPrefix(name, "reference/") {
					got[name] = sum
				}
			}
		}
		writeGolden(t, got)
	}
}

// runGolden checks each case against want, recording its sum in got.
func runGolden(t *testing.T, cases []goldenCase, want, got map[string]string) {
	t.Helper()
	for _, c := range cases {
		out := goldenJSON(c)
		sum := sha256.Sum256(out)
		hexsum := hex.EncodeToString(sum[:])
		got[c.name] = hexsum
		if *update || want[c.name] == hexsum {
			continue
		}
		f, err := os.CreateTemp("", "golden-*.json")
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Write(out)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s: JSON result changed (sha256 %s, want %q); new output in %s", c.name, hexsum, want[c.name], f.Name())
	}
}

// goldenJSON is the case's JSON result with stats.elapsed_ms zeroed and
// the build left out, or its error's message.
func goldenJSON(c goldenCase) []byte {
	res, _, err := File(c.path, c.opts)
	if res == nil {
		return []byte("error: " + fmt.Sprint(err) + "\n")
	}
	res.Stats.ElapsedMS = 0
	res.Hindsight = nil
	var buf bytes.Buffer
	if err := report.JSON(&buf, res); err != nil {
		return []byte("json error: " + err.Error() + "\n")
	}
	if err != nil {
		buf.WriteString("error: " + err.Error() + "\n")
	}
	return buf.Bytes()
}

// isHistory reports whether p names a history (not an expectation).
func isHistory(p string) bool {
	if strings.HasSuffix(p, ".expect.json") || strings.HasSuffix(p, ".expected.json") || strings.HasSuffix(p, ".elle.json") {
		return false
	}
	for _, ext := range []string{".edn", ".json", ".jsonl", ".gz", ".zst"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// testdataCases lists the cases of every history under testdata/.
func testdataCases(t *testing.T) []goldenCase {
	t.Helper()
	root := testpaths.Testdata()
	var cases []goldenCase
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isHistory(p) || strings.Contains(p, string(filepath.Separator)+"golden"+string(filepath.Separator)) {
			return err
		}
		rel, err := filepath.Rel(testpaths.Root(), p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		cases = append(cases, goldenCase{name: name, path: p, opts: DefaultOptions()})
		base := strings.TrimSuffix(strings.TrimSuffix(p, ".gz"), filepath.Ext(strings.TrimSuffix(p, ".gz")))
		for _, suffix := range []string{".expect.json", ".expected.json"} {
			if raw, err := os.ReadFile(base + suffix); err == nil {
				cases = append(cases, expectCases(t, name, p, raw)...)
			}
		}
		if strings.HasPrefix(name, "testdata/abort/") {
			for _, contract := range []string{"kafka", "rewind"} {
				o := DefaultOptions()
				o.Analysis.AbortContract = contract
				cases = append(cases, goldenCase{name: name + " --abort-contract " + contract, path: p, opts: o})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no histories under testdata/")
	}
	return cases
}

// expectCases is the case of a history under the options its expectation
// file raw gives, or none when it gives none.
func expectCases(t *testing.T, name, path string, raw []byte) []goldenCase {
	t.Helper()
	var exp expectFile
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatalf("%s: expectation: %v", name, err)
	}
	var opt struct {
		Options map[string]json.RawMessage `json:"options"`
	}
	if err := json.Unmarshal(raw, &opt); err != nil {
		t.Fatal(err)
	}
	if len(opt.Options) == 0 && exp.Workload == "" {
		return nil
	}
	o := DefaultOptions()
	o.Analysis = testfixture.Options(t, &exp.Options)
	o.Workload = exp.Workload
	keys := make([]string, 0, len(opt.Options))
	for k, v := range opt.Options {
		keys = append(keys, k+"="+string(v))
	}
	slices.Sort(keys)
	label := " expect"
	if exp.Workload != "" {
		label += " workload=" + exp.Workload
	}
	return []goldenCase{{name: name + label + " " + strings.Join(keys, " "), path: path, opts: o}}
}

// referenceCases lists the histories of the reference folder dir.
func referenceCases(t *testing.T, dir string) []goldenCase {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, f := range files {
		if p := filepath.Join(dir, f.Name()); !f.IsDir() && isHistory(p) {
			cases = append(cases, goldenCase{name: "reference/txn/" + f.Name(), path: p, opts: DefaultOptions()})
		}
	}
	if len(cases) == 0 {
		t.Fatalf("no histories in %s", dir)
	}
	return cases
}

// readGolden reads the golden file: name -> sha256.
func readGolden(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	f, err := os.Open(goldenFile)
	if err != nil {
		if *update {
			return m
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("%s: bad line %q", goldenFile, sc.Text())
		}
		m[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// writeGolden writes got, sorted by name, as sha256sum does.
func writeGolden(t *testing.T, got map[string]string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&buf, "%s  %s\n", got[n], n)
	}
	if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
