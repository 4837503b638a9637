//go:build unix

package main

import "syscall"

// addressLimit returns the soft RLIMIT_AS (ulimit -v) in bytes, if one is
// set.
func addressLimit() (int64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur > 1<<62 {
		return 0, false
	}
	return int64(r.Cur), true
}
