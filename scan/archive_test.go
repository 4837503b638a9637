package scan

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// member is a file to pack into a test archive.
type member = testpack.File

// treeMembers returns the regular files under root as members named
// prefix + their path below root, in path order.
func treeMembers(t *testing.T, root, prefix string) []member {
	t.Helper()
	var out []member
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, member{Name: prefix + rel(t, root, p), Body: string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// buildStores lays out Jepsen store folders and loose files as a CI run
// keeps them (no symlinks: archives store none that matter), with every
// kind of history, broken ones, and files that are not histories. It
// returns the root, and the files the scan must skip as not histories
// (relative to root).
func buildStores(t *testing.T) (string, []string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "stores")
	valid, lost := readTestdata(t, "two-keys-all-read-valid.edn"), readTestdata(t, "lost-write-invalid.edn")
	st := filepath.Join(root, "store", "queue")
	writeStoreRuns(t, st, valid, lost)
	testpack.WriteFile(t, filepath.Join(st, "20240101T000000.000Z", "history.json"), readTestdata(t, "json-array-valid.json")) // history.edn wins
	testpack.WriteFile(t, filepath.Join(st, "20240104T000000.000Z", "history.edn.zst"), testpack.Zstd(t, lost))
	lo := filepath.Join(root, "loose")
	testpack.WriteFile(t, filepath.Join(lo, "a.edn"), lost)
	writeBrokenLoose(t, lo)
	// Files that are not histories: skipped, not error rows.
	notHist := map[string]string{
		"loose/results.json":       `{"valid?": true, "anomaly-types": []}`,
		"loose/test.json":          "{\n  \"name\": \"queue\",\n  \"nodes\": [\"n1\", \"n2\"],\n  \"concurrency\": {\"type\": \"x\"}\n}\n",
		"loose/config.edn":         "; generator config\n{:nodes [\"n1\"] :time-limit 60}\n",
		"loose/notes.edn":          "notes about this run\n",
		"loose/numbers.json":       "[1, 2, 3]\n",
		"loose/gen/opts.json.gz":   string(testpack.Gzip(t, []byte(`{"seed": 1, "ops": 100}`))),
		"loose/elle/anomalies.edn": "{:G1c [{:cycle [1 2]}]}",
	}
	var skipped []string
	for n, b := range notHist {
		testpack.WriteFile(t, filepath.Join(root, n), []byte(b))
		skipped = append(skipped, n)
	}
	// Starts like a history, breaks later: an error row with line:col.
	testpack.WriteFile(t, filepath.Join(lo, "breaks.json"), []byte(`{"index": 0, "type": "invoke", "process": 0, "f": "send", "value": [["send", 1, 10]]}`+"\n"+`{"index": 1, "type": "ok", "process": 0 "f": "send"}`+"\n"))
	slices.Sort(skipped)
	return root, skipped
}

// rowsByPath reads a scan's histories table keyed by path.
func rowsByPath(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	_, rows := readParquet(t, filepath.Join(out, "histories.parquet"))
	m := map[string]map[string]any{}
	for _, r := range rows {
		p := fmt.Sprint(r["path"])
		if _, dup := m[p]; dup {
			t.Errorf("path %s twice in the table", p)
		}
		m[p] = r
	}
	return m
}

// TestArchivesAgreeWithLoose scans a tree of stores as loose files and
// packed every way an archive is kept (tar, .tar.gz, .tar.zst, .zip, a zip
// of a tarball), and checks that each history gets the same row in the
// archive as loose, but for its name, and that the same files are skipped.
func TestArchivesAgreeWithLoose(t *testing.T) {
	root, skipped := buildStores(t)
	lo := testOptions(t)
	looseSum := mustRun(t, []string{root}, lo)
	loose := rowsByPath(t, lo.OutDir)
	var gotSkipped []string
	for _, f := range looseSum.SkippedFiles {
		gotSkipped = append(gotSkipped, rel(t, root, f.Path))
	}
	if !slices.Equal(gotSkipped, skipped) {
		t.Fatalf("loose scan skipped\n%v\nwant\n%v", gotSkipped, skipped)
	}
	if r := loose[filepath.Join(root, "loose/breaks.json")]; r == nil || r["verdict"] != VerdictError || !strings.Contains(fmt.Sprint(r["error"]), "breaks.json:2:") {
		t.Errorf("breaks.json: %v, want an error row at line 2", r)
	}
	if _, ok := loose[filepath.Join(root, "store/queue/20240101T000000.000Z/history.json")]; ok {
		t.Errorf("the loose walk took history.json beside history.edn")
	}

	ms := treeMembers(t, root, "stores/")
	tb := testpack.Tar(t, ms)
	dir := t.TempDir()
	forms := map[string][]byte{
		"run.tar":     tb,
		"run.tar.gz":  testpack.Gzip(t, tb),
		"run.tgz":     testpack.Gzip(t, tb),
		"run.tar.zst": testpack.Zstd(t, tb),
		"run.zip":     testpack.Zip(t, ms, zip.Deflate),
		"ci.zip":      testpack.Zip(t, []member{{Name: "artifacts/run.tar.gz", Body: string(testpack.Gzip(t, tb))}}, zip.Deflate),
	}
	prefix := map[string]string{"ci.zip": "!/artifacts/run.tar.gz!/stores/"}
	for name, b := range forms {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			testpack.WriteFile(t, p, b)
			opts := testOptions(t)
			sum := mustRun(t, []string{p}, opts)
			got := rowsByPath(t, opts.OutDir)
			pre := p + "!/stores/"
			if x, ok := prefix[name]; ok {
				pre = p + x
			}
			if len(got) != len(loose) {
				t.Errorf("%d rows, loose %d", len(got), len(loose))
			}
			for lp, lr := range loose {
				mp := pre + rel(t, root, lp)
				ar, ok := got[mp]
				if !ok {
					t.Errorf("no row %s", mp)
					continue
				}
				if want := mp[:strings.LastIndex(mp, "!/")]; fmt.Sprint(ar["archive"]) != want {
					t.Errorf("%s: archive %v, want %s", mp, ar["archive"], want)
				}
				for col, v := range lr {
					switch col {
					case "path", "elapsed_ms", "archive":
						continue
					}
					want := strings.ReplaceAll(norm(v), lp, mp)
					if g := norm(ar[col]); g != want {
						t.Errorf("%s: %s = %q, loose %q", mp, col, g, want)
					}
				}
			}
			var gs []string
			for _, f := range sum.SkippedFiles {
				gs = append(gs, strings.TrimPrefix(f.Path, pre))
			}
			if !slices.Equal(gs, skipped) {
				t.Errorf("skipped\n%v\nwant\n%v", gs, skipped)
			}
			if sum.ExitCode() != ExitInput || sum.Found != len(loose)+len(skipped) {
				t.Errorf("exit %d, found %d; want 3 and %d", sum.ExitCode(), sum.Found, len(loose)+len(skipped))
			}
		})
	}
}

