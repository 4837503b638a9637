package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/workload"
)

func TestTextSize(t *testing.T) {
	dir := t.TempDir()
	// varied enough to compress as a history does (a few times, below
	// the ratio past which a stated size is taken for garbage)
	var text []byte
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		text = fmt.Appendf(text, "{:type :ok, :f :txn, :value [[:append %d %d]], :process %d, :time %d, :index %d}\n",
			rng.IntN(100), rng.Int64(), rng.IntN(10), rng.Int64N(1<<40), i)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// a zstd stream written without its size (as a pipe's would be)
	var unsized bytes.Buffer
	zw, err := zstd.NewWriter(&unsized)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(text[:1000])
	zw.Write(text[1000:])
	zw.Close()
	store := filepath.Join(dir, "store")
	os.Mkdir(store, 0o755)
	os.WriteFile(filepath.Join(store, "history.edn"), testpack.Gzip(t, text), 0o644)
	jsonStore := filepath.Join(dir, "json-store") // a store of JSON Lines
	os.Mkdir(jsonStore, 0o755)
	os.WriteFile(filepath.Join(jsonStore, "history.jsonl"), text, 0o644)
	want := int64(len(text))
	cases := []struct {
		name string
		path string
		want int64
	}{
		{"plain file: its size", write("h.edn", text), want},
		{"gzip: its trailer's size", write("h.edn.gz", testpack.Gzip(t, text)), want},
		{"zstd with its size in the frame header", write("h.edn.zst", zstdWithSize(t, text)), want},
		{"store folder: its history.edn's", store, want},
		{"store folder of JSON Lines: its history.jsonl's", jsonStore, want},
		{"folder without a history: unknown", dir, 0},
		{"missing: unknown", filepath.Join(dir, "nope"), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := textSize(tc.path); got != tc.want {
				t.Errorf("textSize = %d, want %d", got, tc.want)
			}
		})
	}
	// without a recorded size, an estimate from the stored size: above
	// it, and not absurd
	stored := int64(unsized.Len())
	if got := textSize(write("u.edn.zst", unsized.Bytes())); got < stored || got > 64*stored {
		t.Errorf("textSize of a zstd file of %d bytes without its content size = %d, want between %d and %d", stored, got, stored, 64*stored)
	}
}

