package scan

import (
	"bytes"
	"encoding/binary"
	"io"
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

// Compression ratios assumed when a compressed file does not say how big
// its content is (a zstd frame without content size, a gzip trailer that
// cannot be right). Generated histories compress 4.5 to 6.5 times; Jepsen's
// own, with longer values, compress more, so the estimate errs high.
const (
	gzipRatio = 8
	zstdRatio = 8
	// maxRatio bounds a ratio read from a file: beyond it the size field is
	// taken to be garbage (a truncated gzip's last bytes are not its trailer).
	maxRatio = 64
)

// baseCost is the memory a check takes whatever the history's size (the
// reader's buffer, the result, bookkeeping).
const baseCost = 1 << 20

// EstimateSize returns the uncompressed size of the file f of size bytes:
// its size when it is not compressed; for gzip, the ISIZE trailer (the
// content size modulo 2^32, corrected for histories over 4 GiB); for zstd,
// the frame's content size when the header has one; otherwise size times an
// assumed ratio. It reads at most 18 bytes and leaves f's offset anywhere.
// The scan weighs a history by it, and check and report size their memory
// budget by it (cmd/hindsight).
func EstimateSize(f io.ReaderAt, size int64) int64 {
	var head [18]byte
	n, _ := f.ReadAt(head[:], 0)
	h := head[:n]
	switch {
	case bytes.HasPrefix(h, []byte{0x1f, 0x8b}):
		var tail [4]byte
		if size < 18+4 {
			return size * gzipRatio
		}
		if _, err := f.ReadAt(tail[:], size-4); err != nil {
			return size * gzipRatio
		}
		u := int64(binary.LittleEndian.Uint32(tail[:]))
		for u < size/2 && size > 1<<20 {
			u += 1 << 32 // ISIZE wrapped: the content is over 4 GiB
		}
		if u > size*maxRatio {
			return size * gzipRatio
		}
		return u
	case bytes.HasPrefix(h, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		if u, ok := zstdContentSize(h); ok && u <= size*maxRatio {
			return max(u, size)
		}
		return size * zstdRatio
	}
	return size
}

// zstdContentSize reads Frame_Content_Size from the header of a zstd frame
// (RFC 8878 §3.1.1.1) starting at h[0] (the magic number).
func zstdContentSize(h []byte) (int64, bool) {
	if len(h) < 5 {
		return 0, false
	}
	fhd := h[4]
	fcsFlag := fhd >> 6
	single := fhd&0x20 != 0
	didSize := [4]int{0, 1, 2, 4}[fhd&3]
	pos := 5
	if !single {
		pos++ // Window_Descriptor
	}
	pos += didSize
	var fcsSize int
	switch fcsFlag {
	case 0:
		if !single {
			return 0, false // no content size
		}
		fcsSize = 1
	case 1:
		fcsSize = 2
	case 2:
		fcsSize = 4
	case 3:
		fcsSize = 8
	}
	if len(h) < pos+fcsSize {
		return 0, false
	}
	b := h[pos : pos+fcsSize]
	switch fcsSize {
	case 1:
		return int64(b[0]), true
	case 2:
		return int64(binary.LittleEndian.Uint16(b)) + 256, true
	case 4:
		return int64(binary.LittleEndian.Uint32(b)), true
	}
	v := binary.LittleEndian.Uint64(b)
	if v > 1<<62 {
		return 0, false
	}
	return int64(v), true
}

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
