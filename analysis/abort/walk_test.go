package abort

import (
	"runtime"
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
