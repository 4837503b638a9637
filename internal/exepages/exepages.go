// Package exepages lets go of the pages of hindsight's own executable that
// it no longer needs once it has started.
//
// A process's resident set counts the pages of its executable it has
// touched, and a hindsight process has touched many before it reads a
// byte of a history: its package initialisers (Arrow's compute kernels,
// goldmark, the tables of tablewriter) run code and read tables spread
// over the whole binary, and the kernel maps each page it faults in
// together with its neighbours (fault-around). Waiting on standard input,
// `hindsight check -` held 26 MB, 20 MB of them the binary's pages (10.7
// MB of code, 8.5 MB of read-only data), most of which it never touches
// again; for a 100k-transaction history that was two fifths of the peak
// (20 of 48 MiB). Release
// asks the kernel to unmap them (madvise MADV_DONTNEED): they stay in the
// page cache, and the ones the check does use come back on their first
// touch, as minor faults.
//
// Only private mappings of the executable that are not writable and hold
// no page the process modified are released: a page written through a
// private file mapping becomes an anonymous copy, so Anonymous 0 in
// /proc/self/smaps says there is none, and dropping the others loses
// nothing, since faulting one in again reads the same bytes from the page
// cache. (Private_Dirty says nothing here: it also counts the file's own
// pages while the page cache has not written them back, as just after a
// build.) A writable mapping (the data segment), or a read-only one the
// dynamic loader wrote relocations into before protecting it (RELRO), is
// left alone.
//
// Measured with bench/ab.sh, a build without Release (2333305) against
// one with it, on 2026-12-07 on the PVM guest of internal/hugepage (peak
// RSS medians in MiB; wall medians): 100k rw-register txns 48 -> 41 (0.24
// and 0.25 s, twelve runs each, with as many page faults: 10,480 and
// 10,242), 100k list-append txns 47 -> 40 (0.29 s both), 1M list-append
// 203 -> 194 (1.71 and 1.60 s), 1M rw-register 218 -> 209 (1.15 and 1.19
// s), six runs each; bench/bench.sh's 1.39M-op queue history 347 -> 337
// (1.54 s both) and its 1M-poll abort history 293 -> 287 (0.92 and 0.89
// s), four runs each. The release itself reads /proc/self/smaps once,
// which took about 9 ms of a 47 ms one-op check on that guest
// (2026-12-07), so hindsight releases only for a history of 1 MB or
// more (cmd/hindsight's readyForLargeHeap).
//
// On systems other than Linux Release does nothing.
package exepages

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// region is one mapping Release may drop: its address range and how much
// of it was resident.
type region struct {
	start, end uintptr
	rss        int64 // bytes
}

// regions reads smaps (the format of /proc/self/smaps) and returns the
// mappings of the file exe that Release may drop: not writable, private,
// and without a page the process modified (its Anonymous shown, and 0).
func regions(smaps io.Reader, exe string) []region {
	var out []region
	var cur *region
	var ok bool   // cur is a candidate so far
	var seen bool // it showed its Anonymous, as 0
	flush := func() {
		if cur != nil && ok && seen {
			out = append(out, *cur)
		}
		cur, ok, seen = nil, false, false
	}
	sc := bufio.NewScanner(smaps)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, isRange := strings.Cut(f[0], "-"); isRange && !strings.HasSuffix(f[0], ":") {
			// a mapping's header: range perms offset dev inode [path]
			flush()
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil || len(f) < 6 || len(f[1]) < 4 {
				continue
			}
			cur = &region{start: uintptr(a), end: uintptr(b)}
			path := strings.Join(f[5:], " ")
			ok = path == exe && f[1][1] != 'w' && f[1][3] == 'p'
			continue
		}
		if cur == nil || !ok {
			continue
		}
		switch f[0] {
		case "Rss:", "Anonymous:":
			if len(f) < 2 {
				ok = false
				continue
			}
			kb, err := strconv.ParseInt(f[1], 10, 64)
			switch {
			case err != nil:
				ok = false
			case f[0] == "Rss:":
				cur.rss = kb << 10
			case kb != 0:
				ok = false // a page it wrote: dropping it would lose the write
			default:
				seen = true
			}
		}
	}
	flush()
	return out
}
