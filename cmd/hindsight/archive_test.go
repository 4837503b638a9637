package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// hindsightBinary builds cmd/hindsight (as the Dockerfile does:
// CGO_ENABLED=0, -trimpath) into the test's temporary folder and returns
// its path, for tests that run it as separate processes.
func hindsightBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hindsight")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// tarGz packs files (name -> content) into a .tar.gz, names in order.
func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	packed := make([]testpack.File, len(names))
	for i, n := range names {
		packed[i] = testpack.File{Name: n, Body: string(files[n])}
	}
	return testpack.Gzip(t, testpack.Tar(t, packed))
}

// ciArtifact writes, as CI keeps runs, a zip of two tarballs of Jepsen
// store folders holding every queue fixture (valid, invalid, unknown),
// a corrupt history and files that are not histories. It returns the
// zip's path and the number of histories in it.
func ciArtifact(t *testing.T, dir string) (string, int) {
	t.Helper()
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	runs := []map[string][]byte{{}, {}}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".edn") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(fixtures, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		run := runs[n%2]
		d := fmt.Sprintf("store/queue/%s/", strings.TrimSuffix(e.Name(), ".edn"))
		run[d+"history.edn"] = b
		run[d+"results.edn"] = []byte("{:valid? true}")
		run[d+"test.json"] = []byte(`{"name": "queue", "nodes": ["n1"]}`)
		n++
	}
	runs[0]["store/queue/broken/history.edn"] = []byte("{:index 0, :type :invoke, :process 0, :f :send, :value [[:send 1 2]]}\n{:index 1 :type :ok :process 0 :f :send :value [[:send 1 [0 2]}\n")
	n++
	var members []testpack.File
	for i, r := range runs {
		members = append(members, testpack.File{Name: fmt.Sprintf("artifacts/run-%d.tar.gz", i), Body: string(tarGz(t, r))})
	}
	zipped := testpack.Zip(t, members, zip.Deflate)
	p := filepath.Join(dir, "archive", "ci-artifact.zip")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, zipped, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, n
}

// duckdb runs SQL statements with scripts/duckdb-query.mjs in dir and
// returns each one's rows. It skips the test when node or DuckDB is
// missing, and fails instead when CI is set.
func duckdb(t *testing.T, dir string, statements ...string) [][]map[string]any {
	t.Helper()
	out := testpaths.NodeScript(t, dir, "duckdb-query.mjs", statements...)
	var res [][]map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("duckdb-query.mjs output: %v\n%.500s", err, out)
	}
	return res
}

