package model

import "slices"

// ByProcess maps process numbers to values of T: the small non-negative
// numbers Jepsen gives processes through a slice, any other (a negative
// one, or one past smallProcesses, which crash-heavy histories and
// hostile input reach) through a map. The zero ByProcess is empty. Every
// per-process table of the ingest and the analyses is one: the pairing's
// open invocations, the decoder's pending ones, the queue check's dense
// numbering, the abort walk's states.
type ByProcess[T any] struct {
	small []processSlot[T]
	other map[int32]*T
	n     int
}

// processSlot is a slice entry of ByProcess: a value, and whether the
// process has one.
type processSlot[T any] struct {
	v  T
	ok bool
}

// smallProcesses bounds the process numbers a ByProcess keeps in its
// slice: 65,536 slots at most.
const smallProcesses = 1 << 16

// Get returns process p's value, or false when it has none. The pointer
// is valid until the next Ref.
func (m *ByProcess[T]) Get(p int32) (*T, bool) {
	if uint32(p) < smallProcesses {
		if int(p) < len(m.small) && m.small[p].ok {
			return &m.small[p].v, true
		}
		return nil, false
	}
	v, ok := m.other[p]
	return v, ok
}

// Ref returns process p's value, adding a zero one when it has none
// (isNew). The pointer is valid until the next Ref.
func (m *ByProcess[T]) Ref(p int32) (v *T, isNew bool) {
	if uint32(p) < smallProcesses {
		if int(p) >= len(m.small) {
			m.small = append(m.small, make([]processSlot[T], int(p)+1-len(m.small))...)
		}
		s := &m.small[p]
		if !s.ok {
			s.ok, isNew = true, true
			m.n++
		}
		return &s.v, isNew
	}
	if v, ok := m.other[p]; ok {
		return v, false
	}
	if m.other == nil {
		m.other = map[int32]*T{}
	}
	v = new(T)
	m.other[p] = v
	m.n++
	return v, true
}

// Delete removes process p's value, if it has one.
func (m *ByProcess[T]) Delete(p int32) {
	if uint32(p) < smallProcesses {
		if int(p) < len(m.small) && m.small[p].ok {
			m.small[p] = processSlot[T]{}
			m.n--
		}
		return
	}
	if _, ok := m.other[p]; ok {
		delete(m.other, p)
		m.n--
	}
}

// Len is the number of processes with a value.
func (m *ByProcess[T]) Len() int { return m.n }

// Processes lists the processes with a value, in increasing order.
func (m *ByProcess[T]) Processes() []int32 {
	ps := make([]int32, 0, m.n)
	for p := range m.other {
		ps = append(ps, p)
	}
	for p := range m.small {
		if m.small[p].ok {
			ps = append(ps, int32(p))
		}
	}
	slices.Sort(ps)
	return ps
}
