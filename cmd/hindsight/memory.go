package main

import (
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/exepages"
	"github.com/hindsight-dev/hindsight/internal/hugepage"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/workload"
)

// Memory budget of `hindsight check` (issue 2: peak RSS at most 1.5 times
// the history's size). A parsed history and its analysis take about 1.2
// times the size of an EDN file at their peak; what pushes the process
// past 1.5 is the garbage collector's headroom. So, for a large file,
// check sets Go's soft memory limit to 1.5 times the history's size less
// the process's own footprint, which makes the collector work harder only
// near the peak. A compressed file's size is the one it says it holds
// (textSize; before 2026-12-03 compressed files got no budget, and 1M
// list-append txns in zstd peaked at 341-355 MB, against 280 MB plain).
// Measured on generated 1M-op histories (EDN with and without
// transactions and faults, a one-key history, JSON): 1.63-1.86x without
// the limit, 1.40-1.47x with it, and wall times within 0.2 s. If a history
// turns out to need more (a live heap near the limit while it is read,
// once it is read, or once its analysis has grown), the limit is raised to
// raiseHeadroom times the live heap plus raiseSlack, checked after every
// collection (limitRaiser), so a dense history costs memory, never a
// collector running flat out. A GOMEMLIMIT in the environment wins.
// Every workload's raise is the same. On bench/bench.sh's 1.39M-op
// histories, in runs alternating with a raise to 1.25 times the live heap
// (2026-12-05), it held the check's peak at 371-376 MB against 384-390
// MB (1.42-1.44 times the file), the crash-heavy one's at 519-522 MB
// against 541-542 MB, and that one's report at 687-696 MB against 732 MB
// (1.82-1.84 times the file), with wall and user times unchanged and 24
// collections instead of 20 to 22 on the first.
//
// The HTML report (issue 10) has a budget of twice the file: it keeps the
// time series the page draws (a few tens of bytes per sample) beside the
// history and its analysis, the same way.
//
// The transactional analyses (issue 21: peak RSS proportional to what
// must be kept) follow their live heap alone once the history is read: the
// limit is followHeadroom times the live heap plus raiseSlack after every
// collection, higher or lower (followLiveHeap), so the peak follows the
// peak live heap, never the file's budget (which the collector used to fill: 1M
// list-append txns of histgen's defaults peaked at 514 MB with a limit of
// twice the file, 436 MB following the live heap at 1.25). Their heap is
// mostly large pointer-free arrays, cheap to mark, so collecting more
// often costs little; but the limit counts the runtime's own memory too
// (some 20 MB), and at 1.1 times the live heap alone the collector ran
// back to back near the peak (43 collections instead of 27 on that
// history, 1.3 s of their CPU instead of 1.0 s). At 1.1 plus 16 MB it
// peaks at 347 MB. This holds down to files of 8 MB (at 100k list-append
// txns, 27 MB, 85 MB instead of 96 MB, of which 37 MB are the process's
// own). A small heap needs less of the runtime's own: a follower's slack
// is the smaller of raiseSlack and followSlackBase plus an eighth of the
// live heap, which is raiseSlack from 64 MB live on. On 100k list-append
// txns (20 MB live at the peak), one binary run alternately with either
// slack, it held the peak at 48.5-51.1 MiB against 51.5-55.3 MiB (9 and 4
// runs), for 22 or 23 collections instead of 19 or 20 and wall times
// within the runs' spread; 4 MB plus an eighth gave 48 MiB for 44 to 48
// collections and a quarter more time. (Two builds of the same code may
// differ by 1.5 MB of the binary's pages a process touches, so compare
// such figures on one binary.) The follower's headroom was raiseHeadroom
// until 2026-12-08; at 1.05 (bench/ab.sh, eight runs each) 1M rw-register
// txns peak at 164 MiB against 171 (ranges 163-170 and 167-177; issue 21
// wants 0.75 times the file, 169.6 MiB) in 1.25 against 1.22 s (medians;
// ranges 1.21-1.38 and 1.13-1.34), 1M list-append txns at 190 against
// 193 MiB in 1.30 against 1.29 s, for 27 collections instead of 26 and 40
// instead of 33; 5M list-append txns 876 against 885 MB in 6.9-7.7
// against 8.2-8.6 s (two runs each). A follower at 1.0 peaked no lower
// (166 MiB on the 1M rw-register txns, as at 1.05 in that hour) for 38
// and 48 collections.
//
// While the history is read its workload is not known yet, so the read
// runs under the file's budget (none below budgetMinFile) and GOGC's 30 %,
// raised like the others' (limitRaiser, never lowered) when the live heap
// outgrows it. Before 2026-12-07 the read's limit was fixed, and a
// history whose read holds several times its file (an anomaly storm:
// 1.8M distinct garbage values in 108 MB of rw-register txns, whose
// values table alone is 60 MB) had its collector running flat out for
// the whole read: 206 collections, the read 3.6 s, against 2.6 s with the
// raiser (two runs each, peak RSS 880-890 MB either way; 2.1 s with no
// limit at all); an 83 MB queue history of sends that are never read
// 0.47-0.57 s against 0.34-0.35 s. Histories that fit their budget never
// reach it: bench/ab.sh --rounds 3 on 1M list-append txns and the two
// 1.39M-op queue histories, medians 1.37 s and 194 MiB against 1.37 s and
// 193, 1.92 s and 476 against 1.81 s and 470, 1.17 s and 323 against 1.15
// s and 318.
// From 6beece1 to 6c18059 the read had a live-heap follower of its own
// (1.1 times the live heap plus slack, handed back to the budget from
// 512 MB live), because 1M list-append txns then peaked in their read
// (194 MiB with it against 203 MiB without, on the guest of that morning).
// Since then the peak moved into the analysis and the follower only cost
// time: the collector ran every few megabytes of the read, and the
// scavenger handed back pages the read then faulted in again. Measured on
// one build with and without it (bench/ab.sh, 2026-12-06 at 6c18059, the
// PVM guest of internal/hugepage, medians of 6 to 8 runs, MiB): 1M
// list-append txns 1.96 s and 206 MiB with it, 1.85 s and 203 without
// (with GODEBUG=disablethp=1, 2.23 s and 194, 2.07 s and 194); 1M
// rw-register txns 1.25 s and 216, 1.24 s and 217; the 1.39M-op queue
// history of bench/bench.sh 2.00 s and 350, 1.81 s and 348; the 1M-poll
// abort history 0.92 s and 310, 0.85 s and 310; 5M list-append txns (one
// run each) 8.41 s and 891, 7.24 s and 868; 100k list-append and
// rw-register txns within 0.01 s and 1 MiB.
const (
	budgetRatio       = 1.5
	reportBudgetRatio = 2.0
	processFootprint  = 56 << 20 // binary, runtime, stacks and heap fragmentation
	otherBudgetRatio  = 2.0      // workload.MemoryTwiceFile (the abort workload)
	budgetMinFile     = 64 << 20 // below this, the defaults are fine
	txnBudgetMinFile  = 8 << 20  // ... except for a txn analysis down to this
	raiseHeadroom     = 1.1      // live heap times this, when raising the limit,
	raiseSlack        = 16 << 20 // plus this: the runtime's own share of the limit
	followSlackBase   = 8 << 20  // a follower's slack at most this plus live/8
	followHeadroom    = 1.05     // a follower's live heap times this
)

