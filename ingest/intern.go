package ingest

import (
	"math"
	"slices"

	"github.com/hindsight-dev/hindsight/model"
)

// This file turns an op's scratch atoms into interned ids. Every key, value
// and message goes through the model.Builder exactly as the spec asks; the
// caches here only avoid asking it again (and the allocations that a lookup
// by text would cost), so the ids are the same as without them.

// rebalance interns the keys of :rebalance-log, without duplicates, in the
// order of their first appearance.
func (d *decoder) rebalance() []model.KeyID {
	ids := make([]model.KeyID, 0, len(d.rkeys))
	if d.rset == nil {
		d.rset = map[model.KeyID]bool{}
	}
	clear(d.rset)
	for i := range d.rkeys {
		k := d.key(&d.rkeys[i])
		if !d.rset[k] {
			d.rset[k] = true
			ids = append(ids, k)
		}
	}
	return ids
}

// buildMops interns the scratch micro-ops into the history's store.
func (d *decoder) buildMops() model.MopRef {
	sp, mops := d.b.Mops(len(d.mops))
	d.buildMopsInto(mops)
	return sp
}

// buildMopsInto fills mops (of length len(d.mops)) from the scratch micro-ops.
func (d *decoder) buildMopsInto(mops []model.Mop) []model.Mop {
	for i := range d.mops {
		sm := &d.mops[i]
		m := &mops[i]
		// every field set, so that a reused buffer keeps nothing stale
		*m = model.Mop{Kind: sm.kind, Done: sm.done}
		switch sm.kind {
		case model.MopSend:
			m.Key = d.key(&sm.key)
			m.Msg = d.msg(m.Key, &sm.val)
			if sm.done {
				d.b.SetOffset(m, sm.off)
			}
		case model.MopAppend, model.MopWrite:
			m.Key = d.key(&sm.key)
			m.Msg = d.msg(m.Key, &sm.val)
		case model.MopRead:
			m.Key, m.Msg = d.key(&sm.key), model.NoMsg
			if sm.done {
				m.Msg = d.msg(m.Key, &sm.val)
			}
		case model.MopReadList:
			m.Key = d.key(&sm.key)
			if n := int(sm.p1 - sm.p0); n > 0 {
				d.elemBuf = d.elemBuf[:0]
				if sm.ints {
					vs := d.readInts[sm.p0:sm.p1]
					if same := d.runPrefix(m.Key, vs); same > 0 {
						d.elemBuf = append(d.elemBuf, d.lists[m.Key].run[:same]...)
						vs = vs[same:]
					}
					for _, v := range vs {
						d.elemBuf = append(d.elemBuf, d.msgInt(m.Key, v))
					}
				} else {
					for j := range n {
						d.elemBuf = append(d.elemBuf, d.msg(m.Key, &d.reads[int(sm.p0)+j].val))
					}
				}
				d.b.SetSpan(m, d.storeList(m.Key))
			}
		case model.MopPoll:
			if n := int(sm.p1 - sm.p0); n > 0 {
				sp, polls := d.b.Polls(n)
				d.b.SetSpan(m, sp)
				for j := range polls {
					sp := &d.polls[int(sm.p0)+j]
					kp := &polls[j]
					kp.Key = d.key(&sp.key)
					if nr := int(sp.r1 - sp.r0); nr > 0 {
						var reads []model.Read
						kp.Reads, reads = d.b.Reads(nr)
						for r := range reads {
							sr := &d.reads[int(sp.r0)+r]
							reads[r] = model.NewRead(sr.off, d.msg(kp.Key, &sr.val))
						}
					}
				}
			}
		}
	}
	return mops
}

// smallKeyLimit is the size up to which the table key looks integer keys
// up in (indexed by the key less its base, see winBase) always takes a
// key; beyond it, the table takes a key below twice the number it holds
// (plus the window's slack), so that keys that run 0 to n, or through a
// window of them in a block of a parallel read (histgen's txn histories
// rotate through 52k keys), go through it, while its size stays
// proportional to the keys, never to their magnitude. Other keys go
// through a map.
const smallKeyLimit = 1 << 12

