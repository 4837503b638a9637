package txn

// marks is a map from dense ids (keys, messages) to int32 values that is
// emptied in O(1): an id is present when its stamp is the current
// generation. The per-txn checks use it instead of scanning the txn's
// earlier micro-ops, which would cost O(mops²) on one huge txn (package
// doc, Cost). Memory: 8 bytes an id, allocated on first use.
type marks struct {
	n     int
	gen   uint32
	stamp []uint32
	val   []int32
}

func newMarks(n int) marks { return marks{n: n} }

// reset empties the map.
func (s *marks) reset() {
	if s.stamp == nil {
		s.stamp, s.val = make([]uint32, s.n), make([]int32, s.n)
	}
	s.gen++
	if s.gen == 0 { // wrapped: clear the stamps once
		clear(s.stamp)
		s.gen = 1
	}
}

// get returns the value of id i, and whether it is present.
func (s *marks) get(i int32) (int32, bool) {
	if s.stamp[i] != s.gen {
		return 0, false
	}
	return s.val[i], true
}

// set sets the value of id i.
func (s *marks) set(i, v int32) { s.stamp[i], s.val[i] = s.gen, v }

// setFirst sets the value of id i unless it is present already.
func (s *marks) setFirst(i, v int32) {
	if s.stamp[i] != s.gen {
		s.stamp[i], s.val[i] = s.gen, v
	}
}
