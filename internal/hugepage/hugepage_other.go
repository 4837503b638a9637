//go:build !linux

package hugepage

const supported = false

func advise([]byte, uintptr) bool { return false }