// TestArchiveArgument scans parts of an archive named ARCHIVE!/path: a
// folder inside (what is below it), a file (taken whatever the store
// folder rule says), and a path that names nothing (an error row). The
// progress bar counts the archive's histories as they are found.
func TestArchiveArgument(t *testing.T) {
	root, _ := buildStores(t)
	p := filepath.Join(t.TempDir(), "run.tar.gz")
	testpack.WriteFile(t, p, testpack.Gzip(t, testpack.Tar(t, treeMembers(t, root, "stores/"))))
	opts := testOptions(t)
	var progress syncBuffer
	opts.Progress = &progress
	shadowed := p + "!/stores/store/queue/20240101T000000.000Z/history.json"
	sum := mustRun(t, []string{p + "!/./stores/loose/", shadowed, p + "!/stores/nope"}, opts)
	got := rowsByPath(t, opts.OutDir)
	for path, r := range got {
		switch {
		case path == shadowed:
			if r["verdict"] != VerdictValid {
				t.Errorf("%s: %v", path, r["verdict"])
			}
		case path == p+"!/stores/nope":
			if !strings.Contains(fmt.Sprint(r["error"]), "holds no file at or below") || r["archive"] != p {
				t.Errorf("%s: error %v, archive %v", path, r["error"], r["archive"])
			}
		case !strings.HasPrefix(path, p+"!/stores/loose/"):
			t.Errorf("row %s outside the parts asked for", path)
		}
	}
	if _, ok := got[shadowed]; !ok || len(got) != 10 {
		t.Errorf("%d rows (%v); want the 8 loose histories, history.json and the error", len(got), mapKeys(got))
	}
	if sum.Skipped != 7 {
		t.Errorf("skipped %d, want the 7 loose files that are not histories", sum.Skipped)
	}
	if out := progress.String(); !strings.Contains(out, "10/10 histories") {
		t.Errorf("progress lacks 10/10 histories:\n%s", out)
	}
}

