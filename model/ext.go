package model

// A workload's own data: what a workload's decoder (package ingest,
// ValueDecoder) made of an op's :value or of an op field that ingest does
// not decode itself, such as the abort workload's poll maps
// ({:topic "t1" :offsets [1 2 3]}) or its :rebalance-log map.
//
// History.ExtSpans, a column beside History.Ops (nil when no op has any),
// locates an op's run of ExtRecs, one per form a decoder read, in the
// order they were read. A record is a kind the decoder chose, the decoder
// that wrote it (Owner), and two runs of dense integers, its words (int64s:
// offsets, flags, counts, whatever the workload encodes) and its keys
// (KeyIDs, interned like a send's key, so that a topic named in a poll map
// and in a subscribe are one key). Their meaning is the workload's own:
// model only stores them. Op stays 12 bytes and OpExtra 24: a history
// without such data costs nothing more, one with it 8 bytes per op for the
// column, plus its records.

// ExtOwner names the decoder that wrote an ExtRec: 1 + its index in
// History.ExtOwners. 0 is no decoder.
type ExtOwner uint8

// ExtRec is one form a workload's decoder read from an op.
type ExtRec struct {
	// Words and Keys locate the record's integers in History.ExtWords and
	// its keys in History.ExtKeys.
	Words Span
	Keys  Span
	// Kind is the decoder's own tag for what the record holds.
	Kind uint16
	// Owner is the decoder that wrote it.
	Owner ExtOwner
}

// ExtAt returns the workload records of the op at position i of
// History.Ops, in the order they were read; nil when it has none. The
// slice aliases the history. O(1).
func (h *History) ExtAt(i int) []ExtRec {
	if i < len(h.ExtSpans) {
		return h.ExtRecs.Get(h.ExtSpans[i])
	}
	return nil
}

// ExtWordsOf returns the words of record r. The slice aliases the history.
func (h *History) ExtWordsOf(r *ExtRec) []int64 { return h.ExtWords.Get(r.Words) }

// ExtKeysOf returns the keys of record r. The slice aliases the history.
func (h *History) ExtKeysOf(r *ExtRec) []KeyID { return h.ExtKeys.Get(r.Keys) }

// ExtOwnerOf returns the owner id of the decoder named name, and whether
// any decoder of that name was installed when the history was read.
func (h *History) ExtOwnerOf(name string) (ExtOwner, bool) {
	for i, n := range h.ExtOwners {
		if n == name {
			return ExtOwner(i + 1), true
		}
	}
	return 0, false
}

// SetExtOwners records the names of the decoders installed when the
// history was read, in order: ExtRec.Owner i+1 is names[i].
func (b *Builder) SetExtOwners(names []string) { b.h.ExtOwners = names }

// ExtWords stores n words and returns their span and the slice to fill.
func (b *Builder) ExtWords(n int) (Span, []int64) { return b.h.ExtWords.Alloc(n) }

// ExtKeys stores n keys and returns their span and the slice to fill.
func (b *Builder) ExtKeys(n int) (Span, []KeyID) { return b.h.ExtKeys.Alloc(n) }

// ReuseExtSpans gives the builder room's backing array for the column of
// workload records, which it overwrites; call it before the first op.
func (b *Builder) ReuseExtSpans(room []Span) { b.h.ExtSpans = room[:0] }

// SetExtAt stores recs (their spans filled with ExtWords and ExtKeys) as
// the workload records of the op at position i of History.Ops, replacing
// any it had. The column doubles when it grows (append grows a long slice
// by a quarter, copying it about five times over in all): amortised O(1)
// a call.
func (b *Builder) SetExtAt(i int, recs ...ExtRec) {
	sp, dst := b.h.ExtRecs.Alloc(len(recs))
	copy(dst, recs)
	h := &b.h
	if n := len(h.ExtSpans); n <= i {
		if i >= cap(h.ExtSpans) {
			grown := make([]Span, n, max(2*cap(h.ExtSpans), i+1, 64))
			copy(grown, h.ExtSpans)
			h.ExtSpans = grown
		}
		// resliced in place: only the length is stored, not a pointer
		// through the write barrier, at every op of an abort history
		h.ExtSpans = h.ExtSpans[:i+1]
		clear(h.ExtSpans[n:])
	}
	h.ExtSpans[i] = sp
}
