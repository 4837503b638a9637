package main

import (
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/workload"
)

func TestPlainSize(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "h.edn")
	os.WriteFile(plain, []byte("{:index 0}\n"), 0o644)
	gz := filepath.Join(dir, "h.edn.gz")
	f, _ := os.Create(gz)
	zw := gzip.NewWriter(f)
	zw.Write([]byte("{:index 0}\n"))
	zw.Close()
	f.Close()
	store := filepath.Join(dir, "store")
	os.Mkdir(store, 0o755)
	os.WriteFile(filepath.Join(store, "history.edn"), []byte("{:index 0}\n{:index 1}\n"), 0o644)
	cases := []struct {
		name string
		path string
		size int64
		ok   bool
	}{
		{"plain file - its size", plain, 11, true},
		{"gzip - unknown", gz, 0, false},
		{"store folder - its history.edn", store, 22, true},
		{"missing - unknown", filepath.Join(dir, "nope"), 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			size, ok := plainSize(tc.path)
			if size != tc.size || ok != tc.ok {
				t.Errorf("plainSize = %d, %v; want %d, %v", size, ok, tc.size, tc.ok)
			}
		})
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
	path := filepath.Join(t.TempDir(), "big.edn")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const size = 200 << 20 // sparse: no disk is used
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before := debug.SetMemoryLimit(-1)
	restore, after := memoryBudget(path, reportBudgetRatio, &memCap{limit: 1 << 50})
	want := int64(reportBudgetRatio*size) - processFootprint
	if got := debug.SetMemoryLimit(-1); got != want || after == nil {
		t.Errorf("limit %d, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("restore left the limit at %d, want %d", got, before)
	}
}

// TestLimitRaiserFollowsTheLiveHeap sets a limit far below the live heap
// and checks that the raiser lifts it to headroom times the live heap after
// a collection, and leaves it alone once stopped.
func TestLimitRaiserFollowsTheLiveHeap(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	keep := make([]byte, 64<<20) // live through the collections below
	for i := range keep {
		keep[i] = byte(i)
	}
	debug.SetMemoryLimit(1 << 20)
	r := raiseWithLiveHeap(1<<20, headroom, 0, &memCap{limit: 1 << 50})
	// the check runs in a cleanup after the collection: wait for it
	var got int64
	for range 500 {
		runtime.GC()
		if got = debug.SetMemoryLimit(-1); got >= int64(len(keep)) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got < int64(len(keep)) {
		t.Fatalf("limit %d after a collection with %d bytes live, want at least that", got, len(keep))
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
// txnHeadroom times it), not the file, whatever the file's size down to
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
			path := filepath.Join(t.TempDir(), "h.edn")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(tc.size); err != nil { // sparse: no disk is used
				t.Fatal(err)
			}
			f.Close()
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
			after(w)
			got, live := debug.SetMemoryLimit(-1), int64(liveHeap())
			switch {
			case tc.follows && (got < live || got > 2*live+txnSlack):
				t.Errorf("limit %d with %d bytes live, want about %.2f times that plus %d", got, live, txnHeadroom, txnSlack)
			case !tc.follows && got != math.MaxInt64:
				t.Errorf("limit %d, want the default", got)
			}
		})
	}
}
