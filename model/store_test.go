package model

import "testing"

func TestStore(t *testing.T) {
	var s Store[int32]
	var spans []Span
	want := 0
	sizes := []int{0, 1, 3, 4096, 5000, chunkSize, chunkSize + 7, 2, chunkSize - 1, 9}
	for i, n := range sizes {
		sp, dst := s.Alloc(n)
		if len(dst) != n || int(sp.N) != n {
			t.Fatalf("alloc %d: got %d elements, span %+v", n, len(dst), sp)
		}
		for j := range dst {
			dst[j] = int32(i*1000003 + j)
		}
		spans = append(spans, sp)
		want += n
	}
	for i, sp := range spans {
		got := s.Get(sp)
		if len(got) != sizes[i] {
			t.Fatalf("run %d: %d elements, want %d", i, len(got), sizes[i])
		}
		for j, v := range got {
			if v != int32(i*1000003+j) {
				t.Fatalf("run %d element %d = %d: runs overlap", i, j, v)
			}
		}
		if cap(got) != len(got) {
			t.Fatalf("run %d can be appended into its neighbour", i)
		}
	}
	if s.Len() != want {
		t.Fatalf("Len %d, want %d", s.Len(), want)
	}
}

func TestReadOffsets(t *testing.T) {
	for _, off := range []int64{0, 1, -1, 13009000, 1<<31 - 1, 1 << 31, 1<<32 + 5, 9007199254740993, -9007199254740993, 1<<63 - 1, -1 << 63} {
		if got := NewRead(off, 7).Offset(); got != off {
			t.Errorf("offset %d comes back as %d", off, got)
		}
	}
}

// TestPositions: every element stored gets its own number, 0 to Len()-1,
// in chunk order, a run longer than a chunk included.
func TestPositions(t *testing.T) {
	var s Store[int32]
	var spans []Span
	for i, n := range []int{3, chunkSize - 2, 5, chunkSize + 7, 1, 4096} {
		sp := s.Put(make([]int32, n)...)
		spans = append(spans, sp)
		if i == 3 && sp.Start&(chunkSize-1) != 0 {
			t.Fatalf("long run at offset %d", sp.Start&(chunkSize-1))
		}
	}
	pos := s.Positions()
	seen := make([]bool, s.Len())
	for _, sp := range spans {
		at := pos.Of(sp.Start)
		for i := range sp.N {
			if at+i < 0 || int(at+i) >= len(seen) || seen[at+i] {
				t.Fatalf("span %+v: number %d taken or out of 0..%d", sp, at+i, len(seen)-1)
			}
			seen[at+i] = true
		}
	}
	for i, ok := range seen {
		if !ok {
			t.Fatalf("number %d of %d unused", i, len(seen))
		}
	}
	if len(s.chunks) < 4 {
		t.Fatalf("%d chunks: the test wants several", len(s.chunks))
	}
}
