package scan

import (
	"os"
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/internal/procfs"
)

// MemoryFactor is the peak memory, in bytes, that checking a history takes
// per byte of its uncompressed text, and MemoryFactorHTML the same when its
// HTML report is written too (the time series, the report's view).
// /usr/bin/time -v measures peak resident sets of 1.6 to 1.9 times the text
// size for `hindsight check` (without its own memory limit, which the
// scanner does not set) and 2.7 for `hindsight report`, on 1M-op histories
// of 120 to 155 MB. The factors cover the larger peaks of 2.2 to 3.2 (check)
// and 3.3 to 5.5 (report) measured on generated queue histories of 149 to
// 466 MB with a larger op model, as a margin for denser histories.
const (
	MemoryFactor     = 4
	MemoryFactorHTML = 6
)

// baseCost is the memory a check takes whatever the history's size (the
// reader's buffer, the result, bookkeeping).
const baseCost = 1 << 20

// memoryCost is the weight a history of the given uncompressed size takes
// from the memory budget: factor times its size plus baseCost, at most the
// whole budget (a history bigger than the budget runs alone).
func memoryCost(uncompressed, factor, budget int64) int64 {
	c := uncompressed
	if c > (1<<62)/factor {
		c = 1 << 62
	} else {
		c = c*factor + baseCost
	}
	return min(c, budget)
}

// DefaultMemoryBudget returns a quarter of the memory this process may use
// (AvailableMemory).
func DefaultMemoryBudget() int64 { return AvailableMemory() / 4 }

// AvailableMemory returns the memory this process may use: the smaller of
// physical memory (MemTotal in /proc/meminfo) and the cgroup's limit
// (memory.max, or memory.limit_in_bytes under cgroup v1), so a container in
// a Kubernetes Job or a Slurm allocation is not overrun. Without /proc it
// returns 8 GiB.
func AvailableMemory() int64 {
	total := meminfoTotal()
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(p); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
				total = v
			}
		}
	}
	if total <= 0 {
		return 8 << 30
	}
	return total
}

// DefaultMaxHistoryBytes is the default of Options.MaxHistoryBytes: a
// quarter of the memory this process may use (as DefaultMemoryBudget, and
// whatever --memory says). Checking a history takes about twice its size
// at its peak, so one at the limit fits with room for others.
func DefaultMaxHistoryBytes() int64 { return DefaultMemoryBudget() }

// meminfoTotal returns MemTotal from /proc/meminfo in bytes, or 0.
func meminfoTotal() int64 { return procfs.Bytes("/proc/meminfo", "MemTotal") }
