package exepages

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// mapping is one mapping of a fake smaps: its header and its Rss,
// Anonymous and Private_Dirty lines (a negative value leaves a line out).
func mapping(header string, rss, anon, dirty int) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	b.WriteString("Size:               8192 kB\n")
	if rss >= 0 {
		b.WriteString("Rss:                " + strconv.Itoa(rss) + " kB\n")
	}
	b.WriteString("Shared_Clean:          0 kB\n")
	if dirty >= 0 {
		b.WriteString("Private_Dirty:      " + strconv.Itoa(dirty) + " kB\n")
	}
	if anon >= 0 {
		b.WriteString("Anonymous:          " + strconv.Itoa(anon) + " kB\n")
	}
	b.WriteString("VmFlags: rd ex mr mw me dw\n")
	return b.String()
}

// TestRegions: only the executable's private mappings that are not
// writable and hold no page the process wrote (no anonymous page) are
// released, dirty page-cache pages or not; a mapping that does not say
// it holds none is kept too.
func TestRegions(t *testing.T) {
	const exe = "/opt/hindsight dir/hindsight"
	smaps := mapping("00400000-01671000 r-xp 00000000 fe:00 9978016                            "+exe, 10628, 0, 0) +
		mapping("01671000-02a0b000 r--p 01271000 fe:00 9978016                            "+exe, 8236, 0, 0) +
		// RELRO: read-only now, but the loader wrote relocations into it
		mapping("02a0b000-02a0c000 r--p 0260b000 fe:00 9978016                            "+exe, 4, 4, 4) +
		mapping("02a0c000-02b1a000 rw-p 0260c000 fe:00 9978016                            "+exe, 508, 112, 112) +
		// the file's pages not yet written back (a binary just built)
		mapping("02b1a000-02b1b000 r--p 0271a000 fe:00 9978016                            "+exe, 4, 0, 4) +
		mapping("02b1b000-02b1c000 r--s 0271b000 fe:00 9978016                            "+exe, 4, 0, 0) +
		mapping("02b1c000-02b1d000 r--p 0271c000 fe:00 9978016                            "+exe, 4, -1, 0) +
		mapping("02b1d000-02b1e000 r--p 0271d000 fe:00 9978016                            "+exe+" (deleted)", 4, 0, 0) +
		mapping("7f7b9efb6000-7f7b9f10c000 r-xp 00026000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6", 808, 0, 0) +
		mapping("7ffd26000000-7ffd26021000 rw-p 00000000 00:00 0                          [stack]", 132, 132, 132)
	got := regions(strings.NewReader(smaps), exe)
	want := []region{
		{start: 0x400000, end: 0x1671000, rss: 10628 << 10},
		{start: 0x1671000, end: 0x2a0b000, rss: 8236 << 10},
		{start: 0x2b1a000, end: 0x2b1b000, rss: 4 << 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("regions:\n got %+v\nwant %+v", got, want)
	}
}
