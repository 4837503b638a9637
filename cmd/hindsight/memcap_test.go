package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/report"
)

// bombFile writes a gzip of n queue send pairs (about 120 bytes each,
// compressing about 30 times) and returns its path.
func bombFile(t *testing.T, n int) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for i := range n {
		fmt.Fprintf(zw, "{:index %d, :type :invoke, :process 0, :f :send, :value [[:send :x %d]]}\n", 2*i, i)
		fmt.Fprintf(zw, "{:index %d, :type :ok, :process 0, :f :send, :value [[:send :x [%d %d]]]}\n", 2*i+1, i, i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bomb.edn.gz")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMemoryCapExit (issue 17): a history whose text cannot fit the
// --memory cap stops while it is read, with a message naming the cap and
// the file, and exit status 4; check, report and shrink alike. Among
// several histories, 4 ranks above invalid and below an input error.
func TestMemoryCapExit(t *testing.T) {
	watchdog = false // the test process's memory is not the command's
	t.Cleanup(func() { watchdog = true })
	bomb := bombFile(t, 130000) // 15.6 MB of text, metered as it is inflated
	plain := filepath.Join(t.TempDir(), "big.edn")
	if err := os.WriteFile(plain, make([]byte, 15<<20), 0o644); err != nil {
		t.Fatal(err) // a plain file is judged by its size, before it is read
	}
	for _, args := range [][]string{
		{"check", "--memory", "16MiB", bomb},
		{"check", "--memory", "16MiB", plain},
		{"report", "--memory", "16MiB", plain, "-o", filepath.Join(t.TempDir(), "r.html")},
		{"shrink", "--memory", "16MiB", plain, "--anomaly", "lost-write"},
	} {
		if args[0] == "report" {
			if report.AssetsAvailable() != nil {
				continue // the report needs scripts/assets.sh
			}
		}
		code, _, stderr := runCLI(t, "", args...)
		want := "hindsight: " + args[3] + ": could not be judged within the memory cap of 16.0 MiB (--memory);"
		if code != exitMemory || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want 4 and %q", args[0], code, stderr, want)
		}
	}
	invalid := filepath.Join(fixtures, "g1c-wr-cycle-invalid.edn")
	if code, _, stderr := runCLI(t, "", "check", "--memory", "16MiB", invalid); code != exitInvalid {
		t.Errorf("a history within the cap: exit %d, %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "", "check", "--memory", "16MiB", invalid, plain); code != exitMemory {
		t.Errorf("invalid then over the cap: exit %d, want 4", code)
	}
	if code, _, _ := runCLI(t, "", "check", "--memory", "16MiB", plain, filepath.Join(t.TempDir(), "missing.edn")); code != exitInput {
		t.Errorf("over the cap then unreadable: exit %d, want 3", code)
	}
	for _, bad := range []string{"lots", "1MiB"} {
		if code, _, _ := runCLI(t, "", "check", "--memory", bad, invalid); code != exitInput {
			t.Errorf("--memory %s: exit %d, want 3", bad, code)
		}
	}
}

func TestWorseOrder(t *testing.T) {
	order := []int{exitValid, exitUnknown, exitInvalid, exitMemory, exitInput, exitInternal}
	for i, a := range order {
		for j, b := range order {
			if got, want := worse(a, b), order[max(i, j)]; got != want {
				t.Errorf("worse(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestMemoryWatchdog: when the process's memory passes the cap (here, a
// cap below what the test binary already holds), the watchdog reports it
// with the cap and the history being checked.
func TestMemoryWatchdog(t *testing.T) {
	mc := &memCap{limit: 4 << 20, flag: "--memory"}
	tripped := make(chan *check.MemoryCapError, 1)
	mc.trip = func(err *check.MemoryCapError) { tripped <- err }
	mc.meter("big.edn")
	stop := mc.watch()
	defer stop()
	hold := make([]byte, 16<<20)
	for i := range hold {
		hold[i] = byte(i)
	}
	select {
	case err := <-tripped:
		if !strings.HasPrefix(err.Error(), "big.edn: could not be judged within the memory cap of 4.0 MiB (--memory); the process's memory reached") {
			t.Errorf("message: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the watchdog did not fire")
	}
	_ = hold[len(hold)-1]
}

// TestDefaultCapUnderUlimit: under ulimit -v, the default cap leaves the
// runtime room: well under the address space left.
func TestDefaultCapUnderUlimit(t *testing.T) {
	mc, err := newMemCap("")
	if err != nil {
		t.Fatal(err)
	}
	if mc.limit < minCap {
		t.Errorf("cap %d below the minimum", mc.limit)
	}
	if as, ok := addressLimit(); ok && mc.limit > as-vmSize() {
		t.Errorf("cap %d, but ulimit -v leaves %d", mc.limit, as-vmSize())
	}
}

// TestPanicIsInternalError (issue 17, item 5): a panic while checking a
// history is an internal error, exit 5, not a verdict; the other histories
// are still checked and printed.
func TestPanicIsInternalError(t *testing.T) {
	bad := filepath.Join(fixtures, "g1c-wr-cycle-invalid.edn")
	testPanic = func(path string) {
		if path == bad {
			panic("boom")
		}
	}
	defer func() { testPanic = nil }()
	code, stdout, stderr := runCLI(t, "", "check", bad, incident)
	if code != exitInternal || !strings.Contains(stderr, bad+": internal error: boom") {
		t.Errorf("exit %d, stderr %q; want 5 and an internal error naming the file", code, stderr)
	}
	if !strings.Contains(stdout, "timeout-retry-duplicate-invalid.edn") {
		t.Errorf("the other history was not printed: %q", stdout)
	}
}

// TestMemoryTripWritesJUnit: when the watchdog stops check in the middle
// of a history, the --junit file still holds the suites of the histories
// before it and an error suite naming the one it stopped, and the exit
// status is 4, or the worse status of the histories before it.
func TestMemoryTripWritesJUnit(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.xml")
	var f checkFlags
	f.junit = &junitOut{file: out}
	f.addJUnitError("first.edn", errors.New("first.edn:1:1: unexpected '}'"))
	var status []int
	defer func(e func(int)) { exitProcess = e }(exitProcess)
	exitProcess = func(code int) { status = append(status, code) }
	var code atomic.Int32
	code.Store(exitInvalid)
	var stderr strings.Builder
	memoryTrip(&f, &code, io.Discard, &stderr)(&check.MemoryCapError{Path: "big.edn", Cap: 4 << 20, Flag: "--memory", Why: "the process's memory reached 5.0 MiB"})
	if len(status) != 1 || status[0] != exitMemory {
		t.Errorf("exit %v, want [%d]", status, exitMemory)
	}
	if !strings.Contains(stderr.String(), "big.edn: could not be judged within the memory cap") {
		t.Errorf("stderr: %s", stderr.String())
	}
	suites, err := junit.IngestFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range suites {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"first.edn", "big.edn"}) {
		t.Errorf("suites %v, want first.edn and big.edn", names)
	}
	if n := len(suites); n == 2 && (suites[1].Totals.Error != 1 || !strings.Contains(suites[1].Tests[0].Error.Error(), "memory cap")) {
		t.Errorf("big.edn's suite: %+v", suites[1])
	}
}
