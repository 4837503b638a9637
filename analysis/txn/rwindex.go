package txn

import (
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// index notes which txns touch a key twice and builds the writer index,
// on every core. A txn's touches (rwRegister.touchesOf) are not kept: they
// are its read and write micro-ops, one per key, so they are derived from
// the micro-ops where they are used, except for a txn that both touches a
// key twice and has more than pairwiseMops micro-ops, whose touches are
// kept (bigTouches): deriving those needs a map by key. A message's writer
// is claimed with a compare-and-swap; a rec that finds it taken by another
// notes a lost claim, and the lost claims, put together after the pass,
// make the message ambiguous and list its writers in dups, in rec order,
// as a pass in history order would. O(mops).
//
// Keeping every txn's touches took 12 bytes a micro-op, alive at the
// check's peak in the graph build: 32.5 MB of the 169 MB live heap there
// on 1M rw-register txns of histgen's defaults (a quarter of whose txns
// repeat a key, none with more than 8 micro-ops). Deriving them (as
// touchesOf does since 738e6fb) took that check's peak RSS from 196 to 165
// MiB, for 1.15 against 1.17 s of wall time and 1.79 against 1.89 s of
// user time (bench/ab.sh --rounds 5, against 3d03fe6).
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
	rw.repeats = make([]uint64, (n+63)/64)
	type scratch struct {
		lost    []lostClaim
		big     []int32 // recs whose touches are kept
		touches int64
	}
	var all par.Scratches[*scratch]
	par.Pieces(n, max(minRange, n/(8*runtime.GOMAXPROCS(0))), func() func(_, lo, hi int) {
		at := newMarks(nk) // key -> its touch in this txn
		var buf []touch
		own := all.New(&scratch{})
		return func(_, lo, hi int) {
			for r := int32(lo); r < int32(hi); r++ {
				var repeat bool
				buf, repeat = rw.indexTxn(r, &at, buf[:0], &own.lost)
				own.touches += int64(len(buf))
				if repeat {
					atomic.OrUint64(&rw.repeats[r>>6], 1<<(r&63))
					if len(c.mops(r)) > pairwiseMops {
						own.big = append(own.big, r)
					}
				}
			}
		}
	})
	var lost [][]lostClaim
	for _, s := range all.All() {
		lost = append(lost, s.lost)
		rw.big = append(rw.big, s.big...)
		rw.nTouches += s.touches
	}
	slices.Sort(rw.big)
	rw.keepBig()
	rw.ambiguous(lost)
	rw.duplicateWrites()
}

// pairwiseMops is the most micro-ops of a txn whose touches touchesOf
// derives by comparing keys pairwise; a larger txn that touches a key
// twice has its touches kept.
const pairwiseMops = 8

// keepBig keeps the touches of the recs in big (sorted), in bigStart and
// bigTouches. O(their micro-ops).
func (rw *rwRegister) keepBig() {
	if len(rw.big) == 0 {
		return
	}
	c := rw.c
	at := newMarks(len(c.h.Keys))
	rw.bigStart = make([]int32, 1, len(rw.big)+1)
	for _, r := range rw.big {
		rw.bigTouches = deriveTouches(c.mops(r), c.typOf(&c.recs[r]), &at, rw.bigTouches)
		rw.bigStart = append(rw.bigStart, int32(len(rw.bigTouches)))
	}
	rw.bigTouches = slices.Clip(rw.bigTouches)
}

// deriveTouches appends the touches of a txn of type typ with micro-ops
// mops to out: one per key it reads or writes, in the order of the key's
// first such micro-op, with the value that micro-op read (if it reads) and
// the last value the txn wrote to the key. at is scratch, a map by key:
// it ends holding each key's touch, as a position in out.
func deriveTouches(mops []model.Mop, typ model.OpType, at *marks, out []touch) []touch {
	at.reset()
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopWrite && m.Kind != model.MopRead {
			continue
		}
		j, ok := at.get(int32(m.Key))
		if !ok {
			j = int32(len(out))
			at.set(int32(m.Key), j)
			out = append(out, touch{key: m.Key, read: noVal, write: noVal})
			if m.Kind == model.MopRead {
				out[j].read = readValue(m, typ)
			}
		}
		if m.Kind == model.MopWrite {
			out[j].write = m.Msg
		}
	}
	return out
}

// indexTxn derives rec r's touches into buf (deriveTouches), claims the
// messages it writes, and marks those of its writes that are not its last
// of their key (interm). at is the worker's scratch; a message another rec
// claimed goes to lost. repeat reports whether the txn touches a key with
// more than one micro-op.
func (rw *rwRegister) indexTxn(r int32, at *marks, buf []touch, lost *[]lostClaim) (_ []touch, repeat bool) {
	mops := rw.c.mops(r)
	buf = deriveTouches(mops, rw.c.typOf(&rw.c.recs[r]), at, buf)
	n := 0
	for i := range mops {
		m := &mops[i]
		if m.Kind != model.MopWrite && m.Kind != model.MopRead {
			continue
		}
		n++
		if m.Kind == model.MopWrite && !atomic.CompareAndSwapInt32(&rw.writer[m.Msg], noWriter, r) && atomic.LoadInt32(&rw.writer[m.Msg]) != r {
			*lost = append(*lost, lostClaim{msg: m.Msg, rec: r})
		}
	}
	for i := range mops {
		m := &mops[i]
		if m.Kind == model.MopWrite && atomic.LoadInt32(&rw.writer[m.Msg]) == r {
			j, _ := at.get(int32(m.Key))
			rw.interm[m.Msg] = buf[j].write != m.Msg
		}
	}
	return buf, n > len(buf)
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
