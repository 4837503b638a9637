package report

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/samples"
)

// goldenSource is a history of a golden file, and whether it is checked
// with --ww-deps.
type goldenSource struct {
	path   string
	wwDeps bool
}

// goldenSources are the histories whose explanations are pinned in
// testdata/golden/explanations.txt: the demo sample, the hostile history,
// and fixtures with cycles (two of them under --ww-deps).
var goldenSources = []goldenSource{
	{samples.QueueName, false},
	{"testdata/hostile-invalid.edn", false},
	{fixtures + "/g1c-wr-cycle-invalid.edn", false},
	{fixtures + "/realtime-lag-reassign-invalid.edn", false},
	{fixtures + "/g0-allowed-write-cycle-unseen-invalid.edn", true},
	{fixtures + "/g1c-ww-wr-cycle-allowed-unseen-invalid.edn", true},
	{fixtures + "/poll-skip-two-skips-invalid.edn", false},
	{fixtures + "/version-order-info-txn-conflict-invalid.edn", false},
}

// TestExplanationsGolden pins the plain-word text of every instance the
// report shows (Explain, and ExplainStep for each edge of a cycle) as the
// view carries it. Run with -update to rewrite the golden file, then read
// the diff.
func TestExplanationsGolden(t *testing.T) {
	golden(t, "explanations.txt", goldenSources, func(sb *strings.Builder, in page.InstanceView) {
		fmt.Fprintf(sb, "#%d %s\n", in.N, in.Explanation)
		for _, st := range in.Steps {
			fmt.Fprintf(sb, "   %s %d -> %d: %s\n", st.Rel, st.From, st.To, st.Why)
		}
	})
}

// txnGoldenSources are the list-append histories whose explanations are
// pinned in testdata/golden/explanations-list-append.txt.
var txnGoldenSources = []goldenSource{
	{path: txnFixtures + "/g1c-with-incompatible-read-orders-invalid.edn"},
	{path: txnFixtures + "/dirty-update-direct-invalid.edn"},
	{path: txnFixtures + "/g-single-realtime-stale-read-invalid.edn"},
	{path: txnFixtures + "/lost-update-and-g2-item-invalid.edn"},
	{path: txnFixtures + "/g-nonadjacent-process-invalid.edn"},
	{path: txnFixtures + "/hostile-list-append-invalid.edn"},
}

// TestTxnExplanationsGolden pins what the page says of each list-append
// instance: its explanation, a cycle's chain of orders and each edge's
// reason, the two reads of an incompatible order as set side by side (the
// first difference starred), and the witness ops' micro-ops.
func TestTxnExplanationsGolden(t *testing.T) {
	golden(t, "explanations-list-append.txt", txnGoldenSources, func(sb *strings.Builder, in page.InstanceView) {
		fmt.Fprintf(sb, "#%d %s\n", in.N, in.Explanation)
		for _, l := range in.Chain {
			fmt.Fprintf(sb, "   | %s\n", l)
		}
		for _, st := range in.Steps {
			fmt.Fprintf(sb, "   %s %d -> %d: %s\n", st.Rel, st.From, st.To, st.Why)
		}
		if r := in.Reads; r != nil {
			for _, row := range r.Rows {
				var cells []string
				for _, c := range row.Cells {
					if c.Diff {
						c.Text = "*" + c.Text
					}
					cells = append(cells, c.Text)
				}
				fmt.Fprintf(sb, "   op %d read (%d): %d before | %s | %d after\n", row.Op, row.Len, row.Before, strings.Join(cells, " | "), row.After)
			}
		}
		for _, w := range in.Witness {
			fmt.Fprintf(sb, "   witness %d %s %s: %s\n", w.Index, w.Process, w.Type, strings.Join(w.Mops, " "))
		}
	})
}

// golden writes, for each source, its verdict, and per section and
// instance what instance writes, and compares the text with
// testdata/golden/file. Run with -update to rewrite the file, then read
// the diff.
func golden(t *testing.T, file string, sources []goldenSource, instance func(*strings.Builder, page.InstanceView)) {
	t.Helper()
	var sb strings.Builder
	for _, src := range sources {
		if _, err := os.Stat(src.path); err != nil && src.path != samples.QueueName {
			t.Fatalf("%v (the fixtures under testdata/queue are needed for this golden file)", err)
		}
		res, h := mustCheck(t, src.path, checkOpts(src.wwDeps))
		v := BuildView(res, h, ViewOptions{MaxInstances: 1000})
		flags := ""
		if src.wwDeps {
			flags = " --ww-deps"
		}
		fmt.Fprintf(&sb, "== %s%s: %s\n", path.Base(filepath.ToSlash(src.path)), flags, v.Verdict)
		for _, sec := range v.Sections {
			fmt.Fprintf(&sb, "-- %s (%d, %s)\n", sec.Type, sec.Count, sec.Status)
			for _, in := range sec.Instances {
				instance(&sb, in)
			}
		}
		sb.WriteString("\n")
	}
	got := sb.String()
	file = filepath.Join("testdata", "golden", file)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("explanations differ from %s; rerun with -update and read the diff\n--- got ---\n%s", file, got)
	}
}
