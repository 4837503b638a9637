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
// run will need before it is written: it allocates one untouched block of
// that size, advises huge pages on it, and returns it to the runtime at
// once, released to the OS, so that it costs neither resident memory nor a
// share of the soft memory limit. The runtime keeps the mapping and hands
// out its lowest addresses first, so the history's arrays land there, and
// the kernel backs each 2 MiB of them with one page as it is first
// written.
//
// Measured with hindsight check on histgen's histories (three alternating
// runs each, this virtual machine at load 1 to 2; page faults counted by
// /usr/bin/time): 1M list-append transactions of the defaults 2.40-2.88 s
// to 2.28-2.57 s and 88,000 faults to 10,500-14,300, peak RSS 269-277 MB
// to 278-284 MB; 100k of them 0.35-0.37 s to 0.31-0.32 s (no longer so:
// see MinBytes); 1M abort polls
// (bench/bench.sh's) 1.64-1.67 s to 1.21-1.39 s and 75,000 faults to
// 3,300-3,900; bench.sh's 1.39M-op queue history 2.49-2.66 s to
// 2.15-2.23 s. The price is a little resident memory: a huge page is
// resident whole once any of it is written.
//
// Prepare does nothing where it cannot help: on systems other than Linux,
// when transparent huge pages are "never" or already "always", for a heap
// under MinBytes (MinBytesProbed where the probe below found huge pages
// cheaper), under GODEBUG=disablethp=1, and on a virtual machine
// that hands its free memory back to the host (ReportsFreePages) where a
// probe finds huge pages dearer than base pages, or base pages cheap
// (cheapBase).
//
// On such a machine it depends on the host which page size costs less. A
// guest whose virtio balloon reports free pages tells the host of every
// free block of 2 MiB or more, and the host drops the memory behind it; a
// huge page is such a block, so the guest's huge pages are nearly always
// ones the host must fault in again, while its base pages mostly come
// from memory the host still backs. Measured on the project's machine on
// 2026-12-05 (a Firecracker guest whose balloon reports free pages):
// touching 512 MiB of fresh anonymous memory took 1.7 to 1.9 s of system
// time with huge pages advised, against 0.18 to 0.21 s without (0.07 s
// with huge pages only when the memory was freed less than a second
// before, five tries each); hindsight check with and without Prepare, in
// alternation, on the 1M-poll abort history 0.97-1.80 s (median 1.56,
// system 0.11-1.19 s) against 1.11-1.70 s (median 1.18, system
// 0.23-0.41 s) over eight runs each, on 1M list-append txns 1.66-2.62 s
// against 1.71-1.86 s over six, with a median peak RSS 7 and 14 MB lower.
// But on 2026-12-06 the project's machine was another guest, one whose
// balloon reports free pages too, running under PVM (a hypervisor that
// keeps shadow page tables, so that every 4 KiB page a process maps costs
// a trip to the host): there touching 300 MiB took 0.78-0.82 s in base
// pages and 0.47-0.55 s in huge pages (three tries each, 5 s apart), and
// hindsight check with Prepare against without, four alternating runs
// each, took 1.84-2.07 s against 2.14-2.54 s on 1M list-append txns,
// 1.52-1.61 s against 1.77-1.91 s on 1M rw-register txns, and 1.88-2.53 s
// (median 2.08) against 2.35-2.39 s on bench/bench.sh's 1.39M-op queue
// history, for 3 to 7 % more peak RSS. No file in /proc or /sys tells the
// two apart for an unprivileged process (the CPUID leaf of the second
// names the hypervisor beneath PVM), so where free pages are reported the
// first Prepare that would act measures: it writes 4 MiB of fresh memory
// in huge pages and 4 MiB in base pages, a huge page's worth of each in
// turn, and advises huge pages only if the kernel gave that half huge
// pages (mincore finds all of it in memory after one write a huge page)
// and it took less time (Decision says what it found). On the PVM guest,
// over eight starts after 0 to 10 s of idle, the huge half took 0.3 to
// 7.6 ms and the base half 11.4 to 13.3 ms, the same answer every time;
// the touch figures above put the first guest's huge pages at about nine
// times the cost of its base pages. The probe costs what it measures
// (12 to 20 ms there), once a process, and only for a heap of
// MinBytesProbed or more.
package hugepage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// MinBytes is the least heap Prepare readies. Below it huge pages saved
// no time and cost resident memory (a huge page is resident whole), so
// much of it that the floor was raised from 16 MiB (bench/ab.sh, eight
// rounds with GODEBUG=disablethp=1 against without, 2026-12-04): on 100k
// list-append txns (27 MB of EDN, a 41 MB heap readied) 0.19 s and 63 MB
// with huge pages, 0.18 s and 60 MB without; on 250k (69 MB, 104 MB
// readied) 0.48 s either way, 102 MB against 97 MB.
const MinBytes = 128 << 20

