package report

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/samples"
)

// goldenSources are the histories whose explanations are pinned in
// testdata/golden/explanations.txt: the demo sample, the hostile history,
// and fixtures with cycles (two of them under --ww-deps).
var goldenSources = []struct {
	path   string
	wwDeps bool
}{
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
	var sb strings.Builder
	for _, src := range goldenSources {
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
				fmt.Fprintf(&sb, "#%d %s\n", in.N, in.Explanation)
				for _, st := range in.Steps {
					fmt.Fprintf(&sb, "   %s %d -> %d: %s\n", st.Rel, st.From, st.To, st.Why)
				}
			}
		}
		sb.WriteString("\n")
	}
	got := sb.String()
	file := filepath.Join("testdata", "golden", "explanations.txt")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run TestExplanationsGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("explanations differ from %s; rerun with -update and read the diff\n--- got ---\n%s", file, got)
	}
}
