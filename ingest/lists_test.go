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
	// negative elements (interned through the map), which a later read's
	// prefix is compared with as well (runPrefix)
	lists = append(lists, []int{-5, 1}, []int{-5, 1, -2}, []int{-5, 2}, []int{-5, 1, -2, 7})
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

// TestListRunPrefixTypes: a read of integers shares a run's elements only
// where they are the same integers, not strings or keywords that print
// alike.
func TestListRunPrefixTypes(t *testing.T) {
	src := `{:index 0 :type :ok :process 0 :f :txn :value [[:r :k ["1" "2"]]]}
{:index 1 :type :ok :process 0 :f :txn :value [[:r :k [1 2]]]}
{:index 2 :type :ok :process 0 :f :txn :value [[:r :k [1 2 3]]]}
{:index 3 :type :ok :process 0 :f :txn :value [[:r :k [:a 2 3]]]}
{:index 4 :type :ok :process 0 :f :txn :value [[:r :k [1 2 3 4]]]}
{:index 5 :type :ok :process 0 :f :txn :value [[:r :j ["x" "y"]]]}
{:index 6 :type :ok :process 0 :f :txn :value [[:r :j [0 0]]]}
`
	want := []string{`["1" "2"]`, `[1 2]`, `[1 2 3]`, `[:a 2 3]`, `[1 2 3 4]`, `["x" "y"]`, `[0 0]`}
	h := readString(t, "types.edn", src, Options{})
	for i, w := range want {
		m := h.MopsOf(&h.Ops[i])[0]
		var got []string
		for _, e := range h.ElemsOf(&m) {
			got = append(got, h.MsgValue(e).String())
		}
		if g := "[" + strings.Join(got, " ") + "]"; g != w {
			t.Errorf("op %d: read %s, want %s", i, g, w)
		}
	}
}
