package scan

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testpack"
)

func TestRunArchive(t *testing.T) {
	root, want := buildArchive(t)
	opts := testOptions(t)
	sum := mustRun(t, []string{root}, opts)
	if sum.Histories != len(want) || sum.Done != len(want) {
		t.Fatalf("scanned %d (done %d), want %d", sum.Histories, sum.Done, len(want))
	}
	_, rows := readParquet(t, filepath.Join(opts.OutDir, "histories.parquet"))
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	counts := map[string]int{}
	for _, row := range rows {
		r := rel(t, root, row["path"].(string))
		c := want[r]
		counts[c.verdict]++
		t.Run(r, func(t *testing.T) {
			if row["verdict"] != c.verdict {
				t.Errorf("verdict %v, want %s (error %v)", row["verdict"], c.verdict, row["error"])
			}
			errText, _ := row["error"].(string)
			if c.verdict == VerdictError {
				if !strings.Contains(errText, c.errHas) {
					t.Errorf("error %q does not mention %q", errText, c.errHas)
				}
				if row["ops"] != nil || row["count_lost_write"] != nil || row["truncated"] != nil {
					t.Errorf("error row has ops %v, counts %v, truncated %v; want nulls", row["ops"], row["count_lost_write"], row["truncated"])
				}
				return
			}
			if errText != "" {
				t.Errorf("error %q on a checked history", errText)
			}
			if row["truncated"] != c.truncated {
				t.Errorf("truncated = %v, want %v", row["truncated"], c.truncated)
			}
			if c.truncated && norm(row["warnings"]) == "[]" {
				t.Errorf("truncated history without a warning")
			}
			if len(fmt.Sprint(row["sha256"])) != 64 {
				t.Errorf("sha256 %v", row["sha256"])
			}
		})
	}
	if sum.Valid != counts[VerdictValid] || sum.Invalid != counts[VerdictInvalid] ||
		sum.Unknown != counts[VerdictUnknown] || sum.Errors != counts[VerdictError] {
		t.Errorf("summary %+v disagrees with the table %v", sum, counts)
	}
	if sum.ExitCode() != ExitInput {
		t.Errorf("exit code %d, want %d (unreadable histories)", sum.ExitCode(), ExitInput)
	}
	noTemps(t, filepath.Dir(opts.OutDir))
}

// TestRunAgreesWithCheck scans the queue fixtures and this package's
// testdata and compares every row with `hindsight check` on the same file.
func TestRunAgreesWithCheck(t *testing.T) {
	inputs := []string{"testdata", fixtures}
	opts := testOptions(t)
	mustRun(t, inputs, opts)
	_, rows := readParquet(t, filepath.Join(opts.OutDir, "histories.parquet"))
	_, anoms := readParquet(t, filepath.Join(opts.OutDir, "anomalies.parquet"))
	perPath := map[string][]map[string]any{}
	for _, a := range anoms {
		perPath[a["path"].(string)] = append(perPath[a["path"].(string)], a)
	}
	if len(rows) < 5 {
		t.Fatalf("only %d rows", len(rows))
	}
	for _, row := range rows {
		path := row["path"].(string)
		t.Run(filepath.Base(path), func(t *testing.T) {
			if strings.HasPrefix(path, "testdata") {
				// testdata names end in the verdict.
				base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
				want := base[strings.LastIndex(base, "-")+1:]
				if row["verdict"] != want {
					t.Errorf("verdict %v, the name says %s", row["verdict"], want)
				}
			}
			res, _, err := check.File(path, opts.Check)
			if err != nil {
				if row["verdict"] != VerdictError || row["error"] != err.Error() {
					t.Errorf("row %v / %v, check says %v", row["verdict"], row["error"], err)
				}
				return
			}
			if row["verdict"] != res.Verdict.String() {
				t.Errorf("verdict %v, check says %s", row["verdict"], res.Verdict)
			}
			if got, want := norm(row["bad_types"]), norm(anyList(res.BadTypes)); got != want {
				t.Errorf("bad_types %s, check says %s", got, want)
			}
			if got, want := norm(row["anomaly_types"]), norm(anyList(res.AnomalyTypes)); got != want {
				t.Errorf("anomaly_types %s, check says %s", got, want)
			}
			if norm(row["ops"]) != fmt.Sprint(res.Stats.Ops) {
				t.Errorf("ops %v, check says %d", row["ops"], res.Stats.Ops)
			}
			total := 0
			for _, typ := range CountTypes {
				n := len(res.Anomalies[typ])
				total += n
				if norm(row[CountColumn(typ)]) != fmt.Sprint(n) {
					t.Errorf("%s = %v, check found %d", CountColumn(typ), row[CountColumn(typ)], n)
				}
			}
			got := perPath[path]
			if len(got) != total {
				t.Fatalf("%d anomaly rows, check found %d instances", len(got), total)
			}
			// Rows follow CountTypes order, instances in the result's order.
			i := 0
			for _, typ := range CountTypes {
				for _, in := range res.Anomalies[typ] {
					want, err := anomalyRow(path, typ, in, slices.Contains(res.BadTypes, typ))
					if err != nil {
						t.Fatal(err)
					}
					a := got[i]
					i++
					if a["type"] != typ || norm(a["witness"]) != norm(anyList(want.Witness)) ||
						norm(a["values"]) != norm(anyList(want.Values)) || a["bad"] != want.Bad ||
						a["instance"] != want.Instance || norm(a["key"]) != normKey(want.Key) {
						t.Errorf("anomaly row %d = %v, want %+v", i-1, a, want)
					}
				}
			}
		})
	}
}

