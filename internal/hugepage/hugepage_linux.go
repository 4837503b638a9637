package hugepage

import (
	"syscall"
	"unsafe"
)

const supported = true

// advise marks the whole huge pages inside b with MADV_HUGEPAGE.
func advise(b []byte, huge uintptr) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + uintptr(len(b))) &^ (huge - 1)
	if end <= start {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE)
	return errno == 0
}
