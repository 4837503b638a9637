package txn

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testhist"
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
	c := newChecker(h, p, DefaultOptions(), "list-append")
	la := &listAppend{}
	la.txnChecks = newTxnChecks(c, la)
	la.marksPool.New = func() any { m := newMarks(len(h.Keys)); return &m }
	c.inf = la
	// index's steps up to readers
	la.writer = filledInt32(len(h.Msgs), -1)
	la.interm = make([]bool, len(h.Msgs))
	la.dupKey = make([]bool, len(h.Keys))
	ap, reads := la.writers()
	la.recordReads(reads)
	la.versionOrders(ap)
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
