package model

import (
	"slices"
	"testing"
)

// TestCompactElems stores list reads as ingest's blocks would (a key's
// prefixes sharing a run, the same list again in another run, a read that
// disagrees with the longest, and one too long for a micro-op's own span),
// and checks that every read reads back the same after CompactElems, that
// prefixes of the longest share its elements, and that each other run is
// kept once.
func TestCompactElems(t *testing.T) {
	b := NewBuilder("lists")
	k0, k1 := b.Key(IntAtom(0)), b.Key(IntAtom(1))
	var mops []Mop
	read := func(k KeyID, sp Span) {
		mops = append(mops, b.Spanned(Mop{Kind: MopReadList, Key: k, Done: true}, sp))
	}
	run := func(es ...MsgID) Span { return b.StoreElems(es...) }
	long := make([]MsgID, 70_000)
	for i := range long {
		long[i] = MsgID(i)
	}
	a := run(1, 2, 3, 0, 0) // a run with room to grow
	read(k0, Span{a.Start, 1})
	read(k0, Span{a.Start, 3})
	b2 := run(1, 2, 3, 4) // the same list in another block's run, longer
	read(k0, Span{b2.Start, 2})
	read(k0, Span{b2.Start, 4})
	c := run(1, 9) // disagrees with the longest at its second element
	read(k0, Span{c.Start, 1})
	read(k0, Span{c.Start, 2})
	read(k0, Span{c.Start, 2})
	l := run(long...)
	read(k1, Span{l.Start, 65_535})
	read(k1, Span{l.Start, 70_000})
	read(k1, Span{}) // an empty list
	h := b.History()
	var before [][]MsgID
	for i := range mops {
		before = append(before, slices.Clone(h.ElemsOf(&mops[i])))
	}
	// the micro-ops live in the store for CompactElems to find
	ref := b.StoreMops(mops...)
	h = b.History()
	stored := h.ElemStore.Len()
	h.CompactElems()
	got := h.MopsOf(&Op{Mops: ref})
	for i := range got {
		if es := h.ElemsOf(&got[i]); !slices.Equal(es, before[i]) {
			t.Errorf("read %d: %v after compaction, %v before", i, es, before[i])
		}
	}
	// key 0's longest (4) and the disagreeing run (2), key 1's longest
	if n := h.ElemStore.Len(); n != 4+2+70_000 || n >= stored {
		t.Errorf("%d elements stored after compaction (%d before), want %d", n, stored, 4+2+70_000)
	}
	if h.SpanOf(&got[0]).Start != h.SpanOf(&got[3]).Start || h.SpanOf(&got[4]).Start != h.SpanOf(&got[0]).Start || h.SpanOf(&got[5]).Start == h.SpanOf(&got[0]).Start {
		t.Error("prefixes of the longest list (the disagreeing run's first element among them) do not share it, or a disagreeing read does")
	}
}
