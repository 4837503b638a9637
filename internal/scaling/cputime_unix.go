//go:build unix

package scaling

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: unlike
// wall time, it does not count the time other processes hold the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
