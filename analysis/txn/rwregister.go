package txn

import (
	"cmp"
	"slices"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/model"
)

// CheckRWRegister analyses an rw-register history (docs/rw-register.md): its
// non-cycle anomalies, the per-key version orders inferred from the initial
// state and the sources opts asks for, the dependency graph, and the cycles
// of that graph, judged against opts.Models. pairing must come from
// model.Pair(h).
//
// Cost: O(ops + mops) for the indexes and non-cycle checks; the version
// orders take O(mops) per source (--linearizable-keys and
// --transaction-order under a budget linear in the history: orderBudget),
// plus sorting their edges; the graph takes
// O(edges), where every reader of a version gets an rw edge to the writer
// of each version its key's order puts right after it (as in Elle); plus
// the cycle search, bounded per component by opts.CycleBudget.
func CheckRWRegister(h *model.History, pairing model.Pairing, opts Options) *analysis.Result {
	start := time.Now()
	c := newChecker(h, pairing, opts, "rw-register")
	phase.Mark("txn records")
	c.prec = &graph.WRFirst
	yes, no := true, false
	flag := func(b bool) *bool {
		if b {
			return &yes
		}
		return &no
	}
	c.res.Options.WFRKeys, c.res.Options.SequentialKeys, c.res.Options.LinearizableKeys =
		flag(opts.WFRKeys), flag(opts.SequentialKeys), flag(opts.LinearizableKeys)
	if opts.TransactionOrder != nil {
		c.res.Options.TransactionOrder = analysis.IntPtr(int64(len(opts.TransactionOrder)))
	}
	rw := &rwRegister{}
	rw.txnChecks = newTxnChecks(c, rw)
	c.inf = rw
	rw.index()
	phase.Mark("rw-register index")
	rw.perTxn()
	phase.Mark("rw-register per-txn checks")
	rw.versionOrders()
	phase.Mark("rw-register version orders")
	rw.readers()
	rw.rwBudget()
	rw.release()
	phase.Mark("rw-register readers")
	if opts.Series {
		rw.series()
	}
	return c.run(start)
}

// Special values of a touch: no such access, and the initial state.
const (
	noVal  model.MsgID = -2
	nilVal             = model.NoMsg
)

// Writer markers besides a rec: nobody wrote the message, or more than one
// txn did.
const (
	noWriter  int32 = -1
	ambiguous int32 = -2
)

// touch is what one txn did with one key, for the inference: its external
// read (its first micro-op on the key, when that is a read: a message,
// nilVal for an ok txn's read of nil, or noVal) and its external write
// (its last write of the key, or noVal). 12 bytes: histories hold millions;
// the micro-ops' positions are looked up again for the few steps explained
// (extMops).
type touch struct {
	key   model.KeyID
	read  model.MsgID
	write model.MsgID
}

// source is where a version-order edge came from
// (docs/rw-register.md#version-orders), in the order sources are merged.
type source uint8

const (
	srcInitial source = iota
	srcTxnOrder
	srcWFR
	srcSequential
	srcLinearizable
)

// String names the source as options and JSON do.
func (s source) String() string {
	return [...]string{"initial-state", "transaction-order", "wfr-keys", "sequential-keys", "linearizable-keys"}[s]
}

// vedge is one edge of a key's version order: version from precedes
// version to. Versions are message ids, or len(Msgs)+k for the initial
// state of key k. a and b are the recs that justify it (-1 when unused).
type vedge struct {
	from, to int32
	key      model.KeyID
	src      source
	a, b     int32
}

// pair packs an edge's two versions into one sort key. The versions of
// an edge belong to one key, so edges in pair order are grouped by their
// first version, and an edge is found by its pair alone.
func (e *vedge) pair() uint64 { return uint64(uint32(e.from))<<32 | uint64(uint32(e.to)) }

// compareEdgeKeys orders edges by their pair alone.
func compareEdgeKeys(x, y vedge) int { return cmp.Compare(x.pair(), y.pair()) }

// compareVedges orders edges by their pair, then source and justifying
// recs (the first of equal edges is the one kept).
func compareVedges(x, y vedge) int {
	if px, py := x.pair(), y.pair(); px != py {
		if px < py {
			return -1
		}
		return 1
	}
	switch {
	case x.src != y.src:
		return int(x.src) - int(y.src)
	case x.a != y.a:
		return int(x.a - y.a)
	}
	return int(x.b - y.b)
}