// key interns a scratch atom as a key.
func (d *decoder) key(a *satom) model.KeyID {
	if a.byText {
		return d.b.KeyTextBytes(d.atomText(a))
	}
	if a.kind == model.KInt {
		if !d.keyBased && a.i >= 0 {
			d.keyBased, d.keyLo = true, d.winBase(a.i)
		}
		if i := a.i - d.keyLo; d.keyBased && i >= 0 && i < max(smallKeyLimit, 2*int64(d.nSmallKeys)+d.slack()) {
			if i < int64(len(d.smallKeys)) {
				if id := d.smallKeys[i]; id != 0 {
					return id - 1
				}
			}
			id := d.b.Key(model.IntAtom(a.i))
			for int64(len(d.smallKeys)) <= i {
				d.smallKeys = append(d.smallKeys, 0)
			}
			d.smallKeys[i] = id + 1
			d.nSmallKeys++
			return id
		}
		if id, ok := d.intKeys[a.i]; ok {
			return id
		}
		id := d.b.Key(model.IntAtom(a.i))
		d.intKeys[a.i] = id
		return id
	}
	return d.b.KeyBytes(a.kind, d.atomText(a))
}

// msg interns the message (k, a). Integer values of a key are mostly small
// and dense, so their messages are cached in a per-key table indexed by the
// value, covering only the values it met and kept no longer than about
// twice the key's number of messages (so memory follows the messages, never
// the magnitude of the values; cover).
func (d *decoder) msg(k model.KeyID, a *satom) model.MsgID {
	if a.kind != model.KInt || a.i < 0 {
		return d.b.Msg(k, d.val(a))
	}
	return d.msgInt(k, a.i)
}

// msgInt interns the message of key k and the integer value v, as msg
// does for an integer atom.
func (d *decoder) msgInt(k model.KeyID, v int64) model.MsgID {
	a := satom{kind: model.KInt, i: v} // for the builder's lookups by value
	if v < 0 {
		return d.b.Msg(k, d.val(&a))
	}
	if int(k) >= len(d.msgTab) {
		// doubled, not grown a key at a time: one op of 200k keys
		// allocated 80 MB of tables on the way to 10 MB
		n := max(int(k)+1, 2*len(d.msgTab))
		d.msgTab = slices.Grow(d.msgTab, n-len(d.msgTab))[:n]
	}
	t := &d.msgTab[k]
	j := v - int64(t.from)
	if j >= 0 && j < int64(len(t.ids)) {
		if id := t.ids[j]; id != 0 {
			return id - 1
		}
	}
	val := d.val(&a)
	t.n++
	d.tabMsgs++
	if (j < 0 || j >= int64(len(t.ids))) && !d.cover(t, v) {
		return d.b.Msg(k, val) // too sparse for the dense table: the builder's map
	}
	// Dense table from here on: a message the builder's map does not hold
	// is appended without indexing it (the table is its index; it only
	// grows, so the message stays in it). A value the table did not cover
	// when it came was put in the map, where LookupMsg finds it.
	id, ok := d.b.LookupMsg(k, val)
	if !ok {
		id = d.b.AppendMsg(k, val)
	}
	t.ids[v-int64(t.from)] = id + 1 // cover may have moved from
	return id
}

