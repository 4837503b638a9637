package abort

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestParallelWalk: the result, instances in order included, does not
// depend on the number of walkers (nor on collect's and the sweep's
// number of goroutines, which follow it).
func TestParallelWalk(t *testing.T) {
	defer func(m, p int) { walkersMin = m; runtime.GOMAXPROCS(p) }(walkersMin, runtime.GOMAXPROCS(3))
	srcs := sources(t)
	// two committed redeliveries whose lowest witness op and topic are the
	// commit's: the order they are found in decides theirs
	srcs["tie.edn"] = new(hist).poll(0, "t1", "ok", o(0, 1, 2, 3, 4, 5), "").poll(1, "t1", "fail", o(6), "").
		poll(2, "t1", "fail", o(7), "").poll(2, "t1", "ok", o(2), "").poll(1, "t1", "ok", o(3), "").String()
	for name, src := range srcs {
		h, p := readPaired(t, name, src)
		var outs [2]string
		for i, m := range []int{1 << 30, 1} {
			walkersMin = m
			res := Check(h, p, Options{Contract: ContractRewind})
			res.Stats.ElapsedMS = 0
			outs[i] = encode(t, res)
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: one walker\n%s\nthree\n%s", name, outs[0], outs[1])
		}
		if !strings.Contains(outs[0], `"anomalies":{`) && name == "generated.edn" {
			t.Errorf("%s: no instances", name)
		}
	}
}

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
