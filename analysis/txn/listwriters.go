package txn

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// reappend is an append of a message that another append had claimed
// (duplicate-appends, rare in a real history), and whether it was
// intermediate in its txn.
type reappend struct {
	msg    model.MsgID
	rec    int32
	interm bool
}

// writers builds the writer index (writer, interm, dups, dupKey) and
// counts each key's appends by vertex recs, on every core: pieces of
// indexPiece recs, each worker counting into its own keyAppends, summed
// afterwards. The first append of a message claims it with a
// compare-and-swap; any other append of it is a reappend, and the
// reappends, put together after the pass, list every append of the
// message in dups in rec order and leave the earliest rec its writer, as a
// pass in history order does. O(mops + keys · workers).
func (la *listAppend) writers() keyAppends {
	c := la.c
	nk := len(c.h.Keys)
	n := len(c.recs)
	reappends := make([][]reappend, (n+indexPiece-1)/indexPiece)
	var mu sync.Mutex
	var counts []keyAppends
	par.Pieces(n, indexPiece, func() func(i, lo, hi int) {
		later := newMarks(nk)
		ap := keyAppends{n: make([]int32, nk), single: make([]model.MsgID, nk)}
		mu.Lock()
		counts = append(counts, ap)
		mu.Unlock()
		var interm []bool
		return func(i, lo, hi int) {
			for r := int32(lo); r < int32(hi); r++ {
				interm = la.writerOf(r, &later, &ap, interm, &reappends[i])
			}
		}
	})
	if len(counts) == 0 { // no recs
		return keyAppends{n: make([]int32, nk), single: make([]model.MsgID, nk)}
	}
	ap := counts[0]
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
	la.duplicates(reappends)
	return ap
}

// writerOf claims the messages rec r appends, marks those that are not
// its last append to their key (interm), and counts its appends into ap
// when it is a vertex. later and interm are the worker's scratch (interm
// returned for reuse); an append of a message already claimed goes to
// reappends.
func (la *listAppend) writerOf(r int32, later *marks, ap *keyAppends, interm []bool, reappends *[]reappend) []bool {
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
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopAppend {
			continue
		}
		if atomic.CompareAndSwapInt32(&la.writer[m.Msg], -1, r) {
			la.interm[m.Msg] = interm[i]
		} else {
			*reappends = append(*reappends, reappend{m.Msg, r, interm[i]})
		}
		if vertex {
			ap.n[m.Key]++
			ap.single[m.Key] = m.Msg
		}
	}
	return interm
}

// duplicates puts the reappends together: each message appended more than
// once lists in dups the recs of all its appends in rec order, keeps the
// earliest as its writer, is intermediate if any of its appends was, and
// leaves its key out (dupKey). O(reappends log reappends).
func (la *listAppend) duplicates(reappends [][]reappend) {
	for _, rs := range reappends {
		for _, x := range rs {
			if la.dups == nil {
				la.dups = map[model.MsgID][]int32{}
			}
			d := la.dups[x.msg]
			if len(d) == 0 {
				d = []int32{la.writer[x.msg]}
			}
			la.dups[x.msg] = append(d, x.rec)
			la.interm[x.msg] = la.interm[x.msg] || x.interm
		}
	}
	for m, d := range la.dups {
		slices.Sort(d)
		la.writer[m] = d[0]
		la.dupKey[la.c.h.MsgKey(m)] = true
	}
}
