package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/internal/version"
)

// TestListAppendRows scans list-append histories beside a queue one: their
// rows name the workload, carry the models checked and the models ruled
// out, and count the transactional types in their own columns; the queue's
// row has null models. Both tables say which build and options made them.
func TestListAppendRows(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"g1c-ww-and-wr-invalid.edn", "append-then-read-valid.edn"} {
		copyFile(t, testpaths.Testdata("list-append", f), filepath.Join(dir, f))
	}
	copyFile(t, testpaths.Testdata("types", "G1a-invalid.edn"), filepath.Join(dir, "q.edn"))
	opts := testOptions(t)
	opts.Check.Analysis.Models = []string{"serializable"}
	mustRun(t, []string{dir}, opts)
	schema, byName := rowsByName(t, opts.OutDir)
	g1c := byName["g1c-ww-and-wr-invalid.edn"]
	if g1c["workload"] != "list-append" || g1c["verdict"] != "invalid" || norm(g1c["count_G1c"]) != "1" ||
		norm(g1c["models"]) != "[serializable]" || norm(g1c["not"]) != "[read-committed]" {
		t.Errorf("G1c row %v", g1c)
	}
	if ok := byName["append-then-read-valid.edn"]; ok["verdict"] != "valid" || norm(ok["not"]) != "[]" {
		t.Errorf("valid row %v", ok)
	}
	if q := byName["q.edn"]; q["workload"] != "queue" || q["models"] != nil || q["not"] != nil {
		t.Errorf("queue row %v", q)
	}
	md := schema.Metadata()
	build, _ := md.GetValue(buildMetaKey)
	options, _ := md.GetValue(optionsMetaKey)
	if build != version.Current().String() || !strings.Contains(options, `"models":["serializable"]`) {
		t.Errorf("metadata: build %q, options %q", build, options)
	}
}

// rowsByName reads a scan's histories table keyed by the base name of
// each row's path, with the table's schema.
func rowsByName(t *testing.T, out string) (*arrow.Schema, map[string]map[string]any) {
	t.Helper()
	schema, rows := readParquet(t, filepath.Join(out, "histories.parquet"))
	byName := map[string]map[string]any{}
	for _, r := range rows {
		byName[filepath.Base(r["path"].(string))] = r
	}
	return schema, byName
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	testpack.WriteFile(t, to, b)
}

// TestRWRegisterRows scans rw-register histories with --wfr-keys: their
// rows name the workload and count rw-register's own types
// (count_cyclic_versions, count_duplicate_writes) in their columns, and the
// tables' options say which version-order sources were used.
func TestRWRegisterRows(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"scc-sort-bug-cyclic-versions-g1c-realtime-invalid.edn", "two-txns-same-y-write-valid.edn"} {
		copyFile(t, testpaths.Testdata("rw-register", f), filepath.Join(dir, f))
	}
	opts := testOptions(t)
	opts.Check.Analysis.WFRKeys, opts.Check.Analysis.LinearizableKeys = true, true
	mustRun(t, []string{dir}, opts)
	schema, byName := rowsByName(t, opts.OutDir)
	cyc := byName["scc-sort-bug-cyclic-versions-g1c-realtime-invalid.edn"]
	if cyc["workload"] != "rw-register" || cyc["verdict"] != "invalid" || norm(cyc["count_cyclic_versions"]) != "2" ||
		norm(cyc["count_G1c_realtime"]) != "1" || norm(cyc["count_duplicate_writes"]) != "0" {
		t.Errorf("cyclic-versions row %v", cyc)
	}
	if ok := byName["two-txns-same-y-write-valid.edn"]; ok["workload"] != "rw-register" || ok["verdict"] != "valid" {
		t.Errorf("valid row %v", ok)
	}
	options, _ := schema.Metadata().GetValue(optionsMetaKey)
	if !strings.Contains(options, `"wfr_keys":true`) || !strings.Contains(options, `"linearizable_keys":true`) ||
		strings.Contains(options, "sequential_keys") {
		t.Errorf("options metadata %q", options)
	}
}