// cover grows t's table to cover value i, doubling it toward i, and
// reports whether it did: not when the table would pass the key's bound
// (twice its messages plus 64) or the decoder's (tabCells: all its tables
// together at most 8 entries for each integer message it interned,
// tabMsgs, plus 2^16, whatever the keys: without it, keys of two values
// 2,000 apart took 7 KB each in a parallel read). A table starts at the
// first value it meets, not at 0 or at a base: tables that started at a
// block's base took 4 KB for each key of one value (one 10 MB poll of 500k
// keys took 2.2 GB), and a per-block base and slack, which only let the
// tables reach up to a key's first value in a block, are not needed by
// tables that start there (TestManyKeysMemory measures the three shapes).
func (d *decoder) cover(t *keyMsgs, i int64) bool {
	if i >= math.MaxInt32/2 {
		return false // from is an int32
	}
	lo, hi := int64(t.from), int64(t.from)+int64(len(t.ids))
	if len(t.ids) == 0 {
		lo, hi = i, i+8 // from 8 entries (TestManyKeysMemory)
	} else if i < lo {
		lo = max(0, min(i, lo-(hi-lo)))
	} else {
		hi = max(i+1, hi+(hi-lo))
	}
	bound := 2*int64(t.n) + 64
	if hi-lo > bound {
		// Doubled, the table would be too sparse. It grows to the bound
		// instead when that covers i and is half as large again: a table
		// grown just enough to cover each value was copied whole for
		// every few values of a key whose values step by 2 or leave a few
		// out (whose bound grows as fast as they do): checking 100k txns
		// writing the even numbers to one key took 18.0 s, 200k 48.9 s.
		// Growing by half at least keeps the copying linear; a key too
		// sparse for it keeps its table and puts what it does not cover
		// in the builder's map.
		from, end := int64(t.from), int64(t.from)+int64(len(t.ids))
		if min(i, from) < max(i+1, end)-bound || bound < int64(len(t.ids))*3/2 {
			return false
		}
		if i < from {
			lo, hi = max(0, end-bound), end
		} else {
			lo, hi = from, from+bound
		}
	}
	grow := hi - lo - int64(len(t.ids))
	if d.tabCells+grow > 8*int64(d.tabMsgs+1)+1<<16 {
		return false
	}
	nt := make([]model.MsgID, hi-lo)
	if len(t.ids) > 0 {
		copy(nt[int64(t.from)-lo:], t.ids)
	}
	t.ids, t.from = nt, int32(lo)
	d.tabCells += grow
	return true
}

// winSlack is how far below the first integer value a block of a parallel
// read meets the block's dense tables start (winBase): the values a block
// reads are mostly those sent shortly before it, not from 0.
const winSlack = 1024

// winBase is the value at index 0 of a dense value table whose first value
// is v: 0 for a sequential read, which meets the values from the start of
// the history; a little below v for a block of a parallel read.
func (d *decoder) winBase(v int64) int64 {
	if d.part == nil {
		return 0
	}
	return max(0, v-winSlack)
}

// slack widens the sparseness bound of a windowed table by its slack.
func (d *decoder) slack() int64 {
	if d.part == nil {
		return 0
	}
	return 2 * winSlack
}

// keyMsgs caches the messages of one key by integer value.
type keyMsgs struct {
	ids  []model.MsgID // id+1 of the message with value from+j at j; 0: not cached
	from int32         // the value of ids[0]
	n    int32         // messages of the key interned so far
}

// val interns a scratch atom as a value. Small non-negative integers are
// indexed by a dense table of the decoder's (from valLo on, see winBase),
// not by the builder's map.
func (d *decoder) val(a *satom) model.ValID {
	if a.kind == model.KInt {
		if !d.valBased && a.i >= 0 {
			d.valBased, d.valLo = true, d.winBase(a.i)
		}
		i := a.i - d.valLo
		if a.i >= 0 && i >= 0 && i < int64(len(d.smallVals)) {
			if id := d.smallVals[i]; id != 0 {
				return id - 1
			}
		}
		if a.i < 0 || !d.coverVal(a.i) {
			return d.b.Value(model.IntAtom(a.i)) // too sparse: the builder's map
		}
		i = a.i - d.valLo
		id, ok := d.b.LookupIntValue(a.i)
		if !ok {
			id = d.b.AppendIntValue(a.i)
		}
		d.smallVals[i] = id + 1
		return id
	}
	return d.b.ValueBytes(a.kind, d.atomText(a))
}

// coverVal grows the dense table of values to cover the non-negative
// integer x, as cover does a key's, and reports whether it did. The table
// grows by doubling, up or down (a parallel read's block starts its table
// a little below the first value it meets, and its list reads hold older
// values, which went to the map when the table could not grow down), but
// never past its bound: twice the values interned plus 1024 (plus the
// window's slack in a block). When doubling would pass the bound it grows
// to the bound, if that covers x and is half as large again (grown just to
// the bound, the table was copied whole every thousand values or so of
// values that step by 2, whose bound grows as fast as they do); else x
// goes to the builder's map.
func (d *decoder) coverVal(x int64) bool {
	lo, l := d.valLo, int64(len(d.smallVals))
	if x >= lo && x < lo+l {
		return true
	}
	bound := 2*int64(d.b.NumValues()) + 1024 + d.slack()
	nlo, nhi := lo, max(x+1, lo+max(2*l, 1024)) // up
	if x < lo {
		nlo, nhi = max(0, min(x, lo-max(l, 1024))), lo+l // down
	}
	if nhi-nlo > bound {
		if max(x+1, lo+l)-min(x, lo) > bound || bound < l+l/2 {
			return false
		}
		if x < lo {
			nlo = max(0, lo+l-bound)
		} else {
			nhi = lo + bound
		}
	}
	nv := make([]model.ValID, nhi-nlo)
	copy(nv[lo-nlo:], d.smallVals)
	d.smallVals, d.valLo = nv, nlo
	return true
}

