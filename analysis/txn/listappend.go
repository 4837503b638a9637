package txn

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/model"
)

// CheckListAppend analyses a list-append history (docs/list-append.md): its
// non-cycle anomalies, the dependency graph inferred from the lists read,
// and the cycles of that graph, judged against opts.Models. pairing must
// come from model.Pair(h).
//
// Cost: O(ops + mops + read elements) for the indexes and non-cycle checks
// (plus sorting the reads of each key), O(edges) for the graph, plus the
// cycle search, bounded per component by opts.CycleBudget.
func CheckListAppend(h *model.History, pairing model.Pairing, opts Options) *analysis.Result {
	start := time.Now()
	c := newChecker(h, pairing, opts, "list-append")
	phase.Mark("txn records")
	la := &listAppend{}
	la.txnChecks = newTxnChecks(c, la)
	nk := len(h.Keys)
	la.marksPool.New = func() any { m := newMarks(nk); return &m }
	c.inf = la
	la.index()
	c.collect() // the reads, now indexed
	la.nonCycle()
	phase.Mark("list-append non-cycle checks")
	la.release()
	c.collect() // the per-txn checks' indexes, before the graph's arrays
	if opts.Series {
		for k, o := range la.order {
			if len(o) == 0 {
				continue
			}
			from := int64(-1)
			if r := la.orderSrc[k]; r >= 0 {
				from = c.idx(r)
			}
			c.res.Series.Orders = append(c.res.Series.Orders, analysis.KeyOrder{Key: model.KeyID(k), Elems: o, From: from})
		}
	}
	return c.run(start)
}

// listAppend is the list-append inference: version orders from the lists
// read, and the ww, wr and rw edges between adjacent versions.
type listAppend struct {
	// the checker, and the scratch of the per-txn checks (listAppend is
	// their txnView)
	txnChecks
	// per message (a key and an element)
	writer  []int32 // rec that appended it, -1
	interm  []bool  // not its writer's last append to the key
	pos     []int32 // position in its key's version order, -1
	shownBy []int32 // first rec (in history order) whose read showed it in order, -1
	// per key
	order    [][]model.MsgID // version order: the longest read, without repeats
	orderSrc []int32         // rec whose read gave the version order, -1
	dupKey   []bool          // an element appended twice: the key is left out
	// readers of each state: element states are message ids, the empty
	// state of key k is len(Msgs)+k; CSR over recs
	byState readerIndex
	// reads, in history order (until the readers are indexed: then nil,
	// byKey holding those still needed)
	reads []readRef
	// dups: the recs appending each message more than once
	dups map[model.MsgID][]int32
	// readOrder is the order from reads alone (no single-append rule), for
	// dirty-update
	readOrder [][]model.MsgID
	// the reads sorted by key (then list, compareLists, and rec), as
	// positions in reads, and where each key's run starts (CSR over keys); once the
	// indexes are built, byKey holds the reads of the keys that are not
	// clean in that order (keepUncleanReads), keyStart locating them
	keyReads []int32
	byKey    []readRef
	keyStart []int32
	// clean: every read of the key, repeats dropped, is a prefix of its
	// version order, so no read contradicts any of its order pairs
	clean []bool
	// runs, by the number of a stored element (runAt) that starts some
	// read's span: -(1 + the index of the first element of the run from
	// there that a per-txn check reports), the run being as long as the
	// longest such read (cleanKeys); 0 elsewhere. Dropped with the per-txn
	// checks' scratch.
	runs  []int32
	runAt model.Positions
	// pairs: the order pairs the reads of an unclean key show, built when
	// a step first needs them
	pairs map[model.KeyID]*pairIndex
	// contested: the keys contested steps named, by their atom (orderOp)
	contested map[model.Atom]model.KeyID
	// marks for emit's ranges, which run at once (edges)
	marksPool sync.Pool
}

// readRef is one list read of a vertex txn (16 bytes: a history holds about
// one per txn; whether it is external, and which of the txn's micro-ops it
// is, are found again where needed). It keeps the list's span, so that the
// passes over a key's reads reach the elements without going through the
// txn's record, op and micro-op, loads at random places (a tenth of the
// CPU of a 1M-transaction check went to them). Reads of one state mostly
// share their span (ingest stores a key's lists as prefixes of one run),
// which makes comparing two of them cheap (compareLists) without a hash
// of each list beside it.
type readRef struct {
	rec int32
	key model.KeyID
	es  model.Span // the list's elements in History.ElemStore; es.N its length
}

// n is the length of the list read.
func (rd *readRef) n() int32 { return rd.es.N }

// list returns the elements rd read.
func (la *listAppend) list(rd *readRef) []model.MsgID { return la.c.h.ElemStore.Get(rd.es) }

// elems returns the list read by micro-op i of rec r, and false when the
// read is unknown (an info txn's nil). An ok txn's nil read counts as the
// empty list, as Elle's read index has it.
func (la *listAppend) elems(r int32, m *model.Mop) ([]model.MsgID, bool) {
	switch m.Kind {
	case model.MopReadList:
		return la.c.h.ElemsOf(m), true
	case model.MopRead:
		if !m.Done && la.c.typOf(&la.c.recs[r]) == model.OK {
			return nil, true
		}
	}
	return nil, false
}

// externals sets ext[i], for each micro-op i of mops, to whether it comes
// before the txn's first append to its key (for a read: whether it is
// external), reusing ext. O(len(mops)).
func (la *listAppend) externals(mops []model.Mop, ext []bool) []bool {
	return externalsWith(&la.keyMarks, mops, ext)
}

// externalsWith is externals with first as its scratch.
func externalsWith(first *marks, mops []model.Mop, ext []bool) []bool {
	first.reset()
	for i := range mops {
		if mops[i].Kind == model.MopAppend || mops[i].Kind == model.MopWrite {
			first.setFirst(int32(mops[i].Key), int32(i))
		}
	}
	ext = slices.Grow(ext[:0], len(mops))[:len(mops)]
	for i := range mops {
		j, ok := first.get(int32(mops[i].Key))
		ext[i] = !ok || j >= int32(i)
	}
	return ext
}

// compareLists orders the lists of two reads by length, then element by
// element; reads of one span are equal without a look at the elements.
func (la *listAppend) compareLists(a, b *readRef) int {
	switch {
	case a.es.N != b.es.N:
		return cmp.Compare(a.es.N, b.es.N)
	case a.es.Start == b.es.Start:
		return 0
	}
	return slices.Compare(la.list(a), la.list(b))
}

func filledInt32(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// listSpan is the span of the list a read micro-op returned: empty for a
// nil read (elems).
func (la *listAppend) listSpan(m *model.Mop) model.Span { return la.c.h.SpanOf(m) }
