package txn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

// TestWorkersSameOutput checks every reference history of
// ../shared/reference/txn with one worker (GOMAXPROCS=1) and with four:
// the results, version orders included (Options.Series), must be the same
// to the byte once the elapsed time is left out.
func TestWorkersSameOutput(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testpaths.Reference(t), "txn", "*.edn.gz"))
	if len(files) == 0 {
		t.Fatal("no reference histories in ../shared/reference/txn")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".edn.gz")
		check := CheckListAppend
		if strings.HasPrefix(name, "rw-") {
			check = CheckRWRegister
		}
		t.Run(name, func(t *testing.T) {
			h, p := testhist.File(t, f)
			opts := DefaultOptions()
			opts.Series = true
			var out [2][]byte
			for i, procs := range []int{1, 4} {
				runtime.GOMAXPROCS(procs)
				out[i] = resultJSON(t, check(h, p, opts))
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Errorf("GOMAXPROCS=1 and 4 differ:\n%s\n%s", firstDiff(out[0], out[1]), firstDiff(out[1], out[0]))
			}
		})
	}
}

// TestWorkersSameOutputGenerated is TestWorkersSameOutput on histories
// of this repository's own: 40,000 generated txns of each workload with
// every fault the generator can inject into it, so that the per-txn checks
// (which run in pieces of perTxnPiece txns on every core) report many
// instances of every type from many pieces.
func TestWorkersSameOutputGenerated(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, w := range []gen.Workload{gen.ListAppend, gen.RWRegister} {
		t.Run(w.String(), func(t *testing.T) {
			cfg := txnConfig(w, 7)
			cfg.Txns = 40_000
			for _, k := range gen.TxnFaultKinds() {
				if k.AppliesTo(w) {
					cfg.Faults = append(cfg.Faults, gen.TxnFault{Kind: k, Count: 12})
				}
			}
			h, p := testhist.Txn(t, cfg)
			check := CheckListAppend
			if w == gen.RWRegister {
				check = CheckRWRegister
			}
			opts := DefaultOptions()
			opts.Series = true
			var out [2][]byte
			var res *analysis.Result
			for i, procs := range []int{1, 4} {
				runtime.GOMAXPROCS(procs)
				res = check(h, p, opts)
				out[i] = resultJSON(t, res)
			}
			if len(res.AnomalyTypes) < 6 {
				t.Fatalf("want the injected faults' types, got %v", res.AnomalyTypes)
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Errorf("GOMAXPROCS=1 and 4 differ:\n%s\n%s", firstDiff(out[0], out[1]), firstDiff(out[1], out[0]))
			}
		})
	}
}

// resultJSON is res as JSON without its elapsed time.
func resultJSON(t *testing.T, res *analysis.Result) []byte {
	t.Helper()
	res.Stats.ElapsedMS = 0
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff is a of b's length around the first byte where they differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return string(a[max(0, i-80):min(len(a), i+80)])
}

// TestBudgetSameOutput checks that the cycle budget counts work, not time:
// a huge component whose search finds a cycle type and then runs out of a
// small budget gives the same result to the byte with one worker and with
// four, run after run. (graph's TestEachComponentSameResults covers many
// components searched at once.)
func TestBudgetSameOutput(t *testing.T) {
	h, p := testhist.Txn(t, gen.HugeSCCConfig(1))
	opts := DefaultOptions()
	opts.CycleBudget = 15 * time.Millisecond // 375,000 steps: some types are found, then the budget runs out
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var out [3][]byte
	var res *analysis.Result
	for i, procs := range []int{1, 4, 4} {
		runtime.GOMAXPROCS(procs)
		res = CheckListAppend(h, p, opts)
		out[i] = resultJSON(t, res)
	}
	if len(analysis.InstancesOf[*Instance](res, CycleSearchTimeout)) == 0 || len(res.AnomalyTypes) < 3 {
		t.Fatalf("want a cycle-search-timeout after some type was found: types %v", res.AnomalyTypes)
	}
	for i := 1; i < len(out); i++ {
		if !bytes.Equal(out[0], out[i]) {
			t.Errorf("run %d differs from the first (GOMAXPROCS=1):\n%s\n%s", i, firstDiff(out[0], out[i]), firstDiff(out[i], out[0]))
		}
	}
}

