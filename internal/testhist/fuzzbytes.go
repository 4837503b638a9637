package testhist

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
