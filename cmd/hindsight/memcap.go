package main

import (
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/memwatch"
	"github.com/hindsight-dev/hindsight/internal/procfs"
	"github.com/hindsight-dev/hindsight/scan"
)

// The memory cap of check, report, shrink and demo (--memory; issue 17).
//
// Go cannot make an allocation fail, and a process the kernel or the Go
// runtime kills for want of memory exits like a verdict (the runtime's
// "out of memory" is status 2, an unknown verdict's). So the cap is kept
// two ways, and both end in the same message, naming the cap and the
// history, and exit status 4 (docs/README.md, "Exit status"):
//
//   - The history's text is metered as it is read (check.Options.Meter,
//     after decompression): a parsed history takes about 1.2 to 2 times its
//     text (memory.go), so one whose text times textCost passes the cap
//     stops there, before its ops are allocated. A plain file is judged by
//     its size before it is read.
//   - A watchdog reads the runtime's memory (runtime/metrics: what it has
//     mapped and not given back) every watchInterval, with Go's soft limit
//     at softShare of the cap so that the collector works hard near it;
//     when the process passes the cap anyway (the live history and its
//     analysis do not fit), it stops the run.
//
// The default cap is defaultShare of the memory the machine or the cgroup
// gives (scan.AvailableMemory), and never more than addressShare of the
// address space ulimit -v (RLIMIT_AS) leaves the process once started:
// under a low ulimit -v the Go runtime itself dies on a failed mmap, so the
// cap must fire first.
const (
	textCost      = 1.2
	softShare     = 0.9
	defaultShare  = 0.75
	addressShare  = 0.6
	watchInterval = 5 * time.Millisecond
	minCap        = 16 << 20
)

// exitMemory is the exit status of a history that could not be judged
// within the memory cap.
const exitMemory = 4

// memCap is the memory cap of one command run.
type memCap struct {
	limit int64
	flag  string // how the cap was set, for the message

	mu   sync.Mutex
	path string // the history being read or checked
	// trip is called by the watchdog when the process passes the cap, with
	// the error to report; it must end the process (main's exits 4).
	trip func(*check.MemoryCapError)
}

// memoryFlag registers --memory on cmd.
func memoryFlag(cmd *cobra.Command, s *string) {
	cmd.Flags().StringVar(s, "memory", "", "memory cap, in bytes or with a unit (3GiB, 512MB): a history that cannot be judged within it stops with exit status 4; default 3/4 of the machine's (or cgroup's) memory, less under ulimit -v")
}

// newMemCap builds the cap from the --memory flag's text ("" for the
// default).
func newMemCap(flag string) (*memCap, error) {
	c := &memCap{flag: "--memory"}
	if flag != "" {
		v, err := parseBytes(flag)
		if err != nil {
			return nil, usageError{fmt.Errorf("--memory: %w", err)}
		}
		if v < minCap {
			return nil, usageError{fmt.Errorf("--memory must be at least %s (hindsight itself takes about that)", check.FormatBytes(minCap))}
		}
		c.limit = v
	} else {
		c.limit = int64(defaultShare * float64(scan.AvailableMemory()))
	}
	if as, ok := addressLimit(); ok {
		room := as - vmSize()
		if lim := int64(addressShare * float64(room)); lim < c.limit {
			c.limit = lim
			c.flag = "--memory, lowered to fit ulimit -v"
		}
	}
	c.limit = max(c.limit, minCap)
	return c, nil
}

// meter is check.Options.Meter for the history at path: its text times
// textCost must fit the cap.
func (c *memCap) meter(path string) func(int64) error {
	c.mu.Lock()
	c.path = path
	c.mu.Unlock()
	return func(text int64) error {
		if need := int64(textCost * float64(text)); need > c.limit {
			return &check.MemoryCapError{Path: path, Cap: c.limit, Flag: c.flag,
				Why: fmt.Sprintf("its text passed %s (about %s parsed); stopped reading", check.FormatBytes(text), check.FormatBytes(need))}
		}
		return nil
	}
}

// soft returns limit lowered to the cap's share for Go's soft limit.
func (c *memCap) soft(limit int64) int64 {
	return min(limit, int64(softShare*float64(c.limit)))
}

// watchdog is false in tests that run commands in the test process, whose
// memory is not a command's.
var watchdog = true

// watch starts the watchdog and sets Go's soft memory limit under the cap
// (unless GOMEMLIMIT asks for a lower one); the returned function stops it.
func (c *memCap) watch() func() {
	prev := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(c.soft(prev))
	if !watchdog {
		return func() { debug.SetMemoryLimit(prev) }
	}
	stop := memwatch.Watch(c.limit, watchInterval, func(used int64) {
		c.mu.Lock()
		path := c.path
		c.mu.Unlock()
		if path == "" {
			path = "hindsight"
		}
		err := &check.MemoryCapError{Path: path, Cap: c.limit, Flag: c.flag,
			Why: fmt.Sprintf("the process's memory reached %s while checking it; stopped", check.FormatBytes(used))}
		if c.trip != nil {
			c.trip(err)
		}
	})
	return func() {
		stop()
		debug.SetMemoryLimit(prev)
	}
}

// vmSize is the process's virtual size now (VmSize in /proc/self/status),
// or 0.
func vmSize() int64 { return procfs.Bytes("/proc/self/status", "VmSize") }

// isMemoryCap reports whether err is a history over the memory cap.
func isMemoryCap(err error) bool {
	_, ok := check.AsMemoryCapError(err)
	return ok
}