// memoryBudget sets the soft memory limit for checking path, ratio times
// its size (budgetRatio for check, reportBudgetRatio for a report), never
// above the memory cap's share (memcap.go), and returns a function that
// puts back the previous one, and one to call once the history is read,
// with the workload that will check it.
func memoryBudget(path string, ratio float64, mc *memCap) (restore func(), afterRead func(*workload.Workload)) {
	nothing := func() {}
	if path == "-" {
		readyForLargeHeap() // it may be any size
		return nothing, nil
	}
	size := textSize(path)
	if size >= largeHeapMinFile {
		readyForLargeHeap()
	}
	if size < txnBudgetMinFile {
		return nothing, nil
	}
	// the heap the history will fill, in huge pages (internal/hugepage),
	// never more than half the cap: the mapping outlives the run
	heap := min(int64(ratio*float64(size)), mc.limit/2)
	hugepage.Prepare(heap)
	phase.Note(hugepage.Decision(heap))
	if os.Getenv("GOMEMLIMIT") != "" {
		return nothing, nil
	}
	prev := debug.SetMemoryLimit(-1) // reads the limit in force
	limit := prev
	prevGC := -1 // the GC percent replaced, if it was
	if os.Getenv("GOGC") == "" {
		if w := peekWorkload(path); w != nil && w.Memory == workload.MemoryTwiceFile {
			prevGC = debug.SetGCPercent(twiceFileGCPercent)
		}
	}
	small := size < budgetMinFile // the defaults, but for a txn analysis after the read
	var raiser *limitRaiser
	if !small {
		limit = mc.soft(int64(ratio*float64(size)) - processFootprint)
		debug.SetMemoryLimit(limit)
		// raised, never lowered, while the history is read (see above)
		raiser = raiseWithLiveHeap(limit, raiseHeadroom, raiseSlack, mc)
	}
	stop := func() {
		if raiser != nil {
			raiser.stop()
		}
	}
	restore = func() {
		stop()
		debug.SetMemoryLimit(prev)
		if prevGC >= 0 {
			debug.SetGCPercent(prevGC)
		}
	}
	afterRead = func(w *workload.Workload) {
		stop()
		if prevGC >= 0 && w.Memory != workload.MemoryTwiceFile {
			debug.SetGCPercent(prevGC) // the peek guessed wrong
		}
		switch {
		case w.Memory == workload.MemoryLiveHeap:
			// from 0: the raiser's first check sets the limit from the
			// live heap, or, before any collection, after the first
			raiser = followLiveHeap(followHeadroom, raiseSlack, mc)
		case small:
		default:
			if w.Memory != workload.MemoryOfFile {
				limit = mc.soft(int64(max(ratio, otherBudgetRatio)*float64(size)) - processFootprint)
				debug.SetMemoryLimit(limit)
			}
			raiser = raiseWithLiveHeap(limit, raiseHeadroom, raiseSlack, mc)
		}
	}
	return restore, afterRead
}

