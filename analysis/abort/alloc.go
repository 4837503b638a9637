package abort

// Pair instances are taken from slabs, a few hundred at a time, instead of
// allocated one by one (a million-poll history has a few hundred thousand
// of them), and so are their witnesses. An instance keeps its slab alive;
// all of them are in the result anyway.

// slab is the number of pair instances allocated at once.
const slab = 256

// witnessCap is the room a witness gets: P and N (four ops), and the
// poll that set the committed position or made the resume point; one
// with carried rebalances grows past it by append.
const witnessCap = 6

// inst returns room for a new pair instance.
func (c *checker) inst() *pairInstance {
	if len(c.insts) == 0 {
		c.insts = make([]pairInstance, slab)
	}
	x := &c.insts[0]
	c.insts = c.insts[1:]
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