// TestArchiveBroken scans cut and garbled archives: members before the
// damage get their rows, the damage is an error row, and the scan ends.
func TestArchiveBroken(t *testing.T) {
	dir := t.TempDir()
	valid, lost := readTestdata(t, "two-keys-all-read-valid.edn"), readTestdata(t, "lost-write-invalid.edn")
	var big bytes.Buffer
	genHistory(&big, 20000)
	ms := []member{{Name: "r/1/history.edn", Body: string(valid)}, {Name: "r/2/history.edn", Body: big.String()}, {Name: "r/3/history.edn", Body: string(lost)}}
	tgz := testpack.Gzip(t, testpack.Tar(t, ms))
	zb := testpack.Zip(t, ms, zip.Deflate)
	cases := []struct {
		name string
		b    []byte
		rows map[string]string // path below the archive ("" = the archive) -> verdict or error text
	}{
		{"cut.tar.gz", tgz[:len(tgz)*6/10], map[string]string{
			"r/1/history.edn": VerdictValid, "r/2/history.edn": "ends inside this member", "": "cut off inside r/2/history.edn"}},
		{"cut.zip", zb[:len(zb)-10], map[string]string{"": "cannot read the zip archive"}},
		{"cut-in-data.tar", testpack.Tar(t, ms)[:512+(len(valid)+511)/512*512+512+1000], map[string]string{
			"r/1/history.edn": VerdictValid, "r/2/history.edn": "ends inside this member", "": "cut off inside r/2/history.edn"}},
		{"cut-in-header.tar", testpack.Tar(t, ms)[:512+(len(valid)+511)/512*512+100], map[string]string{
			"r/1/history.edn": VerdictValid, "": "cut off after 1 members"}},
		{"not-a-tar.tar.gz", testpack.Gzip(t, valid), map[string]string{"": "not a tar or zip archive"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// In a folder, so it is an archive by its name (given as an
			// argument, a file is an archive only by its content).
			p := filepath.Join(dir, c.name, c.name)
			testpack.WriteFile(t, p, c.b)
			opts := testOptions(t)
			sum, err := Run(context.Background(), []string{filepath.Dir(p)}, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := rowsByPath(t, opts.OutDir)
			if len(got) != len(c.rows) {
				t.Errorf("%d rows, want %d: %v", len(got), len(c.rows), mapKeys(got))
			}
			for sub, want := range c.rows {
				path := p
				if sub != "" {
					path = p + "!/" + sub
				}
				r, ok := got[path]
				if !ok {
					t.Errorf("no row %s", path)
					continue
				}
				if r["verdict"] != want && !strings.Contains(fmt.Sprint(r["error"]), want) {
					t.Errorf("%s: verdict %v, error %v; want %q", path, r["verdict"], r["error"], want)
				}
				if sub == "" && r["archive"] != p {
					t.Errorf("the archive's own row has archive %v", r["archive"])
				}
			}
			if sum.ExitCode() != ExitInput {
				t.Errorf("exit %d", sum.ExitCode())
			}
		})
	}
}

// TestArchiveNames scans archives whose members are named with .., with
// an absolute path, twice, and nested two deep: each is a row under its
// own name (the first of two of the same name), the too-deep archive an
// error row, and nothing is written outside the output folder.
func TestArchiveNames(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "in")
	valid, lost := readTestdata(t, "two-keys-all-read-valid.edn"), readTestdata(t, "lost-write-invalid.edn")
	inner := testpack.Zip(t, []member{{Name: "deep.tar", Body: string(testpack.Tar(t, []member{{Name: "h.edn", Body: string(valid)}}))}}, zip.Store)
	ms := []member{
		{Name: "../../escape/history.edn", Body: string(lost)},
		{Name: "/etc/abs.edn", Body: string(valid)},
		{Name: "dup.edn", Body: string(lost)},
		{Name: "dup.edn", Body: string(valid)},
		{Name: "nest/inner.zip", Body: string(inner)},
	}
	p := filepath.Join(dir, "evil.tar.gz")
	testpack.WriteFile(t, p, testpack.Gzip(t, testpack.Tar(t, ms)))
	before := testpack.Files(base)
	opts := testOptions(t)
	opts.OutDir = filepath.Join(base, "out")
	sum := mustRun(t, []string{p}, opts)
	got := rowsByPath(t, opts.OutDir)
	want := map[string]string{
		p + "!/../../escape/history.edn": VerdictInvalid,
		p + "!/etc/abs.edn":              VerdictValid,
		p + "!/dup.edn":                  VerdictInvalid, // the first of the two
		p + "!/nest/inner.zip!/deep.tar": VerdictError,
	}
	if len(got) != len(want) {
		t.Errorf("rows %v", mapKeys(got))
	}
	for path, v := range want {
		if r, ok := got[path]; !ok || r["verdict"] != v {
			t.Errorf("%s: %v, want %s", path, r, v)
		}
	}
	if e := fmt.Sprint(got[p+"!/nest/inner.zip!/deep.tar"]["error"]); !strings.Contains(e, "one level of nesting") {
		t.Errorf("too deep: %s", e)
	}
	if sum.Skipped != 1 || sum.SkippedFiles[0] != (SkippedFile{p + "!/dup.edn", SkipDuplicate}) {
		t.Errorf("skipped %v, want the second dup.edn", sum.SkippedFiles)
	}
	var text strings.Builder
	sum.WriteText(&text, 0)
	if !strings.Contains(text.String(), "skipped 1 archive member with the name of an earlier member") {
		t.Errorf("summary:\n%s", text.String())
	}
	after := testpack.Files(base)
	for _, f := range after {
		if !slices.Contains(before, f) && !strings.HasPrefix(f, opts.OutDir+string(filepath.Separator)) {
			t.Errorf("the scan wrote %s outside its output folder", f)
		}
	}
	// check reads the odd names as named.
	for _, m := range []string{"../../escape/history.edn", "etc/abs.edn"} {
		rc, err := archive.Open(p + "!/" + m)
		if err != nil {
			t.Errorf("archive.Open %s: %v", m, err)
			continue
		}
		rc.Close()
	}
}

