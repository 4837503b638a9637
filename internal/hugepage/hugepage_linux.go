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
// how long each half's first writes took. It fails when the memory cannot
// be mapped or advised, and with errNoHugePages when the kernel backed the
// huge half with base pages. The memory is unmapped before it returns.
func probe() (huge, small time.Duration, err error) {
	page := os.Getpagesize()
	b, err := syscall.Mmap(-1, 0, 2*probeBytes+size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return 0, 0, err
	}
	defer syscall.Munmap(b)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((base+size-1)&^(size-1) - base)
	h := b[off : off+probeBytes]
	s := b[off+probeBytes : off+2*probeBytes]
	if err := syscall.Madvise(h, syscall.MADV_HUGEPAGE); err != nil {
		return 0, 0, err
	}
	if err := syscall.Madvise(s, syscall.MADV_NOHUGEPAGE); err != nil {
		return 0, 0, err
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
	// where the kernel had no huge page to give (fragmented memory, or
	// defrag "never"), the huge half got base pages too, and its time
	// says nothing about huge pages
	in, err := resident(h, page)
	if err != nil {
		return huge, small, err
	}
	if !in {
		return huge, small, errNoHugePages
	}
	return huge, small, nil
}

// resident reports whether every page of b is in memory (mincore): after
// one write per huge page, only where the kernel backed them with huge
// pages.
func resident(b []byte, page int) (bool, error) {
	vec := make([]byte, (len(b)+page-1)/page)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		return false, errno
	}
	for _, v := range vec {
		if v&1 == 0 {
			return false, nil
		}
	}
	return true, nil
}
