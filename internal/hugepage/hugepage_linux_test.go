package hugepage

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestProbe runs the real probe: on Linux with huge pages on request it
// maps, advises and writes both halves, and each takes some time; where
// the kernel has no huge page to give it says so.
func TestProbe(t *testing.T) {
	skipUnlessMadvise(t)
	h, s, err := probe()
	if errors.Is(err, errNoHugePages) {
		d, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/defrag")
		t.Skipf("the kernel gave the probe no huge pages (defrag: %s)", strings.TrimSpace(string(d)))
	}
	if err != nil || h <= 0 || s <= 0 {
		t.Fatalf("probe: huge %v, small %v, %v", h, s, err)
	}
	t.Logf("first writes to %d MiB: %v in huge pages, %v in base pages", probeBytes>>20, h, s)
}

// TestResident checks the probe's test for huge pages: one write a huge
// page leaves memory in base pages mostly out of memory, and every page
// written leaves it all in.
func TestResident(t *testing.T) {
	page := os.Getpagesize()
	b, err := syscall.Mmap(-1, 0, 2*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(b)
	if err := syscall.Madvise(b, syscall.MADV_NOHUGEPAGE); err != nil {
		t.Skipf("madvise: %v", err)
	}
	b[0], b[size] = 1, 1
	if in, err := resident(b, page); err != nil || in {
		t.Fatalf("two pages written of %d in base pages: resident %v, %v", 2*size/page, in, err)
	}
	for i := 0; i < len(b); i += page {
		b[i] = 1
	}
	if in, err := resident(b, page); err != nil || !in {
		t.Fatalf("every page written: resident %v, %v", in, err)
	}
}