// TestArchiveBomb scans members that inflate a thousandfold and a plain
// member bigger than the limit: each is an error row naming
// --max-history-bytes (the bomb with its line and column), what fits is
// checked, and reading stops at the limit, so the bomb's text is never
// all in memory.
func TestArchiveBomb(t *testing.T) {
	dir := t.TempDir()
	op := "{:index 0, :time 0, :type :invoke, :process 0, :f :send, :value [[:send 1 10]]}\n"
	// 64 MiB of ops (zstd), and one op then 64 MiB of blanks (gzip, whose
	// matches are too short to inflate ops a thousandfold).
	text := strings.Repeat(op, (64<<20)/len(op))
	zbomb := testpack.Zstd(t, []byte(text))
	blanks := op + strings.Repeat(" ", 64<<20)
	bomb := testpack.Gzip(t, []byte(blanks))
	if r, rz := len(blanks)/len(bomb), len(text)/len(zbomb); r < 1000 || rz < 1000 {
		t.Fatalf("the bombs inflate only %dx (gzip) and %dx (zstd)", r, rz)
	}
	valid := readTestdata(t, "two-keys-all-read-valid.edn")
	plain := strings.Repeat(op, (2<<20)/len(op))
	p := filepath.Join(dir, "bombs.tar.gz")
	testpack.WriteFile(t, p, testpack.Gzip(t, testpack.Tar(t, []member{
		{Name: "a/history.edn.gz", Body: string(bomb)},
		{Name: "b/history.edn.zst", Body: string(zbomb)},
		{Name: "c/history.edn", Body: plain},
		{Name: "d/history.edn", Body: string(valid)},
	})))
	// The loose bomb differs from a/history.edn.gz by one blank: with the
	// same content, the second run could find the other path's row in the
	// cache whenever one finished before the other started (the flake that
	// counted 2 cached rows below).
	looseBomb := filepath.Join(dir, "loose", "bomb.edn.gz")
	testpack.WriteFile(t, looseBomb, testpack.Gzip(t, []byte(blanks+" ")))
	opts := testOptions(t)
	opts.MaxHistoryBytes = 1 << 20
	opts.MemoryBudget = 64 << 20
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	sum := mustRun(t, []string{p, filepath.Join(dir, "loose")}, opts)
	runtime.ReadMemStats(&ms1)
	got := rowsByPath(t, opts.OutDir)
	for _, c := range []struct{ path, has string }{
		{p + "!/a/history.edn.gz", "history.edn.gz:"},
		{p + "!/b/history.edn.zst", "history.edn.zst:"},
		{p + "!/c/history.edn", "more than the limit of 1048576 bytes"},
		{looseBomb, "bomb.edn.gz:"},
	} {
		r := got[c.path]
		e := fmt.Sprint(r["error"])
		if r == nil || r["verdict"] != VerdictError || !strings.Contains(e, "--max-history-bytes") || !strings.Contains(e, c.has) {
			t.Errorf("%s: %v %q; want an error row naming --max-history-bytes and %q", c.path, r["verdict"], e, c.has)
		}
	}
	if r := got[p+"!/d/history.edn"]; r == nil || r["verdict"] != VerdictValid {
		t.Errorf("the history that fits: %v", r)
	}
	if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > 48<<20 {
		t.Errorf("the scan allocated %d MiB for bombs of 64 MiB stopped at 1 MiB", alloc>>20)
	}
	if sum.ExitCode() != ExitInput {
		t.Errorf("exit %d", sum.ExitCode())
	}
	// The limit is not a verdict: none of these rows is cached, so a bigger
	// limit reads them.
	opts.MaxHistoryBytes = 128 << 20
	opts.MemoryBudget = 1 << 30
	sum2 := mustRun(t, []string{p, filepath.Join(dir, "loose")}, opts)
	if sum2.Cached != 1 {
		t.Errorf("with a bigger limit: %d cached, want 1 (the one that fitted)", sum2.Cached)
	}
	for path, r := range rowsByPath(t, opts.OutDir) {
		if strings.Contains(fmt.Sprint(r["error"]), "max-history-bytes") {
			t.Errorf("with a bigger limit, %s: %v", path, r["error"])
		}
	}
}