// MinBytesProbed is the least heap Prepare readies where free pages are
// reported and the probe found huge pages cheaper: there base pages are
// the expensive ones, and huge pages pay below MinBytes too. Measured on
// the PVM guest of the package doc (bench/ab.sh --rounds 4, eight runs
// each, 2026-12-06): bench/bench.sh's 280k-op queue history (49 MB of
// EDN, a 74 MB heap readied) 0.52 s and 100 MB without huge pages, 0.45 s
// and 102 MB with them; but 100k list-append txns (a 41 MB heap) 0.32 s
// and 47 MB against 0.29 s and 51 MB, and 100k rw-register txns 0.29 s
// and 48 MB against 0.27 s and 52 MB, where the memory weighs more than
// the time (a small history's peak is mostly the process's own), so the
// floor stays above those.
const MinBytesProbed = 64 << 20

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

// ReportsFreePages reports whether this machine is a virtual machine
// whose virtio balloon reports free pages to the host
// (VIRTIO_BALLOON_F_REPORTING, feature bit 5, in its device's features in
// /sys/bus/virtio/devices), where Prepare asks for huge pages only if a
// probe finds them cheaper (see the package doc). Read once.
func ReportsFreePages() bool { return reportsFreePages() }

// reportsFreePages is ReportsFreePages; the tests of Prepare's mechanism
// replace it.
var reportsFreePages = sync.OnceValue(func() bool { return balloonReports("/sys/bus/virtio/devices") })

// balloonReports reports whether a virtio device under dir (a
// /sys/bus/virtio/devices) is a balloon (device id 5) offering free page
// reporting: its features file, a string of '0' and '1' from bit 0 on,
// has a '1' at bit 5.
func balloonReports(dir string) bool {
	devs, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, d := range devs {
		id, err := os.ReadFile(filepath.Join(dir, d.Name(), "device"))
		if err != nil || strings.TrimSpace(string(id)) != "0x0005" {
			continue
		}
		f, err := os.ReadFile(filepath.Join(dir, d.Name(), "features"))
		if err == nil && len(f) > reportingBit && f[reportingBit] == '1' {
			return true
		}
	}
	return false
}

// reportingBit is VIRTIO_BALLOON_F_REPORTING's feature bit.
const reportingBit = 5

// cheapBase is the time under which the probe's first writes in base
// pages count as cheap, so that huge pages are not asked for even where
// the probe found them cheaper still: they can save no more than the
// base pages' faults, which are then a few percent of a check, and where
// the host must back each huge page afresh they cost far more. On a KVM
// guest whose balloon reports free pages (2026-12-07) the probe's base
// half took 1.2 to 2.4 ms (4.1 and 8.2 ms once each) and its huge half
// 0.5 ms right after another process had freed its memory (5.8 to 12 ms
// otherwise), but checks ran slower in huge pages and peaked higher:
// medians of eight to ten runs by bench/ab.sh with the probe against
// GODEBUG=disablethp=1, 1.11 against 1.04 s on 1M rw-register txns, 1.56
// against 1.50 s and 201 against 190 MiB on 1M list-append txns, 1.03
// against 0.92 s on bench/bench.sh's 1M-poll abort history. On the PVM
// guest of the package doc, whose base pages are the dear ones, the base
// half took 11.4 to 13.3 ms.
const cheapBase = 6 * time.Millisecond

// probeBytes is how much fresh memory the probe writes in each page size:
// two huge pages, and as many bytes in base pages.
const probeBytes = 2 * size

// measurement is what the probe found: how long the first writes to
// probeBytes of fresh memory took in huge pages and in base pages, or why
// it could not measure.
type measurement struct {
	huge, small time.Duration
	err         error
}

// errNoHugePages is the probe's failure when the kernel backed the memory
// it advised for huge pages with base pages: its time then says nothing
// about huge pages.
var errNoHugePages = errors.New("the kernel gave no huge pages")

// measure runs the probe, once a process; the tests replace it.
var measure = sync.OnceValue(func() measurement {
	h, s, err := probe()
	return measurement{h, s, err}
})

// Decision says in one line whether Prepare(n) advises huge pages on
// this machine, and why: for performance work (HINDSIGHT_PHASES prints
// it). It runs the probe only where Prepare(n) would.
func Decision(n int64) string {
	_, why := decide(n)
	return "huge pages: " + why
}

