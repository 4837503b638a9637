package txn

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// lostUpdates reports the txns of one lost-update group (equal key, list
// length and hash): those whose first read of the key is the same list, two
// or more of them, one instance per distinct list, in the order each list
// was first read. Lists are compared in full: equal hashes of different
// lists are sorted apart. O(L · g log g) for g txns reading lists of
// length L, O(L · g) when all lists are equal.
func (la *listAppend) lostUpdates(g lostKey, cands []lostCand) {
	c := la.c
	if len(cands) < 2 {
		return
	}
	readOf := func(x lostCand) []model.MsgID {
		es, _ := la.elems(x.rec, &c.mops(x.rec)[x.mop])
		return es
	}
	first := readOf(cands[0])
	same := true
	for _, x := range cands[1:] {
		if !slices.Equal(readOf(x), first) {
			same = false
			break
		}
	}
	var runs [][]lostCand
	if same {
		runs = [][]lostCand{cands}
	} else {
		// a stable sort by list keeps each run in txn order, and a run's
		// first txn is where its list was first read
		sorted := slices.Clone(cands)
		slices.SortStableFunc(sorted, func(a, b lostCand) int { return slices.Compare(readOf(a), readOf(b)) })
		for i := 0; i < len(sorted); {
			j := i + 1
			for j < len(sorted) && slices.Equal(readOf(sorted[j]), readOf(sorted[i])) {
				j++
			}
			runs = append(runs, sorted[i:j])
			i = j
		}
		slices.SortFunc(runs, func(a, b []lostCand) int { return cmp.Compare(a[0].rec, b[0].rec) })
	}
	for _, run := range runs {
		if len(run) < 2 {
			continue
		}
		recs := make([]int32, len(run))
		for i, x := range run {
			recs[i] = x.rec
		}
		in := analysis.Instance{Key: c.keyVal(g.k), Witness: c.witness(recs...)}
		v := c.listVal(readOf(run[0]))
		in.Value = &v
		for _, x := range recs {
			in.Txns = append(in.Txns, analysis.AtomValue(model.IntAtom(c.idx(x))))
		}
		c.add(LostUpdate, in)
	}
}

// lostKey groups lost-update candidates: a key and the list read (its
// length and hash; lists are compared in full when a group is reported).
type lostKey struct {
	k    model.KeyID
	n    int32
	hash uint64
}

func lostKeyOf(k model.KeyID, es []model.MsgID) lostKey {
	return lostKey{k, int32(len(es)), hashElems(es)}
}

// firstRead is a key a txn touched, for lost-update: the list of its first
// read (read is false when the txn appended before reading it), and whether
// it has appended since.
type firstRead struct {
	k     model.KeyID
	read  bool
	wrote bool
	es    []model.MsgID
}

// lostUpdateOf appends to cands the lost-update candidates of ok rec r:
// for each key it read (its first read of the key, before appending to it)
// and then appended to (Elle's lost-update-cases). The keys are a list, reused
// between txns, indexed by key (keyMarks); keyMarks2 holds each key's
// first read micro-op, the list the group reports. O(mops).
func (la *listAppend) lostUpdateOf(r int32, mops []model.Mop, cands []lostCand) []lostCand {
	seen := la.firsts[:0]
	defer func() { la.firsts = seen[:0] }()
	at, firstMop := &la.keyMarks, &la.keyMarks2
	at.reset()
	firstMop.reset()
	for i := range mops {
		m := &mops[i]
		j := -1
		if x, ok := at.get(int32(m.Key)); ok {
			j = int(x)
		}
		switch m.Kind {
		case model.MopAppend:
			if j < 0 {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, firstRead{k: m.Key, wrote: true})
				continue
			}
			if seen[j].wrote {
				continue
			}
			seen[j].wrote = true
			fm, _ := firstMop.get(int32(m.Key))
			cands = append(cands, lostCand{rec: r, mop: fm, seq: int32(len(cands)), g: lostKeyOf(m.Key, seen[j].es)})
		case model.MopReadList, model.MopRead:
			firstMop.setFirst(int32(m.Key), int32(i))
			if j >= 0 {
				continue
			}
			if es, ok := la.elems(r, m); ok {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, firstRead{k: m.Key, read: true, es: es})
			}
		}
	}
	return cands
}
