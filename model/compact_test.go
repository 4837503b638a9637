package model

import (
	"maps"
	"math/rand/v2"
	"runtime"
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

// compactSerial is CompactElems as one pass in store order does it (the
// code before the passes went onto every core): the reference
// TestCompactElemsParallel holds the parallel passes to.
func compactSerial(h *History) {
	each := func(f func(m *Mop, sp Span)) {
		for _, c := range h.MopStore.chunks {
			for i := range c {
				if m := &c[i]; m.Kind == MopReadList {
					if sp := h.SpanOf(m); sp.N > 0 {
						f(m, sp)
					}
				}
			}
		}
	}
	longest := make([]Span, len(h.Keys))
	each(func(m *Mop, sp Span) {
		if sp.N > longest[m.Key].N {
			longest[m.Key] = sp
		}
	})
	others := map[int32]Span{}
	pre := newPrefixes(h, longest)
	each(func(m *Mop, sp Span) {
		if !pre.of(m.Key, sp) && sp.N > others[sp.Start].N {
			others[sp.Start] = sp
		}
	})
	var out Store[MsgID]
	home := make([]int32, len(h.Keys))
	for k, sp := range longest {
		if sp.N > 0 {
			home[k] = out.Put(h.ElemStore.Get(sp)...).Start
		}
	}
	for _, start := range slices.Sorted(maps.Keys(others)) {
		others[start] = out.Put(h.ElemStore.Get(others[start])...)
	}
	pre = newPrefixes(h, longest)
	each(func(m *Mop, sp Span) {
		to := Span{Start: home[m.Key], N: sp.N}
		if !pre.of(m.Key, sp) {
			to.Start = others[sp.Start].Start
		}
		if m.hi == wideMop {
			h.MopWide[m.lo] = packSpan(to)
		} else {
			m.lo = uint32(to.Start)
		}
	})
	out.Trim()
	h.ElemStore = out
}

// TestCompactElemsParallel builds, twice from one seed, a history of list
// reads spread over many chunks of the micro-op store, whose keys have
// several runs of equal length (the first of the longest in store order
// must win, whichever worker meets it), runs that disagree, and reads of
// every prefix length; it compacts one copy with CompactElems on eight
// workers and the other with compactSerial, and compares the element
// stores and every read's span.
func TestCompactElemsParallel(t *testing.T) {
	build := func() (*History, []MopRef) {
		rng := rand.New(rand.NewPCG(7, 11))
		b := NewBuilder("lists")
		const nk = 40
		keys := make([]KeyID, nk)
		for k := range keys {
			keys[k] = b.Key(IntAtom(int64(k)))
		}
		// per key, four runs: two equal, one that disagrees at a random
		// place, and one shorter; their lengths tie often
		var runs [nk][]Span
		for k := range nk {
			n := 1 + rng.IntN(6)
			base := make([]MsgID, n)
			for i := range base {
				base[i] = MsgID(k*100 + i)
			}
			other := slices.Clone(base)
			other[rng.IntN(n)] += 50
			runs[k] = []Span{b.StoreElems(base...), b.StoreElems(base...), b.StoreElems(other...), b.StoreElems(base[:max(1, n-1)]...)}
		}
		var refs []MopRef
		for range 300 {
			mops := make([]Mop, 1000)
			for i := range mops {
				k := rng.IntN(nk)
				run := runs[k][rng.IntN(4)]
				mops[i] = b.Spanned(Mop{Kind: MopReadList, Key: keys[k], Done: true}, Span{Start: run.Start, N: 1 + rng.Int32N(run.N)})
			}
			refs = append(refs, b.StoreMops(mops...))
		}
		return b.History(), refs
	}
	h1, refs := build()
	h2, _ := build()
	if n := len(h1.MopStore.chunks); n < 4 {
		t.Fatalf("%d chunks of micro-ops: the test needs several", n)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	h1.CompactElems()
	compactSerial(h2)
	if got, want := slices.Concat(h1.ElemStore.chunks...), slices.Concat(h2.ElemStore.chunks...); !slices.Equal(got, want) {
		t.Fatalf("element stores differ: %d elements, want %d", len(got), len(want))
	}
	for _, ref := range refs {
		m1, m2 := h1.MopsOf(&Op{Mops: ref}), h2.MopsOf(&Op{Mops: ref})
		for i := range m1 {
			if h1.SpanOf(&m1[i]) != h2.SpanOf(&m2[i]) {
				t.Fatalf("a read's span is %v, want %v", h1.SpanOf(&m1[i]), h2.SpanOf(&m2[i]))
			}
		}
	}
}
