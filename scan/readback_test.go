package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// expectedRows are what the tables of a scan of the test archive must
// hold, computed here straight from the check results (rowsOf), not
// through the writer.
func expectedRows(t *testing.T, inputs []string, opts Options) (map[string]HistoryRow, map[string][]AnomalyRow) {
	t.Helper()
	hist := map[string]HistoryRow{}
	anoms := map[string][]AnomalyRow{}
	s := &scanner{opts: opts, cache: newCache(t.TempDir(), opts.Check, "expected")}
	for _, in := range Discover(inputs) {
		r := s.oneUncached(t, in)
		hist[r.row.Path] = r.row // the path as in the tables (valid UTF-8)
		anoms[r.row.Path] = r.anoms
	}
	return hist, anoms
}

// oneUncached checks one input as the scanner does, without cache or
// semaphore, keeping the anomaly rows.
func (s *scanner) oneUncached(t *testing.T, in Input) *result {
	t.Helper()
	s2 := *s
	s2.opts.MemoryBudget = 1 << 40
	s2.mem = newBudget(1 << 40)
	s2.opts.Rescan = true
	s2.cache = newCache(t.TempDir(), s.opts.Check, "uncached")
	r := s2.one(t.Context(), in)
	if r.key != "" {
		var a []AnomalyRow
		if err := s2.eachAnomaly(r, func(row *AnomalyRow) error {
			a = append(a, cloneRow(row))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		r.anoms = a
	}
	return r
}

// checkTables compares rows read back from the tables (by any reader)
// with the expected ones, column by column.
func checkTables(t *testing.T, reader string, hrows, arows []map[string]any, hist map[string]HistoryRow, anoms map[string][]AnomalyRow) {
	t.Helper()
	if len(hrows) != len(hist) {
		t.Errorf("%s: %d history rows, want %d", reader, len(hrows), len(hist))
	}
	if got := paths(hrows); !slices.IsSorted(got) {
		t.Errorf("%s: history rows not sorted by path", reader)
	}
	for _, row := range hrows {
		path := fmt.Sprint(row["path"])
		w, ok := hist[path]
		if !ok {
			t.Errorf("%s: unexpected row %s", reader, path)
			continue
		}
		ok = w.checked()
		nullIf := func(v string, null bool) string {
			if null {
				return "<null>"
			}
			return v
		}
		want := map[string]string{
			"size_bytes":      fmt.Sprint(w.SizeBytes),
			"sha256":          nullIf(w.SHA256, w.SHA256 == ""),
			"workload":        nullIf(w.Workload, !ok),
			"ops":             nullIf(fmt.Sprint(w.Ops), !ok),
			"verdict":         w.Verdict,
			"bad_types":       norm(anyList(w.BadTypes)),
			"error":           nullIf(w.Error, w.Error == ""),
			"unknown_reasons": norm(anyList(w.UnknownReasons)),
			"anomaly_types":   norm(anyList(w.AnomalyTypes)),
			"truncated":       nullIf(fmt.Sprint(w.Truncated), !ok),
			"warnings":        norm(anyList(w.Warnings)),
		}
		for _, typ := range CountTypes {
			want[CountColumn(typ)] = nullIf(fmt.Sprint(w.Counts[typ]), !ok)
		}
		for col, v := range want {
			if got := norm(row[col]); got != v {
				t.Errorf("%s: %s: %s = %q, want %q", reader, path, col, got, v)
			}
		}
		if _, ok := row["elapsed_ms"]; !ok {
			t.Errorf("%s: %s: no elapsed_ms", reader, path)
		}
	}
	var wantA []string
	keys := mapKeys(anoms)
	slices.Sort(keys)
	for _, p := range keys {
		for _, a := range anoms[p] {
			wantA = append(wantA, strings.Join([]string{p, a.Type, normKey(a.Key), norm(anyList(a.Values)),
				norm(anyList(a.Witness)), fmt.Sprint(a.Bad), norm(anyList(a.Skipped)), a.Instance}, " | "))
		}
	}
	var gotA []string
	for _, r := range arows {
		gotA = append(gotA, strings.Join([]string{norm(r["path"]), norm(r["type"]), norm(r["key"]), norm(r["values"]),
			norm(r["witness"]), norm(r["bad"]), norm(r["skipped"]), norm(r["instance"])}, " | "))
	}
	if len(gotA) != len(wantA) {
		t.Errorf("%s: %d anomaly rows, want %d", reader, len(gotA), len(wantA))
	}
	for i := range min(len(gotA), len(wantA)) {
		if gotA[i] != wantA[i] {
			t.Errorf("%s: anomaly row %d:\n got %.300s\nwant %.300s", reader, i, gotA[i], wantA[i])
			break
		}
	}
}

func mapKeys[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}

// readbackInputs are the archive, the queue fixtures and the abort
// workload's (a workload whose values come through its own decoder).
func readbackInputs(t *testing.T) []string {
	root, _ := buildArchive(t)
	return []string{root, fixtures, testpaths.Testdata("abort")}
}

// TestParquetReadBack reads the Parquet and Arrow IPC tables with arrow-go
// and checks schema and contents.
func TestParquetReadBack(t *testing.T) {
	inputs := readbackInputs(t)
	opts := testOptions(t)
	opts.IPC = true
	mustRun(t, inputs, opts)
	hist, anoms := expectedRows(t, inputs, opts)
	for _, c := range []struct {
		ext  string
		read func(*testing.T, string) (schemaT, []map[string]any)
	}{
		{".parquet", func(t *testing.T, p string) (schemaT, []map[string]any) { s, r := readParquet(t, p); return s, r }},
		{".arrow", func(t *testing.T, p string) (schemaT, []map[string]any) { s, r := readIPC(t, p); return s, r }},
	} {
		hs, hrows := c.read(t, filepath.Join(opts.OutDir, "histories"+c.ext))
		as, arows := c.read(t, filepath.Join(opts.OutDir, "anomalies"+c.ext))
		if got, want := fieldSig(hs), fieldSig(HistoriesSchema); !slices.Equal(got, want) {
			t.Errorf("%s histories schema:\n%s\nwant\n%s", c.ext, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got, want := fieldSig(as), fieldSig(AnomaliesSchema); !slices.Equal(got, want) {
			t.Errorf("%s anomalies schema:\n%s\nwant\n%s", c.ext, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for _, s := range []schemaT{hs, as} {
			if v, ok := s.Metadata().GetValue(schemaMetaKey); !ok || v != SchemaVersion {
				t.Errorf("%s: schema metadata %s = %q", c.ext, schemaMetaKey, v)
			}
		}
		checkTables(t, "arrow-go "+c.ext, hrows, arows, hist, anoms)
	}
}

// duckDBOutput is what scripts/parquet-read.mjs prints.
type duckDBOutput struct {
	Version   string `json:"duckdb_version"`
	Histories struct {
		Schema []struct{ Name, Type string }
		Rows   []map[string]any
	}
	Anomalies struct {
		Schema []struct{ Name, Type string }
		Rows   []map[string]any
	}
	Verdicts      []map[string]any `json:"verdicts"`
	AnomalyCounts []map[string]any `json:"anomaly_counts"`
}

// runDuckDB runs scripts/parquet-read.mjs on the given globs. It skips the
// test when node or @duckdb/node-api is missing, and fails instead when
// the environment variable CI is set.
func runDuckDB(t *testing.T, historiesGlob, anomaliesGlob string) duckDBOutput {
	t.Helper()
	out := testpaths.NodeScript(t, testpaths.Root(), "parquet-read.mjs", historiesGlob, anomaliesGlob)
	var d duckDBOutput
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("parquet-read.mjs output: %v\n%s", err, out)
	}
	return d
}

// duckType is the DuckDB type of each Arrow type used by the tables.
var duckType = map[string]string{
	"utf8": "VARCHAR", "int64": "BIGINT", "bool": "BOOLEAN",
	"list<item: utf8>": "VARCHAR[]", "list<item: int64>": "BIGINT[]",
}

// TestDuckDBReadBack reads the Parquet tables with DuckDB (through
// scripts/parquet-read.mjs), an implementation independent of arrow-go,
// and checks schema and contents.
func TestDuckDBReadBack(t *testing.T) {
	inputs := readbackInputs(t)
	opts := testOptions(t)
	absOut, err := filepath.Abs(opts.OutDir)
	if err != nil {
		t.Fatal(err)
	}
	sum := mustRun(t, inputs, opts)
	d := runDuckDB(t, filepath.Join(absOut, "histories.parquet"), filepath.Join(absOut, "anomalies.parquet"))
	t.Logf("DuckDB %s", d.Version)
	for _, c := range []struct {
		name string
		got  []struct{ Name, Type string }
		want *schemaT
	}{
		{"histories", d.Histories.Schema, &HistoriesSchema},
		{"anomalies", d.Anomalies.Schema, &AnomaliesSchema},
	} {
		var got, want []string
		for _, f := range c.got {
			got = append(got, f.Name+" "+f.Type)
		}
		for _, f := range (*c.want).Fields() {
			want = append(want, f.Name+" "+duckTypeOf(f.Type.String()))
		}
		if !slices.Equal(got, want) {
			t.Errorf("DuckDB %s schema:\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	hist, anoms := expectedRows(t, inputs, opts)
	checkTables(t, "DuckDB", d.Histories.Rows, d.Anomalies.Rows, hist, anoms)
	aborts := 0
	for _, r := range d.Histories.Rows {
		if norm(r["workload"]) == "abort" {
			aborts++
		}
	}
	if want := len(mustGlob(t, testpaths.Testdata("abort"), "*.edn", "*.json")); aborts != want {
		t.Errorf("DuckDB reads %d abort rows, want %d (one per history under testdata/abort)", aborts, want)
	}
	verdicts := map[string]string{}
	for _, v := range d.Verdicts {
		verdicts[norm(v["verdict"])] = norm(v["n"])
	}
	for v, n := range map[string]int{VerdictValid: sum.Valid, VerdictInvalid: sum.Invalid, VerdictUnknown: sum.Unknown, VerdictError: sum.Errors} {
		if got := verdicts[v]; n > 0 && got != fmt.Sprint(n) {
			t.Errorf("DuckDB counts %s %s histories, the summary %d", got, v, n)
		}
	}
	for _, c := range d.AnomalyCounts {
		p := norm(c["path"])
		if got, want := norm(c["n"]), fmt.Sprint(len(anoms[p])); got != want {
			t.Errorf("join: %s has %s anomaly rows, want %s", p, got, want)
		}
	}
}

func duckTypeOf(arrowType string) string {
	if d, ok := duckType[arrowType]; ok {
		return d
	}
	return "?" + arrowType
}

// TestDuckDBShardGlob scans an archive as three shards into one folder
// and queries them together with DuckDB through a glob, as the README's
// worked example does.
func TestDuckDBShardGlob(t *testing.T) {
	root, want := buildArchive(t)
	out, err := filepath.Abs(testOptions(t).OutDir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		opts := testOptions(t)
		opts.OutDir, opts.Shard = out, Shard{i, 3}
		mustRun(t, []string{root}, opts)
	}
	d := runDuckDB(t, filepath.Join(out, "histories-*-of-3.parquet"), filepath.Join(out, "anomalies-*-of-3.parquet"))
	if len(d.Histories.Rows) != len(want) {
		t.Errorf("glob over shards: %d rows, want %d", len(d.Histories.Rows), len(want))
	}
	for _, r := range d.Histories.Rows {
		c, ok := want[rel(t, root, norm(r["path"]))]
		if !ok || norm(r["verdict"]) != c.verdict {
			t.Errorf("glob row %v: verdict %v, want %+v", r["path"], r["verdict"], c)
		}
	}
}

// mustGlob lists the histories of dir matching any of the patterns
// (expectation files left out).
func mustGlob(t *testing.T, dir string, patterns ...string) []string {
	t.Helper()
	var out []string
	for _, p := range patterns {
		m, err := filepath.Glob(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, ".expect.json") {
				out = append(out, f)
			}
		}
	}
	return out
}
