package queueview

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// Finding an instance's place in an op. An instance names an op and a
// key, and an offset or a value or both; its mark goes where the op shows
// them. One op can be huge, in two ways: a poll of millions of messages
// of one key (each out-of-order pair of them an instance) or an op on
// hundreds of thousands of keys (an instance per key). Scanning the op per
// instance is quadratic in either, so an op larger than locateScanMax
// entries is indexed once, by key, on its first question, and looked up
// after; the index lives while the anomalies are marked.

// locateScanMax is how many entries (micro-ops, polled keys and reads) an
// op may have for locate to scan it rather than index it.
const locateScanMax = 64

// candidate is one place an op shows a key at an offset: an acknowledged
// send or a read of a poll, in the op's order.
type candidate struct {
	off int64
	msg model.MsgID
}

// offValue is an offset and a value, for the index of both.
type offValue struct {
	off int64
	val model.Atom
}

// keyIndex finds the first of an op's candidates of one key with a given
// offset, value or both, and every candidate of a value; each map is
// built on its first use.
type keyIndex struct {
	cands  []candidate
	byOff  map[int64]int32
	byBoth map[offValue]int32
	ofVal  map[model.Atom][]int32
}

// opIndex is a big op's candidates, by key.
type opIndex map[model.KeyID]*keyIndex

// bigOp says whether op has more than locateScanMax entries, counting
// no further than that.
func (b *builder) bigOp(op *model.Op) bool {
	n := 0
	for _, m := range b.H.MopsOf(op) {
		n++
		b.visited++
		if m.Kind == model.MopPoll {
			for _, kp := range b.H.PollsOf(&m) {
				b.visited++
				if n += 1 + int(kp.Reads.N); n > locateScanMax {
					return true
				}
			}
		}
		if n > locateScanMax {
			return true
		}
	}
	return false
}

// eachCandidate calls fn with each of op's candidates of key k (all keys,
// when all is set), in the op's order.
func (b *builder) eachCandidate(op *model.Op, k model.KeyID, all bool, fn func(model.KeyID, candidate)) {
	for _, m := range b.H.MopsOf(op) {
		b.visited++
		switch m.Kind {
		case model.MopSend:
			if (all || m.Key == k) && m.Done && m.HasOffset() {
				fn(m.Key, candidate{b.H.Offset(&m), m.Msg})
			}
		case model.MopPoll:
			for _, kp := range b.H.PollsOf(&m) {
				b.visited++
				if !all && kp.Key != k {
					continue
				}
				b.visited += int64(kp.Reads.N)
				for _, rd := range b.H.ReadsOf(&kp) {
					fn(kp.Key, candidate{rd.Offset(), rd.Msg})
				}
			}
		}
	}
}

// keyIndexOf returns the index of op idx's candidates of key k (nil when
// the op has none of k), indexing the op on the first call; ok is false
// when the op is small enough to scan.
func (b *builder) keyIndexOf(idx int64, op *model.Op, k model.KeyID) (x *keyIndex, ok bool) {
	ix, done := b.located[idx]
	if !done {
		if !b.bigOp(op) {
			return nil, false
		}
		ix = opIndex{}
		b.eachCandidate(op, 0, true, func(key model.KeyID, c candidate) {
			x := ix[key]
			if x == nil {
				x = &keyIndex{}
				ix[key] = x
			}
			x.cands = append(x.cands, c)
		})
		if b.located == nil {
			b.located = make(map[int64]opIndex)
		}
		b.located[idx] = ix
	}
	return ix[k], true
}

// find returns the position of the first candidate at offset off (any,
// when off is model.NoOffset) with value v (any, when v is nil), or -1.
func (x *keyIndex) find(h *model.History, v *analysis.Value, off int64) int {
	switch {
	case off == model.NoOffset && v == nil:
		if len(x.cands) == 0 {
			return -1
		}
		return 0
	case v == nil:
		if x.byOff == nil {
			x.byOff = make(map[int64]int32)
			for i, c := range x.cands {
				if _, ok := x.byOff[c.off]; !ok {
					x.byOff[c.off] = int32(i)
				}
			}
		}
		return lookup(x.byOff, off)
	case off == model.NoOffset:
		if at := x.withValue(h, v.Atom); len(at) > 0 {
			return int(at[0])
		}
		return -1
	default:
		if x.byBoth == nil {
			x.byBoth = make(map[offValue]int32)
			for i, c := range x.cands {
				ov := offValue{c.off, h.MsgValue(c.msg)}
				if _, ok := x.byBoth[ov]; !ok {
					x.byBoth[ov] = int32(i)
				}
			}
		}
		return lookup(x.byBoth, offValue{off, v.Atom})
	}
}

