package txn

import (
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// indexPiece is how many recs a worker of rwRegister.index takes at a time.
const indexPiece = 8192

// index builds the touches of every txn and the writer index, on every
// core. The recs are cut into pieces; each piece writes its touches into
// its own stretch of touches, as long as its micro-ops (a txn touches each
// key at most once, and only with a micro-op), and the stretches are then
// moved down in order, so touches and tstart are those of a pass in
// history order whatever the number of workers. A message's writer is
// claimed with a compare-and-swap; a rec that finds it taken by another
// notes a lost claim, and the lost claims, put together after the pass,
// make the message ambiguous and list its writers in dups, in rec order,
// as a pass in history order would. O(mops).
func (rw *rwRegister) index() {
	c := rw.c
	h := c.h
	nm := len(h.Msgs)
	analysis.OwnStats[Stats](c.res).Messages = int64(nm)
	rw.writer = filledInt32(nm, noWriter)
	rw.msgIDs = make([]model.MsgID, nm)
	for i := range rw.msgIDs {
		rw.msgIDs[i] = model.MsgID(i)
	}
	rw.interm = make([]bool, nm)
	rw.dupKey = make([]bool, len(h.Keys))
	n := len(c.recs)
	rw.tstart = make([]int32, n+1)
	pieces := (n + indexPiece - 1) / indexPiece
	// bound[i]: where piece i's stretch starts (its micro-ops before it)
	bound := make([]int, pieces+1)
	par.Pieces(n, indexPiece, func() func(i, lo, hi int) {
		return func(i, lo, hi int) {
			k := 0
			for r := lo; r < hi; r++ {
				k += len(c.mops(int32(r)))
			}
			bound[i+1] = k
		}
	})
	for i := range pieces {
		bound[i+1] += bound[i]
	}
	rw.touches = make([]touch, bound[pieces]) // no regrowing a huge txn's
	used := make([]int, pieces)
	lost := make([][]lostClaim, pieces)
	nk := len(h.Keys)
	par.Pieces(n, indexPiece, func() func(i, lo, hi int) {
		at := newMarks(nk) // key -> its touch in this txn
		return func(i, lo, hi int) {
			w := bound[i]
			for r := int32(lo); r < int32(hi); r++ {
				w = rw.indexTxn(r, &at, w, &lost[i])
				rw.tstart[r+1] = int32(w)
			}
			used[i] = w
		}
	})
	// move each stretch down to the end of the one before
	end := 0
	for i := range pieces {
		lo := bound[i]
		if d := lo - end; d > 0 {
			copy(rw.touches[end:], rw.touches[lo:used[i]])
			for r := i * indexPiece; r < min(n, (i+1)*indexPiece); r++ {
				rw.tstart[r+1] -= int32(d)
			}
		}
		end += used[i] - lo
	}
	rw.touches = slices.Clip(rw.touches[:end])
	rw.ambiguous(lost)
	rw.duplicateWrites()
}

// indexTxn adds rec r's touches to touches from position w on, returning
// where they end, claims the messages it writes, and marks those of its
// writes that are not its last of their key (interm). at is the worker's
// scratch; a message another rec claimed goes to lost.
func (rw *rwRegister) indexTxn(r int32, at *marks, w int, lost *[]lostClaim) int {
	mops := rw.c.mops(r)
	typ := rw.c.recs[r].typ
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
