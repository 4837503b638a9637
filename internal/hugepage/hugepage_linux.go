package hugepage

import "syscall"

const supported = true

// advise marks the whole huge pages (of the given size) inside [lo, hi)
// with MADV_HUGEPAGE.
func advise(lo, hi, huge uintptr) bool {
	start := (lo + huge - 1) &^ (huge - 1)
	end := hi &^ (huge - 1)
	if end <= start {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE)
	return errno == 0
}
