package model

import (
	"slices"
	"testing"
)

// TestExt: workload records stored through the Builder read back by op
// position; ops without any (before, between and after) have none.
func TestExt(t *testing.T) {
	b := NewBuilder("x")
	b.SetExtOwners([]string{"queue", "abort"})
	t1 := b.Key(StringAtom("t1"))
	ws, w := b.ExtWords(3)
	copy(w, []int64{1, 4, 5})
	ks, k := b.ExtKeys(1)
	k[0] = t1
	b.SetExtAt(2, ExtRec{Words: ws, Keys: ks, Kind: 7, Owner: 2}, ExtRec{Kind: 8, Owner: 2})
	for i := range 4 {
		b.Add(int64(i), NoTime, Op{})
	}
	h := b.History()
	for _, i := range []int{0, 1, 3} {
		if r := h.ExtAt(i); r != nil {
			t.Errorf("op %d: records %v, want none", i, r)
		}
	}
	recs := h.ExtAt(2)
	if len(recs) != 2 || recs[0].Kind != 7 || recs[1].Kind != 8 {
		t.Fatalf("op 2: records %+v", recs)
	}
	if got := h.ExtWordsOf(&recs[0]); !slices.Equal(got, []int64{1, 4, 5}) {
		t.Errorf("words %v", got)
	}
	if got := h.ExtKeysOf(&recs[0]); len(got) != 1 || h.KeyAtom(got[0]) != StringAtom("t1") {
		t.Errorf("keys %v", got)
	}
	if len(h.ExtWordsOf(&recs[1])) != 0 || len(h.ExtKeysOf(&recs[1])) != 0 {
		t.Errorf("empty record has words or keys")
	}
	if o, ok := h.ExtOwnerOf("abort"); !ok || o != recs[0].Owner {
		t.Errorf("ExtOwnerOf(abort) = %d, %v", o, ok)
	}
	if _, ok := h.ExtOwnerOf("rw-register"); ok {
		t.Error("ExtOwnerOf(rw-register) found")
	}
}
