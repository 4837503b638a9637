// Package hugepage asks the kernel to back the heap a history is about to
// fill with transparent huge pages.
//
// A check touches hundreds of megabytes of fresh memory in a few seconds,
// and each 4 KiB page of it costs a page fault the first time it is
// written: on a virtual machine about 10 µs each, a quarter of the CPU of
// a 1M-transaction check (about 70,000 faults at its 276 MB peak). With
// 2 MiB pages there are 512 times fewer. Linux's default
// (/sys/kernel/mm/transparent_hugepage/enabled set to "madvise") gives huge
// pages only to memory a process has asked for with madvise(MADV_HUGEPAGE),
// and the Go runtime does not ask for its heap (golang/go#61718; its own
// GODEBUG=disablethp=1 asks for the opposite). So Prepare maps the heap the
// run will need before it is written: it allocates that much in untouched
// blocks, advises huge pages on them, and returns them to the runtime at
// once, released to the OS, so that they cost neither resident memory nor
// a share of the soft memory limit. The runtime keeps the mapping and hands
// out its lowest addresses first, so the history's arrays land there, and
// the kernel backs each 2 MiB of them with one page as it is first
// written.
//
// Measured with hindsight check on histgen's histories (three alternating
// runs each, this virtual machine at load 1 to 2; page faults counted by
// /usr/bin/time): 1M list-append transactions of the defaults 2.40-2.88 s
// to 2.28-2.57 s and 88,000 faults to 10,500-14,300, peak RSS 269-277 MB
// to 278-284 MB; 100k of them 0.35-0.37 s to 0.31-0.32 s; 1M abort polls
// (bench/bench.sh's) 1.64-1.67 s to 1.21-1.39 s and 75,000 faults to
// 3,300-3,900; bench.sh's 1.39M-op queue history 2.49-2.66 s to
// 2.15-2.23 s. The price is a little resident memory: a huge page is
// resident whole once any of it is written.
//
// Prepare does nothing where it cannot help: on systems other than Linux,
// when transparent huge pages are "never" or already "always", for a heap
// under MinBytes, and under GODEBUG=disablethp=1.
package hugepage

import (
	"cmp"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// MinBytes is the least heap Prepare readies: below it, the faults cost
// less than the collection Prepare runs.
const MinBytes = 16 << 20

// size is a huge page's size on the machines Prepare acts on (x86-64 and
// arm64 with 4 KiB base pages).
const size = 2 << 20

// mode reads the transparent huge pages setting once.
var mode = sync.OnceValue(func() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	// "always [madvise] never": the one in brackets is in force
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
})

// Enabled reports whether Prepare acts on this system: Linux with
// transparent huge pages in "madvise" mode, and GODEBUG not disabling them.
func Enabled() bool {
	if !supported || mode() != "madvise" {
		return false
	}
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return false
		}
	}
	return true
}

// Prepare readies n bytes of heap for huge pages, as the package doc
// describes, and reports whether it did. It runs a garbage collection and
// returns the free memory of the heap to the OS, so call it before a large
// read, not in the middle of one.
//
// The heap is taken in blocks of blockBytes, not at once: the runtime
// zeroes an allocation that starts in memory the heap used before, and
// one block of the whole size sometimes started there, which wrote the
// whole of it (1M list-append txns: one run in eight peaked at 452 MB
// instead of 280 MB, and took a second longer). A block that starts there
// costs blockBytes of writing at most.
func Prepare(n int64) bool {
	if n < MinBytes || !Enabled() || n > int64(^uint(0)>>1) {
		return false
	}
	blocks := make([][]byte, 0, n/blockBytes+1)
	for got := int64(0); got < n; got += blockBytes {
		blocks = append(blocks, make([]byte, blockBytes))
	}
	ok := false
	for _, r := range runs(blocks) {
		ok = advise(r.lo, r.hi, size) || ok
	}
	runtime.KeepAlive(blocks)
	blocks = nil
	// collect them and release them: the mapping stays, with its advice
	debug.FreeOSMemory()
	return ok
}

// blockBytes is the size of the blocks Prepare takes the heap in.
const blockBytes = 8 << 20

// span is an address range [lo, hi).
type span struct{ lo, hi uintptr }

// runs merges the address ranges of blocks into runs of adjacent ones
// (blocks the runtime allocates one after another from fresh memory lie
// end to end), so that advising a run loses no huge page at the seams.
func runs(blocks [][]byte) []span {
	spans := make([]span, len(blocks))
	for i, b := range blocks {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		spans[i] = span{lo, lo + uintptr(len(b))}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var out []span
	for _, sp := range spans {
		if k := len(out) - 1; k >= 0 && out[k].hi == sp.lo {
			out[k].hi = sp.hi
			continue
		}
		out = append(out, sp)
	}
	return out
}
