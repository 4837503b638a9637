package hugepage

import "syscall"

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