// gcPercent is the garbage collector's target for a large history unless
// GOGC is set: a history is read once into memory that stays live to the
// end, so collecting at 30% growth instead of Go's default 100% trims peak
// memory by about a quarter for a few percent more CPU (measured on a
// 1M-op history: 425 -> 326 MB peak RSS, no change in wall time).
const gcPercent = 30

// largeHeapMinFile is the least file readyForLargeHeap is called for.
const largeHeapMinFile = 1 << 20

// readyForLargeHeap readies the process for a history whose memory counts:
// a file of largeHeapMinFile or more, standard input, a scan. It sets the
// collector's target to gcPercent (unless GOGC is set) and lets go of the
// executable's pages the start-up touched (internal/exepages: 6 to 10 MiB
// less at the peaks measured there). Once a process: a check of several
// files readies it at the first large one.
//
// Below that size neither pays: the process's own memory (some 25 MB)
// makes its peak, and a heap of a few megabytes at 30% is collected every
// megabyte or so. Until 2026-12-07 both were done at every start; on the
// PVM guest of internal/hugepage (perf stat -r 30, two runs each, peak RSS
// the median of three) a one-op history took 47 ms and 24 MB with them,
// 37 ms and 27 MB without (exepages reads /proc/self/smaps, about 9 ms),
// a 600 KB queue history 56 ms and 24 MB against 47 ms and 28 MB. From
// 1 MB on they stay: without them a 7.9 MB queue history took 106 ms and
// 39 MB, with them 121 ms and 27 MB.
var readyForLargeHeap = sync.OnceFunc(func() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	exepages.Release()
})

// twiceFileGCPercent is the collector's target, in place of gcPercent,
// for a history whose first ops (peekWorkload) belong to a workload
// budgeted twice its file (workload.MemoryTwiceFile: the abort workload),
// whose analysis makes many short-lived objects (pair instances and their
// JSON). On bench/bench.sh's 1M-poll abort history it took the check from
// 0.89 to 0.86 s at 293 against 292 MiB (bench/ab.sh --rounds 5; GOGC=60
// for the whole run had measured 0.90 to 0.86 and 0.86 to 0.83 s). The
// queue gained nothing by it (the 280k- and 1.39M-op histories of
// bench/bench.sh: 0.33 and 2.05 s either way, 4 and 7 MiB more), and the
// transactional checks keep gcPercent through their read: 60 took 1M
// rw-register txns from 163 to 172 MiB.
const twiceFileGCPercent = 60

