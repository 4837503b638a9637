package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestPrepareSmall: Prepare leaves a heap under its floor alone, MinBytes
// where free pages are not reported, MinBytesProbed where they are and
// the probe found huge pages cheaper; and a heap between the two floors
// is readied only in the second case.
func TestPrepareSmall(t *testing.T) {
	skipUnlessMadvise(t)
	withReporting(t, false)
	if Prepare(MinBytes - 1) {
		t.Fatal("Prepare acted on a heap under MinBytes")
	}
	withReporting(t, true)
	withMeasurement(t, measurement{huge: 1 * time.Millisecond, small: 9 * time.Millisecond})
	if Prepare(MinBytesProbed - 1) {
		t.Fatal("Prepare acted on a heap under MinBytesProbed")
	}
	if !Prepare(MinBytesProbed + 2<<20) {
		t.Fatal("where the probe found huge pages cheaper, Prepare did not ready a heap above MinBytesProbed")
	}
	if d := Decision(MinBytesProbed + 2<<20); !strings.Contains(d, fmt.Sprintf("on for heaps of %d MiB or more", MinBytesProbed>>20)) {
		t.Fatalf("Decision: %q", d)
	}
	// under the floor Decision says so, and does not run the probe
	probed := false
	old := measure
	measure = func() measurement { probed = true; return old() }
	if d := Decision(MinBytesProbed - 1); !strings.HasPrefix(d, "huge pages: not asked for") || probed {
		t.Fatalf("Decision under the floor: %q, probe run %v", d, probed)
	}
	withReporting(t, false)
	if d := Decision(MinBytes - 1); !strings.HasPrefix(d, "huge pages: not asked for (a heap of 127 MiB), only for heaps of 128 MiB") {
		t.Fatalf("Decision between the floors, free pages not reported: %q", d)
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
	withReporting(t, false) // the mechanism, wherever it would be used
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

// withReporting makes ReportsFreePages answer on for the test.
func withReporting(t *testing.T, on bool) {
	old := reportsFreePages
	reportsFreePages = func() bool { return on }
	t.Cleanup(func() { reportsFreePages = old })
}

// withMeasurement makes the probe's result the given one for the test.
func withMeasurement(t *testing.T, m measurement) {
	old := measure
	measure = func() measurement { return m }
	t.Cleanup(func() { measure = old })
}

// TestOffWhereFreePagesAreReported: on a machine whose balloon reports
// free pages, Prepare leaves the heap alone when the probe found huge
// pages dearer than base pages, or base pages cheap, or could not
// measure.
func TestOffWhereFreePagesAreReported(t *testing.T) {
	skipUnlessMadvise(t)
	withReporting(t, true)
	for _, m := range []measurement{
		{huge: 9 * time.Millisecond, small: 3 * time.Millisecond},
		{huge: 3 * time.Millisecond, small: 3 * time.Millisecond},
		{huge: 1 * time.Millisecond, small: 9 * time.Millisecond, err: errNoHugePages},
		{huge: 500 * time.Microsecond, small: 1600 * time.Microsecond}, // cheapBase
	} {
		withMeasurement(t, m)
		if Prepare(MinBytes + 1<<20) {
			t.Fatalf("Prepare advised huge pages where free pages are reported and the probe found %+v", m)
		}
		if d := Decision(MinBytes + 1<<20); !strings.HasPrefix(d, "huge pages: off") {
			t.Fatalf("Decision after the probe found %+v: %q", m, d)
		}
	}
}

// TestOnWhereTheProbeFindsHugePagesCheaper: where free pages are
// reported but the probe found huge pages cheaper (a host that keeps
// shadow page tables), Prepare advises them.
func TestOnWhereTheProbeFindsHugePagesCheaper(t *testing.T) {
	skipUnlessMadvise(t)
	withReporting(t, true)
	withMeasurement(t, measurement{huge: 6 * time.Millisecond, small: 10 * time.Millisecond})
	if !Prepare(MinBytes + 2<<20) {
		t.Fatal("Prepare did not advise huge pages where the probe found them cheaper")
	}
	if d := Decision(MinBytes + 2<<20); !strings.HasPrefix(d, "huge pages: on") || !strings.Contains(d, "6.0 ms in huge pages, 10.0 ms in base pages") {
		t.Fatalf("Decision: %q", d)
	}
}

// TestBalloonReports reads made-up /sys/bus/virtio/devices folders: only
// a balloon (device 0x0005) with feature bit 5 set reports free pages.
func TestBalloonReports(t *testing.T) {
	cases := []struct {
		name string
		devs map[string][2]string // folder: device, features
		want bool
	}{
		{"reporting balloon", map[string][2]string{"virtio0": {"0x0005", "0110010100"}, "virtio1": {"0x0002", "0010001001"}}, true},
		{"balloon without reporting", map[string][2]string{"virtio0": {"0x0005", "0110000100"}}, false},
		{"bit 5 on another device", map[string][2]string{"virtio1": {"0x0002", "0000010000"}}, false},
		{"short features", map[string][2]string{"virtio0": {"0x0005", "01100"}}, false},
		{"second device is the balloon", map[string][2]string{"virtio0": {"0x0001", "1111111111"}, "virtio4": {"0x0005\n", "0000010000\n"}}, true},
		{"no devices", nil, false},
	}
	for _, c := range cases {
		dir := t.TempDir()
		for name, df := range c.devs {
			d := filepath.Join(dir, name)
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, f := range []string{"device", "features"} {
				if err := os.WriteFile(filepath.Join(d, f), []byte(df[i]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := balloonReports(dir); got != c.want {
			t.Errorf("%s: balloonReports = %v, want %v", c.name, got, c.want)
		}
	}
	if balloonReports(filepath.Join(t.TempDir(), "absent")) {
		t.Error("a missing folder reports free pages")
	}
}
