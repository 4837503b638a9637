package scan

import (
	"maps"
	"slices"
	"testing"
)

// TestReadHistoriesReadback: ReadHistories gives back the rows a scan
// computed (path, digest, verdict, bad types, counts, error), from the
// table or from the output folder.
func TestReadHistoriesReadback(t *testing.T) {
	inputs := readbackInputs(t)
	opts := testOptions(t)
	mustRun(t, inputs, opts)
	hist, _ := expectedRows(t, inputs, opts)
	for _, p := range []string{opts.OutDir, opts.OutDir + "/histories.parquet"} {
		rows, err := ReadHistories(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(hist) {
			t.Fatalf("%s: %d rows, want %d", p, len(rows), len(hist))
		}
		for _, r := range rows {
			w, ok := hist[r.Path]
			if !ok {
				t.Errorf("unexpected row %s", r.Path)
				continue
			}
			wc := maps.Clone(w.Counts)
			maps.DeleteFunc(wc, func(_ string, n int64) bool { return n == 0 })
			if r.SHA256 != w.SHA256 || r.SizeBytes != w.SizeBytes || r.Verdict != w.Verdict || r.Error != w.Error ||
				r.Workload != w.Workload || !slices.Equal(r.BadTypes, w.BadTypes) || !maps.Equal(r.Counts, wc) {
				t.Errorf("%s:\n got %+v\nwant %+v", r.Path, r, w)
			}
		}
	}
	if _, err := ReadHistories(t.TempDir()); err == nil {
		t.Error("a folder without tables read")
	}
}
