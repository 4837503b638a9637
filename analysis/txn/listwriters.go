package txn

import (
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// lostClaim is a write of a message (an append, in list-append) by a rec
// that found the message claimed already, by another rec or by an
// earlier write of its own: the stuff of duplicate-appends and
// duplicate-writes, rare in a real history. interm is list-append's: the
// append was not the txn's last to its key.
type lostClaim struct {
	msg    model.MsgID
	rec    int32
	interm bool
}

// writersOf lists, for each message with a lost claim, the rec that
// claimed it (writer) and the rec of every lost claim, sorted: in rec
// order, as a pass in history order meets them. nil when none was lost.
// O(lost log lost).
func writersOf(writer []int32, lost [][]lostClaim) map[model.MsgID][]int32 {
	var dups map[model.MsgID][]int32
	for _, cs := range lost {
		for _, x := range cs {
			if dups == nil {
				dups = map[model.MsgID][]int32{}
			}
			d := dups[x.msg]
			if len(d) == 0 {
				d = []int32{writer[x.msg]}
			}
			dups[x.msg] = append(d, x.rec)
		}
	}
	for _, d := range dups {
		slices.Sort(d)
	}
	return dups
}

// writers builds the writer index (writer, interm, dups, dupKey), counts
// each key's appends by vertex recs, and counts the reads recordReads
// will record, on every core: pieces of readPiece recs, each worker
// counting appends into its own keyAppends, summed afterwards, and the
// reads of piece i into reads[i+1] (recordReads' pieces, whose stretches
// they size). The first append of a message claims it with a
// compare-and-swap; any other append of it is a lost claim, and the lost
// claims, put together after the pass, list every append of the message
// in dups in rec order and leave the earliest rec its writer, as a pass
// in history order does. O(mops + keys · workers).
func (la *listAppend) writers() (ap keyAppends, reads []int) {
	c := la.c
	nk := len(c.h.Keys)
	n := len(c.recs)
	pieces := (n + readPiece - 1) / readPiece
	lost := make([][]lostClaim, pieces)
	reads = make([]int, pieces+1)
	var scratch par.Scratches[keyAppends]
	par.Pieces(n, readPiece, func() func(i, lo, hi int) {
		later := newMarks(nk)
		own := scratch.New(keyAppends{n: make([]int32, nk), single: make([]model.MsgID, nk)})
		var interm []bool
		return func(i, lo, hi int) {
			n := 0
			for r := int32(lo); r < int32(hi); r++ {
				var k int
				interm, k = la.writerOf(r, &later, &own, interm, &lost[i])
				n += k
			}
			reads[i+1] = n // once: neighbours share a cache line
		}
	})
	counts := scratch.All()
	if len(counts) == 0 { // no recs
		return keyAppends{n: make([]int32, nk), single: make([]model.MsgID, nk)}, reads
	}
	ap = counts[0]
	for _, o := range counts[1:] {
		par.EachRange(nk, minRange, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				if o.n[k] > 0 {
					ap.n[k] += o.n[k]
					ap.single[k] = o.single[k] // used when n is 1: then this is it
				}
			}
		})
	}
	la.duplicates(lost)
	return ap, reads
}

// writerOf claims the messages rec r appends, marks those that are not
// its last append to their key (interm), and counts its appends into ap
// when it is a vertex, returning how many reads recordReads will record
// of it. later and interm are the worker's scratch (interm returned for
// reuse); an append of a message already claimed goes to lost.
func (la *listAppend) writerOf(r int32, later *marks, ap *keyAppends, interm []bool, lost *[]lostClaim) ([]bool, int) {
	mops := la.c.mops(r)
	// an append followed by another to its key in the txn is
	// intermediate
	interm = slices.Grow(interm[:0], len(mops))[:len(mops)]
	later.reset()
	for i := len(mops) - 1; i >= 0; i-- {
		interm[i] = false
		if m := &mops[i]; m.Kind == model.MopAppend {
			_, interm[i] = later.get(int32(m.Key))
			later.set(int32(m.Key), 1)
		}
	}
	vertex := la.c.recs[r].vertex >= 0
	reads := 0
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopAppend {
			if _, ok := la.elems(r, m); ok && vertex {
				reads++
			}
			continue
		}
		if atomic.CompareAndSwapInt32(&la.writer[m.Msg], -1, r) {
			la.interm[m.Msg] = interm[i]
		} else {
			*lost = append(*lost, lostClaim{m.Msg, r, interm[i]})
		}
		if vertex {
			ap.n[m.Key]++
			ap.single[m.Key] = m.Msg
		}
	}
	return interm, reads
}

// duplicates puts the lost claims together: each message appended more
// than once lists in dups the recs of all its appends in rec order, keeps
// the earliest as its writer, is intermediate if any of its appends was,
// and leaves its key out (dupKey). O(lost log lost).
func (la *listAppend) duplicates(lost [][]lostClaim) {
	la.dups = writersOf(la.writer, lost)
	for _, cs := range lost {
		for _, x := range cs {
			la.interm[x.msg] = la.interm[x.msg] || x.interm
		}
	}
	for m, d := range la.dups {
		la.writer[m] = d[0]
		la.dupKey[la.c.h.MsgKey(m)] = true
	}
}