// TestReaderIndexBuild builds the readers index of random reads on every
// core, in ranges of items and pieces of rows, and checks it against the
// index a serial pass makes: each state's readers in history (rec) order,
// a rec that read a state twice kept once.
func TestReaderIndexBuild(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ states, reads int }{{10, 30}, {50_000, 120_000}, {40_000, 9_000}} {
		// reads in history order: rec r reads a few states, some twice
		type read struct{ st, rec int32 }
		var reads []read
		for rec := int32(0); len(reads) < c.reads; rec++ {
			for range 1 + r.IntN(3) {
				st := int32(r.IntN(c.states))
				reads = append(reads, read{st, rec})
				if r.IntN(5) == 0 {
					reads = append(reads, read{st, rec})
				}
			}
		}
		want := make([][]int32, c.states)
		for _, rd := range reads {
			if w := want[rd.st]; len(w) == 0 || w[len(w)-1] != rd.rec {
				want[rd.st] = append(w, rd.rec)
			}
		}
		var ix readerIndex
		ix.build(c.states, len(reads), func(lo, hi int, f func(st, r int32)) {
			for _, rd := range reads[lo:hi] {
				f(rd.st, rd.rec)
			}
		})
		for st := range c.states {
			if got := ix.of(int32(st)); !slices.Equal(got, want[st]) {
				t.Fatalf("%d states, %d reads: state %d has readers %v, want %v", c.states, len(reads), st, got, want[st])
			}
		}
		if len(ix.recs) != int(ix.start[c.states]) {
			t.Errorf("%d recs kept, the rows end at %d", len(ix.recs), ix.start[c.states])
		}
	}
}

// TestWritersClaimedAcrossPieces checks the writer indexes
// (listAppend.writers, rwRegister.index), which claim each message's
// writer in pieces of recs on every core (readPiece, 8,192, and
// graph.CompactRows', at least 16,384: three pieces at least): ok txns
// late in a 40,000-txn history are made to write again values that txns of the
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
			h, p := rewrittenHistory(t, tc.w, tc.write)
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

// rewrittenHistory is a 40,000-txn history of workload w in which ok txns
// late in the history write again (micro-ops of kind write) values that
// txns of its first twentieth wrote.
func rewrittenHistory(t *testing.T, w gen.Workload, write model.MopKind) (*model.History, model.Pairing) {
	t.Helper()
	cfg := txnConfig(w, 5)
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
			if m.Kind != write {
				continue
			}
			switch {
			case i < len(h.Ops)/20:
				early = append(early, m)
			case i > len(h.Ops)*3/5 && i%97 == 0 && len(early) > 0:
				// the generator retires keys: the write goes to an early
				// key, with a value an early txn wrote to it
				e := early[rewritten%len(early)]
				h.MopsOf(op)[j].Key, h.MopsOf(op)[j].Msg = e.Key, e.Msg
				rewritten++
			}
		}
	}
	if rewritten < 10 || len(h.Ops)/2 < 2*16384+1 {
		t.Fatalf("want rewrites across pieces: %d rewrites, %d txns", rewritten, len(h.Ops)/2)
	}
	return h, p
}