// rwRegister is the rw-register inference: external reads and writes of
// each txn, the version order of each key (a partial order), and the wr,
// ww and rw edges it gives.
type rwRegister struct {
	// the checker, and the scratch of the per-txn checks (rwRegister is
	// their txnView)
	txnChecks
	// touches (touchesOf): repeats has bit r set when rec r touches a key
	// with more than one micro-op; big lists, sorted, those of them with
	// more than pairwiseMops micro-ops, whose touches are kept: big[i]'s
	// are bigTouches[bigStart[i]:bigStart[i+1]]. nTouches counts every
	// rec's touches.
	repeats    []uint64
	big        []int32
	bigStart   []int32
	bigTouches []touch
	nTouches   int64
	// per message: the rec that wrote it (noWriter, ambiguous), and
	// whether that write is not its writer's last write of the key
	writer []int32
	interm []bool
	// dups: the recs writing each message more than once (ambiguous ones)
	dups map[model.MsgID][]int32
	// dupKey: keys with an ambiguous value that some op read: left out of
	// the graph
	dupKey []bool
	// accepted version-order edges, sorted by pair (from, to): the
	// initial state's, nil before each value m (at least one per value,
	// so kept as m alone, 4 bytes where an edge takes 24: initEdge makes
	// the edge), sorted by key and then m, which is their pair order, with
	// the values that have one marked in initSet; and the other sources'
	// (eachVer merges the two)
	init    []model.MsgID
	initSet []uint64
	ver     []vedge
	// dropped[k] has bit s set when source s was dropped for key k
	dropped map[model.KeyID]uint8
	// readers of each version (message ids, then the initial state of
	// each key): vertex recs whose external read of the key saw it; CSR
	byState readerIndex
	// noRW marks versions whose readers get no rw edges (rwBudget)
	noRW map[int32]bool
	// msgIDs[m] is m: a value m is the list of one msgIDs[m:m+1]
	// (readOf; index makes it, before the per-txn checks read it from
	// every core; they are done before the graph is built, so release
	// drops it)
	msgIDs []model.MsgID
}

// release drops what only the per-txn checks use (txnChecks.release) and
// the identity table of values their reads went through.
func (rw *rwRegister) release() {
	rw.txnChecks.release()
	rw.msgIDs = nil
}

// nodeOf is the version node of value m of key k (m may be nilVal).
func (rw *rwRegister) nodeOf(k model.KeyID, m model.MsgID) int32 {
	if m == nilVal {
		return int32(len(rw.c.h.Msgs)) + int32(k)
	}
	return int32(m)
}

// valueOf is the value of version node n for JSON: nil for an initial
// state.
func (rw *rwRegister) valueOf(n int32) analysis.Value {
	if int(n) >= len(rw.c.h.Msgs) {
		return analysis.AtomValue(model.NilAtom)
	}
	return rw.c.msgVal(model.MsgID(n))
}

// touchesOf returns rec r's touches: one per key it reads or writes, in
// the order of the key's first such micro-op, with the value that micro-op
// read (if it reads) and the last value the txn wrote to the key
// (deriveTouches). Most are derived from the micro-ops into *buf, where
// the next call with buf overwrites them: a txn that touches each key once
// has one touch per read or write, and one that repeats a key among at
// most pairwiseMops micro-ops is merged by comparing keys. The touches of
// a larger one that repeats a key are kept (index). O(micro-ops), or
// O(log big) for a kept one.
func (rw *rwRegister) touchesOf(r int32, buf *[]touch) []touch {
	mops := rw.c.mops(r)
	repeat := rw.repeats[r>>6]&(1<<(r&63)) != 0
	if repeat && len(mops) > pairwiseMops {
		i, _ := slices.BinarySearch(rw.big, r)
		return rw.bigTouches[rw.bigStart[i]:rw.bigStart[i+1]]
	}
	out := *buf
	if cap(out) < len(mops) {
		out = make([]touch, len(mops), 2*len(mops))
		*buf = out // only here: a store through buf costs a write barrier
	}
	out = out[:len(mops)]
	n := 0
	typ := model.Fail // a read's value depends on the type only when not Done
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopWrite && m.Kind != model.MopRead || repeat && mergeTouch(out[:n], m) {
			continue
		}
		v := m.Msg
		if !m.Done && m.Kind == model.MopRead { // rare: a read in invocation form
			if typ == model.Fail {
				typ = rw.c.typOf(&rw.c.recs[r])
			}
			v = readValue(m, typ)
		}
		// without a branch on the kind, which reads and writes mixed at
		// random mispredict
		rd, wr := v, noVal
		if m.Kind == model.MopWrite {
			rd, wr = noVal, v
		}
		out[n] = touch{key: m.Key, read: rd, write: wr}
		n++
	}
	return out[:n]
}

