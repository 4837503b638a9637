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

// Put copies vs into the store and returns their span.
func (s *Store[T]) Put(vs ...T) Span {
	sp, dst := s.Alloc(len(vs))
	copy(dst, vs)
	return sp
}

// Len is the number of elements stored.
func (s *Store[T]) Len() int {
	n := 0
	for _, c := range s.chunks {
		n += len(c)
	}
	return n
}

// Positions numbers the elements a store holds 0 to Len()-1, chunk after
// chunk, for an array that keeps something for each stored element: Of
// maps a span's start to its number. It is valid until the store grows.
type Positions struct {
	base []int32 // by chunk: the number of its first element
}

// Positions returns the numbering of the elements s holds now.
func (s *Store[T]) Positions() Positions {
	base := make([]int32, len(s.chunks))
	n := int32(0)
	for i, c := range s.chunks {
		base[i] = n
		n += int32(len(c))
	}
	return Positions{base: base}
}

// Of is the number of the element at start, the Start of a non-empty span
// of the store.
func (p Positions) Of(start int32) int32 {
	return p.base[start>>chunkBits] + start&(chunkSize-1)
}

// maxChunks is the number of chunks a Span can address.
const maxChunks = 1 << (31 - chunkBits)

// Chunks returns the filled part of each chunk, in order: every element
// stored, for a caller that rewrites them in place (ingest renumbers the ids
// of a part of a history read on its own). The slices alias the store.
func (s *Store[T]) Chunks() [][]T { return s.chunks }

// Trim gives the last chunk a backing array of exactly its length when
// more than an eighth of it is unused, so that a store filled once and
// then only read (ingest's per-block stores, see Adopt) wastes little.
func (s *Store[T]) Trim() {
	last := len(s.chunks) - 1
	if last < 0 {
		return
	}
	c := s.chunks[last]
	if cap(c)-len(c) > cap(c)/8 {
		s.chunks[last] = append(make([]T, 0, len(c)), c...)
	}
}

// Adopt moves the chunks of o to the end of s, without copying elements,
// and returns the number of chunks s held before: the spans of o's
// elements become valid in s once rebased by it (Span.Rebase). o must not
// be used afterwards. s never writes into an adopted chunk: a later Alloc
// starts a chunk of its own. It reports false, adopting nothing, when s
// would hold more chunks than a Span can address.
func (s *Store[T]) Adopt(o *Store[T]) (int32, bool) {
	base := len(s.chunks)
	if base+len(o.chunks) > maxChunks {
		return 0, false
	}
	for _, c := range o.chunks {
		s.chunks = append(s.chunks, c[:len(c):len(c)])
	}
	o.chunks = nil
	return int32(base), true
}

// Rebase returns the span of the same elements once their store was
// adopted by another at chunk base (Store.Adopt). An empty span stays the
// zero Span.
func (sp Span) Rebase(base int32) Span {
	if sp.N == 0 {
		return sp
	}
	sp.Start += base << chunkBits
	return sp
}
