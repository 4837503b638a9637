package model

import "math"

// Times is the :time column of a history (History.Time), kept beside the
// ops rather than in them, in 4 bytes an op where an int64 takes 8. Positions are
// grouped in blocks of timeBlock; a block keeps the first time it holds as
// its base, and each op the difference from that base as a uint32. Jepsen
// histories stamp ops in nanoseconds and in file order, so a block of 256
// ops spans far less than the 4.29 s a uint32 holds. A block whose times do
// not fit (times that run backwards, or jump by more than that) is kept
// whole, 8 bytes an op more, so any column is exact and stays linear: at
// most 12 bytes an op and 16 a block.
type Times struct {
	blocks []timeBlk
	delta  []uint32 // per position: its time less its block's base, or noDelta
	wide   []int64  // the times of wide blocks, timeBlock a block
}

// timeBlk is one block of Times: narrow (wide < 0) with base, NoTime
// until the block holds a time, or wide, its times at wide[w : w+timeBlock].
type timeBlk struct {
	base int64
	wide int32
}

const (
	timeBlockBits = 8
	timeBlock     = 1 << timeBlockBits
	noDelta       = math.MaxUint32 // a narrow block's NoTime
)

// Len is the number of ops recorded.
func (x *Times) Len() int { return len(x.delta) }

// Grow makes room for n more ops without reallocating, for a reader that
// knows about how many it will append (a block of lines, an estimate of a
// whole file's): growing a column of millions by appends alone copies it
// several times over, into fresh memory each time. Room never used past
// the first pages is never touched, so it costs address space, not memory.
func (x *Times) Grow(n int) {
	if need := len(x.delta) + n; need > cap(x.delta) {
		x.delta = append(make([]uint32, 0, need), x.delta...)
	}
	if need := len(x.delta)/timeBlock + 1 + n/timeBlock + 1; need > cap(x.blocks) {
		x.blocks = append(make([]timeBlk, 0, need), x.blocks...)
	}
}

// Room is how many more ops the column takes before it must reallocate.
func (x *Times) Room() int { return cap(x.delta) - len(x.delta) }

// Append records t (nanoseconds, or NoTime) as the time of the op at
// position Len(). Cost: O(1), O(timeBlock) when a block turns wide.
func (x *Times) Append(t int64) {
	pos := len(x.delta)
	if pos&(timeBlock-1) == 0 {
		x.blocks = append(x.blocks, timeBlk{base: NoTime, wide: -1})
	}
	b := &x.blocks[len(x.blocks)-1]
	if b.wide >= 0 {
		x.delta = append(x.delta, 0)
		x.wide = append(x.wide, t)
		return
	}
	if t == NoTime {
		x.delta = append(x.delta, noDelta)
		return
	}
	if b.base == NoTime {
		b.base = t
	}
	if d := uint64(t) - uint64(b.base); t >= b.base && d < noDelta {
		x.delta = append(x.delta, uint32(d))
		return
	}
	// the block turns wide: its times so far, then t
	first := pos &^ (timeBlock - 1)
	b.wide = int32(len(x.wide))
	for p := first; p < pos; p++ {
		x.wide = append(x.wide, x.narrow(b, p))
		x.delta[p] = 0
	}
	x.delta = append(x.delta, 0)
	x.wide = append(x.wide, t)
}

// narrow is the time at position p of narrow block b.
func (x *Times) narrow(b *timeBlk, p int) int64 {
	d := x.delta[p]
	if d == noDelta {
		return NoTime
	}
	return b.base + int64(d)
}

// At is the time of the op at position pos (pos >= 0), or NoTime; NoTime
// past the column's end (a column dropped: History.DropTimes). Cost: O(1).
func (x *Times) At(pos int) int64 {
	if pos >= len(x.delta) {
		return NoTime
	}
	b := &x.blocks[pos>>timeBlockBits]
	if b.wide >= 0 {
		return x.wide[int(b.wide)+pos&(timeBlock-1)]
	}
	return x.narrow(b, pos)
}

// Concat appends y's times after x's. Cost: O(y.Len()).
func (x *Times) Concat(y *Times) {
	for p := range y.delta {
		x.Append(y.At(p))
	}
}
