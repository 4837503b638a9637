package queueview

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// locateScanMax is how many offsets of one op and key locate scans before
// it indexes them: a poll can return millions of messages of one key, and
// each of its instances (one per out-of-order pair, say) asks for one of
// them, so a scan per instance would take time quadratic in the poll.
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

// opIndex finds the first of an op's candidates of one key with a given
// offset, value or both, each map built on its first use; first is the
// first candidate of all.
type opIndex struct {
	cands  []candidate
	byOff  map[int64]int32
	byVal  map[model.Atom]int32
	byBoth map[offValue]int32
}

// opKey names the candidates of one op (by index) and key.
type opKey struct {
	op  int64
	key model.KeyID
}

// candidates appends op's candidates of key k to dst, in the op's order.
func (b *builder) candidates(dst []candidate, op *model.Op, k model.KeyID) []candidate {
	for _, m := range b.H.MopsOf(op) {
		switch m.Kind {
		case model.MopSend:
			if m.Key == k && m.Done && m.Offset() != model.NoOffset {
				dst = append(dst, candidate{m.Offset(), m.Msg})
			}
		case model.MopPoll:
			for _, kp := range b.H.PollsOf(&m) {
				if kp.Key != k {
					continue
				}
				for _, rd := range b.H.ReadsOf(&kp) {
					dst = append(dst, candidate{rd.Offset(), rd.Msg})
				}
			}
		}
	}
	return dst
}

// manyCandidates says whether op holds more than locateScanMax
// candidates of key k, without collecting them.
func (b *builder) manyCandidates(op *model.Op, k model.KeyID) bool {
	n := 0
	for _, m := range b.H.MopsOf(op) {
		switch m.Kind {
		case model.MopSend:
			if m.Key == k {
				n++
			}
		case model.MopPoll:
			for _, kp := range b.H.PollsOf(&m) {
				if kp.Key == k {
					n += int(kp.Reads.N)
				}
			}
		}
		if n > locateScanMax {
			return true
		}
	}
	return false
}

// find returns the position of the first candidate at offset off (any,
// when off is model.NoOffset) with value v (any, when v is nil), or -1.
func (x *opIndex) find(h *model.History, v *analysis.Value, off int64) int {
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
		if x.byVal == nil {
			x.byVal = make(map[model.Atom]int32)
			for i, c := range x.cands {
				a := h.MsgValue(c.msg)
				if _, ok := x.byVal[a]; !ok {
					x.byVal[a] = int32(i)
				}
			}
		}
		return lookup(x.byVal, v.Atom)
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

// lookup returns m[k], or -1 when k is not in m.
func lookup[K comparable](m map[K]int32, k K) int {
	if i, ok := m[k]; ok {
		return int(i)
	}
	return -1
}

// locate finds where op idx shows key k at offset off (any offset, when
// off is model.NoOffset) with value v (any value, when v is nil): its
// first acknowledged send or read that matches, in the op's order. An op
// with many such places is indexed once (b.located) and looked up after.
func (b *builder) locate(idx int64, k model.KeyID, v *analysis.Value, off int64) (timelinePoint, bool) {
	op, x, ok := b.placed(idx)
	if !ok {
		return timelinePoint{}, false
	}
	var cands []candidate
	i := -1
	if ix := b.located[opKey{idx, k}]; ix != nil {
		cands, i = ix.cands, ix.find(b.H, v, off)
	} else if b.manyCandidates(op, k) {
		ix := &opIndex{cands: b.candidates(nil, op, k)}
		if b.located == nil {
			b.located = make(map[opKey]*opIndex)
		}
		b.located[opKey{idx, k}] = ix
		cands, i = ix.cands, ix.find(b.H, v, off)
	} else {
		cands = b.candidates(b.scratch[:0], op, k)
		b.scratch = cands
		for j, c := range cands {
			if (off == model.NoOffset || c.off == off) && (v == nil || b.H.MsgValue(c.msg) == v.Atom) {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return timelinePoint{}, false
	}
	c := cands[i]
	return timelinePoint{x: x, y: float64(c.off), op: idx, proc: op.Process, msg: c.msg}, true
}
