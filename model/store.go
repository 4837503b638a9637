package model

// Span locates a run of elements in a Store: Start packs a chunk number
// (above chunkBits) and an offset in that chunk; N is the length.
type Span struct {
	Start int32
	N     int32
}

// chunkBits sets the size of a Store chunk: 2^16 elements, so the unused
// tail of the last chunk stays small.
const chunkBits = 16

const chunkSize = 1 << chunkBits

// Store holds the elements of many small slices (an op's micro-ops, a
// poll's reads) in large chunks, so that each slice costs an 8-byte Span
// instead of a 24-byte slice header and its own allocation. Chunks never
// move, so growing a store copies nothing. A run longer than a chunk gets
// a chunk of its own. 2^15 chunks (2^31 elements) at most.
type Store[T any] struct {
	chunks [][]T
}

// Get returns the elements of sp; nil for an empty span. The slice
// aliases the store.
func (s *Store[T]) Get(sp Span) []T {
	if sp.N == 0 {
		return nil
	}
	c := s.chunks[sp.Start>>chunkBits]
	off := int(sp.Start & (chunkSize - 1))
	return c[off : off+int(sp.N) : off+int(sp.N)]
}

// Alloc reserves n contiguous elements and returns their span and the
// slice to fill.
func (s *Store[T]) Alloc(n int) (Span, []T) {
	if n == 0 {
		return Span{}, nil
	}
	last := len(s.chunks) - 1
	if n > chunkSize {
		// a run bigger than a chunk gets one of its own
		s.chunks = append(s.chunks, make([]T, n))
		return Span{Start: int32(last+1) << chunkBits, N: int32(n)}, s.chunks[last+1]
	}
	if last < 0 || cap(s.chunks[last])-len(s.chunks[last]) < n {
		// chunks grow from 4096 elements, so small histories stay small
		size := 1 << 12
		if last >= 0 {
			size = min(max(2*cap(s.chunks[last]), size), chunkSize)
		}
		s.chunks = append(s.chunks, make([]T, 0, max(size, n)))
		last++
	}
	c := s.chunks[last]
	off := len(c)
	s.chunks[last] = c[:off+n]
	return Span{Start: int32(last)<<chunkBits | int32(off), N: int32(n)}, s.chunks[last][off : off+n : off+n]
}

// Len is the number of elements stored.
func (s *Store[T]) Len() int {
	n := 0
	for _, c := range s.chunks {
		n += len(c)
	}
	return n
}
