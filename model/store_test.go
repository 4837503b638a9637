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
