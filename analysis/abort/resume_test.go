package abort

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// TestSearch compares search with slices.BinarySearch on sorted slices
// without repeats, dense, sparse and mixed, for values in and around
// them, from starting points near the answer and anywhere (out of range
// included).
func TestSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := rng.IntN(40)
		xs := make([]int64, 0, n)
		v := int64(rng.IntN(10)) - 5
		for range n {
			xs = append(xs, v)
			switch trial % 3 {
			case 0:
				v++
			case 1:
				v += 1 + int64(rng.IntN(3))
			default:
				v += 1 + int64(rng.IntN(1000))*int64(rng.IntN(2))
			}
		}
		// every value, its neighbours, and values in the gaps and beyond
		xsToTry := []int64{v, v + 1, v + 50}
		for _, x := range xs {
			xsToTry = append(xsToTry, x-2, x-1, x, x+1, x+2, x-int64(rng.IntN(2000)))
		}
		for _, x := range xsToTry {
			wi, wok := slices.BinarySearch(xs, x)
			at := rng.IntN(n+3) - 1
			if rng.IntN(2) == 0 {
				at = wi + rng.IntN(5) - 2
			}
			from := at
			if gi, gok := search(xs, x, &at); gi != wi || gok != wok || at != wi {
				t.Fatalf("search(%v, %d, from %d) = %d, %v, at %d; want %d, %v", xs, x, from, gi, gok, at, wi, wok)
			}
		}
	}
}

// TestPoint: a poll's point, taken at its ends when its offsets increase
// and kept aside when they do not, is its smallest offset when it was
// aborted and one past its largest otherwise, on every poll with offsets
// of the fixtures and the generated history, and of one whose polls list
// their offsets out of order.
func TestPoint(t *testing.T) {
	srcs := sources(t)
	srcs["unordered.edn"] = new(hist).poll(0, "t1", "ok", o(5, 3, 4), "").poll(1, "t1", "fail", o(9, 7, 8), "").
		poll(1, "t1", "fail", o(10), "").poll(2, "t1", "info", o(12, 11), "").poll(0, "t1", "ok", o(6), "").String()
	kinds := map[bool]int{}
	for name, src := range srcs {
		h, p := readPaired(t, name, src)
		c := &checker{source: newSource(h), pairing: p, res: &analysis.Result{}}
		c.collect()
		for k := range c.polls {
			q := &c.polls[k]
			if !q.hasOffsets() {
				continue
			}
			kinds[q.ordered]++
			want := slices.Max(c.offs(q)) + 1
			if q.typ == model.Fail {
				want = slices.Min(c.offs(q))
			}
			if got := c.point(int32(k)); got != want {
				t.Errorf("%s: poll %d (%s, offsets %v): point %d, want %d", name, k, q.typ, c.offs(q), got, want)
			}
		}
	}
	if kinds[true] == 0 || kinds[false] < 3 {
		t.Fatalf("polls with offsets in order and not: %v; the test misses a case", kinds)
	}
}
