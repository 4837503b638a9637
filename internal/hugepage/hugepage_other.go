//go:build !linux

package hugepage

const supported = false

func advise(lo, hi, huge uintptr) bool { return false }
