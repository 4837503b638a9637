package txn

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/model"
)

// minRange is the fewest keys a worker is given (par.EachRange): below it,
// the cost of starting one outweighs the work.
const minRange = 64

// This file holds list-append's version orders (docs/list-append.md#the-workload):
// the writer index, each key's order from the lists read, and the readers of
// each state.

// index builds the writer, version-order and reader indexes.
func (la *listAppend) index() {
	c := la.c
	nm, nk := len(c.h.Msgs), len(c.h.Keys)
	la.writer = filledInt32(nm, -1)
	la.interm = make([]bool, nm)
	la.dupKey = make([]bool, nk)
	ap, reads := la.writers()
	phase.Mark("list-append writers")
	la.recordReads(reads)
	phase.Mark("list-append reads")
	analysis.OwnStats[Stats](c.res).Messages = int64(nm)
	la.versionOrders(ap)
	phase.Mark("list-append version orders")
	la.cleanKeys()
	phase.Mark("list-append clean keys")
	la.readers()
	la.keepUncleanReads()
	phase.Mark("list-append readers")
	la.reads, la.keyReads = nil, nil // byKey holds the reads still needed
}

// keepUncleanReads keeps in byKey, in keyReads' order, the reads of the
// keys that are not clean: once the indexes are built only pairIndexOf
// reads them, and only for such a key. On a valid history that is none.
// O(reads).
func (la *listAppend) keepUncleanReads() {
	n := 0
	for k, ok := range la.clean {
		if !ok {
			n += int(la.keyStart[k+1] - la.keyStart[k])
		}
	}
	kept := make([]readRef, 0, n)
	lo := la.keyStart[0]
	for k, ok := range la.clean {
		hi := la.keyStart[k+1]
		la.keyStart[k] = int32(len(kept))
		if !ok {
			for _, i := range la.keyReads[lo:hi] {
				kept = append(kept, la.reads[i])
			}
		}
		lo = hi
	}
	la.keyStart[len(la.clean)] = int32(len(kept))
	la.byKey = kept
}

// readPiece is how many recs a worker of recordReads takes at a time.
const readPiece = 8192

// recordReads fills reads: every read of a vertex rec whose list is known
// (elems), in history order, with its key and list. The recs are
// split into pieces of readPiece, which workers on every core fill, each
// its own stretch of reads, so reads is sized once and its order is the
// history's whatever the number of workers. at[i+1] holds the number of
// reads of piece i, which writers counted as it went through the
// micro-ops; recordReads turns at into the stretches' starts. O(mops +
// read elements).
func (la *listAppend) recordReads(at []int) {
	c := la.c
	n := len(c.recs)
	pieces := len(at) - 1
	for i := range pieces {
		at[i+1] += at[i]
	}
	la.reads = make([]readRef, at[pieces])
	par.Pieces(n, readPiece, func() func(i, lo, hi int) {
		return func(i, lo, hi int) {
			w := at[i]
			for r := int32(lo); r < int32(hi); r++ {
				if c.recs[r].vertex < 0 {
					continue
				}
				mops := c.mops(r)
				for j := range mops {
					if _, ok := la.elems(r, &mops[j]); ok {
						la.reads[w] = readRef{rec: r, key: mops[j].Key, es: la.listSpan(&mops[j])}
						w++
					}
				}
			}
		}
	})
}

// keyAppends counts the appends to each key by ok and info txns (n), and
// keeps the last of them (single: the one append of a key that has one).
type keyAppends struct {
	n      []int32
	single []model.MsgID
}

