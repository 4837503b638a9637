package queue

import "github.com/hindsight-dev/hindsight/model"

// keyStamps maps keys to small ints for the duration of one op, emptied in
// O(1): a key is present when its stamp is the current generation. The
// per-op checks use it instead of scanning the keys met so far, which
// would cost O(keys²) on one op touching many keys. 8 bytes a key,
// allocated on first use.
type keyStamps struct {
	gen   uint32
	stamp []uint32
	val   []int32
}

// reset empties the map; nk is the history's number of keys.
func (s *keyStamps) reset(nk int) {
	if len(s.stamp) < nk {
		s.stamp, s.val = make([]uint32, nk), make([]int32, nk)
	}
	s.gen++
	if s.gen == 0 { // wrapped: clear the stamps once
		clear(s.stamp)
		s.gen = 1
	}
}

// get returns k's value, or -1 when k is absent.
func (s *keyStamps) get(k model.KeyID) int32 {
	if s.stamp[k] != s.gen {
		return -1
	}
	return s.val[k]
}

// set sets k's value.
func (s *keyStamps) set(k model.KeyID, v int32) { s.stamp[k], s.val[k] = s.gen, v }

// posList is a process's position per key, in order of first use, with an
// index by key once it holds more than a few keys (a process may poll a
// million keys over a history).
type posList struct {
	at  []posAt
	idx map[model.KeyID]int32
}

const posListIndexed = 16

// find returns the index of k's position, or -1.
func (l *posList) find(k model.KeyID) int {
	if l.idx != nil {
		if i, ok := l.idx[k]; ok {
			return int(i)
		}
		return -1
	}
	for i := range l.at {
		if l.at[i].key == k {
			return i
		}
	}
	return -1
}

// add appends a position for a key not in the list.
func (l *posList) add(p posAt) {
	l.at = append(l.at, p)
	switch {
	case l.idx != nil:
		l.idx[p.key] = int32(len(l.at) - 1)
	case len(l.at) > posListIndexed:
		l.reindex()
	}
}

// keepIf keeps the positions for which keep holds, in order.
func (l *posList) keepIf(keep func(posAt) bool) {
	w := 0
	for _, p := range l.at {
		if keep(p) {
			l.at[w] = p
			w++
		}
	}
	l.at = l.at[:w]
	l.idx = nil
	if len(l.at) > posListIndexed {
		l.reindex()
	}
}

func (l *posList) reindex() {
	l.idx = make(map[model.KeyID]int32, len(l.at))
	for i, p := range l.at {
		l.idx[p.key] = int32(i)
	}
}