func anyList[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func normKey(k *string) string {
	if k == nil {
		return "<null>"
	}
	return *k
}

func TestExitCode(t *testing.T) {
	cases := []struct {
		name string
		sum  Summary
		want int
	}{
		{"all valid - 0", Summary{Valid: 3}, ExitValid},
		{"nothing scanned - 0", Summary{}, ExitValid},
		{"one unknown - 2", Summary{Valid: 3, Unknown: 1}, ExitUnknown},
		{"invalid outranks unknown - 1", Summary{Valid: 3, Unknown: 1, Invalid: 1}, ExitInvalid},
		{"unreadable outranks invalid - 3", Summary{Invalid: 5, Errors: 1}, ExitInput},
		{"unreadable alone - 3", Summary{Errors: 1}, ExitInput},
	}
	for _, c := range cases {
		if got := c.sum.ExitCode(); got != c.want {
			t.Errorf("%s: ExitCode() = %d", c.name, got)
		}
	}
}

func TestNoHistories(t *testing.T) {
	dir := t.TempDir()
	testpack.WriteFile(t, filepath.Join(dir, "notes.txt"), []byte("x"))
	if _, err := Run(context.Background(), []string{dir}, testOptions(t)); !errors.Is(err, ErrNoHistories) {
		t.Errorf("Run = %v, want ErrNoHistories", err)
	}
}

// archiveOfSize writes n generated valid histories of about ops ops each.
func archiveOfSize(t *testing.T, n, ops int) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "gen")
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("run-%03d", i), "history.edn")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		genHistory(f, ops+2*i) // all different, so no two share a cache entry
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestResume cancels a scan midway, checks that it wrote no table and
// left no temporary file, then reruns it: the rerun takes the finished
// histories from the cache, checks the rest, and writes the same tables
// as an uninterrupted scan.
func TestResume(t *testing.T) {
	root := archiveOfSize(t, 30, 2000)
	opts := testOptions(t)
	sum := interruptedRun(t, []string{root}, opts, 30)
	for _, table := range []string{"histories.parquet", "anomalies.parquet"} {
		if _, err := os.Stat(filepath.Join(opts.OutDir, table)); err == nil {
			t.Errorf("interrupted scan wrote %s", table)
		}
	}
	// Every finished row is in the part files (issue 17), once.
	if rows := partRows(t, opts.OutDir, "histories"); len(rows) != sum.Done {
		t.Errorf("the parts hold %d rows; %d histories were finished", len(rows), sum.Done)
	}
	if len(sum.Files) != 2 {
		t.Errorf("interrupted scan reports files %v, want its two parts", sum.Files)
	}
	noTemps(t, opts.OutDir)

	sum2 := mustRun(t, []string{root}, opts)
	if sum2.Cached != sum.Done || sum2.Done != 30 {
		t.Errorf("rerun: %d cached, %d done; want %d cached, 30 done", sum2.Cached, sum2.Done, sum.Done)
	}
	noTemps(t, opts.OutDir)
	if parts, _ := filepath.Glob(filepath.Join(opts.OutDir, "*.part-*")); len(parts) != 0 {
		t.Errorf("parts left after the tables were written: %v", parts)
	}

	sameAsFresh(t, []string{root}, opts)
}

