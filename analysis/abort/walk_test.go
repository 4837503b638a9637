package abort

import (
	"runtime"
	"strings"
	"testing"
)

// TestParallelWalk: the result, instances in order included, does not
// depend on whether collect and the topic index run on several
// goroutines and the sweep and the walk side by side; on one core too,
// where the walk, started first, can only go on as the sweep reports its
// progress.
func TestParallelWalk(t *testing.T) {
	defer func(m, p int) { parallelMin = m; runtime.GOMAXPROCS(p) }(parallelMin, runtime.GOMAXPROCS(3))
	srcs := sources(t)
	// two committed redeliveries whose lowest witness op and topic are the
	// commit's: the order they are found in decides theirs
	srcs["tie.edn"] = new(hist).poll(0, "t1", "ok", o(0, 1, 2, 3, 4, 5), "").poll(1, "t1", "fail", o(6), "").
		poll(2, "t1", "fail", o(7), "").poll(2, "t1", "ok", o(2), "").poll(1, "t1", "ok", o(3), "").String()
	for name, src := range srcs {
		h, p := readPaired(t, name, src)
		var outs [3]string
		for i, run := range []struct{ min, procs int }{{1 << 30, 3}, {1, 3}, {1, 1}} {
			parallelMin = run.min
			runtime.GOMAXPROCS(run.procs)
			res := Check(h, p, Options{Contract: ContractRewind})
			res.Stats.ElapsedMS = 0
			outs[i] = encode(t, res)
		}
		for i, how := range []string{"side by side", "side by side on one core"} {
			if outs[0] != outs[i+1] {
				t.Errorf("%s: one after the other\n%s\n%s\n%s", name, outs[0], how, outs[i+1])
			}
		}
		if !strings.Contains(outs[0], `"anomalies":{`) && name == "generated.edn" {
			t.Errorf("%s: no instances", name)
		}
	}
}
