package exepages

import (
	"os"

	"golang.org/x/sys/unix"
)

// Release drops from the resident set the pages of this process's
// executable that it maps read-only and never modified (the package doc
// says which and why), and returns how many bytes of them were resident.
// Call it once the program has started (its package initialisers have
// run): anything that goes wrong leaves the pages where they are.
func Release() int64 {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	rs := regions(f, exe)
	f.Close()
	var n int64
	for _, r := range rs {
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, r.start, r.end-r.start, unix.MADV_DONTNEED); e == 0 {
			n += r.rss
		}
	}
	return n
}