// sameAsFresh checks that the tables in opts.OutDir, written over
// interrupted or cached runs, are those a fresh scan of paths writes
// (elapsed_ms aside).
func sameAsFresh(t *testing.T, paths []string, opts Options) {
	t.Helper()
	fresh := testOptions(t)
	mustRun(t, paths, fresh)
	for _, table := range []string{"histories.parquet", "anomalies.parquet"} {
		_, a := readParquet(t, filepath.Join(opts.OutDir, table))
		_, b := readParquet(t, filepath.Join(fresh.OutDir, table))
		if got, want := tableText(a), tableText(b); got != want {
			t.Errorf("%s after resume differs from a fresh scan:\n%s\nvs\n%s", table, got, want)
		}
	}
}

// tableText renders rows for comparison, without elapsed_ms.
func tableText(rows []map[string]any) string {
	var sb strings.Builder
	for _, r := range rows {
		keys := make([]string, 0, len(r))
		for k := range r {
			if k != "elapsed_ms" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&sb, "%s=%s ", k, norm(r[k]))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func TestCacheKey(t *testing.T) {
	dir := t.TempDir()
	testpack.WriteFile(t, filepath.Join(dir, "a", "x.edn"), readTestdata(t, "lost-write-invalid.edn"))
	testpack.WriteFile(t, filepath.Join(dir, "a", "bad.edn"), readTestdata(t, "mismatched-bracket-error.edn"))
	opts := testOptions(t)
	opts.Version = "build-1"
	if s := mustRun(t, []string{dir}, opts); s.Cached != 0 {
		t.Fatalf("first run: %d cached", s.Cached)
	}
	if s := mustRun(t, []string{dir}, opts); s.Cached != 2 {
		t.Errorf("same build, options and content: %d cached, want 2", s.Cached)
	}
	rescan := opts
	rescan.Rescan = true
	if s := mustRun(t, []string{dir}, rescan); s.Cached != 0 {
		t.Errorf("--rescan: %d cached, want 0", s.Cached)
	}
	other := opts
	other.Version = "build-2"
	if s := mustRun(t, []string{dir}, other); s.Cached != 0 {
		t.Errorf("another build: %d cached, want 0", s.Cached)
	}
	// how many histories run at once, and so the cores each check may
	// use (workload.Options.Cores), changes no row: still a hit
	jobs := opts
	jobs.Jobs = 1
	if s := mustRun(t, []string{dir}, jobs); s.Cached != 2 {
		t.Errorf("-j 1: %d cached, want 2", s.Cached)
	}
	cores := opts
	cores.Check.Analysis.Cores = 7
	if s := mustRun(t, []string{dir}, cores); s.Cached != 2 {
		t.Errorf("another share of cores: %d cached, want 2", s.Cached)
	}
	ww := opts
	ww.Check.Analysis.WWDeps = true
	if s := mustRun(t, []string{dir}, ww); s.Cached != 0 {
		t.Errorf("other check options: %d cached, want 0", s.Cached)
	}
	// The same content moved elsewhere is a hit, reported at its new path.
	if err := os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if s := mustRun(t, []string{dir}, opts); s.Cached != 2 {
		t.Errorf("moved files: %d cached, want 2", s.Cached)
	}
	_, rows := readParquet(t, filepath.Join(opts.OutDir, "histories.parquet"))
	_, anoms := readParquet(t, filepath.Join(opts.OutDir, "anomalies.parquet"))
	for _, r := range rows {
		if !strings.Contains(r["path"].(string), "/b/") {
			t.Errorf("row at old path %v", r["path"])
		}
		if e, _ := r["error"].(string); e != "" && (strings.Contains(e, "/a/") || !strings.Contains(e, "/b/")) {
			t.Errorf("cached error names the old path: %q", e)
		}
	}
	for _, a := range anoms {
		if !strings.Contains(a["path"].(string), "/b/") {
			t.Errorf("anomaly row at old path %v", a["path"])
		}
	}
	// A changed file misses.
	testpack.WriteFile(t, filepath.Join(dir, "b", "x.edn"), readTestdata(t, "two-keys-all-read-valid.edn"))
	if s := mustRun(t, []string{dir}, opts); s.Cached != 1 || s.Valid != 1 {
		t.Errorf("changed file: %d cached, %d valid; want 1 and 1", s.Cached, s.Valid)
	}
	// A corrupt cache entry is a miss, not a failure.
	filepath.WalkDir(filepath.Join(opts.OutDir, ".cache"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".entry") {
			os.WriteFile(p, []byte("{not json"), 0o644)
		}
		return nil
	})
	if s := mustRun(t, []string{dir}, opts); s.Cached != 0 || s.Done != 2 {
		t.Errorf("corrupt entries: %d cached, %d done; want 0 and 2", s.Cached, s.Done)
	}
}

// TestAdmission checks the memory budget: with a budget smaller than any
// history, histories are checked one at a time whatever -j says; with a
// large one, never more than -j at once.
func TestAdmission(t *testing.T) {
	root := archiveOfSize(t, 12, 3000)
	for _, c := range []struct {
		name   string
		budget int64
		jobs   int
		max    int64
	}{
		{"tiny budget - one at a time", 1, 4, 1},
		{"ample budget - at most -j", 1 << 40, 3, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cur, peak atomic.Int64
			var mu sync.Mutex
			testHooks.checking = func(d int) {
				mu.Lock()
				defer mu.Unlock()
				if n := cur.Add(int64(d)); n > peak.Load() {
					peak.Store(n)
				}
			}
			defer func() { testHooks.checking = nil }()
			opts := testOptions(t)
			opts.MemoryBudget, opts.Jobs = c.budget, c.jobs
			if s := mustRun(t, []string{root}, opts); s.Done != 12 {
				t.Fatalf("done %d", s.Done)
			}
			if peak.Load() > c.max || peak.Load() < 1 {
				t.Errorf("peak concurrency %d, want 1..%d", peak.Load(), c.max)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	root := archiveOfSize(t, 5, 500)
	opts := testOptions(t)
	var buf syncBuffer
	opts.Progress = &buf
	mustRun(t, []string{root}, opts)
	out := buf.String()
	for _, want := range []string{"5/5 histories", "invalid", "bad anomalies"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q:\n%s", want, out)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSummaryText(t *testing.T) {
	root, want := buildArchive(t)
	opts := testOptions(t)
	sum := mustRun(t, []string{root}, opts)
	var sb strings.Builder
	if err := sum.WriteText(&sb, 1); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{fmt.Sprintf("scanned %d histories", len(want)), "VERDICT", "invalid", "ANOMALY TYPE", "unseen", "more anomaly types", "histories.parquet"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestBudgetNeverDeadlocks: histories that all start small and grow, many
// at once, never hold more than the budget together and always finish
// (some by giving way and running again alone).
func TestBudgetNeverDeadlocks(t *testing.T) {
	const size = 1000
	b := newBudget(size)
	var wg sync.WaitGroup
	var reruns atomic.Int64
	for g := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				l, err := b.acquire(context.Background(), int64(1+rng.IntN(100)))
				if err != nil {
					t.Error(err)
					return
				}
				target := int64(1 + rng.IntN(size))
				for n := l.held; n < target; n += 50 {
					if err := l.grow(context.Background(), min(n+50, target)); err != nil {
						if err != errRerun {
							t.Error(err)
						}
						reruns.Add(1)
						l.release()
						l, _ = b.acquire(context.Background(), size)
						break
					}
				}
				l.release()
			}
		})
	}
	wg.Wait()
	if b.Peak() > size || b.held != 0 || b.leases != 0 {
		t.Errorf("peak %d of %d; %d held and %d leases at the end", b.Peak(), size, b.held, b.leases)
	}
	t.Logf("%d reruns alone", reruns.Load())
}

// lyingGzip is a gzip of a history of about n ops whose trailer says it
// is tiny: a second gzip member holding one blank line (a reader takes
// both; the trailer is the last member's).
func lyingGzip(t *testing.T, n int) []byte {
	t.Helper()
	var text bytes.Buffer
	genHistory(&text, n)
	var out bytes.Buffer
	for _, part := range [][]byte{text.Bytes(), []byte("\n")} {
		zw := gzip.NewWriter(&out)
		zw.Write(part)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestScanMetersWhatItReads (issue 17, item 3, scaled down): four gzip
// histories whose trailers say a few bytes, run 4 at once within a 16 MiB
// budget, are metered as they are read: the scan holds no more than the
// budget at any time, gives each its row, and a fifth that cannot fit
// even alone is an error row naming the budget (exit status 4).
func TestScanMetersWhatItReads(t *testing.T) {
	dir := t.TempDir()
	for i := range 4 {
		testpack.WriteFile(t, filepath.Join(dir, "run"+string(rune('a'+i)), "history.edn.gz"), lyingGzip(t, 25000)) // about 2.2 MB of text
	}
	testpack.WriteFile(t, filepath.Join(dir, "big", "history.edn.gz"), lyingGzip(t, 60000)) // about 5.3 MB: 21 MB to check
	if lie := lyingGzip(t, 25000); ingest.TextSize(bytes.NewReader(lie), int64(len(lie))) > 1<<20 {
		t.Fatal("the trailer does not lie")
	}
	var b *budget
	testHooks.budget = func(x *budget) { b = x }
	var reruns atomic.Int64
	testHooks.rerun = func(string) { reruns.Add(1) }
	defer func() { testHooks.budget, testHooks.rerun = nil, nil }()
	opts := testOptions(t)
	opts.Jobs = 4
	opts.MemoryBudget = 16 << 20
	sum := mustRun(t, []string{dir}, opts)
	if b.Peak() > opts.MemoryBudget {
		t.Errorf("the leases held %d at once, over the budget of %d", b.Peak(), opts.MemoryBudget)
	}
	if b.Peak() < MemoryFactor*2<<20 {
		t.Errorf("peak %d: the histories were never metered past their estimates", b.Peak())
	}
	_, rows := readParquet(t, filepath.Join(opts.OutDir, "histories.parquet"))
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for _, r := range rows {
		path, _ := r["path"].(string)
		if strings.Contains(path, "big") {
			errText, _ := r["error"].(string)
			if r["verdict"] != VerdictError || !strings.Contains(errText, "could not be judged within the memory cap of 16.0 MiB (--memory)") {
				t.Errorf("%s: %v %v, want an error row naming the cap", path, r["verdict"], r["error"])
			}
			continue
		}
		if r["verdict"] != VerdictValid {
			t.Errorf("%s: %v %v", path, r["verdict"], r["error"])
		}
	}
	if sum.OverMemory != 1 || sum.ExitCode() != ExitMemory {
		t.Errorf("%d over memory, exit %d; want 1 and %d", sum.OverMemory, sum.ExitCode(), ExitMemory)
	}
	t.Logf("peak %d of %d, %d reruns alone", b.Peak(), opts.MemoryBudget, reruns.Load())
}

// TestCeilingStopsTheScan: past Options.MemoryCeiling the scan writes its
// finished rows to a part file and calls OnCeiling (the command exits 4
// there), naming the ceiling.
func TestCeilingStopsTheScan(t *testing.T) {
	root := archiveOfSize(t, 30, 2000)
	opts := testOptions(t)
	var got error
	var flushed map[string]map[string]any
	var once sync.Once
	opts.OnCeiling = func(err error) {
		once.Do(func() {
			got = err
			flushed = partRows(t, opts.OutDir, "histories")
		})
	}
	opts.MemoryCeiling = 1 // any process is over it
	mustRun(t, []string{root}, opts)
	if got == nil || !strings.Contains(got.Error(), "over the ceiling of 1 B") {
		t.Fatalf("OnCeiling got %v", got)
	}
	if n := strings.Count(got.Error(), "part files"); n != 1 {
		t.Errorf("message: %v", got)
	}
	for path, r := range flushed {
		if r["verdict"] != VerdictValid && !strings.Contains(fmt.Sprint(r["error"]), check.MemoryCapPhrase) {
			t.Errorf("part row %s: %v %v", path, r["verdict"], r["error"])
		}
	}
}

// TestPendingOncePerPath: the memory ceiling's error row for a history
// being checked and that history's own row, when its check finished
// meanwhile, meet in the pending rows in either order (TestCeilingStopsTheScan
// saw both in one part file about once in a hundred runs on a busy
// machine); one row is kept, the finished check's, and a path already in
// a part is not taken again.
func TestPendingOncePerPath(t *testing.T) {
	for _, ceilingFirst := range []bool{true, false} {
		pw := &partWriter{have: map[string]bool{"old.edn": true}}
		done := &result{row: HistoryRow{Path: "a.edn", Verdict: VerdictValid}}
		stopped := &result{row: HistoryRow{Path: "a.edn", Verdict: VerdictError}, ceiling: true}
		if ceilingFirst {
			pw.add(stopped)
			pw.add(done)
		} else {
			pw.add(done)
			pw.add(stopped)
		}
		pw.add(&result{row: HistoryRow{Path: "old.edn"}})
		pw.add(&result{row: HistoryRow{Path: "b.edn"}})
		if len(pw.pending) != 2 || pw.pending[0] != done || pw.pending[1].row.Path != "b.edn" {
			var got []string
			for _, r := range pw.pending {
				got = append(got, r.row.Path+" "+r.row.Verdict)
			}
			t.Errorf("ceiling row first %v: pending %v, want a.edn %s and b.edn", ceilingFirst, got, VerdictValid)
		}
	}
}

// TestScanSurvivesAPanic: a panic of hindsight's on one history (a bug)
// gives that history an error row saying so, and the scan goes on with
// the others; the row is not cached, so a rerun checks the history again.
func TestScanSurvivesAPanic(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"a.edn", "b.edn", "c.edn"} {
		var buf bytes.Buffer
		genHistory(&buf, 200+10*i) // contents differ: the cache is by content
		testpack.WriteFile(t, filepath.Join(dir, name), buf.Bytes())
	}
	testHooks.checkRead = func(path string) {
		if strings.HasSuffix(path, "b.edn") {
			panic("boom")
		}
	}
	defer func() { testHooks.checkRead = nil }()
	opts := testOptions(t)
	sum := mustRun(t, []string{dir}, opts)
	_, rows := readParquet(t, filepath.Join(opts.OutDir, "histories.parquet"))
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for _, r := range rows {
		path, _ := r["path"].(string)
		errText, _ := r["error"].(string)
		if strings.HasSuffix(path, "b.edn") {
			if r["verdict"] != VerdictError || !strings.Contains(errText, "internal error: boom (a bug in hindsight") {
				t.Errorf("%s: %v %q, want an error row naming the internal error", path, r["verdict"], errText)
			}
		} else if r["verdict"] != VerdictValid {
			t.Errorf("%s: %v %q, want valid", path, r["verdict"], errText)
		}
	}
	if sum.Errors != 1 {
		t.Errorf("%d error rows, want 1", sum.Errors)
	}
	testHooks.checkRead = nil
	sum = mustRun(t, []string{dir}, opts)
	if sum.Cached != 2 || sum.Errors != 0 || sum.Valid != 3 {
		t.Errorf("rerun: %d cached, %d errors, %d valid; want 2, 0 and 3", sum.Cached, sum.Errors, sum.Valid)
	}
}

// TestSummaryErrors: the text summary names the error rows with the first
// paths, whatever order they finished in, each by its error's first line
// (with its path when the error does not start with it), and counts the
// rest.
func TestSummaryErrors(t *testing.T) {
	var sum Summary
	n := MaxListedErrors + 3
	for i := n - 1; i >= 0; i-- {
		p := fmt.Sprintf("runs/%02d/history.edn", i)
		msg := p + ":1:2: expected an op map\n  [1 2]\n  ^"
		if i == 1 {
			msg = "no such file"
		}
		sum.add(&HistoryRow{Path: p, Verdict: VerdictError, Error: msg}, false, map[string]*TypeSummary{})
	}
	sum.add(&HistoryRow{Path: "runs/ok/history.edn", Verdict: VerdictValid}, false, map[string]*TypeSummary{})
	var sb strings.Builder
	if err := sum.WriteText(&sb, 0); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		fmt.Sprintf("%d histories could not be checked:\n  runs/00/history.edn:1:2: expected an op map\n  runs/01/history.edn: no such file\n", n),
		fmt.Sprintf("  runs/%02d/history.edn:1:2: expected an op map\n  ... and 3 more", MaxListedErrors-1),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, fmt.Sprintf("runs/%02d", MaxListedErrors)) || strings.Contains(out, "^") {
		t.Errorf("summary lists more than the first %d errors, or an excerpt:\n%s", MaxListedErrors, out)
	}
}

// TestSummaryOneHistory checks that a scan of one history says so in the
// singular, sharded or not.
func TestSummaryOneHistory(t *testing.T) {
	for _, tc := range []struct {
		sum  Summary
		want string
	}{
		{Summary{Histories: 1, Found: 1}, "scanned 1 history, "},
		{Summary{Histories: 1, Found: 1, Shard: Shard{Index: 0, Count: 2}}, "scanned 1 of 1 history (shard 0/2), "},
		{Summary{Histories: 1, Found: 3, Shard: Shard{Index: 0, Count: 2}}, "scanned 1 of 3 histories (shard 0/2), "},
	} {
		tc.sum.add(&HistoryRow{Path: "runs/ok/history.edn", Verdict: VerdictValid}, false, map[string]*TypeSummary{})
		var sb strings.Builder
		if err := tc.sum.WriteText(&sb, 0); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sb.String(), tc.want) {
			t.Errorf("summary begins %q, want %q", strings.SplitN(sb.String(), "\n", 2)[0], tc.want)
		}
	}
}
