package scan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// fixtures are the queue specification fixtures (testdata/queue at the
// repository root).
var fixtures = testpaths.Testdata("queue")

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeBrokenLoose writes into dir the loose histories both archive
// layouts hold that are not plainly valid or invalid: unknown.edn (no
// queue ops), corrupt.edn (a mismatched bracket), truncated.edn (cut
// mid-op), truncated.edn.gz (gzip cut in half), garbled.edn.gz (64 bytes
// of the gzip stream flipped) and empty.edn.
func writeBrokenLoose(t *testing.T, dir string) {
	t.Helper()
	testpack.WriteFile(t, filepath.Join(dir, "unknown.edn"), readTestdata(t, "no-queue-ops-unknown.edn"))
	testpack.WriteFile(t, filepath.Join(dir, "corrupt.edn"), readTestdata(t, "mismatched-bracket-error.edn"))
	testpack.WriteFile(t, filepath.Join(dir, "truncated.edn"), readTestdata(t, "cut-mid-op-truncated-invalid.edn"))
	var big bytes.Buffer
	genHistory(&big, 4000)
	gz := testpack.Gzip(t, big.Bytes())
	testpack.WriteFile(t, filepath.Join(dir, "truncated.edn.gz"), gz[:len(gz)/2])
	garbled := bytes.Clone(gz)
	for i := len(garbled) / 3; i < len(garbled)/3+64; i++ {
		garbled[i] ^= 0x5a
	}
	testpack.WriteFile(t, filepath.Join(dir, "garbled.edn.gz"), garbled)
	testpack.WriteFile(t, filepath.Join(dir, "empty.edn"), nil)
}

// genHistory writes a valid queue history of about n ops: processes
// 0..3 send values to 4 keys, then process 4 polls everything back.
func genHistory(w io.Writer, n int) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	idx := 0
	op := func(typ string, p int, f, value string) {
		fmt.Fprintf(bw, "{:index %d, :time %d, :type :%s, :process %d, :f :%s, :value %s}\n", idx, idx*1000, typ, p, f, value)
		idx++
	}
	offsets := make([]int, 4)
	var sent [4][]string
	for i := 0; idx < n; i++ {
		k, p := i%4, i%4
		op("invoke", p, "send", fmt.Sprintf("[[:send %d %d]]", k, i))
		op("ok", p, "send", fmt.Sprintf("[[:send %d [%d %d]]]", k, offsets[k], i))
		sent[k] = append(sent[k], fmt.Sprintf("[%d %d]", offsets[k], i))
		offsets[k]++
	}
	var sb strings.Builder
	for k := range sent {
		fmt.Fprintf(&sb, "%d [%s] ", k, strings.Join(sent[k], " "))
	}
	op("invoke", 4, "poll", "[[:poll]]")
	op("ok", 4, "poll", "[[:poll {"+sb.String()+"}]]")
}

// archiveCase is what a scan must find for one path of the test archive.
type archiveCase struct {
	verdict   string
	truncated bool
	errHas    string // substring of the error, for error rows
}

// writeStoreRuns writes the runs every archive of these tests has in the
// Jepsen store folder store: 20240101T000000.000Z's valid history.edn
// beside its results.edn and a node's log (neither a history), the lost
// write gzipped in the next, and a JSON history in the third.
func writeStoreRuns(t *testing.T, store string, valid, lost []byte) {
	t.Helper()
	testpack.WriteFile(t, filepath.Join(store, "20240101T000000.000Z", "history.edn"), valid)
	testpack.WriteFile(t, filepath.Join(store, "20240101T000000.000Z", "results.edn"), []byte("{:valid? true}"))
	testpack.WriteFile(t, filepath.Join(store, "20240101T000000.000Z", "n1", "node.edn"), []byte("not a history"))
	testpack.WriteFile(t, filepath.Join(store, "20240102T000000.000Z", "history.edn.gz"), testpack.Gzip(t, lost))
	testpack.WriteFile(t, filepath.Join(store, "20240103T000000.000Z", "history.json"), readTestdata(t, "json-array-valid.json"))
}