// TestArchiveResume interrupts the scan of a .tar.gz midway and runs it
// again: the members finished before are taken from the cache, one by
// one, and the tables equal those of an uninterrupted scan.
func TestArchiveResume(t *testing.T) {
	root := archiveOfSize(t, 30, 2000)
	p := filepath.Join(t.TempDir(), "runs.tar.gz")
	testpack.WriteFile(t, p, testpack.Gzip(t, testpack.Tar(t, treeMembers(t, root, "gen/"))))
	opts := testOptions(t)
	sum := interruptedRun(t, []string{p}, opts, 30)
	if _, err := os.Stat(filepath.Join(opts.OutDir, "histories.parquet")); err == nil {
		t.Errorf("an interrupted scan wrote a table")
	}
	sum2 := mustRun(t, []string{p}, opts)
	if sum2.Cached < sum.Done || sum2.Done != 30 {
		t.Errorf("rerun: %d cached, %d done; want at least %d cached, 30 done", sum2.Cached, sum2.Done, sum.Done)
	}
	sameAsFresh(t, []string{p}, opts)
	// The same histories loose share the cache with their packed copies:
	// the content hash is that of the member's bytes.
	loose := opts
	if s := mustRun(t, []string{root}, loose); s.Cached != 30 {
		t.Errorf("loose copies of cached members: %d cached, want 30", s.Cached)
	}
}

// TestSkipText checks the summary's words for skipped files, and that a
// folder of nothing but non-histories is "no histories".
func TestSkipText(t *testing.T) {
	root, skipped := buildStores(t)
	sum := mustRun(t, []string{root}, testOptions(t))
	var sb, vb strings.Builder
	sum.WriteText(&sb, 0)
	if want := fmt.Sprintf("skipped %d files that are not histories", len(skipped)); !strings.Contains(sb.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, sb.String())
	}
	sum.WriteSkipped(&vb)
	for _, s := range skipped {
		if !strings.Contains(vb.String(), filepath.Join(root, s)+": not a history") {
			t.Errorf("--verbose list lacks %s:\n%s", s, vb.String())
		}
	}
	only := t.TempDir()
	testpack.WriteFile(t, filepath.Join(only, "results.json"), []byte(`{"valid?": true}`))
	if _, err := Run(context.Background(), []string{only}, testOptions(t)); !errors.Is(err, ErrNoHistories) || !strings.Contains(err.Error(), "skipped 1 file that is not a history") {
		t.Errorf("a folder of non-histories: %v", err)
	}
}

func TestNotHistory(t *testing.T) {
	for _, c := range []struct {
		text string
		skip bool
	}{
		{`{:index 0, :type :invoke}`, false},
		{`{"type": "invoke", "f": "send"}`, false},
		{"[{:process 0 :type :invoke}]", false},
		{"[\n  {\"index\": 0}\n]", false},
		{"#jepsen.history.Op{:index 0, :type :ok}", false},
		{"; shrunk from x.edn\n{:index 0 :type :invoke}", false},
		{"\xef\xbb\xbf{\"f\": \"poll\"}", false},
		{`{:value [[:send 1 {:type 2}]], :f :send}`, false},
		{`{"a": {"type": 1}, "f": 2}`, false},
		{"", false},
		{"  \n", false},
		{"[]", false},
		{"\xff\xfe{:index 0}", false},   // not text: left to the parser
		{"#_ {:x 1} {:index 0}", false}, // a discard: left to the parser
		{"}", false},                    // a stray bracket: left to the parser
		{`{:a "unterminated`, false},    // cannot be read to its end
		{`{:a 1, :b 2`, false},          // not closed within the text
		{`{"valid?": true}`, true},
		{`{:valid? true, :anomalies {:type 1}}`, true}, // :type only nested
		{`{:name "queue" :nodes ["n1"]}`, true},
		{`{}`, true},
		{`[1, 2, 3]`, true},
		{`["type"]`, true},
		{`"just a string"`, true},
		{`42`, true},
		{`null`, true},
		{"notes about this run", true},
		{"#inst \"2024-01-01\"", true},
		{`{"value": ":type", "n": 1}`, true}, // op names as values, not keys
		{"[[1 2] {:index 0}]", true},
	} {
		if got := notHistory([]byte(c.text)); got != c.skip {
			t.Errorf("notHistory(%q) = %v, want %v", c.text, got, c.skip)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name   string
		getenv func(string) string
		shards int
		want   Shard
		errHas string
	}{
		{"index and completions", env(EnvCompletionIndex, "2", EnvCompletions, "4"), 0, Shard{2, 4}, ""},
		{"index and --shards", env(EnvCompletionIndex, "0"), 3, Shard{0, 3}, ""},
		{"both agree", env(EnvCompletionIndex, "1", EnvCompletions, "3"), 3, Shard{1, 3}, ""},
		{"both disagree", env(EnvCompletionIndex, "1", EnvCompletions, "3"), 4, Shard{}, "disagree"},
		{"no index", env(EnvCompletions, "4"), 0, Shard{}, "JOB_COMPLETION_INDEX is not set"},
		{"nothing", env(), 4, Shard{}, "Indexed Job"},
		{"no count", env(EnvCompletionIndex, "1"), 0, Shard{}, "--shards N or set JOB_COMPLETIONS"},
		{"index out of range", env(EnvCompletionIndex, "4", EnvCompletions, "4"), 0, Shard{}, "need 0 <= i < n"},
		{"bad index", env(EnvCompletionIndex, "x"), 2, Shard{}, "not a shard index"},
		{"bad count", env(EnvCompletionIndex, "0", EnvCompletions, "0"), 0, Shard{}, "not a number of shards"},
	} {
		got, err := ShardFromEnv(c.getenv, c.shards)
		switch {
		case c.errHas == "" && (err != nil || got != c.want):
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.errHas)
		}
	}
}

