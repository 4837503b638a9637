package model

import (
	"maps"
	"slices"

	"github.com/hindsight-dev/hindsight/internal/par"
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
//
// The three passes over the micro-ops run on every core, a chunk of the
// micro-op store at a time, each worker with its own scratch, merged in an
// order that does not depend on the workers: a key's longest list is the
// first of the longest in store order, as one pass in order finds it.
// Done in order on one core, they were the end of a parallel read that
// nothing overlapped (about 90 ms of CPU at 1M list-append txns).
func (h *History) CompactElems() {
	if len(h.ElemStore.chunks) == 0 {
		return
	}
	nk := len(h.Keys)
	bests := forListReads(h, func() []longestRead { return make([]longestRead, nk) }, func(b []longestRead, chunk, i int, m *Mop, sp Span) {
		if x := (longestRead{sp, int32(chunk), int32(i)}); x.beats(b[m.Key]) {
			b[m.Key] = x
		}
	})
	longest := make([]Span, nk)
	for k := range longest {
		var w longestRead
		for _, b := range bests {
			if b[k].beats(w) {
				w = b[k]
			}
		}
		longest[k] = w.sp
	}
	bests = nil
	// runs that are no prefix of their key's longest list, by start: the
	// longest span read of each, then its span in the new store
	type otherRuns struct {
		pre  *prefixes
		runs map[int32]Span
	}
	parts := forListReads(h, func() otherRuns { return otherRuns{newPrefixes(h, longest), map[int32]Span{}} },
		func(o otherRuns, _, _ int, m *Mop, sp Span) {
			if !o.pre.of(m.Key, sp) && sp.N > o.runs[sp.Start].N {
				o.runs[sp.Start] = sp
			}
		})
	others := map[int32]Span{}
	for _, o := range parts {
		for start, sp := range o.runs {
			if sp.N > others[start].N {
				others[start] = sp
			}
		}
	}
	parts = nil
	var out Store[MsgID]
	home := make([]int32, nk)
	for k, sp := range longest {
		if sp.N > 0 {
			home[k] = out.Put(h.ElemStore.Get(sp)...).Start
		}
	}
	for _, start := range slices.Sorted(maps.Keys(others)) { // the same layout every run
		others[start] = out.Put(h.ElemStore.Get(others[start])...)
	}
	forListReads(h, func() *prefixes { return newPrefixes(h, longest) }, func(pre *prefixes, _, _ int, m *Mop, sp Span) {
		to := Span{Start: home[m.Key], N: sp.N}
		if !pre.of(m.Key, sp) {
			to.Start = others[sp.Start].Start
		}
		if m.hi == wideMop {
			h.MopWide[m.lo] = packSpan(to) // its own entry: no other micro-op writes it
		} else {
			m.lo = uint32(to.Start)
		}
	})
	out.Trim()
	h.ElemStore = out
}

// longestRead is a key's longest list read so far: its span, and the
// micro-op's place in the store (chunk, index), which breaks ties.
type longestRead struct {
	sp       Span
	chunk, i int32
}

// beats reports whether x is the key's longest list read rather than w:
// longer, or as long and before it in the store (the first of the longest,
// as a pass in store order finds it, whichever worker met either).
func (x longestRead) beats(w longestRead) bool {
	if x.sp.N != w.sp.N {
		return x.sp.N > w.sp.N
	}
	return x.sp.N > 0 && (x.chunk < w.chunk || x.chunk == w.chunk && x.i < w.i)
}

// forListReads calls f with every list read of h that read any element,
// its span and its place in the micro-op store (chunk, index), the chunks
// handed out to up to GOMAXPROCS goroutines; each has a scratch of its own
// that start makes and f is given. It returns the scratches. f may change
// only the micro-op it is given (and what is its own).
func forListReads[S any](h *History, start func() S, f func(s S, chunk, i int, m *Mop, sp Span)) []S {
	var own par.Scratches[S]
	chunks := h.MopStore.chunks
	par.Each(len(chunks), 0, func() func(int) {
		s := own.New(start())
		return func(ci int) {
			c := chunks[ci]
			for i := range c {
				if m := &c[i]; m.Kind == MopReadList {
					if sp := h.SpanOf(m); sp.N > 0 {
						f(s, ci, i, m, sp)
					}
				}
			}
		}
	})
	return own.All()
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
