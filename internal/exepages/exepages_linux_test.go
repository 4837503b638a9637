package exepages

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFile is this process's resident file-backed memory in kB
// (RssFile in /proc/self/status).
func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("RssFile %q: %v", v, err)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestRelease releases the test binary's own pages: Release reports
// some, and the process's resident file-backed memory falls by at least
// part of them (the test's own code comes back as it runs).
func TestRelease(t *testing.T) {
	before := rssFile(t)
	n := Release()
	after := rssFile(t)
	if n <= 0 {
		t.Fatalf("Release released nothing (RssFile %d kB)", before)
	}
	if after >= before {
		t.Errorf("RssFile %d kB before Release, %d kB after (it reported %d kB)", before, after, n>>10)
	}
}