// decide reports whether Prepare(n) advises huge pages, and says why: the
// one place that decides, for Prepare and Decision alike. The probe runs
// only for a heap of MinBytesProbed or more where free pages are
// reported.
func decide(n int64) (bool, string) {
	switch {
	case !supported:
		return false, "off (not Linux)"
	case mode() == "always":
		return false, "the kernel's own (transparent huge pages \"always\")"
	case mode() != "madvise":
		return false, fmt.Sprintf("off (transparent huge pages %q)", mode())
	case !Enabled():
		return false, "off (GODEBUG=disablethp=1)"
	case n < MinBytesProbed:
		return false, fmt.Sprintf("not asked for (a heap of %d MiB, under %d MiB)", n>>20, MinBytesProbed>>20)
	case !reportsFreePages():
		return atFloor(n, MinBytes, "")
	}
	m := measure()
	switch {
	case m.err != nil:
		return false, fmt.Sprintf("off (free pages are reported to the host, and the probe could not measure: %v)", m.err)
	case m.huge >= m.small:
		return false, "off" + m.String()
	case m.small < cheapBase:
		return false, "off, base pages being cheap here" + m.String()
	}
	return atFloor(n, MinBytesProbed, m.String())
}

// atFloor decides for a heap of n bytes where huge pages are worth it
// from floor bytes on; why ends with more.
func atFloor(n, floor int64, more string) (bool, string) {
	if n < floor {
		return false, fmt.Sprintf("not asked for (a heap of %d MiB), only for heaps of %d MiB or more%s", n>>20, floor>>20, more)
	}
	return true, fmt.Sprintf("on for heaps of %d MiB or more%s", floor>>20, more)
}

// String gives what the probe measured, for Decision.
func (m measurement) String() string {
	return fmt.Sprintf(" (free pages are reported to the host; first writes to %d MiB took %.1f ms in huge pages, %.1f ms in base pages)",
		probeBytes>>20, float64(m.huge.Microseconds())/1e3, float64(m.small.Microseconds())/1e3)
}

// Prepare readies n bytes of heap for huge pages, as the package doc
// describes, and reports whether it did (or had: a heap of n or less that
// an earlier call readied is reused first, and keeps its advice). It runs
// a garbage collection and returns the free memory of the heap to the OS,
// so call it before a large read, not in the middle of one.
//
// The runtime zeroes an allocation that starts in memory the heap used
// before, writing all of it: a block of n bytes that started in the few
// megabytes the process had used and freed cost n bytes of page faults
// (1M list-append txns: one run in eight peaked at 452 MB instead of 280
// MB, and took a second longer). So a filler block is taken first, where
// that used memory is, and the block of n bytes after it, in fresh memory.
// (Blocks of a few megabytes each avoided the zeroing too, but the small
// allocations of other goroutines came between them, and a large array
// found no room in the holes they left.)
func Prepare(n int64) bool {
	if ok, _ := decide(n); !ok || n > int64(^uint(0)>>1) {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	if n <= prepared {
		return true
	}
	filler := make([]byte, fillerBytes)
	b := make([]byte, n)
	f, r := rangeOf(filler), rangeOf(b)
	if f.hi <= r.lo && r.lo-f.hi <= maxGap {
		// end to end, as fresh memory is handed out, or nearly: the few
		// small objects the runtime put between them are advised with
		// them, since an array that is later given the freed filler and
		// block together may span the gap (an array of 32 MB whose middle
		// lay in an unadvised gap of 512 KB, one test run in twenty)
		r.lo = f.lo
	} else {
		advise(f, size)
	}
	ok := advise(r, size)
	runtime.KeepAlive(filler)
	runtime.KeepAlive(b)
	filler, b = nil, nil
	// collect them and release them: the mapping stays, with its advice
	debug.FreeOSMemory()
	if ok {
		prepared = n
	}
	return ok
}

// fillerBytes is the size of Prepare's filler: more than the heap a
// process has used and freed when it starts a check (3 to 4 MB here).
const fillerBytes = 16 << 20

// maxGap is the widest stretch between the filler and the block that
// Prepare advises with them: one heap arena (on linux/amd64), so never
// memory outside the heap's own.
const maxGap = 64 << 20

var (
	mu       sync.Mutex
	prepared int64 // the largest heap readied so far
)

// span is an address range [lo, hi).
type span struct{ lo, hi uintptr }

// rangeOf is the address range of b.
func rangeOf(b []byte) span {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return span{lo, lo + uintptr(len(b))}
}
