//go:build unix

package scan

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id runs on this host
// (or may: a process of another user counts as alive).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
