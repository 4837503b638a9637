package hugepage

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestPrepareSmall(t *testing.T) {
	skipUnlessMadvise(t)
	if Prepare(MinBytes - 1) {
		t.Fatal("Prepare acted on a heap under MinBytes")
	}
}

func TestDisabledByGODEBUG(t *testing.T) {
	skipUnlessMadvise(t)
	t.Setenv("GODEBUG", "madvdontneed=1, disablethp=1")
	if Enabled() {
		t.Fatal("Enabled under GODEBUG=disablethp=1")
	}
	if Prepare(MinBytes) {
		t.Fatal("Prepare acted under GODEBUG=disablethp=1")
	}
}

// TestArraysLandInHugePages checks the whole point: after Prepare, a large
// array the run allocates lies in a mapping the kernel flags for huge
// pages ("hg" in /proc/self/smaps).
func TestArraysLandInHugePages(t *testing.T) {
	skipUnlessMadvise(t)
	if !Prepare(MinBytes) {
		t.Fatal("Prepare did not advise huge pages")
	}
	b := make([]byte, 32<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	addr := uint64(uintptr(unsafe.Pointer(&b[len(b)/2])))
	flags, ok := vmFlags(t, addr)
	if !ok {
		t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the array at %#x lies in a mapping without huge pages advised: VmFlags %q", addr, flags)
	}
}

// vmFlags returns the VmFlags of the mapping that holds addr.
func vmFlags(t *testing.T, addr uint64) (string, bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// mappingRange parses the "lo-hi perms ..." header line of a mapping.
func mappingRange(line string) (lo, hi uint64, ok bool) {
	r, _, found := strings.Cut(line, " ")
	if !found {
		return 0, 0, false
	}
	a, b, found := strings.Cut(r, "-")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	return lo, hi, err1 == nil && err2 == nil
}

// skipUnlessMadvise skips a test where Prepare does nothing whatever its
// argument (a machine whose huge pages are not "madvise", or not Linux):
// there it would pass without testing anything.
func skipUnlessMadvise(t *testing.T) {
	t.Helper()
	if !Enabled() {
		t.Skipf("transparent huge pages are %q here, not madvise (or GODEBUG disables them): Prepare does nothing", mode())
	}
}
