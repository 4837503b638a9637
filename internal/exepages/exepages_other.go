//go:build !linux

package exepages

// Release does nothing on this system (the package doc says what it does
// on Linux) and returns 0.
func Release() int64 { return 0 }
