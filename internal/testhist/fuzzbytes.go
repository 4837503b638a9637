package testhist

import "testing"

// FuzzBytes hands out a fuzzer's input a byte at a time, for building a
// history from arbitrary bytes: Next returns the next byte, 0 once they
// are used up; Left says whether any remain.
type FuzzBytes []byte

// Next returns the next byte as an int, or 0 when none is left.
func (d *FuzzBytes) Next() int {
	if len(*d) == 0 {
		return 0
	}
	x := int((*d)[0])
	*d = (*d)[1:]
	return x
}

// Left reports whether bytes remain.
func (d *FuzzBytes) Left() bool { return len(*d) > 0 }

// FuzzSeeds adds the seeds every fuzz target of a history built from
// FuzzBytes starts from: bytes 0 to 15, the text about (what the target
// builds, as words), and 64 zeros.
func FuzzSeeds(f *testing.F, about string) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte(about))
	f.Add(make([]byte, 64))
}
