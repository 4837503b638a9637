package txn

import (
	"bytes"
	"runtime"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// TestIndexRewritesAcrossPieces checks rwRegister.index's claim of each
// message's writer, which runs in pieces of indexPiece recs on every core:
// ok txns late in a 40,000-txn history are made to write again values
// that txns of the first piece wrote, so that the later writer may claim
// a value before the earlier one does. With one worker and with four, the
// result must be the same to the byte, and every duplicate-writes
// instance must list its writers once each, in history order.
func TestIndexRewritesAcrossPieces(t *testing.T) {
	cfg := txnConfig(gen.RWRegister, 5)
	cfg.Txns = 40_000
	h, p := testhist.Txn(t, cfg)
	var early []model.Mop // writes of the first piece's txns
	rewritten := 0
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Type != model.OK {
			continue
		}
		for j, m := range h.MopsOf(op) {
			if m.Kind != model.MopWrite {
				continue
			}
			switch {
			case i < len(h.Ops)/20:
				early = append(early, m)
			case i > len(h.Ops)*3/5 && i%97 == 0 && len(early) > 0:
				// the generator retires keys: the write goes to an
				// early key, with a value an early txn wrote to it
				e := early[rewritten%len(early)]
				h.MopsOf(op)[j].Key, h.MopsOf(op)[j].Msg = e.Key, e.Msg
				rewritten++
			}
		}
	}
	if rewritten < 10 || len(h.Ops)/2 < 3*indexPiece {
		t.Fatalf("want rewrites across pieces: %d rewrites, %d txns", rewritten, len(h.Ops)/2)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var out [3][]byte
	for i, procs := range []int{1, 4, 4} {
		runtime.GOMAXPROCS(procs)
		res := CheckRWRegister(h, p, DefaultOptions())
		dups := analysis.InstancesOf[*Instance](res, DuplicateWrites)
		if len(dups) == 0 {
			t.Fatalf("no %s in %v", DuplicateWrites, res.AnomalyTypes)
		}
		for _, d := range dups {
			if len(d.Ops) < 2 || !slices.IsSorted(d.Ops) || len(slices.Compact(slices.Clone(d.Ops))) != len(d.Ops) {
				t.Errorf("writers %v: want two or more, each once, in history order", d.Ops)
			}
		}
		out[i] = resultJSON(t, res)
	}
	if !bytes.Equal(out[0], out[1]) || !bytes.Equal(out[0], out[2]) {
		t.Errorf("GOMAXPROCS=1 and 4 differ:\n%s\n%s", firstDiff(out[0], out[1]), firstDiff(out[1], out[0]))
	}
}
