package scan

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testpack"
)

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
	if lie := lyingGzip(t, 25000); estimateSize(bytes.NewReader(lie), int64(len(lie))) > 1<<20 {
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
