package model

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// indexed is an op with its :index, for ops.
type indexed struct {
	index int64
	op    Op
}

func ops(specs ...indexed) *History {
	h := &History{Source: "t.edn"}
	for i, o := range specs {
		h.Ops = append(h.Ops, o.op)
		h.Indices.Append(o.index)
		h.Lines.Append(int64(i + 1))
	}
	return h
}

func TestPair(t *testing.T) {
	cases := []struct {
		name    string
		h       *History
		partner []int32
		problem string
	}{
		{"invoke then ok - paired", ops(
			indexed{0, Op{Type: Invoke, Process: 0}}, indexed{1, Op{Type: OK, Process: 0}}),
			[]int32{1, 0}, ""},
		{"interleaved processes - paired", ops(
			indexed{0, Op{Type: Invoke, Process: 0}}, indexed{1, Op{Type: Invoke, Process: 1}},
			indexed{2, Op{Type: Info, Process: 1}}, indexed{3, Op{Type: Fail, Process: 0}}),
			[]int32{3, 2, 1, 0}, ""},
		{"never completed - open", ops(indexed{0, Op{Type: Invoke, Process: 0}}), []int32{-1}, ""},
		{"nemesis - ignored", ops(indexed{0, Op{Type: Info, Process: NoProcess}}), []int32{-1}, ""},
		{"two invocations in a row - malformed", ops(
			indexed{0, Op{Type: Invoke, Process: 0}}, indexed{1, Op{Type: Invoke, Process: 0}}),
			nil, "process 0 invoked op 1 (line 2) before its op 0 (line 1) completed"},
		{"completion with no invocation - malformed", ops(indexed{7, Op{Type: OK, Process: 3}}),
			nil, "op 7 (process 3, ok) completes nothing"},
		{"index used twice - malformed", ops(
			indexed{5, Op{Type: Invoke, Process: 0}}, indexed{5, Op{Type: OK, Process: 0}}),
			nil, "op index 5 used twice (lines 1 and 2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Pair(tc.h)
			if tc.problem == "" {
				if err != nil {
					t.Fatal(err)
				}
				for i, want := range tc.partner {
					if p.Partner[i] != want {
						t.Errorf("partner of %d = %d, want %d", i, p.Partner[i], want)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.problem) || !strings.Contains(err.Error(), "t.edn:") {
				t.Fatalf("error %v, want one naming the file and %q", err, tc.problem)
			}
		})
	}
}

func TestAtomLess(t *testing.T) {
	big := Atom{Kind: KBigInt, Text: "99999999999999999999"}
	neg := Atom{Kind: KBigInt, Text: "-99999999999999999999"}
	order := []Atom{neg, IntAtom(-3), IntAtom(2), big, StringAtom("a"), KeywordAtom(":a")}
	for i := range order {
		for j := range order {
			if got := order[i].Less(order[j]); got != (i < j) {
				t.Errorf("%v < %v = %v", order[i], order[j], got)
			}
		}
	}
}

func TestBuilderKeysByText(t *testing.T) {
	b := NewBuilder("x")
	weak := b.KeyText("3")
	strong := b.Key(IntAtom(3))
	if weak != strong {
		t.Fatalf("\"3\" and 3 are different keys: %d, %d", weak, strong)
	}
	if h := b.History(); !h.Keys[strong].IsNumber() {
		t.Fatalf("key kept as %v, want the integer seen in a typed position", h.Keys[strong])
	}
}

// TestKeyBytesCache: KeyBytes answers as the key table does whatever its
// cache holds: keys that share a cache slot, a key first known only by its
// text (weak) and then seen typed, and keys asked for again in any order.
func TestKeyBytesCache(t *testing.T) {
	b := NewBuilder("x")
	weak := b.KeyText("t1")
	want := map[string]KeyID{}
	var texts []string
	for i := range 300 { // 300 keys in 64 slots: many share one
		texts = append(texts, "t"+strconv.Itoa(i))
	}
	for round := range 3 {
		for i, tx := range texts {
			if round == 1 {
				tx = texts[(i*7)%len(texts)]
			}
			id := b.KeyBytes(KString, []byte(tx))
			if w, ok := want[tx]; ok && w != id {
				t.Fatalf("round %d: %q is key %d, was %d", round, tx, id, w)
			}
			want[tx] = id
		}
	}
	if want["t1"] != weak {
		t.Fatalf("the weak key t1 is %d, KeyBytes gave %d", weak, want["t1"])
	}
	h := b.History()
	for tx, id := range want {
		if h.Keys[id].Text != tx || h.Keys[id].Kind != KString {
			t.Fatalf("key %d is %v, want the string %q", id, h.Keys[id], tx)
		}
	}
	if len(h.Keys) != len(texts) {
		t.Fatalf("%d keys, want %d", len(h.Keys), len(texts))
	}
}

func TestIndexMap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		indices []int64
	}{
		{"increasing and sparse - binary search", []int64{0, 3, 4, 9}},
		{"out of order - map", []int64{5, 1, 9, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &History{}
			for _, i := range tc.indices {
				h.Ops = append(h.Ops, Op{})
				h.Indices.Append(i)
			}
			m := NewIndexMap(h)
			for pos, i := range tc.indices {
				if got := m.Pos(i); got != pos {
					t.Errorf("Pos(%d) = %d, want %d", i, got, pos)
				}
			}
			if got := m.Pos(7); got != -1 {
				t.Errorf("Pos of a missing index = %d", got)
			}
		})
	}
}