// buildArchive lays out a small archive of Jepsen store folders and loose
// files, with everything a walk must handle, and returns its root and what
// the scan must report per path (relative to the root, slash-separated).
func buildArchive(t *testing.T) (string, map[string]archiveCase) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "archive")
	valid, lost := readTestdata(t, "two-keys-all-read-valid.edn"), readTestdata(t, "lost-write-invalid.edn")
	store := filepath.Join(root, "store", "queue")
	writeStoreRuns(t, store, valid, lost)
	testpack.WriteFile(t, filepath.Join(store, "20240101T000000.000Z", "test.edn"), []byte("{:name \"queue\"}"))
	// A store folder whose history.edn is a directory: unreadable.
	if err := os.MkdirAll(filepath.Join(store, "20240104T000000.000Z", "history.edn"), 0o755); err != nil {
		t.Fatal(err)
	}
	testpack.Symlink(t, "20240103T000000.000Z", filepath.Join(store, "latest"))
	testpack.Symlink(t, "queue/20240101T000000.000Z", filepath.Join(root, "store", "latest"))

	loose := filepath.Join(root, "loose")
	testpack.WriteFile(t, filepath.Join(loose, "a.edn"), lost)
	testpack.WriteFile(t, filepath.Join(loose, "b.jsonl.zst"), testpack.Zstd(t, readTestdata(t, "json-array-valid.json")))
	writeBrokenLoose(t, loose)
	testpack.WriteFile(t, filepath.Join(loose, "x.expected.json"), []byte(`{"valid": true}`))
	testpack.WriteFile(t, filepath.Join(loose, "results.edn"), []byte("{:valid? true}"))
	testpack.WriteFile(t, filepath.Join(loose, "notes.txt"), []byte("notes"))
	testpack.WriteFile(t, filepath.Join(loose, ".hidden.edn"), valid)
	testpack.WriteFile(t, filepath.Join(loose, ".git", "h.edn"), valid)
	testpack.Symlink(t, "nowhere.edn", filepath.Join(loose, "broken.edn"))
	testpack.Symlink(t, "a.edn", filepath.Join(loose, "link-to-a.edn"))
	testpack.WriteFile(t, filepath.Join(root, "loop", "c.edn"), valid)
	// A file name and an error excerpt that are not UTF-8.
	testpack.WriteFile(t, filepath.Join(loose, "name-\xff.edn"), lost)
	testpack.WriteFile(t, filepath.Join(loose, "binary.edn"), []byte("\xff\xfe\xfd\n{:index 0}\n"))
	testpack.Symlink(t, "..", filepath.Join(root, "loop", "sub", "back"))

	return root, map[string]archiveCase{
		"store/queue/20240101T000000.000Z/history.edn":    {verdict: VerdictValid},
		"store/queue/20240102T000000.000Z/history.edn.gz": {verdict: VerdictInvalid},
		"store/queue/20240103T000000.000Z/history.json":   {verdict: VerdictValid},
		"store/queue/20240104T000000.000Z/history.edn":    {verdict: VerdictError, errHas: "directory"},
		"loose/a.edn":            {verdict: VerdictInvalid},
		"loose/b.jsonl.zst":      {verdict: VerdictValid},
		"loose/unknown.edn":      {verdict: VerdictUnknown},
		"loose/corrupt.edn":      {verdict: VerdictError, errHas: "mismatched bracket"},
		"loose/truncated.edn":    {verdict: VerdictInvalid, truncated: true},
		"loose/truncated.edn.gz": {verdict: VerdictInvalid, truncated: true}, // unseen: the poll was cut off
		"loose/garbled.edn.gz":   {verdict: VerdictError, errHas: "garbled.edn.gz"},
		"loose/empty.edn":        {verdict: VerdictUnknown},
		"loose/broken.edn":       {verdict: VerdictError, errHas: "dangling symlink"},
		"loop/c.edn":             {verdict: VerdictValid},
		"loose/name-\uFFFD.edn":  {verdict: VerdictInvalid},
		"loose/binary.edn":       {verdict: VerdictError, errHas: "binary.edn:1:1"},
	}
}