// peekBytes is how much of a history peekWorkload reads.
const peekBytes = 64 << 10

// peekWorkload guesses the workload of the history at path from its
// first peekBytes, as Detect would from them; nil when they do not say
// (a compressed file, an error, no micro-op yet). A wrong guess costs
// time or memory, never a verdict: the check detects the workload again
// from the whole history.
func peekWorkload(path string) *workload.Workload {
	file, ok := ingest.StoreFile(path)
	if !ok {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	h, err := ingest.Read(io.LimitReader(f, peekBytes), file, ingest.Options{Decoders: workload.Decoders()})
	if err != nil || h == nil || len(h.Ops) == 0 {
		return nil
	}
	w, err := workload.Detect(h)
	if err != nil {
		return nil
	}
	return w
}

// limitRaiser raises the soft memory limit after each garbage collection
// whose live heap, times headroom plus slack, is above it (never above the
// memory cap's share): the analysis of a dense history grows its live
// heap after the history is read, and a limit below the live heap leaves
// the collector running back to back (on a 1.39M-op queue history, 270
// collections and a third of the check's time, for no memory saved).
type limitRaiser struct {
	mu       sync.Mutex
	stopped  bool
	limit    int64
	headroom float64
	slack    int64
	mc       *memCap
	// follow lowers the limit too, to headroom times the live heap plus
	// slack, when a collection finds less live than the last
	follow bool
	// a follower's collections so far, and the collector's CPU time and
	// all CPU time when it started (gcStorm)
	gcs             int
	gcCPU0, allCPU0 float64
	// floor is the least limit a follower sets until its live heap first
	// needs more (followLiveHeap); 0 once it has
	floor int64
}

// An analysis whose live heap keeps growing with pointerful objects (an
// anomaly storm: a history where every read is garbage, its instances
// most of a kilobyte each) makes a follower's limit, a tenth above the
// live heap, start a collection every tenth of growth, each marking the
// whole heap: on 300k rw-register txns whose 1.8M reads all saw values
// nobody wrote to their key (133 MB, 2.1M instances), the collector took
// 40 % of the CPU and the check 11.7 s, 6.8 s with the follower off
// (GOMEMLIMIT set), at the same peak (2.0 GB; GOGC's 30 % bounds the heap
// then). So once a follower has
// checked the live heap after stormMinGCs collections and the collector
// has taken more than stormGCShare of the CPU since the follower started,
// its headroom is stormHeadroom, which leaves the pace to GOGC: that
// check took 8.1 to 8.7 s instead of 11.3 to 11.6 s, at 2.0 GB still. The
// collector's share after each collection was at most 0.08 on 1M
// list-append or rw-register txns of histgen's defaults, and 0.23, 0.32,
// 0.35 on the storm, whose headroom changes from the fourth.
const (
	stormMinGCs   = 4
	stormGCShare  = 0.2
	stormHeadroom = 1.0 + gcPercent/100.0
)

// cpuTimes reads the collector's CPU time and all the CPU time available
// to the process so far, in seconds (runtime/metrics' estimates, which
// the runtime updates at each collection).
func cpuTimes() (gc, all float64) {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 || s[1].Value.Kind() != metrics.KindFloat64 {
		return 0, 0
	}
	return s[0].Value.Float64(), s[1].Value.Float64()
}

// gcStorm reports whether a follower that saw gcs collections, over which
// the collector took gcCPU seconds of the allCPU available, is in an
// anomaly storm (see stormGCShare).
func gcStorm(gcs int, gcCPU, allCPU float64) bool {
	return gcs >= stormMinGCs && allCPU > 0 && gcCPU > stormGCShare*allCPU
}

// raiseWithLiveHeap checks the live heap now and after every collection
// until stop, keeping the limit at least headroom times it plus slack.
func raiseWithLiveHeap(limit int64, headroom float64, slack int64, mc *memCap) *limitRaiser {
	return startRaiser(&limitRaiser{limit: limit, headroom: headroom, slack: slack, mc: mc})
}

// followLiveHeap is raiseWithLiveHeap for an analysis whose live heap
// alone is its budget (workload.MemoryLiveHeap): the limit is headroom
// times the live heap plus slack after each collection, lower as well as
// higher. A check's peak RSS is the highest limit it reached; an analysis
// that drops large arrays between its peaks (the transactional checks'
// graph build, then their cycle search) would otherwise fill, in the
// second, the limit the first set.
//
// Until the live heap first needs more, the limit stays at least at the
// memory the process holds when the follower starts (heldMemory: the
// read's heap, most of it garbage once the history is read). Lowering it
// there had the runtime hand back at once the pages the read had freed
// (58 MB at 1M list-append txns, in madvise calls that interrupt the other
// core) and the analysis fault them in again as it grew back past them.
// With the floor the analysis reuses them, and the peak, later and higher,
// is what it was: on histgen's 1M list-append txns (bench/ab.sh, 12 runs
// each, 2026-12-07) 1.37 s and 196 MiB without it, 1.33 s and 194 MiB with
// it, system time 0.29 against 0.24 s; 1M rw-register txns 1.02 s and 162
// MiB, 0.99 s and 162 MiB; 100k of either within 0.01 s and 1 MiB.
func followLiveHeap(headroom float64, slack int64, mc *memCap) *limitRaiser {
	return startRaiser(&limitRaiser{headroom: headroom, slack: slack, mc: mc, follow: true, floor: mc.soft(heldMemory())})
}

// startRaiser checks r's limit now and arms it for the next collection.
func startRaiser(r *limitRaiser) *limitRaiser {
	r.gcCPU0, r.allCPU0 = cpuTimes()
	r.check()
	r.arm()
	return r
}

// arm has check run after the next collection: a cleanup runs once the
// collector has found its object unreachable, and runs arm again.
func (r *limitRaiser) arm() {
	runtime.AddCleanup(&gcSentinel{}, func(r *limitRaiser) {
		if r.check() {
			r.arm()
		}
	}, r)
}

// gcSentinel is the object whose collection marks a cycle; its pointer
// keeps it out of the tiny allocator, which would batch it with others.
type gcSentinel struct{ _ *int }

// check raises the limit if the live heap needs it (or, following,
// lowers it if the live heap allows); false once stopped.
func (r *limitRaiser) check() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return false
	}
	live := liveHeap()
	if live == 0 {
		return true
	}
	slack, headroom := r.slack, r.headroom
	if r.follow {
		slack = min(slack, followSlackBase+int64(live/8))
		r.gcs++
		if gc, all := cpuTimes(); gcStorm(r.gcs, gc-r.gcCPU0, all-r.allCPU0) {
			headroom = max(headroom, stormHeadroom)
		}
	}
	need := r.mc.soft(int64(headroom*float64(live)) + slack)
	if need < r.floor {
		need = r.floor
	} else {
		r.floor = 0 // the live heap has reached it: from now on, followed alone
	}
	if need > r.limit || r.follow && need < r.limit {
		r.limit = need
		debug.SetMemoryLimit(need)
	}
	return true
}

// liveHeap is the live heap at the end of the last collection; 0 when the
// runtime does not say.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// stop ends the checks; the limit it set stays until the caller restores
// its own.
func (r *limitRaiser) stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
}

// textSize is the size of the history text in path (a file, or the
// history file of a store folder, ingest.StoreFile): a plain file's size,
// or what a compressed one holds by its trailer or header, else by an
// assumed ratio (ingest.TextSize). 0 when path is not a regular file.
func textSize(path string) int64 {
	file, ok := ingest.StoreFile(path)
	if !ok {
		return 0
	}
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	return ingest.TextSize(f, fi.Size())
}

// heldMemory is the memory the runtime holds from the OS, less what it
// has handed back: what the soft memory limit is compared with. 0 when
// the runtime does not say.
func heldMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
