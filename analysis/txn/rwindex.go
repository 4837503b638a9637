package txn

import (
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// index builds the touches of every txn and the writer index, on every
// core. Each rec gets room in touches for as many touches as it has
// micro-ops (a txn touches each key at most once, and only with a
// micro-op); graph.CompactRows has workers fill the recs' rows and close
// the gaps, so touches and tstart are those of a pass in history order
// whatever the number of workers. A message's writer is claimed with a
// compare-and-swap; a rec that finds it taken by another notes a lost
// claim, and the lost claims, put together after the pass, make the
// message ambiguous and list its writers in dups, in rec order, as a pass
// in history order would. O(mops).
func (rw *rwRegister) index() {
	c := rw.c
	h := c.h
	nm, nk := len(h.Msgs), len(h.Keys)
	analysis.OwnStats[Stats](c.res).Messages = int64(nm)
	rw.writer = filledInt32(nm, noWriter)
	rw.msgIDs = make([]model.MsgID, nm)
	for i := range rw.msgIDs {
		rw.msgIDs[i] = model.MsgID(i)
	}
	rw.interm = make([]bool, nm)
	rw.dupKey = make([]bool, nk)
	n := len(c.recs)
	rw.tstart = make([]int32, n+1) // each rec's room, then its touches' start
	par.EachRange(n, minRange, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			rw.tstart[r+1] = int32(len(c.mops(int32(r))))
		}
	})
	for r := range n {
		rw.tstart[r+1] += rw.tstart[r]
	}
	rw.touches = make([]touch, rw.tstart[n]) // no regrowing a huge txn's
	var lists par.Scratches[*[]lostClaim]    // each worker's lost claims
	// the rows start empty (end is start): each rec's touches are written
	// from where its row lands
	end := graph.CompactRows(rw.tstart, rw.tstart[:n], func() func(v int, a, b, w int32) int32 {
		at := newMarks(nk) // key -> its touch in this txn
		own := lists.New(new([]lostClaim))
		return func(v int, _, _, w int32) int32 { return int32(rw.indexTxn(int32(v), &at, int(w), own)) }
	}, func(dst, src, k int32) { copy(rw.touches[dst:dst+k], rw.touches[src:src+k]) })
	rw.touches = slices.Clip(rw.touches[:end])
	lost := make([][]lostClaim, len(lists.All()))
	for i, l := range lists.All() {
		lost[i] = *l
	}
	rw.ambiguous(lost)
	rw.duplicateWrites()
}

// indexTxn adds rec r's touches to touches from position w on, returning
// where they end, claims the messages it writes, and marks those of its
// writes that are not its last of their key (interm). at is the worker's
// scratch; a message another rec claimed goes to lost.
func (rw *rwRegister) indexTxn(r int32, at *marks, w int, lost *[]lostClaim) int {
	mops := rw.c.mops(r)
	typ := rw.c.typOf(&rw.c.recs[r])
	at.reset()
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopWrite && m.Kind != model.MopRead {
			continue
		}
		var t *touch
		if j, ok := at.get(int32(m.Key)); ok {
			t = &rw.touches[j]
		} else {
			at.set(int32(m.Key), int32(w))
			rw.touches[w] = touch{key: m.Key, read: noVal, write: noVal}
			t = &rw.touches[w]
			w++
			if m.Kind == model.MopRead {
				t.read = readValue(m, typ)
			}
		}
		if m.Kind == model.MopWrite {
			t.write = m.Msg
			if !atomic.CompareAndSwapInt32(&rw.writer[m.Msg], noWriter, r) && atomic.LoadInt32(&rw.writer[m.Msg]) != r {
				*lost = append(*lost, lostClaim{msg: m.Msg, rec: r})
			}
		}
	}
	for i := range mops {
		m := &mops[i]
		if m.Kind == model.MopWrite && atomic.LoadInt32(&rw.writer[m.Msg]) == r {
			j, _ := at.get(int32(m.Key))
			rw.interm[m.Msg] = rw.touches[j].write != m.Msg
		}
	}
	return w
}

// ambiguous makes each message with a lost claim ambiguous, with dups
// listing its writers, each once, in rec order. O(lost log lost).
func (rw *rwRegister) ambiguous(lost [][]lostClaim) {
	rw.dups = writersOf(rw.writer, lost)
	for m, d := range rw.dups {
		rw.dups[m] = slices.Compact(d)
		rw.writer[m] = ambiguous
	}
}