// zstdWithSize compresses b in one call, which records its size in the
// frame header.
func zstdWithSize(t *testing.T, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// TestReadyForLargeHeap: memoryBudget readies the process for a large
// heap (readyForLargeHeap) for standard input and a file of
// largeHeapMinFile or more, and not for a smaller file.
func TestReadyForLargeHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	readied := 0
	defer func(f func()) { readyForLargeHeap = f }(readyForLargeHeap)
	readyForLargeHeap = func() { readied++ }
	large := filepath.Join(t.TempDir(), "large.edn")
	if err := os.WriteFile(large, []byte(`{:type :invoke, :f :send, :value [[:send 1 1]], :process 0, :index 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(large, largeHeapMinFile); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want int
	}{{incident, 0}, {"-", 1}, {large, 1}} {
		readied = 0
		restore, _ := memoryBudget(tc.path, budgetRatio, &memCap{limit: 1 << 50})
		restore()
		if readied != tc.want {
			t.Errorf("%s: readied %d times, want %d", tc.path, readied, tc.want)
		}
	}
	if fi, err := os.Stat(incident); err != nil || fi.Size() >= largeHeapMinFile {
		t.Fatalf("the small history is not small: %v %v", fi, err)
	}
}

func TestMemoryBudgetLeavesSmallFilesAlone(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	restore, after := memoryBudget(incident, budgetRatio, &memCap{limit: 1 << 50})
	if after != nil || debug.SetMemoryLimit(-1) != before {
		t.Error("a small history changed the memory limit")
	}
	restore()
}

func TestMemoryBudgetForALargeFile(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	const size = 200 << 20
	path := sparseFile(t, "big.edn", size)
	before := debug.SetMemoryLimit(-1)
	restore, after := memoryBudget(path, reportBudgetRatio, &memCap{limit: 1 << 50})
	want := int64(reportBudgetRatio*size) - processFootprint
	// while the history is read, the limit is the file's budget, even
	// after collections (no follower: memory.go says why; a raiser, which
	// this small a live heap leaves alone)
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != want || after == nil {
		t.Errorf("limit %d during the read, want the file's budget %d", got, want)
	}
	w, ok := workload.Lookup("queue")
	if !ok {
		t.Fatal("no queue workload")
	}
	after(w)
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("limit %d once a queue history is read, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("restore left the limit at %d, want %d", got, before)
	}
}

// TestMemoryBudgetRaisedDuringTheRead: a history whose read holds more
// than its file's budget (an anomaly storm's values) gets the limit
// raised as its live heap grows, before the read ends, not a collector
// running flat out under the file's budget.
func TestMemoryBudgetRaisedDuringTheRead(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	const size = budgetMinFile
	path := sparseFile(t, "storm.edn", size)
	before := debug.SetMemoryLimit(-1)
	restore, _ := memoryBudget(path, budgetRatio, &memCap{limit: 1 << 50})
	budget := int64(budgetRatio*size) - processFootprint
	keep := liveBytes(2 * budget) // the read's live heap, past the budget
	want := int64(len(keep)) + raiseSlack
	if got := limitAfterGC(want); got < want {
		t.Errorf("limit %d during a read holding %d bytes (budget %d), want at least %d", got, len(keep), budget, want)
	}
	runtime.KeepAlive(keep)
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("restore left the limit at %d, want %d", got, before)
	}
}

// TestLimitRaiserFollowsTheLiveHeap sets a limit far below the live heap
// and checks that the raiser lifts it to raiseHeadroom times the live heap
// plus raiseSlack after a collection, and leaves it alone once stopped.
func TestLimitRaiserFollowsTheLiveHeap(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	keep := liveBytes(64 << 20) // live through the collections below
	debug.SetMemoryLimit(1 << 20)
	r := raiseWithLiveHeap(1<<20, raiseHeadroom, raiseSlack, &memCap{limit: 1 << 50})
	want := int64(len(keep)) + raiseSlack // at least: the live heap holds keep and more
	if got := limitAfterGC(want); got < want {
		t.Fatalf("limit %d after a collection with %d bytes live, want at least %.2f times that plus %d", got, len(keep), raiseHeadroom, raiseSlack)
	}
	r.stop()
	debug.SetMemoryLimit(1 << 20)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<20 {
		t.Errorf("a stopped raiser moved the limit to %d", got)
	}
	runtime.KeepAlive(keep)
}

// TestMemoryBudgetOfATxnHistory checks that once a list-append or
// rw-register history is read the limit follows the live heap (about
// raiseHeadroom times it, or the memory held then if more:
// followLiveHeap's floor), not the file, whatever the file's size down to
// txnBudgetMinFile, and that a queue history of that size keeps the
// defaults.
func TestMemoryBudgetOfATxnHistory(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	for _, tc := range []struct {
		name     string
		size     int64
		workload string
		follows  bool
	}{
		{"large list-append - follows the live heap", 200 << 20, "list-append", true},
		{"small rw-register - follows the live heap", txnBudgetMinFile, "rw-register", true},
		{"small queue - the defaults", txnBudgetMinFile, "queue", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := sparseFile(t, "h.edn", tc.size)
			debug.SetMemoryLimit(math.MaxInt64)
			restore, after := memoryBudget(path, budgetRatio, &memCap{limit: 1 << 50})
			defer restore()
			if after == nil {
				t.Fatal("no function to call after the read")
			}
			runtime.GC()
			w, ok := workload.Lookup(tc.workload)
			if !ok {
				t.Fatalf("no workload %s", tc.workload)
			}
			held := heldMemory()
			after(w)
			got, live := debug.SetMemoryLimit(-1), int64(liveHeap())
			switch {
			case tc.follows && (got < live || got > max(2*live+raiseSlack, held+held/8)):
				t.Errorf("limit %d with %d bytes live and %d held, want about %.2f times the live plus %d, or the held", got, live, held, raiseHeadroom, raiseSlack)
			case !tc.follows && got != math.MaxInt64:
				t.Errorf("limit %d, want the default", got)
			}
		})
	}
}

// TestLimitFollowerDropsWithTheLiveHeap checks that the limit of a
// transactional check (followLiveHeap) rises with the live heap, with the
// whole slack from 64 MB live on, and falls back once that heap is garbage
// and collected, where a raiser's stays.
func TestLimitFollowerDropsWithTheLiveHeap(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	keep := make([]byte, 64<<20)
	for i := range keep {
		keep[i] = byte(i)
	}
	debug.SetMemoryLimit(1 << 20)
	r := followLiveHeap(raiseHeadroom, raiseSlack, &memCap{limit: 1 << 50})
	defer r.stop()
	waitFor := func(what string, ok func(int64) bool) int64 {
		t.Helper()
		var got int64
		for range 500 {
			runtime.GC()
			if got = debug.SetMemoryLimit(-1); ok(got) {
				return got
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("limit %d: never %s", got, what)
		return 0
	}
	high := waitFor("at least the 64 MB live plus the slack", func(l int64) bool { return l >= int64(len(keep))+raiseSlack })
	runtime.KeepAlive(keep)
	keep = nil
	low := waitFor("below 64 MB once they are garbage", func(l int64) bool { return l < 64<<20 })
	if low < followSlackBase {
		t.Errorf("limit %d after falling from %d: below the least slack %d", low, high, followSlackBase)
	}
}

// TestLimitFollowerFloor: a follower keeps its limit at its floor (the
// memory held when it started) while the live heap needs less, and
// follows the live heap alone from the first time it needs more, lower
// than the floor after that if the live heap falls.
func TestLimitFollowerFloor(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	runtime.GC()
	live := int64(liveHeap())
	if live == 0 {
		t.Skip("the runtime does not give the live heap")
	}
	if held := heldMemory(); held < live {
		t.Errorf("held memory %d below the live heap %d", held, live)
	}
	const floor = 1 << 30 // far above what this test process needs
	r := &limitRaiser{headroom: raiseHeadroom, slack: raiseSlack, mc: &memCap{limit: 1 << 50}, follow: true, floor: floor}
	r.check()
	if got := debug.SetMemoryLimit(-1); got != floor {
		t.Fatalf("limit %d with %d bytes live, want the floor %d", got, live, floor)
	}
	r.floor = 1 << 20 // below what the live heap needs: dropped
	r.check()
	if got := debug.SetMemoryLimit(-1); got >= floor || got < live || r.floor != 0 {
		t.Fatalf("limit %d (floor now %d) with %d bytes live, want the live heap's need and no floor", got, r.floor, live)
	}
	r.stop()
}

// TestGCStorm: a follower gives the pace to GOGC only once it has seen
// stormMinGCs collections take more than stormGCShare of the CPU. The
// shares are those measured after each collection of 1M rw-register txns
// of histgen's defaults (at most 0.08) and of 300k whose every read saw a
// value nobody wrote (0.23, 0.32, 0.35, ...).
func TestGCStorm(t *testing.T) {
	for _, tc := range []struct {
		gcs   int
		share float64
		want  bool
	}{
		{2, 0.02, false}, {3, 0.08, false}, {10, 0.04, false}, {40, 0.19, false},
		{2, 0.23, false}, {3, 0.32, false}, {4, 0.35, true}, {15, 0.37, true},
		{100, 0.9, true}, {4, 0, false},
	} {
		if got := gcStorm(tc.gcs, tc.share*10, 10); got != tc.want {
			t.Errorf("%d collections, %.2f of the CPU: storm %v, want %v", tc.gcs, tc.share, got, tc.want)
		}
	}
	if gcStorm(10, 0, 0) {
		t.Error("a storm with no CPU time counted")
	}
	if stormHeadroom <= raiseHeadroom {
		t.Errorf("storm headroom %.2f is not above the follower's %.2f", stormHeadroom, raiseHeadroom)
	}
}

// TestPeekWorkload: the first ops of a history say its workload, and a
// check of an abort history of 8 MB or more collects at
// twiceFileGCPercent while it is read, until restore; a list-append
// history keeps the collector's target.
func TestPeekWorkload(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	for _, tc := range []struct {
		fixture string
		want    string
		gc      int
	}{
		{"../../testdata/abort/abort-other-invalid.edn", "abort", twiceFileGCPercent},
		{"../../testdata/list-append/" + firstEDN(t, "../../testdata/list-append"), "list-append", gcPercent},
	} {
		src, err := os.ReadFile(tc.fixture)
		if err != nil {
			t.Fatal(err)
		}
		if w := peekWorkload(tc.fixture); w == nil || w.Name != tc.want {
			t.Errorf("%s: peeked %v, want %s", tc.fixture, w, tc.want)
		}
		// the same ops, then NUL padding to 8 MB (sparse: no disk used)
		path := filepath.Join(t.TempDir(), "h.edn")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, txnBudgetMinFile); err != nil {
			t.Fatal(err)
		}
		before := debug.SetGCPercent(gcPercent)
		restore, _ := memoryBudget(path, budgetRatio, &memCap{limit: 1 << 50})
		if got := debug.SetGCPercent(-1); got != tc.gc {
			t.Errorf("%s: GC percent %d while read, want %d", tc.want, got, tc.gc)
		} else {
			debug.SetGCPercent(got)
		}
		restore()
		if got := debug.SetGCPercent(before); got != gcPercent {
			t.Errorf("%s: restore left GC percent %d, want %d", tc.want, got, gcPercent)
		}
	}
	garbage := filepath.Join(t.TempDir(), "garbage.edn")
	if err := os.WriteFile(garbage, []byte("{{{{ not a history"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := peekWorkload(garbage); w != nil {
		t.Errorf("garbage peeked as %s", w.Name)
	}
}

// firstEDN names the first .edn file in dir.
func firstEDN(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".edn") {
			return e.Name()
		}
	}
	t.Fatalf("no .edn file in %s", dir)
	return ""
}

// liveBytes returns n bytes, written, for a test to keep live.
func liveBytes(n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// limitAfterGC collects until the memory limit reaches want or five
// seconds pass (a raiser's check runs in a cleanup after a collection),
// and returns the limit.
func limitAfterGC(want int64) int64 {
	var got int64
	for range 500 {
		runtime.GC()
		if got = debug.SetMemoryLimit(-1); got >= want {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// sparseFile makes a file of size bytes named name in a temporary folder,
// sparse: no disk is used.
func sparseFile(t *testing.T, name string, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