// TestMopOffset checks that a send keeps any offset, in itself or in
// MopWide, where a poll keeps its span, that a zero Mop's offset is
// NoOffset, and that a Mop stays 16 bytes.
func TestMopOffset(t *testing.T) {
	if n := unsafe.Sizeof(Mop{}); n != 16 {
		t.Errorf("a Mop takes %d bytes, want 16", n)
	}
	b := NewBuilder("offsets")
	if off := b.History().Offset(&Mop{Kind: MopSend}); off != NoOffset {
		t.Errorf("zero send: offset %d, want NoOffset", off)
	}
	offs := []int64{NoOffset, 0, 1, -1, 1 << 32, -(1 << 32) - 7, math.MaxInt64, math.MinInt64 + 1,
		narrowOffsets - 2, narrowOffsets - 1, narrowOffsets, 1 << 48}
	var mops []Mop
	for _, off := range offs {
		mops = append(mops, b.Send(3, 4, off))
	}
	h := b.History()
	wide := 0
	for i, off := range offs {
		m := mops[i]
		if got := h.Offset(&m); got != off || m.Key != 3 || m.Msg != 4 || !m.Done || m.HasOffset() != (off != NoOffset) {
			t.Errorf("Send(3, 4, %d) = %+v, offset %d", off, m, got)
		}
		if m.hi == wideMop {
			wide++
		}
		m.Kind = MopAppend
		if got := h.Offset(&m); got != NoOffset || m.HasOffset() {
			t.Errorf("an append has offset %d, want NoOffset", got)
		}
	}
	// -1, -(1<<32)-7, MaxInt64, MinInt64+1, narrowOffsets and 1<<48
	if wide != 6 || len(h.MopWide) != 6 {
		t.Errorf("%d sends and %d MopWide entries hold their offsets whole, want 6", wide, len(h.MopWide))
	}
}

// TestMopSpan checks that polls and list reads keep spans of every length
// (in MopWide from 65,535 elements on), and that Rebase moves them, and a
// wide send's index, as Store.Adopt and an appended MopWide require.
func TestMopSpan(t *testing.T) {
	b := NewBuilder("spans")
	var mops []Mop
	lengths := []int{0, 1, 3, wideMop - 1, wideMop, wideMop + 1, 200000}
	for _, n := range lengths {
		es := make([]MsgID, n)
		for i := range es {
			es[i] = MsgID(i)
		}
		mops = append(mops, b.Spanned(Mop{Kind: MopReadList, Done: true}, b.StoreElems(es...)))
	}
	mops = append(mops, b.Send(1, 2, 1<<50))
	h := b.History()
	for i, n := range lengths {
		es := h.ElemsOf(&mops[i])
		if len(es) != n || n > 0 && (es[0] != 0 || es[n-1] != MsgID(n-1)) {
			t.Errorf("a list read of %d elements reads back %d", n, len(es))
		}
		if got := h.SpanOf(&mops[i]).N; got != int32(n) {
			t.Errorf("span of %d elements: N %d", n, got)
		}
	}
	// adopted behind 3 chunks, MopWide behind 5 entries
	var other Store[MsgID]
	for range 3 {
		other.Alloc(chunkSize)
	}
	base, ok := other.Adopt(&h.ElemStore)
	if !ok || base != 3 {
		t.Fatalf("Adopt: base %d, %v", base, ok)
	}
	wide := append(make([]int64, 5), h.MopWide...)
	for i := range mops {
		mops[i].Rebase(h.MopWide, base, 5)
	}
	h2 := &History{ElemStore: other, MopWide: wide}
	copy(h2.MopWide[5:], h.MopWide)
	for i, n := range lengths {
		if es := h2.ElemsOf(&mops[i]); len(es) != n || n > 0 && es[n-1] != MsgID(n-1) {
			t.Errorf("rebased list read of %d elements reads back %d", n, len(es))
		}
	}
	if got := h2.Offset(&mops[len(mops)-1]); got != 1<<50 {
		t.Errorf("rebased wide send: offset %d, want %d", got, int64(1)<<50)
	}
}