// TestRWIndexMatchesSerial checks rwRegister.index, whose pieces fill and
// move rows on every core (graph.CompactRows), against a plain pass in
// history order, on the history of TestWritersClaimedAcrossPieces at one
// worker and at four: each rec's touches (key, external read, last
// write), each message's writer (ambiguous when two recs wrote it), the
// writers of the ambiguous ones, and the initial state's version edges
// (initialEdges, also cut into pieces on every core).
func TestRWIndexMatchesSerial(t *testing.T) {
	h, p := rewrittenHistory(t, gen.RWRegister, model.MopWrite)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		c, rw := indexedRW(h, p)
		writers := map[model.MsgID][]int32{}
		var buf []touch
		for r := range c.recs {
			r := int32(r)
			for _, m := range c.mops(r) {
				if m.Kind == model.MopWrite {
					if ws := writers[m.Msg]; len(ws) == 0 || ws[len(ws)-1] != r {
						writers[m.Msg] = append(ws, r)
					}
				}
			}
			if got, want := rw.touchesOf(r, &buf), plainTouches(c, r); !slices.Equal(got, want) {
				t.Fatalf("GOMAXPROCS=%d: rec %d touches %v, want %v", procs, r, got, want)
			}
		}
		ambiguousOnes := 0
		for m, ws := range writers {
			want := ws[0]
			if len(ws) > 1 {
				want = ambiguous
				ambiguousOnes++
				if !slices.Equal(rw.dups[m], ws) {
					t.Errorf("GOMAXPROCS=%d: message %d written by %v, dups %v", procs, m, ws, rw.dups[m])
				}
			}
			if rw.writer[m] != want {
				t.Errorf("GOMAXPROCS=%d: message %d writer %d, want %d", procs, m, rw.writer[m], want)
			}
		}
		if ambiguousOnes == 0 || len(rw.dups) != ambiguousOnes {
			t.Errorf("GOMAXPROCS=%d: %d ambiguous messages, %d in dups", procs, ambiguousOnes, len(rw.dups))
		}
		// the initial state's edges: nil before every value a vertex rec
		// read or wrote externally, by key, then value
		seen := make([]bool, len(h.Msgs))
		for _, r := range c.vrec {
			for _, t := range rw.touchesOf(r, &buf) {
				for _, m := range [2]model.MsgID{t.read, t.write} {
					if m >= 0 {
						seen[m] = true
					}
				}
			}
		}
		byKey := make([][]model.MsgID, len(h.Keys))
		for i, ok := range seen {
			m := model.MsgID(i)
			if k := h.MsgKey(m); ok && !rw.dupKey[k] && rw.usable(m) {
				byKey[k] = append(byKey[k], m)
			}
		}
		got, set := rw.initialEdges()
		if want := slices.Concat(byKey...); !slices.Equal(got, want) {
			t.Errorf("GOMAXPROCS=%d: %d initial edges, want %d (or in another order)", procs, len(got), len(want))
		}
		rw.init, rw.initSet = got, set
		for i, ok := range seen {
			k := h.MsgKey(model.MsgID(i))
			want := ok && !rw.dupKey[k] && rw.usable(model.MsgID(i))
			if rw.hasInitEdge(int32(i)) != want {
				t.Errorf("GOMAXPROCS=%d: message %d marked %v, want %v", procs, i, !want, want)
			}
			if e, found := rw.edge(rw.nodeOf(k, nilVal), int32(i)); found != want ||
				want && e != (vedge{from: rw.nodeOf(k, nilVal), to: int32(i), key: k, src: srcInitial, a: -1, b: -1}) {
				t.Errorf("GOMAXPROCS=%d: initial edge to message %d: %+v, %v", procs, i, e, found)
			}
			if other := (k + 1) % model.KeyID(len(h.Keys)); other != k {
				if _, found := rw.edge(rw.nodeOf(other, nilVal), int32(i)); found {
					t.Errorf("GOMAXPROCS=%d: an edge from key %d's initial state to message %d of key %d", procs, other, i, k)
				}
			}
		}
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
	la.duplicates([][]lostClaim{{{m, 0, false}, {m, 2, true}}, {{m, 2, false}}})
	if got := la.dups[m]; !slices.Equal(got, []int32{0, 2, 2, 3}) {
		t.Errorf("list-append dups %v, want [0 2 2 3]", got)
	}
	if la.writer[m] != 0 || !la.interm[m] || !la.dupKey[h.MsgKey(m)] {
		t.Errorf("list-append: writer %d (want 0), interm %v, dupKey %v (want true)", la.writer[m], la.interm[m], la.dupKey[h.MsgKey(m)])
	}

	rw := &rwRegister{txnChecks: txnChecks{c: c}}
	rw.writer = []int32{3}
	rw.ambiguous([][]lostClaim{{{m, 0, false}, {m, 2, false}}, {{m, 2, false}}})
	if got := rw.dups[m]; !slices.Equal(got, []int32{0, 2, 3}) {
		t.Errorf("rw-register dups %v, want [0 2 3]", got)
	}
	if rw.writer[m] != ambiguous {
		t.Errorf("rw-register writer %d, want ambiguous", rw.writer[m])
	}
}

// TestTimeoutFallbackNotTwice: a ring of n concurrent txns, each reading
// the next one's key empty, is one G2-item cycle through them all. A
// budget that finds it from the first start and runs out looking for a
// shorter one from the others gives a cycle-search-timeout whose fallback
// cycle is that same ring: it is reported once, not twice.
func TestTimeoutFallbackNotTwice(t *testing.T) {
	const n = 300
	var l testhist.Lines
	for j := range n {
		l.Op("invoke", j, "txn", fmt.Sprintf("[[:append %d 1] [:r %d nil]]", j, (j+1)%n))
	}
	for j := range n {
		l.Op("ok", j, "txn", fmt.Sprintf("[[:append %d 1] [:r %d []]]", j, (j+1)%n))
	}
	h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "ring.edn")
	opts := DefaultOptions()
	opts.CycleBudget = time.Duration(float64(100*n) / graph.StepsPerSecond * float64(time.Second)) // the ring is found, then the budget runs out
	res := CheckListAppend(h, p, opts)
	if len(analysis.InstancesOf[*Instance](res, CycleSearchTimeout)) != 1 {
		t.Fatalf("want a cycle-search-timeout; types %v", res.AnomalyTypes)
	}
	rings := 0
	for _, typ := range res.AnomalyTypes {
		for _, in := range analysis.InstancesOf[*Instance](res, typ) {
			if in.CycleFields != nil && len(in.Cycle) == n {
				rings++
			}
		}
	}
	if rings != 1 {
		t.Errorf("the ring is reported %d times; types %v", rings, res.AnomalyTypes)
	}
}
