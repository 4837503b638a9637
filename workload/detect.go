package workload

import (
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// detectPiece is how many ops a worker of Detect takes at a time.
const detectPiece = 1 << 15

// sighting is what decided an op's workload: a micro-op of kind mop, or a
// value the workload's Recognise described as form.
type sighting struct {
	w    *Workload
	pos  int
	mop  model.MopKind
	form string
}

// sightings are a stretch of ops' first sighting of each workload, in the
// order met (recognised values before micro-ops within an op), and
// whether a read of nil was met there.
type sightings struct {
	first    []sighting
	nilReads bool
}

// Detect names the workload of h from its micro-ops and its workloads'
// own values (see the package doc). It returns a *MixedError when two
// workloads meet, naming the first op that decided a workload and the
// first that decided another. Pieces of the ops are looked through on
// every core, each noting the first sighting of each workload in it; in
// piece order, the first sighting is the workload, and the first of
// another workload is where two meet, as in one pass in history order.
// O(ops + mops).
func Detect(h *model.History) (*Workload, error) {
	rs, own := recognisers(h), owners()
	pieces := make([]sightings, (len(h.Ops)+detectPiece-1)/detectPiece)
	par.Pieces(len(h.Ops), detectPiece, func() func(i, lo, hi int) {
		return func(i, lo, hi int) { pieces[i] = sight(h, rs, own, lo, hi) }
	})
	var found *sighting
	nilReads := false
	for i := range pieces {
		nilReads = nilReads || pieces[i].nilReads
		for j := range pieces[i].first {
			s := &pieces[i].first[j]
			switch {
			case found == nil:
				found = s
			case s.w != found.w:
				return nil, &MixedError{Source: h.Source, FirstIndex: h.Index(found.pos), OtherIndex: h.Index(s.pos),
					FirstLine: h.Line(found.pos), OtherLine: h.Line(s.pos),
					FirstW: found.w.Name, OtherW: s.w.Name, FirstMop: found.mop, OtherMop: s.mop, FirstForm: found.form, OtherForm: s.form}
			}
		}
	}
	switch {
	case found != nil:
		return found.w, nil
	case nilReads:
		return MustLookup(txn.ListAppend), nil
	}
	for _, w := range rs {
		if hasRecords(h, w.Name) {
			return w, nil
		}
	}
	return MustLookup(queue.Workload), nil
}

// sight looks through ops [lo, hi) for the first sighting of each
// workload, with the recognisers rs.
func sight(h *model.History, rs []*Workload, own *ownerTable, lo, hi int) sightings {
	var out sightings
	note := func(w *Workload, pos int, mop model.MopKind, form string) {
		for _, s := range out.first {
			if s.w == w {
				return
			}
		}
		out.first = append(out.first, sighting{w, pos, mop, form})
	}
	for i := lo; i < hi; i++ {
		op := &h.Ops[i]
		if !op.IsClient() {
			continue
		}
		for _, w := range rs {
			if form := w.Recognise(h, i); form != "" {
				note(w, i, 0, form)
			}
		}
		mops := h.MopsOf(op)
		for mi := range mops {
			m := &mops[mi] // not a copy: owner's pointer would move it to the heap
			if m.Kind == model.MopOther {
				continue
			}
			if m.Kind == model.MopRead && !m.Done {
				out.nilReads = true
				continue
			}
			if w := own.of(m); w != nil {
				note(w, i, m.Kind, "")
			}
		}
	}
	return out
}
