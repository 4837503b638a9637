package exepages

import (
	"testing"

	"github.com/hindsight-dev/hindsight/internal/procfs"
)

// TestRelease releases the test binary's own pages: Release reports
// some, and the process's resident file-backed memory (RssFile) falls by
// at least part of them (the test's own code comes back as it runs).
func TestRelease(t *testing.T) {
	const status = "/proc/self/status"
	before := procfs.Bytes(status, "RssFile")
	if before == 0 {
		t.Skip("no RssFile in /proc/self/status")
	}
	n := Release()
	after := procfs.Bytes(status, "RssFile")
	if n <= 0 {
		t.Fatalf("Release released nothing (RssFile %d kB)", before>>10)
	}
	if after >= before {
		t.Errorf("RssFile %d kB before Release, %d kB after (it reported %d kB)", before>>10, after>>10, n>>10)
	}
}