// TestExpectMsgs: a full message table grows to the expected number of
// messages when that is at least an eighth more than it holds, doubles
// otherwise, and History keeps a table grown to the right size as it is.
func TestExpectMsgs(t *testing.T) {
	fill := func(b *Builder, n int) {
		for i := b.NumMsgs(); i < n; i++ {
			b.AppendMsg(0, ValID(i))
		}
	}
	b := NewBuilder("t")
	fill(b, 1024) // the first table: 1024
	if c := cap(b.h.Msgs); c != 1024 {
		t.Fatalf("first table %d, want 1024", c)
	}
	b.ExpectMsgs(10000)
	fill(b, 1025)
	if c := cap(b.h.Msgs); c != 10000 {
		t.Errorf("with 10000 expected: grew to %d, want 10000", c)
	}
	fill(b, 10000)
	b.ExpectMsgs(10500) // less than an eighth more: ignored
	fill(b, 10001)
	if c := cap(b.h.Msgs); c != 2*10000+1024 {
		t.Errorf("with 10500 expected at 10000: grew to %d, want doubling to %d", c, 2*10000+1024)
	}
	b2 := NewBuilder("t")
	fill(b2, 1024)
	b2.ExpectMsgs(5000)
	fill(b2, 4900) // 100 unused of 5000: under an eighth
	msgs := b2.h.Msgs
	if h := b2.History(); &h.Msgs[0] != &msgs[0] || len(h.Msgs) != 4900 {
		t.Errorf("History copied a table grown to %d for %d messages", cap(msgs), len(h.Msgs))
	}
	// Msg (the indexed path) grows the same table the same way
	b3 := NewBuilder("t")
	for i := range 1024 {
		b3.Msg(1, ValID(i))
	}
	b3.ExpectMsgs(3000)
	b3.Msg(1, 5000)
	if c := cap(b3.h.Msgs); c != 3000 {
		t.Errorf("Msg grew the table to %d, want 3000", c)
	}
}

// TestPairParallel: on histories large enough to be paired on every core,
// with invocations completed many ops later (across the pieces), processes
// that crash and never complete, nemesis ops and process numbers past
// ByProcess's slice, pairParallel pairs as pairSerial does; on one that
// pairSerial finds a problem in (wherever it is), it declines, and Pair
// returns pairSerial's problems.
func TestPairParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gen := func(n int) *History {
		h := &History{Source: "t.edn"}
		var open []int32 // processes with an open invocation
		next := int32(0)
		add := func(op Op) {
			h.Ops = append(h.Ops, op)
			h.Indices.Append(int64(len(h.Ops) - 1))
			h.Lines.Append(int64(len(h.Ops)))
		}
		for len(h.Ops) < n {
			switch x := r.IntN(100); {
			case x < 2:
				add(Op{Type: Info, Process: NoProcess})
			case x < 50 && len(open) < 40:
				p := next
				if r.IntN(50) == 0 {
					p += 1 << 24 // through ByProcess's map
				}
				next++
				add(Op{Type: Invoke, Process: p})
				open = append(open, p)
			case len(open) > 0:
				k := r.IntN(len(open))
				p := open[k]
				open = append(open[:k], open[k+1:]...)
				if r.IntN(100) == 0 {
					continue // crashed: never completed
				}
				add(Op{Type: []OpType{OK, Info, Fail}[r.IntN(3)], Process: p})
			}
		}
		return h
	}
	problems := 0
	for _, n := range []int{pairParallelMin, 5 * pairParallelMin} {
		h := gen(n)
		want, err := pairSerial(h)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := pairParallel(h)
		if !ok {
			t.Fatalf("%d ops: pairParallel declined a valid history", n)
		}
		if !slices.Equal(got.Partner, want.Partner) {
			t.Fatalf("%d ops: pairings differ", n)
		}
		// a problem at any place: a second invocation, a stray completion;
		// at a piece's start, the process's state comes from the pieces
		// before it
		size := pairPieceSize(n, runtime.GOMAXPROCS(0))
		for _, at := range []int{1, n / 3, size, 2 * size, n - 1} {
			for _, typ := range []OpType{Invoke, OK} {
				bad := &History{Source: h.Source, Ops: slices.Clone(h.Ops), Indices: h.Indices, Lines: h.Lines}
				p := bad.Ops[at].Process
				if p == NoProcess {
					p = 0
				}
				bad.Ops = slices.Insert(bad.Ops[:len(bad.Ops)-1], at, Op{Type: typ, Process: p})
				_, werr := pairSerial(bad)
				if werr == nil {
					continue // the inserted op happened to fit
				}
				problems++
				if _, ok := pairParallel(bad); ok {
					t.Fatalf("%d ops, %v at %d: pairParallel paired a history with a problem", n, typ, at)
				}
				if _, err := Pair(bad); err == nil || err.Error() != werr.Error() {
					t.Fatalf("%d ops, %v at %d: Pair said %v, want %v", n, typ, at, err, werr)
				}
			}
		}
	}
	if problems < 10 {
		t.Fatalf("only %d of 20 insertions made a problem", problems)
	}
}