// mergeQuery returns the SQL of deploy/kubernetes/README.md that merges the
// shards' tables: the sql block after the "merge-query" marker, so the test
// runs exactly what the README tells people to run.
func mergeQuery(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../deploy/kubernetes/README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- merge-query -->\\s*```sql\\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("deploy/kubernetes/README.md has no sql block after <!-- merge-query -->")
	}
	return string(m[1])
}

// TestIndexedJobShards runs the scan of a CI artifact (a zip of tarballs)
// as an Indexed Job would: n separate processes, each with
// JOB_COMPLETION_INDEX and JOB_COMPLETIONS and `--shard auto`, writing into
// one folder; merges their tables with the README's DuckDB query; and
// checks that every history is in exactly one shard and that the merged
// tables equal those of a one-process scan. A rerun of one shard (a
// retried pod) redoes exactly its own part.
func TestIndexedJobShards(t *testing.T) {
	const n = 4
	work := t.TempDir()
	_, histories := ciArtifact(t, work)
	scanArgs := []string{"scan", "--exit-zero", "--format", "json", "-j", "1"}
	bin := hindsightBinary(t)
	start := func(env []string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = append(append(os.Environ(), "JOB_COMPLETION_INDEX=", "JOB_COMPLETIONS="), env...)
		return cmd
	}
	runShard := func(i int) []byte {
		cmd := start([]string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), fmt.Sprintf("JOB_COMPLETIONS=%d", n)},
			append(scanArgs, "--shard", "auto", "-o", "results", "archive")...)
		out, err := testpaths.Output(cmd)
		if err != nil {
			t.Errorf("shard %d: %v", i, err)
		}
		return out
	}
	var wg sync.WaitGroup
	sums := make([][]byte, n)
	for i := range n {
		wg.Go(func() { sums[i] = runShard(i) })
	}
	wg.Wait()
	single := start(nil, append(scanArgs, "-o", "single", "archive")...)
	if out, err := single.CombinedOutput(); err != nil {
		t.Fatalf("one-process scan: %v\n%s", err, out)
	}
	total := 0
	for i, b := range sums {
		var s struct {
			Shard     string
			Histories int
			Found     int
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("shard %d summary: %v\n%s", i, err, b)
		}
		if s.Shard != fmt.Sprintf("%d/%d", i, n) || s.Found != histories {
			t.Errorf("shard %d: summary %+v; want shard %d/%d of %d found", i, s, i, n, histories)
		}
		total += s.Histories
	}
	if total != histories {
		t.Errorf("the shards scanned %d histories together, want %d", total, histories)
	}

	res := duckdb(t, work, mergeQuery(t),
		`SELECT path, count(*) AS n FROM read_parquet('results/histories-*-of-4.parquet') GROUP BY path HAVING count(*) <> 1`,
		`SELECT count(DISTINCT filename) AS files FROM read_parquet('results/histories-*-of-4.parquet', filename = true)`,
		`SELECT * EXCLUDE (elapsed_ms) FROM 'results/histories.parquet'`,
		`SELECT * EXCLUDE (elapsed_ms) FROM 'single/histories.parquet'`,
		`SELECT * FROM 'results/anomalies.parquet' ORDER BY ALL`,
		`SELECT * FROM 'single/anomalies.parquet' ORDER BY ALL`,
	)
	if len(res[1]) != 0 {
		t.Errorf("histories in more than one shard: %v", res[1])
	}
	if f := fmt.Sprint(res[2][0]["files"]); f != fmt.Sprint(n) {
		t.Errorf("%s shard files, want %d", f, n)
	}
	merged, one := res[3], res[4]
	if len(merged) != histories || len(one) != histories {
		t.Fatalf("merged %d rows, one-process %d, want %d", len(merged), len(one), histories)
	}
	for i := range merged {
		a, _ := json.Marshal(merged[i])
		b, _ := json.Marshal(one[i])
		if !bytes.Equal(a, b) {
			t.Errorf("row %d differs:\nmerged %.300s\nsingle %.300s", i, a, b)
			break
		}
	}
	ma, _ := json.Marshal(res[5])
	oa, _ := json.Marshal(res[6])
	if len(res[5]) == 0 || !bytes.Equal(ma, oa) {
		t.Errorf("anomalies: merged %d rows, one-process %d, or they differ", len(res[5]), len(res[6]))
	}
	for _, r := range merged {
		if p := fmt.Sprint(r["path"]); !strings.HasPrefix(p, "archive/ci-artifact.zip!/artifacts/run-") {
			t.Errorf("path %s is not named inside the archive", p)
		}
	}

	// A retried pod: shard 2 again writes the same table, all from the
	// cache, and no other shard's file changes.
	before := map[string][]byte{}
	for i := range n {
		p := filepath.Join(work, "results", fmt.Sprintf("histories-%d-of-%d.parquet", i, n))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = b
	}
	var again struct{ Histories, Cached int }
	if err := json.Unmarshal(runShard(2), &again); err != nil {
		t.Fatal(err)
	}
	if again.Cached != again.Histories {
		t.Errorf("retried shard: %d of %d from the cache", again.Cached, again.Histories)
	}
	res2 := duckdb(t, work, `SELECT * EXCLUDE (elapsed_ms) FROM 'results/histories-2-of-4.parquet'`,
		`SELECT * EXCLUDE (elapsed_ms) FROM read_parquet('results/histories-*-of-4.parquet') ORDER BY path`)
	if len(res2[0]) != again.Histories {
		t.Errorf("retried shard wrote %d rows, want %d", len(res2[0]), again.Histories)
	}
	all, _ := json.Marshal(res2[1])
	if m, _ := json.Marshal(merged); !bytes.Equal(all, m) {
		t.Errorf("after the retry, the shards no longer hold the merged table")
	}
	for p, b := range before {
		if strings.Contains(p, "-2-of-") {
			continue
		}
		if nb, _ := os.ReadFile(p); !bytes.Equal(nb, b) {
			t.Errorf("%s changed when shard 2 was retried", p)
		}
	}
}

// TestShardAutoFlags checks --shard auto's messages without and with the
// Indexed Job environment.
func TestShardAutoFlags(t *testing.T) {
	work := t.TempDir()
	ciArtifact(t, work)
	arch := filepath.Join(work, "archive")
	out := filepath.Join(work, "out")
	for _, c := range []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stderr string
	}{
		{"no environment - 3", nil, []string{"--shard", "auto"}, 3, "JOB_COMPLETION_INDEX is not set"},
		{"index but no count - 3", map[string]string{"JOB_COMPLETION_INDEX": "1"}, []string{"--shard", "auto"}, 3, "--shards N or set JOB_COMPLETIONS"},
		{"count from --shards", map[string]string{"JOB_COMPLETION_INDEX": "1"}, []string{"--shard", "auto", "--shards", "3"}, 0, ""},
		{"count from JOB_COMPLETIONS", map[string]string{"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "2"}, []string{"--shard", "auto"}, 0, ""},
		{"disagreeing counts - 3", map[string]string{"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "2"}, []string{"--shard", "auto", "--shards", "3"}, 3, "disagree"},
		{"--shards without auto - 3", nil, []string{"--shard", "0/2", "--shards", "2"}, 3, "--shards goes with --shard auto"},
		{"verdicts exit 3 without --exit-zero", map[string]string{"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "1"}, []string{"--shard", "auto", "--no-exit-zero"}, 3, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("JOB_COMPLETION_INDEX", "")
			t.Setenv("JOB_COMPLETIONS", "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			args := []string{"scan", "-o", out, "--exit-zero"}
			for _, a := range c.args {
				if a == "--no-exit-zero" {
					args = slices.DeleteFunc(args, func(s string) bool { return s == "--exit-zero" })
					continue
				}
				args = append(args, a)
			}
			code, stdout, stderr := runCLI(t, "", append(args, arch)...)
			if code != c.code || !strings.Contains(stderr, c.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.stderr)
			}
			if c.code == 0 && !strings.Contains(stdout, "shard") {
				t.Errorf("summary does not name the shard:\n%s", stdout)
			}
		})
	}
}

// TestCheckArchiveMember checks and reports single members of archives by
// their ARCHIVE!/path names.
func TestCheckArchiveMember(t *testing.T) {
	work := t.TempDir()
	zipPath, _ := ciArtifact(t, work)
	run0 := zipPath + "!/artifacts/run-0.tar.gz!/store/queue/"
	entries, _ := os.ReadDir(fixtures)
	var invalid string
	k := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".edn") {
			continue
		}
		if k%2 == 0 && strings.HasSuffix(e.Name(), "-invalid.edn") {
			invalid = strings.TrimSuffix(e.Name(), ".edn")
			break
		}
		k++
	}
	if invalid == "" {
		t.Fatal("no invalid fixture in run 0")
	}
	member := run0 + invalid + "/history.edn"
	code, stdout, stderr := runCLI(t, "", "check", member)
	if code != 1 || !strings.HasPrefix(stdout, member+": INVALID") {
		t.Errorf("check %s: exit %d\n%s%s", member, code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "", "check", run0+"broken/history.edn")
	if code != 3 || !strings.Contains(stderr, run0+"broken/history.edn:2:") {
		t.Errorf("broken member: exit %d, stderr %q; want 3 and its line", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "check", run0+"nope/history.edn")
	if code != 3 || !strings.Contains(stderr, "holds no file named") {
		t.Errorf("missing member: exit %d, stderr %q", code, stderr)
	}
	needAssets(t)
	html := filepath.Join(work, "r.html")
	code, _, stderr = runCLI(t, "", "report", member, "-o", html)
	if code != 1 {
		t.Errorf("report %s: exit %d, %s", member, code, stderr)
	}
	if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte("ci-artifact.zip!/artifacts/run-0.tar.gz!/store/queue/")) {
		t.Errorf("the report does not name the member: %v", err)
	}
}

// TestCheckArchiveMemberLinks checks links inside a tarball by their
// names: a hard link to an earlier member (GNU tar's second name of a
// hard-linked file, which used to read as an empty history: unknown, 0
// ops), a symbolic link to a later one and a name through a symlinked
// folder get the verdict and the ops of the history they name; a link
// outside the archive, absolute, dangling or in a loop is exit 3 with a
// message in words.
func TestCheckArchiveMemberLinks(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtures, "g1a-failed-send-read-invalid.edn"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testpack.WriteFile(t, filepath.Join(dir, "etc", "passwd"), b) // what an escape would reach
	p := filepath.Join(dir, "x", "y", "run.tar.gz")
	testpack.WriteFile(t, p, testpack.Gzip(t, testpack.TarEntries(t, append([]testpack.Entry{
		{Name: "store/t/1/history.edn", Body: string(b)},
		{Name: "store/t/2/history.edn", Hardlink: "store/t/1/history.edn"},
		{Name: "store/latest", Symlink: "t/3"},
		{Name: "early.edn", Symlink: "store/t/3/history.edn"},
		{Name: "store/t/3/history.edn", Body: string(b)},
	}, testpack.BrokenLinks...))))
	target := p + "!/store/t/1/history.edn"
	code, want, stderr := runCLI(t, "", "check", "--format", "json", target)
	if code != 1 || !strings.Contains(want, `"ops":`) {
		t.Fatalf("check %s: exit %d\n%s%s", target, code, want, stderr)
	}
	for _, m := range []string{"store/t/2/history.edn", "early.edn", "store/latest/history.edn", "store/t/3/history.edn"} {
		member := p + "!/" + m
		code, out, stderr := runCLI(t, "", "check", "--format", "json", member)
		if code != 1 || stable(strings.ReplaceAll(out, member, target)) != stable(want) {
			t.Errorf("check %s: exit %d, stderr %q; want the output of %s\n%s\nwant\n%s", m, code, stderr, target, out, want)
		}
	}
	for m, msg := range testpack.BrokenLinkErrors {
		member := p + "!/" + m
		code, out, stderr := runCLI(t, "", "check", member)
		if code != 3 || !strings.Contains(stderr, member+": "+msg) || out != "" {
			t.Errorf("check %s: exit %d, stdout %q, stderr %q; want 3 and %q", m, code, out, stderr, msg)
		}
	}
}