// versionOrders sets each key's version order: per key, the distinct
// non-empty lists read, by length; each must be a prefix of the next (else
// incompatible-order), and the longest, without repeated elements, is the
// order; a key with a single append has that append alone. It sorts the
// reads by key (keyReads, keyStart) and places each element in its order
// (pos).
func (la *listAppend) versionOrders(ap keyAppends) {
	nm, nk := len(la.c.h.Msgs), len(la.c.h.Keys)
	la.order = make([][]model.MsgID, nk)
	la.readOrder = make([][]model.MsgID, nk)
	la.orderSrc = filledInt32(nk, -1)
	// the reads by key (dense ids: a counting sort), then each key's by
	// list (compareLists) and txn: O(reads + Σ g log g) comparisons for g
	// reads of a key, each O(1) for reads of one span, else at most the
	// lists' common prefix
	start := make([]int32, nk+1)
	for _, rd := range la.reads {
		start[rd.key+1]++
	}
	for k := range nk {
		start[k+1] += start[k]
	}
	// positions in reads (4 bytes a read, not a copy of 24)
	sorted := make([]int32, len(la.reads))
	next := slices.Clone(start[:nk])
	for i, rd := range la.reads {
		sorted[next[rd.key]] = int32(i)
		next[rd.key]++
	}
	la.keyReads = sorted
	la.keyStart = start
	// each key's reads are sorted and ordered on its own, the keys split
	// among the workers; the incompatible pairs are reported after, in key
	// order, so the result does not depend on the number of workers
	bad := make([]*incompatible, nk)
	par.EachRange(nk, minRange, func(lo, hi int) {
		var run []readRef // the key's reads, in order
		for k := lo; k < hi; k++ {
			idx := sorted[start[k]:start[k+1]]
			if len(idx) == 0 {
				continue
			}
			if len(idx) > 1 {
				slices.SortFunc(idx, func(i, j int32) int {
					if c := la.compareLists(&la.reads[i], &la.reads[j]); c != 0 {
						return c
					}
					return cmp.Compare(i, j) // reads are in history order: rec, then micro-op
				})
			}
			run = run[:0]
			for _, i := range idx {
				run = append(run, la.reads[i])
			}
			bad[k] = la.orderKey(model.KeyID(k), run, ap.n[k] == 1, ap.single[k])
		}
	})
	for _, b := range bad {
		if b != nil {
			la.reportIncompatible(b)
		}
	}
	for k := range nk {
		if ap.n[k] == 1 && la.order[k] == nil {
			la.order[k] = []model.MsgID{ap.single[k]}
		}
	}
	la.pos = filledInt32(nm, -1)
	for _, o := range la.order {
		for p, m := range o {
			la.pos[m] = int32(p)
		}
	}
}

// cleanKeys marks the keys every read of which, repeats dropped, is a prefix
// of the key's version order (clean). Each key is judged on its own, the
// keys split among the workers (par.EachRange).
//
// Reads that share a span's start are prefixes of one run of stored
// elements (readRef), and a prefix of a list that passes is a prefix that
// passes: so each run is scanned once, at the length of its longest read,
// where a scan of every read went through each element a dozen times (on
// histgen's 1M list-append txns, 14.5M elements read, in 52k runs of 1.1M
// elements). The scan also notes where the run first holds an element a
// per-txn check reports (runs, plainRead). A run belongs to one key (its
// elements are that key's messages), so the workers write apart. The same
// walk of each key's reads fills shownBy (shownByKey).
func (la *listAppend) cleanKeys() {
	c := la.c
	nk := len(c.h.Keys)
	la.clean = make([]bool, nk)
	la.runAt = c.h.ElemStore.Positions()
	la.runs = make([]int32, c.h.ElemStore.Len())
	la.shownBy = filledInt32(len(c.h.Msgs), -1)
	par.EachRange(nk, minRange, func(lo, hi int) {
		var first []int32 // shownByKey's scratch
		for k := model.KeyID(lo); k < model.KeyID(hi); k++ {
			la.cleanKey(k)
			first = la.shownByKey(k, first)
		}
	})
}