// withValue returns the positions of the candidates with value a, in
// order.
func (x *keyIndex) withValue(h *model.History, a model.Atom) []int32 {
	if x.ofVal == nil {
		x.ofVal = make(map[model.Atom][]int32)
		for i, c := range x.cands {
			v := h.MsgValue(c.msg)
			x.ofVal[v] = append(x.ofVal[v], int32(i))
		}
	}
	return x.ofVal[a]
}

// lookup returns m[k], or -1 when k is not in m.
func lookup[K comparable](m map[K]int32, k K) int {
	if i, ok := m[k]; ok {
		return int(i)
	}
	return -1
}

// matches says whether c is at offset off (any, when off is
// model.NoOffset) with value v (any, when v is nil).
func (b *builder) matches(c candidate, v *analysis.Value, off int64) bool {
	return (off == model.NoOffset || c.off == off) && (v == nil || b.H.MsgValue(c.msg) == v.Atom)
}

// locate finds where op idx shows key k at offset off (any offset, when
// off is model.NoOffset) with value v (any value, when v is nil): its
// first acknowledged send or read that matches, in the op's order.
func (b *builder) locate(idx int64, k model.KeyID, v *analysis.Value, off int64) (timelinePoint, bool) {
	op, x, ok := b.placed(idx)
	if !ok {
		return timelinePoint{}, false
	}
	point := func(c candidate) timelinePoint {
		return timelinePoint{x: x, y: float64(c.off), op: idx, proc: op.Process, msg: c.msg}
	}
	if ix, indexed := b.keyIndexOf(idx, op, k); indexed {
		if ix == nil {
			return timelinePoint{}, false
		}
		if i := ix.find(b.H, v, off); i >= 0 {
			return point(ix.cands[i]), true
		}
		return timelinePoint{}, false
	}
	var p timelinePoint
	found := false
	b.eachCandidate(op, k, false, func(_ model.KeyID, c candidate) {
		if !found && b.matches(c, v, off) {
			p, found = point(c), true
		}
	})
	return p, found
}

// placeOffsets calls add, for each of offsets (real offsets, never
// model.NoOffset), with the first place (in witness order, then in the
// op's order) where a completed witness op shows key k at that offset with
// value v (any value, when v is nil). Each witness op is read once,
// whatever the number of offsets.
func (b *builder) placeOffsets(v *analysis.Value, offsets, witness []int64, k model.KeyID, add func(model.KeyID, timelinePoint)) {
	placed := make(map[int64]timelinePoint, len(offsets))
	want := make(map[int64]bool, len(offsets))
	for _, off := range offsets {
		want[off] = true
	}
	for _, idx := range witness {
		if len(placed) == len(want) {
			break
		}
		op, x, ok := b.placed(idx)
		if !ok || op.Type == model.Invoke {
			continue
		}
		take := func(c candidate) {
			b.visited++
			if _, done := placed[c.off]; !done && want[c.off] {
				placed[c.off] = timelinePoint{x: x, y: float64(c.off), op: idx, proc: op.Process, msg: c.msg}
			}
		}
		ix, indexed := b.keyIndexOf(idx, op, k)
		switch {
		case indexed && ix == nil:
		case indexed && v == nil:
			for _, c := range ix.cands {
				take(c)
			}
		case indexed:
			for _, i := range ix.withValue(b.H, v.Atom) {
				take(ix.cands[i])
			}
		default:
			b.eachCandidate(op, k, false, func(_ model.KeyID, c candidate) {
				if b.matches(c, v, model.NoOffset) {
					take(c)
				}
			})
		}
	}
	for _, off := range offsets {
		if p, ok := placed[off]; ok {
			add(k, p)
		}
	}
}
