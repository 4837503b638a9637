package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	schema, rows := readParquet(t, filepath.Join(opts.OutDir, "histories.parquet"))
	byName := map[string]map[string]any{}
	for _, r := range rows {
		byName[filepath.Base(r["path"].(string))] = r
	}
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

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, b)
}
