package abort

// A pair instance is a handful of small objects (the instance, its Pair,
// two PollRefs, up to eight integers behind pointers, its witness): the
// check takes them from slabs, a few hundred instances at a time, instead
// of allocating each (a million-poll history has a few hundred thousand
// pair instances). An instance keeps its slab alive; all of them are in
// the result anyway.

// pairBox holds the objects of one pair instance.
type pairBox struct {
	in   Instance
	pair Pair
	p, n PollRef
	ints boxInts
}

// boxInts are the integers a pair instance points to: process, P's and
// N's invocation, committed position and poll, gap, resume point and
// poll.
type boxInts [8]int64

// set stores x in slot i and returns a pointer to it.
func (b *boxInts) set(i int, x int64) *int64 {
	b[i] = x
	return &b[i]
}

// slab is the number of pair instances allocated at once.
const slab = 256

// witnessCap is the room a witness gets: P and N (four ops), and the
// poll that set the committed position or made the resume point; one
// with carried rebalances grows past it by append.
const witnessCap = 6

// box returns room for a new pair instance.
func (c *checker) box() *pairBox {
	if len(c.boxes) == 0 {
		c.boxes = make([]pairBox, slab)
	}
	x := &c.boxes[0]
	c.boxes = c.boxes[1:]
	return x
}

// witnessRoom returns an empty witness with room for witnessCap ops.
func (c *checker) witnessRoom() []int64 {
	if len(c.words) < witnessCap {
		c.words = make([]int64, slab*witnessCap)
	}
	w := c.words[:0:witnessCap]
	c.words = c.words[witnessCap:]
	return w
}