// TestNotHistoryLongFirstValue checks files whose first value runs past
// the first look: a results.json with a long anomaly map is still skipped,
// and an op whose long value comes before its op keys is still a history,
// plain and compressed.
func TestNotHistoryLongFirstValue(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"valid?": false, "anomalies": {"G1c": [`)
	for i := range 20000 {
		fmt.Fprintf(&sb, `{"cycle": [%d, %d], "steps": ["wr", "ww"]},`, i, i+1)
	}
	sb.WriteString(`{}]}, "stats": {"count": 3}}`)
	results := []byte(sb.String())
	op := []byte(`{:value [[:poll {1 [` + strings.Repeat("[0 1] ", 40000) + `]}]], :type :ok, :f :poll, :process 0}`)
	if len(results) < 128<<10 || len(op) < 128<<10 {
		t.Fatalf("not long enough: %d, %d", len(results), len(op))
	}
	for _, c := range []struct {
		name string
		b    []byte
		skip bool
	}{
		{"results.json", results, true}, {"results.json.gz", testpack.Gzip(t, results), true}, {"results.json.zst", testpack.Zstd(t, results), true},
		{"op.edn", op, false}, {"op.edn.gz", testpack.Gzip(t, op), false}, {"op.edn.zst", testpack.Zstd(t, op), false},
	} {
		if got := notHistoryFile(headOf(c.b)); got != c.skip {
			t.Errorf("%s: notHistoryFile = %v, want %v", c.name, got, c.skip)
		}
	}
}

// linkTar is a tar with links as archives hold them: a hard link to an
// earlier history (GNU tar's second name of a hard-linked file), a
// symbolic link to a later one, a link named like a history to a file
// named like none, a folder symlink (Jepsen's "latest"), and links that
// lead nowhere in the archive (testpack.BrokenLinks).
func linkTar(t *testing.T) []byte {
	valid, lost := readTestdata(t, "two-keys-all-read-valid.edn"), readTestdata(t, "lost-write-invalid.edn")
	return testpack.TarEntries(t, append([]testpack.Entry{
		{Name: "r/1/history.edn", Body: string(valid)},
		{Name: "r/2/history.edn", Body: string(lost)},
		{Name: "r/3/history.edn", Hardlink: "r/2/history.edn"},
		{Name: "early/link.edn", Symlink: "../r/9/history.edn"},
		{Name: "latest", Symlink: "r/1"},
		{Name: "named.edn", Hardlink: "data/blob.bin"},
		{Name: "data/blob.bin", Body: string(valid)},
		{Name: "r/9/history.edn", Body: string(lost)},
	}, testpack.BrokenLinks...))
}

// linkWantRows is what a scan of linkTar holds under each path below the
// archive: a link's row is the row of the file it names (copied from
// that path), or an error naming the problem (testpack.BrokenLinkErrors).
var linkWantRows = func() map[string]string {
	m := map[string]string{
		"r/1/history.edn": VerdictValid,
		"r/2/history.edn": VerdictInvalid,
		"r/3/history.edn": "=r/2/history.edn",
		"early/link.edn":  "=r/9/history.edn",
		"named.edn":       VerdictValid,
		"r/9/history.edn": VerdictInvalid,
		"":                "", // no row for the archive itself
	}
	maps.Copy(m, testpack.BrokenLinkErrors)
	return m
}()

// checkLinkRows checks the rows of a scan of linkTar at p (pre is the
// prefix of member paths) against linkWantRows, and the anomaly rows of
// the links against their targets'.
func checkLinkRows(t *testing.T, got map[string]map[string]any, anoms []map[string]any, pre string) {
	t.Helper()
	if len(got) != len(linkWantRows)-1 {
		t.Errorf("%d rows, want %d: %v", len(got), len(linkWantRows)-1, mapKeys(got))
	}
	perPath := map[string]int{}
	for _, a := range anoms {
		perPath[fmt.Sprint(a["path"])]++
	}
	for sub, want := range linkWantRows {
		if sub == "" {
			continue
		}
		r, ok := got[pre+sub]
		if !ok {
			t.Errorf("no row %s", sub)
			continue
		}
		switch {
		case strings.HasPrefix(want, "="):
			tr := got[pre+want[1:]]
			for col, v := range tr {
				switch col {
				case "path", "elapsed_ms":
					continue
				}
				if norm(r[col]) != norm(v) {
					t.Errorf("%s: %s = %s, its target %s has %s", sub, col, norm(r[col]), want[1:], norm(v))
				}
			}
			if n := perPath[pre+want[1:]]; n == 0 || perPath[pre+sub] != n {
				t.Errorf("%s: %d anomaly rows, its target %d", sub, perPath[pre+sub], n)
			}
		case want == VerdictValid || want == VerdictInvalid:
			if r["verdict"] != want || fmt.Sprint(r["ops"]) == "0" {
				t.Errorf("%s: verdict %v, %v ops; want %s", sub, r["verdict"], r["ops"], want)
			}
		default:
			if r["verdict"] != VerdictError || !strings.Contains(fmt.Sprint(r["error"]), pre+sub+": "+want) {
				t.Errorf("%s: verdict %v, error %v; want %q", sub, r["verdict"], r["error"], want)
			}
		}
	}
}

// TestArchiveLinks scans a tar with links, plain, gzipped and inside a
// zip: each link to a file is a row of its own with the result of the
// file it names (a hard link used to be an empty history: unknown, 0 ops),
// a link to nothing in the archive an error row in words, a folder
// symlink no row; nothing outside the archive is read.
func TestArchiveLinks(t *testing.T) {
	dir := t.TempDir()
	tb := linkTar(t)
	for name, c := range map[string]struct {
		b   []byte
		pre string
	}{
		"a.tar":    {tb, "!/"},
		"a.tar.gz": {testpack.Gzip(t, tb), "!/"},
		"ci.zip":   {testpack.Zip(t, []member{{Name: "run.tar.gz", Body: string(testpack.Gzip(t, tb))}}, zip.Deflate), "!/run.tar.gz!/"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, "x", "y", name)
			testpack.WriteFile(t, p, c.b)
			testpack.WriteFile(t, filepath.Join(dir, "etc", "passwd"), readTestdata(t, "two-keys-all-read-valid.edn"))
			opts := testOptions(t)
			sum := mustRun(t, []string{p}, opts)
			_, anoms := readParquet(t, filepath.Join(opts.OutDir, "anomalies.parquet"))
			checkLinkRows(t, rowsByPath(t, opts.OutDir), anoms, p+c.pre)
			if sum.Histories != len(linkWantRows)-1 || sum.Found != sum.Histories || sum.Skipped != 0 {
				t.Errorf("summary: %d histories, %d found, %d skipped", sum.Histories, sum.Found, sum.Skipped)
			}
		})
	}
}

// TestArchiveLinkShards scans the tar of links as three shards: a link's
// row is in its own path's shard even when its target is checked in
// another (the shard reads the archive again for it), and the shards
// together hold the rows of the full scan.
func TestArchiveLinkShards(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.tar")
	testpack.WriteFile(t, p, linkTar(t))
	full := testOptions(t)
	mustRun(t, []string{p}, full)
	fullRows := rowsByPath(t, full.OutDir)
	out := testOptions(t).OutDir
	got := map[string]map[string]any{}
	var anoms []map[string]any
	for i := range 3 {
		opts := testOptions(t)
		opts.OutDir, opts.Shard = out, Shard{i, 3}
		mustRun(t, []string{p}, opts)
		_, rows := readParquet(t, filepath.Join(out, fmt.Sprintf("histories-%d-of-3.parquet", i)))
		_, a := readParquet(t, filepath.Join(out, fmt.Sprintf("anomalies-%d-of-3.parquet", i)))
		anoms = append(anoms, a...)
		for _, r := range rows {
			path := fmt.Sprint(r["path"])
			if _, dup := got[path]; dup {
				t.Errorf("%s in two shards", path)
			}
			if (Shard{i, 3}).Contains(path) == false {
				t.Errorf("%s in shard %d", path, i)
			}
			got[path] = r
		}
	}
	checkLinkRows(t, got, anoms, p+"!/")
	if g, w := mapKeys(got), mapKeys(fullRows); len(g) != len(w) {
		t.Errorf("shards: %v\nfull: %v", g, w)
	}
	for path, r := range fullRows {
		if norm(got[path]["verdict"]) != norm(r["verdict"]) || norm(got[path]["sha256"]) != norm(r["sha256"]) {
			t.Errorf("%s: shards %v %v, full %v %v", path, got[path]["verdict"], got[path]["sha256"], r["verdict"], r["sha256"])
		}
	}
}

// TestArchiveGNUHardlinks packs, with GNU tar, a folder holding a history
// and a hard link to it (ln), as users meet the bug: tar stores the second
// name as a hard link. Both rows must be the history's, as in a folder
// scan; before, the second was an empty history (unknown, 0 ops).
func TestArchiveGNUHardlinks(t *testing.T) {
	tarBin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar here")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	lost := readTestdata(t, "lost-write-invalid.edn")
	testpack.WriteFile(t, filepath.Join(src, "store", "a", "history.edn"), lost)
	if err := os.MkdirAll(filepath.Join(src, "store", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(src, "store", "a", "history.edn"), filepath.Join(src, "store", "b", "history.edn")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	p := filepath.Join(dir, "run.tar.gz")
	if out, err := exec.Command(tarBin, "-czf", p, "-C", src, "store").CombinedOutput(); err != nil {
		t.Skipf("tar: %v\n%s", err, out)
	}
	opts := testOptions(t)
	mustRun(t, []string{p}, opts)
	got := rowsByPath(t, opts.OutDir)
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2: %v", len(got), mapKeys(got))
	}
	var shas []string
	for path, r := range got {
		if r["verdict"] != VerdictInvalid || fmt.Sprint(r["ops"]) == "0" || !slices.Contains(r["bad_types"].([]any), any("lost-write")) {
			t.Errorf("%s: verdict %v, %v ops, bad %v; want invalid, lost-write", path, r["verdict"], r["ops"], r["bad_types"])
		}
		shas = append(shas, fmt.Sprint(r["sha256"]))
	}
	if shas[0] != shas[1] {
		t.Errorf("sha256 %v: the two names hold the same bytes", shas)
	}
}

// TestArchiveZipBadDirectory scans a zip of twenty histories whose
// central directory's offset is damaged: one error row for the archive,
// in words, not twenty rows of "readat: negative offset".
func TestArchiveZipBadDirectory(t *testing.T) {
	valid := readTestdata(t, "two-keys-all-read-valid.edn")
	var ms []member
	for i := range 20 {
		ms = append(ms, member{Name: fmt.Sprintf("r/%02d/history.edn", i), Body: string(valid)})
	}
	zb := testpack.Zip(t, ms, zip.Deflate)
	end := bytes.LastIndex(zb, []byte("PK\x05\x06"))
	binary.LittleEndian.PutUint32(zb[end+16:], binary.LittleEndian.Uint32(zb[end+16:])+1000)
	p := filepath.Join(t.TempDir(), "ci.zip")
	testpack.WriteFile(t, p, zb)
	opts := testOptions(t)
	sum := mustRun(t, []string{p}, opts)
	got := rowsByPath(t, opts.OutDir)
	r := got[p]
	if len(got) != 1 || r == nil {
		t.Fatalf("%d rows %v; want one, the archive's", len(got), mapKeys(got))
	}
	if e := fmt.Sprint(r["error"]); !strings.Contains(e, p+": not a readable zip archive: its central directory points outside the file") || strings.Contains(e, "readat") {
		t.Errorf("error %q", e)
	}
	if sum.ExitCode() != ExitInput {
		t.Errorf("exit %d", sum.ExitCode())
	}
}

// TestArchiveLinkArgument scans links named by ARCHIVE!/path: the link
// alone (its target lies outside the part asked for, so the archive is
// read a second time for it), and a folder holding a link.
func TestArchiveLinkArgument(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.tar.gz")
	testpack.WriteFile(t, p, testpack.Gzip(t, linkTar(t)))
	for arg, want := range map[string]map[string]string{
		p + "!/r/3/history.edn": {"r/3/history.edn": VerdictInvalid},
		p + "!/early":           {"early/link.edn": VerdictInvalid},
		p + "!/named.edn":       {"named.edn": VerdictValid},
	} {
		opts := testOptions(t)
		mustRun(t, []string{arg}, opts)
		got := rowsByPath(t, opts.OutDir)
		if len(got) != len(want) {
			t.Errorf("%s: rows %v, want %v", arg, mapKeys(got), want)
		}
		for sub, v := range want {
			if r := got[p+"!/"+sub]; r == nil || r["verdict"] != v || fmt.Sprint(r["ops"]) == "0" {
				t.Errorf("%s: row %s = %v; want %s", arg, sub, r, v)
			}
		}
	}
}

// TestArchiveZipLinks scans a zip holding a history and a symbolic link
// to it (zip -y): the link is a row with the history's result.
func TestArchiveZipLinks(t *testing.T) {
	zipped := testpack.ZipEntries(t, []testpack.Entry{
		{Name: "run/latest.edn", Symlink: "1/history.edn"},
		{Name: "run/1/history.edn", Body: string(readTestdata(t, "lost-write-invalid.edn"))},
	})
	p := filepath.Join(t.TempDir(), "l.zip")
	testpack.WriteFile(t, p, zipped)
	opts := testOptions(t)
	mustRun(t, []string{p}, opts)
	got := rowsByPath(t, opts.OutDir)
	a, b := got[p+"!/run/latest.edn"], got[p+"!/run/1/history.edn"]
	if len(got) != 2 || a == nil || b == nil || a["verdict"] != VerdictInvalid || norm(a["sha256"]) != norm(b["sha256"]) || norm(a["ops"]) != norm(b["ops"]) {
		t.Errorf("rows %v", got)
	}
}
