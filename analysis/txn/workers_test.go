package txn

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// TestWorkersSameOutput checks every reference history of
// ../shared/reference/txn with one worker (GOMAXPROCS=1) and with four:
// the results, version orders included (Options.Series), must be the same
// to the byte once the elapsed time is left out.
func TestWorkersSameOutput(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testpaths.Reference(t), "txn", "*.edn.gz"))
	if len(files) == 0 {
		t.Fatal("no reference histories in ../shared/reference/txn")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".edn.gz")
		check := CheckListAppend
		if strings.HasPrefix(name, "rw-") {
			check = CheckRWRegister
		}
		t.Run(name, func(t *testing.T) {
			h, p := testhist.File(t, f)
			opts := DefaultOptions()
			opts.Series = true
			var out [2][]byte
			for i, procs := range []int{1, 4} {
				runtime.GOMAXPROCS(procs)
				out[i] = resultJSON(t, check(h, p, opts))
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Errorf("GOMAXPROCS=1 and 4 differ:\n%s\n%s", firstDiff(out[0], out[1]), firstDiff(out[1], out[0]))
			}
		})
	}
}

// resultJSON is res as JSON without its elapsed time.
func resultJSON(t *testing.T, res *analysis.Result) []byte {
	t.Helper()
	res.Stats.ElapsedMS = 0
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff is a of b's length around the first byte where they differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return string(a[max(0, i-80):min(len(a), i+80)])
}
