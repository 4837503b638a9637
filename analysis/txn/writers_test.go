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

// TestWritersClaimedAcrossPieces checks the writer indexes
// (listAppend.writers, rwRegister.index), which claim each message's
// writer in pieces of indexPiece recs on every core: ok txns late in a
// 40,000-txn history are made to write again values that txns of the
// first piece wrote, so that the later writer may claim a value before
// the earlier one does. With one worker and with four, the result must be
// the same to the byte, and every duplicate instance must list its
// writers in history order (list-append: every append, so a txn appending
// a value twice is listed twice; rw-register: each writer once).
func TestWritersClaimedAcrossPieces(t *testing.T) {
	for _, tc := range []struct {
		w     gen.Workload
		write model.MopKind
		typ   string
		check func(*model.History, model.Pairing, Options) *analysis.Result
	}{
		{gen.ListAppend, model.MopAppend, DuplicateAppends, CheckListAppend},
		{gen.RWRegister, model.MopWrite, DuplicateWrites, CheckRWRegister},
	} {
		t.Run(tc.w.String(), func(t *testing.T) {
			cfg := txnConfig(tc.w, 5)
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
					if m.Kind != tc.write {
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
				res := tc.check(h, p, DefaultOptions())
				dups := analysis.InstancesOf[*Instance](res, tc.typ)
				if len(dups) == 0 {
					t.Fatalf("no %s in %v", tc.typ, res.AnomalyTypes)
				}
				for _, d := range dups {
					once := tc.write == model.MopWrite
					if len(d.Ops) < 2 || !slices.IsSorted(d.Ops) || once && len(slices.Compact(slices.Clone(d.Ops))) != len(d.Ops) {
						t.Errorf("writers %v: want two or more in history order", d.Ops)
					}
				}
				out[i] = resultJSON(t, res)
			}
			if !bytes.Equal(out[0], out[1]) || !bytes.Equal(out[0], out[2]) {
				t.Errorf("GOMAXPROCS=1 and 4 differ:\n%s\n%s", firstDiff(out[0], out[1]), firstDiff(out[1], out[0]))
			}
		})
	}
}

// TestReappendsPutTogether checks the step after the parallel pass of the
// writer indexes, where scheduling cannot reach: a message claimed by a
// later rec than another that wrote it (a later piece ran first) gets
// its writers in rec order, and list-append keeps the earliest as its
// writer, is intermediate if any append was, and leaves the key out.
func TestReappendsPutTogether(t *testing.T) {
	var l testhist.Lines
	for i := range 4 {
		l.Pair(i, "txn", "[[:append 1 7]]", "ok", "[[:append 1 7]]")
	}
	h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "reappends.edn")
	m := h.MopsOf(&h.Ops[1])[0].Msg

	c := newChecker(h, p, DefaultOptions(), "list-append")
	la := &listAppend{txnChecks: txnChecks{c: c}}
	la.writer, la.interm, la.dupKey = []int32{3}, make([]bool, 1), make([]bool, len(h.Keys))
	la.duplicates([][]reappend{{{m, 0, false}, {m, 2, true}}, {{m, 2, false}}})
	if got := la.dups[m]; !slices.Equal(got, []int32{0, 2, 2, 3}) {
		t.Errorf("list-append dups %v, want [0 2 2 3]", got)
	}
	if la.writer[m] != 0 || !la.interm[m] || !la.dupKey[h.MsgKey(m)] {
		t.Errorf("list-append: writer %d (want 0), interm %v, dupKey %v (want true)", la.writer[m], la.interm[m], la.dupKey[h.MsgKey(m)])
	}

	rw := &rwRegister{txnChecks: txnChecks{c: c}}
	rw.writer = []int32{3}
	rw.ambiguous([][]rewrite{{{m, 0}, {m, 2}}, {{m, 2}}})
	if got := rw.dups[m]; !slices.Equal(got, []int32{0, 2, 3}) {
		t.Errorf("rw-register dups %v, want [0 2 3]", got)
	}
	if rw.writer[m] != ambiguous {
		t.Errorf("rw-register writer %d, want ambiguous", rw.writer[m])
	}
}
