package model

import (
	"maps"
	"slices"
)

// CompactElems stores the elements of the list reads (MopReadList) again,
// in a store that holds each key's longest list read once, which every
// read that is a prefix of it points into, and any other run of elements
// once (a read that disagrees with the longest: an incompatible order).
// ElemsOf returns what it returned before; only where the elements are
// kept changes.
//
// Ingest already stores a key's reads as prefixes of one run (ingest's
// lists.go), but a run keeps room to grow, and a parallel read starts each
// key's run anew in every block: at 1M list-append transactions of
// histgen's defaults the store held 2.74M elements for 1.14M in the keys'
// longest lists. Ingest calls this once a history is read.
//
// A read is a prefix of its key's longest when it shares its run; else
// its run's elements are compared with the longest's once, a run at a
// time (a key's runs come one after another in the store), so the cost is
// O(micro-ops + stored elements), and the new store is never larger than
// the old, which it replaces (both are held for a moment).
func (h *History) CompactElems() {
	if len(h.ElemStore.chunks) == 0 {
		return
	}
	longest := make([]Span, len(h.Keys))
	h.eachListRead(func(m *Mop, sp Span) {
		if sp.N > longest[m.Key].N {
			longest[m.Key] = sp
		}
	})
	// runs that are no prefix of their key's longest list, by start: the
	// longest span read of each, then its span in the new store
	others := map[int32]Span{}
	pre := newPrefixes(h, longest)
	h.eachListRead(func(m *Mop, sp Span) {
		if !pre.of(m.Key, sp) && sp.N > others[sp.Start].N {
			others[sp.Start] = sp
		}
	})
	var out Store[MsgID]
	home := make([]int32, len(h.Keys))
	for k, sp := range longest {
		if sp.N > 0 {
			home[k] = out.Put(h.ElemStore.Get(sp)...).Start
		}
	}
	for _, start := range slices.Sorted(maps.Keys(others)) { // the same layout every run
		others[start] = out.Put(h.ElemStore.Get(others[start])...)
	}
	pre = newPrefixes(h, longest)
	h.eachListRead(func(m *Mop, sp Span) {
		to := Span{Start: home[m.Key], N: sp.N}
		if !pre.of(m.Key, sp) {
			to.Start = others[sp.Start].Start
		}
		if m.hi == wideMop {
			h.MopWide[m.lo] = packSpan(to)
		} else {
			m.lo = uint32(to.Start)
		}
	})
	out.Trim()
	h.ElemStore = out
}

// eachListRead calls f with every list read of h that read any element,
// and its span.
func (h *History) eachListRead(f func(m *Mop, sp Span)) {
	for _, c := range h.MopStore.chunks {
		for i := range c {
			if m := &c[i]; m.Kind == MopReadList {
				if sp := h.SpanOf(m); sp.N > 0 {
					f(m, sp)
				}
			}
		}
	}
}

// prefixes decides, run by run, whether list reads are prefixes of their
// key's longest list: per key, the run last looked at, how many of its
// first elements are known to agree with the longest, and whether the
// next one differs.
type prefixes struct {
	h       *History
	longest []Span
	last    []prefixRun
}

type prefixRun struct {
	start, same int32
	differs     bool
}

func newPrefixes(h *History, longest []Span) *prefixes {
	return &prefixes{h: h, longest: longest, last: make([]prefixRun, len(longest))}
}

// of reports whether the read of span sp of key k is a prefix of k's
// longest list read.
func (p *prefixes) of(k KeyID, sp Span) bool {
	lg := p.longest[k]
	if sp.Start == lg.Start {
		return true
	}
	r := &p.last[k]
	if r.start != sp.Start {
		*r = prefixRun{start: sp.Start}
	}
	if sp.N <= r.same {
		return true
	}
	if r.differs {
		return false
	}
	es, want := p.h.ElemStore.Get(sp), p.h.ElemStore.Get(lg)
	for r.same < sp.N && es[r.same] == want[r.same] {
		r.same++
	}
	r.differs = r.same < sp.N
	return !r.differs
}