// mergeTouch merges micro-op m into its key's touch in ts, if there is
// one, and reports whether there was.
func mergeTouch(ts []touch, m *model.Mop) bool {
	for j := range ts {
		if ts[j].key == m.Key {
			if m.Kind == model.MopWrite {
				ts[j].write = m.Msg
			}
			return true
		}
	}
	return false
}

// touchOf finds rec r's touch of key k; buf as for touchesOf.
func (rw *rwRegister) touchOf(r int32, k model.KeyID, buf *[]touch) (touch, bool) {
	for _, t := range rw.touchesOf(r, buf) {
		if t.key == k {
			return t, true
		}
	}
	return touch{}, false
}

// first is the first value of its key a txn of type typ interacted with,
// for orders derived from txn order: an ok txn's external read, else its
// external write; an info txn's external write (Elle's
// transaction-graph->version-graphs). noVal: none.
func first(t *touch, typ model.OpType) model.MsgID {
	if typ == model.OK && t.read != noVal {
		return t.read
	}
	return t.write
}

// final is the last value of its key a txn interacted with: its external
// write, else (ok txns) its external read.
func final(t *touch, typ model.OpType) model.MsgID {
	if t.write == noVal && typ == model.OK {
		return t.read
	}
	return t.write
}

// extWriter is the vertex rec whose external write is m, or -1.
func (rw *rwRegister) extWriter(m model.MsgID) int32 {
	if m < 0 {
		return -1
	}
	w := rw.writer[m]
	if w < 0 || rw.interm[m] || rw.c.recs[w].vertex < 0 {
		return -1
	}
	return w
}

// nodeWriter is extWriter of version node n: -1 for a key's initial state
// (nodeOf), which nobody wrote.
func (rw *rwRegister) nodeWriter(n int32) int32 {
	if n >= int32(len(rw.c.h.Msgs)) {
		return -1
	}
	return rw.extWriter(model.MsgID(n))
}

// usable reports whether value m may stand in a version order: not a
// value written by more than one txn (which write came first cannot be
// told).
func (rw *rwRegister) usable(m model.MsgID) bool {
	return m == nilVal || m >= 0 && rw.writer[m] != ambiguous
}

// duplicateWrites reports each value written to a key by more than one txn
// and read by an ok or info txn: which write the read saw cannot be told,
// so the key is left out of the graph and the verdict is at best unknown
// (ours: Elle refuses the whole history). A value written twice and never
// read matters to no edge and is only kept out of the version orders.
func (rw *rwRegister) duplicateWrites() {
	c := rw.c
	if len(rw.dups) == 0 {
		return
	}
	reader := map[model.MsgID]int32{}
	for r := range c.vertexRecs() {
		for _, m := range c.mops(r) {
			if m.Kind == model.MopRead && m.Done && rw.writer[m.Msg] == ambiguous {
				if _, ok := reader[m.Msg]; !ok {
					reader[m.Msg] = r
				}
			}
		}
	}
	ms := make([]model.MsgID, 0, len(reader))
	for m := range reader {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	for _, m := range ms {
		writers := rw.dups[m]
		k := c.h.MsgKey(m)
		rw.dupKey[k] = true
		var ops []int64
		for _, w := range writers {
			ops = append(ops, c.idx(w))
		}
		rd := reader[m]
		c.add(DuplicateWrites, &Instance{Subject: analysis.Subject{Key: c.keyVal(k)}, Value: analysis.AtomValuePtr(c.h.MsgValue(m)), Ops: ops,
			Reader: analysis.IntPtr(c.idx(rd)), Evidence: analysis.Evidence{Witness: c.witness(append(slices.Clone(writers), rd)...)}})
		c.unknownReason("%s: value %s was written to key %s by %s and read by op %d, so which write that read saw "+
			"cannot be told; the key was left out of the dependency graph", DuplicateWrites, c.h.MsgValue(m), c.h.Keys[k],
			opList(ops), c.idx(rd))
	}
}
