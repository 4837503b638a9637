package model

import "sort"

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
	if !h.Indices.Increasing() {
		m.byIdx = make(map[int64]int32, len(h.Ops))
		for i, idx := range h.Indices.Values() {
			m.byIdx[idx] = int32(i)
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
	n := len(m.h.Ops)
	i := sort.Search(n, func(i int) bool { return m.h.Index(i) >= index })
	if i == n || m.h.Index(i) != index {
		return -1
	}
	return i
}
