package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestListReadsShared reads list-append reads of one key that are
// prefixes of each other, extend each other beyond a run's room, and
// disagree, and checks that every read keeps its own elements while the
// element store holds far fewer than their sum (lists.go).
func TestListReadsShared(t *testing.T) {
	lists := [][]int{{1}, {1, 2}, {1}, {1, 2, 3}, {1, 3}, {1, 3, 2}, {1, 2, 3}, {}}
	var long []int
	for i := 1; i <= 40; i++ {
		long = append(long, i)
		lists = append(lists, append([]int(nil), long...))
	}
	lists = append(lists, []int{1, 2}, long[:17], []int{2, 1})
	var src strings.Builder
	sum := 0
	for i, l := range lists {
		s := strings.Trim(fmt.Sprint(l), "[]")
		fmt.Fprintf(&src, "{:index %d :type :ok :process 0 :f :txn :value [[:r :k [%s]] [:r :other [%s]]]}\n", i, s, s)
		sum += 2 * len(l)
	}
	h := readString(t, "lists.edn", src.String(), Options{})
	if len(h.Ops) != len(lists) {
		t.Fatalf("%d ops, want %d", len(h.Ops), len(lists))
	}
	for i, l := range lists {
		for _, m := range h.MopsOf(&h.Ops[i]) {
			es := h.ElemsOf(&m)
			got := make([]int, len(es))
			for j, e := range es {
				got[j] = int(h.MsgValue(e).Int)
			}
			if fmt.Sprint(got) != fmt.Sprint(l) {
				t.Errorf("op %d, key %v: read %v, want %v", i, h.KeyAtom(m.Key), got, l)
			}
		}
	}
	// read in blocks of a few bytes (TestPackageInBlocks), each op is a
	// block of its own, with runs of its own
	if n := h.ElemStore.Len(); testBlock == 0 && n*4 > sum {
		t.Errorf("the element store holds %d elements for reads of %d: not shared", n, sum)
	}
}
