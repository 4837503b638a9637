package hugepage

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

const supported = true

// advise marks the whole huge pages (of the given size) inside sp with
// MADV_HUGEPAGE.
func advise(sp span, huge uintptr) bool {
	start := (sp.lo + huge - 1) &^ (huge - 1)
	end := sp.hi &^ (huge - 1)
	if end <= start {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE)
	return errno == 0
}

// probe writes the first byte of probeBytes of fresh memory in huge pages
// and of as many bytes in base pages, a huge page's worth of each in
// turn (so that both halves meet the host in the same state), and returns
// how long each half's first writes took. ok is false when the memory
// could not be mapped or advised. The memory is unmapped before it
// returns.
func probe() (huge, small time.Duration, ok bool) {
	page := os.Getpagesize()
	b, err := syscall.Mmap(-1, 0, 2*probeBytes+size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return 0, 0, false
	}
	defer syscall.Munmap(b)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((base+size-1)&^(size-1) - base)
	h := b[off : off+probeBytes]
	s := b[off+probeBytes : off+2*probeBytes]
	if syscall.Madvise(h, syscall.MADV_HUGEPAGE) != nil || syscall.Madvise(s, syscall.MADV_NOHUGEPAGE) != nil {
		return 0, 0, false
	}
	for i := 0; i < probeBytes; i += size {
		t := time.Now()
		h[i] = 1
		huge += time.Since(t)
		t = time.Now()
		for j := i; j < i+size; j += page {
			s[j] = 1
		}
		small += time.Since(t)
	}
	return huge, small, true
}