// cleanKey judges key k for cleanKeys.
func (la *listAppend) cleanKey(k model.KeyID) {
	reads := la.keyReads[la.keyStart[k]:la.keyStart[k+1]]
	for _, i := range reads { // each run's length: its longest read's
		if sp := la.reads[i].es; sp.N > 0 {
			p := la.runAt.Of(sp.Start)
			la.runs[p] = max(la.runs[p], sp.N)
		}
	}
	la.clean[k] = true
	for _, i := range reads {
		sp := la.reads[i].es
		if sp.N == 0 {
			continue
		}
		p := la.runAt.Of(sp.Start)
		if n := la.runs[p]; n > 0 { // not scanned yet
			ok, issue := la.scanRun(k, la.c.h.ElemStore.Get(model.Span{Start: sp.Start, N: n}))
			la.runs[p] = -(issue + 1)
			la.clean[k] = la.clean[k] && ok
		}
	}
}

// scanRun reports whether es, with repeated elements dropped, is a prefix
// of key k's version order, and the index of es's first element that is
// a repeat, that no txn appended, or that a failed txn appended: what
// duplicate-elements, garbage-read and G1a report. When es is no such
// prefix, the index is at most where it stops being one. O(len(es)).
func (la *listAppend) scanRun(k model.KeyID, es []model.MsgID) (prefix bool, issue int32) {
	o := la.order[k]
	j := int32(0)
	issue = int32(len(es))
	for x, e := range es {
		switch i := la.pos[e]; {
		case i >= 0 && i < j && o[i] == e: // a repeat of an element already matched
			issue = min(issue, int32(x))
		case int(j) < len(o) && o[j] == e:
			j++
			if w := la.writer[e]; w < 0 || la.c.recs[w].vertex < 0 {
				issue = min(issue, int32(x))
			}
		default:
			return false, min(issue, int32(x))
		}
	}
	return true, issue
}

// plainRead reports whether read micro-op m's list is known to hold no
// element that G1a, garbage-read or duplicate-elements reports: it is
// shorter than the first such element of the run cleanKeys scanned from
// its start. Those checks skip its elements then. False before cleanKeys
// and for every other read.
func (la *listAppend) plainRead(m *model.Mop) bool {
	if m.Kind != model.MopReadList || la.runs == nil {
		return false
	}
	sp := la.c.h.SpanOf(m)
	return sp.N > 0 && -la.runs[la.runAt.Of(sp.Start)] > sp.N
}

// shownByKey finds, for each element of key k's order, the first read in
// history order that showed it at its place in the order (shownBy): for
// position p, the first of the reads whose list (repeats dropped, when
// longer than the order) is a prefix of the order longer than p. The key's
// reads are sorted by list, and then by history order (versionOrders), so
// each distinct list is tested once, by its first read, and first[L]
// keeps the first read showing a prefix of length L; first is the
// caller's scratch, returned for reuse. cleanKeys calls it for each key,
// on every core. (It was one pass over all the reads in history order, on
// one core: 20 to 30 ms of a 1M-txn check during which the other core had
// nothing to do.) O(the key's reads and read elements).
func (la *listAppend) shownByKey(k model.KeyID, first []int32) []int32 {
	o := la.order[k]
	idx := la.keyReads[la.keyStart[k]:la.keyStart[k+1]]
	if len(o) == 0 || len(idx) == 0 {
		return first
	}
	first = slices.Grow(first[:0], len(o)+1)[:len(o)+1]
	for i := range first {
		first[i] = -1
	}
	for g := 0; g < len(idx); {
		rd := &la.reads[idx[g]]
		h := g + 1 // idx[g:h]: reads of one list, the first read first
		for h < len(idx) && la.compareLists(rd, &la.reads[idx[h]]) == 0 {
			h++
		}
		es := la.list(rd)
		if len(es) > len(o) {
			es = withoutRepeats(es) // a read with duplicate elements shows the order too
		}
		if n := len(es); n > 0 && n <= len(o) && slices.Equal(es, o[:n]) && (first[n] < 0 || idx[g] < first[n]) {
			first[n] = idx[g]
		}
		g = h
	}
	by := int32(-1) // the first read of a prefix longer than p
	for p := len(o) - 1; p >= 0; p-- {
		if f := first[p+1]; f >= 0 && (by < 0 || f < by) {
			by = f
		}
		if by >= 0 {
			la.shownBy[o[p]] = la.reads[by].rec
		}
	}
	return first
}