// rel returns path relative to root, slash-separated, invalid UTF-8
// replaced as in the tables.
func rel(t *testing.T, root, path string) string {
	t.Helper()
	r, err := filepath.Rel(root, path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ToValidUTF8(filepath.ToSlash(r), "\uFFFD")
}

// testOptions are scan options for tests: out in a temp dir, no progress.
func testOptions(t *testing.T) Options {
	return Options{OutDir: filepath.Join(t.TempDir(), "out"), Jobs: 2, Check: check.DefaultOptions()}
}

func mustRun(t *testing.T, inputs []string, opts Options) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), inputs, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum
}

// readParquet reads a Parquet file with arrow-go and returns its schema
// and its rows as maps from column name to the JSON-decoded value.
func readParquet(t *testing.T, path string) (*arrow.Schema, []map[string]any) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := fr.Schema() // with the file's metadata, which ReadTable drops
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 1<<20)
	defer tr.Release()
	var rows []map[string]any
	for tr.Next() {
		rows = append(rows, recordRows(t, tr.RecordBatch())...)
	}
	return schema, rows
}

// readIPC reads an Arrow IPC file.
func readIPC(t *testing.T, path string) (*arrow.Schema, []map[string]any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var rows []map[string]any
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, recordRows(t, rec)...)
	}
	return r.Schema(), rows
}

func recordRows(t *testing.T, rec arrow.RecordBatch) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := array.RecordToJSON(rec, &buf); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	return rows
}

// norm turns a decoded JSON value (from arrow-go or from DuckDB, which
// writes BIGINT as strings) into a comparable string; null is "<null>" and
// a missing list is "[]".
func norm(v any) string {
	switch x := v.(type) {
	case nil:
		return "<null>"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = norm(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case json.Number:
		return x.String()
	case float64:
		return fmt.Sprint(int64(x))
	}
	return fmt.Sprint(v)
}

// fieldSig describes a schema's fields as "name type nullable" lines.
func fieldSig(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		// Parquet names a list's element "element", Arrow "item".
		ty := strings.ReplaceAll(f.Type.String(), "<element: ", "<item: ")
		out = append(out, fmt.Sprintf("%s %s %v", f.Name, ty, f.Nullable))
	}
	return out
}

// noTemps fails if any temporary file of the scanner is left under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && isTemp(d.Name()) {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func paths(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r["path"]))
	}
	slices.Sort(out)
	return out
}

// schemaT abbreviates the Arrow schema type in tables of readers.
type schemaT = *arrow.Schema

// interruptedRun runs a scan of args that is cancelled once 10 of its
// total histories are done, checks that Run says so and finished at least
// those 10 and not all of them, and returns its summary.
func interruptedRun(t *testing.T, args []string, opts Options, total int) *Summary {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done atomic.Int64
	testHooks.done = func() {
		if done.Add(1) == 10 {
			cancel()
		}
	}
	sum, err := Run(ctx, args, opts)
	testHooks.done = nil
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if sum.Done < 10 || sum.Done >= total {
		t.Errorf("interrupted scan finished %d of %d", sum.Done, total)
	}
	return sum
}

// partRows reads every part file of table ("histories" or "anomalies") in
// dir and returns its rows by path (histories) and counts paths seen
// twice as an error.
func partRows(t *testing.T, dir, table string) map[string]map[string]any {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, table+".part-*.parquet"))
	rows := map[string]map[string]any{}
	for _, p := range parts {
		_, rs := readParquet(t, p)
		for _, r := range rs {
			path, _ := r["path"].(string)
			if _, dup := rows[path]; dup && table == "histories" {
				t.Errorf("%s: %s is in the parts twice", p, path)
			}
			rows[path] = r
		}
	}
	return rows
}