// opChunks collects ops in chunks of growing size and joins them once at the
// end: appending each op to one slice (model.Builder.Add) copied every op
// about five times and dominated the reading time of large histories.
//
// With a hint (the number of lines of a plain file, an upper bound on its ops
// when they sit one per line), the first chunk holds them all and join
// returns it as it is: a large history is never held twice.
type opChunks struct {
	full []([]model.Op)
	cur  []model.Op
	n    int
	hint int
}

// add stores op and returns where it is; the pointer is valid until join.
func (c *opChunks) add(op model.Op) *model.Op {
	if len(c.cur) == cap(c.cur) {
		if c.cur != nil {
			c.full = append(c.full, c.cur)
		}
		size := min(max(2*cap(c.cur), 256), 1<<16)
		if c.hint > 0 && c.n == 0 {
			size = c.hint
		}
		c.cur = make([]model.Op, 0, size)
	}
	c.cur = append(c.cur, op)
	c.n++
	return &c.cur[len(c.cur)-1]
}

// join returns all ops in one slice, of exactly the right length.
func (c *opChunks) join() []model.Op {
	if len(c.full) == 0 {
		if cap(c.cur)-len(c.cur) > len(c.cur)/8+64 {
			return slices.Clone(c.cur) // the hint was far too high
		}
		return c.cur[:len(c.cur):len(c.cur)]
	}
	all := make([]model.Op, 0, c.n)
	for i, ch := range c.full {
		all = append(all, ch...)
		c.full[i] = nil
	}
	return append(all, c.cur...)
}

// pendingInv is an invocation whose micro-ops are held aside until its
// completion arrives: a completion carries the same micro-ops in completed
// form, so the invocation's own are dropped (model.Op.Mops doc) unless it
// never completes, or its completion carries none.
type pendingInv struct {
	op   *model.Op
	pos  int64 // its position among the ops read (d.n)
	mops []model.Mop
}

// pendingSet holds the pending invocations by process.
type pendingSet = model.ByProcess[pendingInv]

// settle decides the fate of process p's pending invocation when the next
// op of p arrives (or the input ends): the invocation keeps its micro-ops
// when keep is set, that is unless the next op is a completion that carries
// its own.
func (d *decoder) settle(p int32, keep bool) {
	if d.pending.Len() == 0 {
		return
	}
	pp, ok := d.pending.Get(p)
	if !ok {
		return
	}
	pi := *pp
	d.pending.Delete(p)
	if keep {
		pi.op.Mops = d.b.StoreMops(pi.mops...)
	}
	d.freeMops = append(d.freeMops, pi.mops[:0])
}

// settleAll keeps the micro-ops of every invocation still pending at the
// end of the input, in a fixed order.
func (d *decoder) settleAll() {
	for _, p := range d.pending.Processes() {
		d.settle(p, true)
	}
}

// deferrable reports whether the scratch micro-ops are all in invocation
// form, so that holding them aside loses nothing.
func (d *decoder) deferrable() bool {
	for i := range d.mops {
		m := &d.mops[i]
		if m.kind == model.MopAppend || m.kind == model.MopWrite {
			continue // the same in both forms
		}
		if m.done || m.p1 > m.p0 {
			return false
		}
	}
	return len(d.mops) > 0
}

// holdMops builds the scratch micro-ops into a reusable buffer.
func (d *decoder) holdMops() []model.Mop {
	var buf []model.Mop
	if n := len(d.freeMops); n > 0 {
		buf, d.freeMops = d.freeMops[n-1], d.freeMops[:n-1]
	}
	buf = slices.Grow(buf[:0], len(d.mops))[:len(d.mops)]
	return d.buildMopsInto(buf)
}