// shortList is the length up to which withoutRepeats scans instead of
// hashing: at most shortList²/2 comparisons.
const shortList = 32

// withoutRepeats returns es with every element after its first occurrence
// dropped (a new slice).
func withoutRepeats(es []model.MsgID) []model.MsgID {
	if len(es) <= shortList {
		// most lists: a scan of what is kept beats a map's allocation
		o := make([]model.MsgID, 0, len(es))
		for _, e := range es {
			if !slices.Contains(o, e) {
				o = append(o, e)
			}
		}
		return o
	}
	seen := make(map[model.MsgID]bool, len(es))
	o := make([]model.MsgID, 0, len(es))
	for _, e := range es {
		if !seen[e] {
			seen[e] = true
			o = append(o, e)
		}
	}
	return o
}

// incompatible is a key's first pair of reads neither of which is a prefix
// of the other: of the distinct lists its reads returned, the first read
// that returned each.
type incompatible struct {
	k    model.KeyID
	a, b readRef
}

// orderKey sets key k's version order from its reads (sorted by list,
// compareLists, and rec) and returns the first incompatible pair, or nil,
// unless k has a single append, whose order is that append alone (Elle's
// values-from-single-appends). It touches key k's entries only, so that
// keys can be ordered at once, and reuses reads (the caller's scratch) for
// the distinct lists.
func (la *listAppend) orderKey(k model.KeyID, reads []readRef, singleAppend bool, single model.MsgID) *incompatible {
	// the first read of each distinct list: equal lists are neighbours
	ds := reads[:0]
	for _, rd := range reads {
		if rd.n() == 0 {
			continue
		}
		if n := len(ds); n > 0 && la.compareLists(&ds[n-1], &rd) == 0 {
			continue
		}
		ds = append(ds, rd)
	}
	if len(ds) == 0 {
		return nil
	}
	slices.SortStableFunc(ds, func(a, b readRef) int {
		if a.n() != b.n() { // (not cmp.Or, which compares both first)
			return cmp.Compare(a.n(), b.n())
		}
		return cmp.Compare(a.rec, b.rec)
	})
	longest := &ds[len(ds)-1]
	o := withoutRepeats(la.list(longest))
	la.readOrder[k] = o
	if singleAppend {
		la.order[k] = []model.MsgID{single}
		return nil
	}
	la.order[k], la.orderSrc[k] = o, longest.rec
	for i := 1; i < len(ds); i++ {
		a, b := la.list(&ds[i-1]), la.list(&ds[i])
		if len(a) <= len(b) && slices.Equal(a, b[:len(a)]) {
			continue
		}
		return &incompatible{k, ds[i-1], ds[i]}
	}
	return nil
}

// reportIncompatible records the incompatible-order instance of pair p.
func (la *listAppend) reportIncompatible(p *incompatible) {
	c, a, b := la.c, &p.a, &p.b
	c.add(IncompatibleOrder, &Instance{
		Subject:  analysis.Subject{Key: c.keyVal(p.k)},
		Values:   []analysis.Value{c.listVal(la.list(a)), c.listVal(la.list(b))},
		Ops:      []int64{c.idx(a.rec), c.idx(b.rec)},
		Evidence: analysis.Evidence{Witness: c.witness(a.rec, b.rec)},
	})
}

// state is the state a read ended in: its last element, or the empty state
// of its key.
func (la *listAppend) state(k model.KeyID, es []model.MsgID) int32 {
	if len(es) == 0 {
		return int32(len(la.c.h.Msgs)) + int32(k)
	}
	return int32(es[len(es)-1])
}

// release drops what only the non-cycle checks use, once they have run.
func (la *listAppend) release() {
	la.txnChecks.release()
	la.interm, la.dups, la.readOrder, la.runs = nil, nil, nil, nil
}
