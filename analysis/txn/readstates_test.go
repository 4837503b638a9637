package txn

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// TestReadStatesAcrossRanges: readStates splits the reads into ranges of
// whole txns and finds each read's micro-op again from its txn's first, so
// a txn whose reads straddle several ranges (here 24,000 reads, ranges of
// 16,384) must get the states a serial pass gets, which takes each read's
// micro-op from the order recordReads recorded them in.
func TestReadStatesAcrossRanges(t *testing.T) {
	// an odd number of reads before the big txn: a range that counted its
	// micro-ops afresh from where the range starts would take its internal
	// reads for external ones
	const before, keys, after = 10_001, 12_000, 5_000
	var l testhist.Lines
	for i := range before {
		l.Pair(1, "txn", fmt.Sprintf("[[:r %d nil]]", i), "ok", fmt.Sprintf("[[:r %d []]]", i))
	}
	var inv, ok strings.Builder
	for k := range keys {
		// an external read, an append, and a read of its own append
		fmt.Fprintf(&inv, "[:r %d nil] [:append %d %d] [:r %d nil] ", k, k, k, k)
		fmt.Fprintf(&ok, "[:r %d []] [:append %d %d] [:r %d [%d]] ", k, k, k, k, k)
	}
	l.Pair(0, "txn", "["+inv.String()+"]", "ok", "["+ok.String()+"]")
	for i := range after {
		l.Pair(2, "txn", fmt.Sprintf("[[:r %d nil]]", i), "ok", fmt.Sprintf("[[:r %d [%d]]]", i, i))
	}
	h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "ranges.edn")
	la := orderedListAppend(h, p)
	c := la.c
	if len(la.reads) != before+2*keys+after {
		t.Fatalf("%d reads recorded, want %d", len(la.reads), before+2*keys+after)
	}

	got := la.readStates()

	// the serial pass: each read's micro-op as recordReads met it
	var mopOf []int
	for r := range c.recs {
		if c.recs[r].vertex < 0 {
			continue
		}
		for j, m := range c.mops(int32(r)) {
			if _, ok := la.elems(int32(r), &m); ok {
				mopOf = append(mopOf, j)
			}
		}
	}
	first := newMarks(len(h.Keys))
	external := 0
	var ext []bool
	for i := range la.reads {
		rd := &la.reads[i]
		if i == 0 || la.reads[i-1].rec != rd.rec {
			ext = externalsWith(&first, c.mops(rd.rec), ext)
		}
		want := int32(-1)
		if !la.dupKey[rd.key] && ext[mopOf[i]] {
			want = la.state(rd.key, la.list(rd))
			external++
		}
		if got[i] != want {
			t.Fatalf("read %d (rec %d, micro-op %d): state %d, want %d", i, rd.rec, mopOf[i], got[i], want)
		}
	}
	// every read is external but the big txn's reads of its own appends
	if want := before + keys + after; external != want {
		t.Errorf("%d external reads, want %d", external, want)
	}
}

// orderedListAppend runs index's steps on h up to the version orders.
func orderedListAppend(h *model.History, p model.Pairing) *listAppend {
	c := newChecker(h, p, DefaultOptions(), "list-append")
	la := &listAppend{}
	la.txnChecks = newTxnChecks(c, la)
	la.marksPool.New = func() any { m := newMarks(len(h.Keys)); return &m }
	c.inf = la
	la.writer = filledInt32(len(h.Msgs), -1)
	la.interm = make([]bool, len(h.Msgs))
	la.dupKey = make([]bool, len(h.Keys))
	ap, reads := la.writers()
	la.recordReads(reads)
	la.versionOrders(ap)
	return la
}

// TestShownByInHistoryOrder: shownByKey, which goes key by key through
// the reads sorted by list, gives each element of an order the rec of the
// first read in history order that showed it in place (its list, repeats
// dropped when longer than the order, a prefix of the order reaching it),
// on generated histories clean and with every fault (incompatible orders
// and duplicate elements among them), and on reads with repeats.
func TestShownByInHistoryOrder(t *testing.T) {
	var hs []string
	faults := [][]gen.TxnFault{nil}
	for _, k := range gen.TxnFaultKinds() {
		faults = append(faults, []gen.TxnFault{{Kind: k, Count: 5}})
	}
	for _, f := range faults {
		cfg := txnConfig(gen.ListAppend, 7)
		cfg.Faults = f
		var buf bytes.Buffer
		if _, err := gen.WriteTxn(&buf, cfg); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, buf.String())
	}
	var l testhist.Lines
	appends := func(k int, vs ...int) { // one ok txn appending vs to k
		var m strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&m, "[:append %d %d]", k, v)
		}
		l.Pair(0, "txn", "["+m.String()+"]", "ok", "["+m.String()+"]")
	}
	reads := func(k int, lists ...string) { // one ok txn per list read of k
		for _, list := range lists {
			l.Pair(1, "txn", fmt.Sprintf("[[:r %d nil]]", k), "ok", fmt.Sprintf("[[:r %d %s]]", k, list))
		}
	}
	// repeats: the later reads show the order
	appends(1, 1, 2)
	reads(1, "[1 1]", "[1 1 2]", "[1]")
	appends(1, 3)
	reads(1, "[1 2 3]")
	// a longer read before a shorter one shows the shorter one's elements
	appends(2, 5, 6)
	reads(2, "[5 6]", "[5]")
	// two lists showing one prefix: the first read wins, not the first list
	appends(3, 7, 8)
	reads(3, "[7 8]", "[7 8 8]")
	hs = append(hs, string(l.Bytes()))
	shown := 0
	for n, text := range hs {
		h, p := testhist.Read(t, strings.NewReader(text), fmt.Sprintf("h%d.edn", n))
		la := orderedListAppend(h, p)
		la.cleanKeys()
		want := filledInt32(len(h.Msgs), -1)
		for i := range la.reads {
			rd := &la.reads[i]
			o, es := la.order[rd.key], la.list(rd)
			if len(es) > len(o) {
				es = withoutRepeats(es)
			}
			if len(es) > len(o) || !slices.Equal(es, o[:len(es)]) {
				continue
			}
			for _, e := range es {
				if want[e] < 0 {
					want[e] = rd.rec
					shown++
				}
			}
		}
		for e := range want {
			if la.shownBy[e] != want[e] {
				t.Fatalf("history %d: element %d shown by rec %d, want %d", n, e, la.shownBy[e], want[e])
			}
		}
	}
	if shown == 0 {
		t.Fatal("no element shown by any read")
	}
}
