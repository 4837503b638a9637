package model

import "slices"

// IndexMap finds ops by their :index. Histories almost always number their
// ops in increasing order; then a lookup is a binary search over the ops and
// the map costs nothing. Otherwise it holds a hash map from index to
// position, built once.
type IndexMap struct {
	h     *History
	byIdx map[int64]int32 // nil when the ops are in increasing index order
}

// NewIndexMap prepares lookups by :index over h. Cost: O(ops) to check the
// order, plus O(ops) memory only for an unordered history.
func NewIndexMap(h *History) *IndexMap {
	m := &IndexMap{h: h}
	if !indicesIncreasing(h) {
		m.byIdx = make(map[int64]int32, len(h.Ops))
		for i := range h.Ops {
			m.byIdx[h.Ops[i].Index] = int32(i)
		}
	}
	return m
}

// Pos returns the position in h.Ops of the op with :index index, or -1.
func (m *IndexMap) Pos(index int64) int {
	if m.byIdx != nil {
		if i, ok := m.byIdx[index]; ok {
			return int(i)
		}
		return -1
	}
	i, ok := slices.BinarySearchFunc(m.h.Ops, index, func(o Op, t int64) int {
		switch {
		case o.Index < t:
			return -1
		case o.Index > t:
			return 1
		}
		return 0
	})
	if !ok {
		return -1
	}
	return i
}

// indicesIncreasing reports whether h's ops come in strictly increasing
// :index order.
func indicesIncreasing(h *History) bool {
	for i := 1; i < len(h.Ops); i++ {
		if h.Ops[i].Index <= h.Ops[i-1].Index {
			return false
		}
	}
	return true
}
