//go:build unix

// Package cputime reads the CPU time the process has used.
package cputime

import (
	"syscall"
	"time"
)

// Used is the CPU time (user and system, every thread) the process has
// used: unlike wall time, it does not count the time other processes hold
// the cores.
func Used() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
