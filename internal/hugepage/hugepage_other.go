//go:build !linux

package hugepage

const supported = false

func advise(span, uintptr) bool { return false }
