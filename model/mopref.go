package model

// MopRef locates an op's micro-ops in History.MopStore in 6 bytes, which
// keeps Op at 12: a Span's start in two halves, and the count. Almost every
// op has a handful of micro-ops; an op with longRun or more (a hostile or
// very unusual history: any count up to the store's 2^31 is kept) has
// longRun as its count, and its run in the store begins with a header
// micro-op of kind MopOther whose lo is the real count. No analysis
// sees the header: History.MopsOf returns the run after it, and ingest's
// renumbering leaves MopOther alone.
type MopRef struct {
	lo, hi uint16 // the run's start in the store
	n      uint16 // its length, or longRun
}

// longRun marks a MopRef whose run starts with a header holding its count.
const longRun = 1<<16 - 1

// Empty reports whether the op has no micro-ops.
func (r MopRef) Empty() bool { return r.n == 0 }

func (r MopRef) start() int32 { return int32(uint32(r.hi)<<16 | uint32(r.lo)) }

func mopRefAt(start int32, n uint16) MopRef {
	return MopRef{lo: uint16(start), hi: uint16(uint32(start) >> 16), n: n}
}

// Rebase returns the reference to the same micro-ops once their store was
// adopted by another at chunk base (Store.Adopt, Span.Rebase).
func (r MopRef) Rebase(base int32) MopRef {
	if r.n == 0 {
		return r
	}
	return mopRefAt(r.start()+base<<chunkBits, r.n)
}

// get returns the micro-ops r locates in s.
func (r MopRef) get(s *Store[Mop]) []Mop {
	switch r.n {
	case 0:
		return nil
	case longRun:
		run := s.Get(Span{Start: r.start(), N: 1})
		return s.Get(Span{Start: r.start() + 1, N: int32(run[0].lo)})
	}
	return s.Get(Span{Start: r.start(), N: int32(r.n)})
}

// allocMops reserves room for n micro-ops in s, with a header before them
// when n is longRun or more, and returns their reference and the slice to
// fill.
func allocMops(s *Store[Mop], n int) (MopRef, []Mop) {
	if n < longRun {
		sp, dst := s.Alloc(n)
		return mopRefAt(sp.Start, uint16(n)), dst
	}
	sp, dst := s.Alloc(n + 1)
	dst[0] = Mop{Kind: MopOther, lo: uint32(n)}
	return mopRefAt(sp.Start, longRun), dst[1:]
}
