package txn

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// This file holds lost-update, which list-append and rw-register share
// (Elle's lost-update-cases; docs/list-append.md#lost-update): two or more
// ok txns read the same state of a key (their first read of it, before
// writing it) and then wrote it.

// lostCand is a lost-update candidate: an ok txn, the micro-op of its
// first read of the group's key, its group, and the order it was found in.
type lostCand struct {
	rec, mop int32
	seq      int32
	g        lostKey
}

// lostKey groups lost-update candidates: a key and the state read (its
// length and hash; states are compared in full when a group is reported).
// A register's value, a list of one, hashes to a value of its own.
type lostKey struct {
	k    model.KeyID
	n    int32
	hash uint64
}

func lostKeyOf(k model.KeyID, es []model.MsgID) lostKey {
	return lostKey{k, int32(len(es)), hashElems(es)}
}

// hashElems hashes a state's elements for lostKey, FNV-1a style with one
// step per element, not per byte.
func hashElems(es []model.MsgID) uint64 {
	h := uint64(14695981039346656037)
	for _, e := range es {
		h ^= uint64(uint32(e))
		h *= 1099511628211
	}
	return h
}

// firstRead is a key a txn touched, for lost-update: the group of its first
// read (read is false when the txn wrote the key before reading it),
// whether that read can stand in a group (txnView.certain), and whether the
// txn has written the key since.
type firstRead struct {
	k       model.KeyID
	read    bool
	certain bool
	wrote   bool
	g       lostKey
}

// lostUpdateOf adds the lost-update candidates of ok rec r: for each key
// it read (its first read of the key, before writing it) and then wrote.
// A read of nil counts as the empty state. The keys are a list, reused
// between txns, indexed by key (keyMarks); keyMarks2 holds each key's first
// read micro-op, the state the group reports. O(mops).
func (tc *txnChecks) lostUpdateOf(r int32, mops []model.Mop) {
	v := tc.v
	seen := tc.firsts[:0]
	defer func() { tc.firsts = seen[:0] }()
	at, firstMop := &tc.keyMarks, &tc.keyMarks2
	at.reset()
	firstMop.reset()
	for i := range mops {
		m := &mops[i]
		j := -1
		if x, ok := at.get(int32(m.Key)); ok {
			j = int(x)
		}
		switch {
		case v.isWrite(m):
			if j < 0 {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, firstRead{k: m.Key, wrote: true})
				continue
			}
			if seen[j].wrote {
				continue
			}
			seen[j].wrote = true
			if !seen[j].certain {
				continue
			}
			fm, _ := firstMop.get(int32(m.Key))
			tc.lost = append(tc.lost, lostCand{rec: r, mop: fm, g: seen[j].g}) // seq: lostUpdates numbers them
		case v.isRead(m):
			firstMop.setFirst(int32(m.Key), int32(i))
			if j >= 0 {
				continue
			}
			if es, _, ok := v.readOf(r, m); ok {
				at.set(int32(m.Key), int32(len(seen)))
				seen = append(seen, firstRead{k: m.Key, read: true, certain: v.certain(es), g: lostKeyOf(m.Key, es)})
			}
		}
	}
}

// lostUpdates reports the candidates lostUpdateOf found: groups (key,
// length and hash of the state read) in the order each was first met,
// txns in order within each: a sort by group and then the order found
// (seq), then the groups by their first candidate. O(g log g),
// cache-friendlier than a map of slices.
func (tc *txnChecks) lostUpdates() {
	lost := tc.lost
	for i := range lost {
		lost[i].seq = int32(i) // the order found: txn order
	}
	// (the first differing field returns: cmp.Or compares all four, which
	// doubled a sort's time in a benchmark of the report's lag samples)
	par.SortFunc(lost, func(a, b lostCand) int {
		switch {
		case a.g.k != b.g.k:
			return cmp.Compare(a.g.k, b.g.k)
		case a.g.n != b.g.n:
			return cmp.Compare(a.g.n, b.g.n)
		case a.g.hash != b.g.hash:
			return cmp.Compare(a.g.hash, b.g.hash)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	var groups [][]lostCand
	for i := 0; i < len(lost); {
		j := i + 1
		for j < len(lost) && lost[j].g == lost[i].g {
			j++
		}
		if j-i > 1 {
			groups = append(groups, lost[i:j])
		}
		i = j
	}
	slices.SortFunc(groups, func(a, b []lostCand) int { return cmp.Compare(a[0].seq, b[0].seq) })
	for _, g := range groups {
		tc.lostGroup(g[0].g, g)
	}
}

// lostGroup reports the txns of one lost-update group (equal key, length
// and hash): those whose first read of the key is the same state, two or
// more of them, one instance per distinct state, in the order each was
// first read. States are compared in full: equal hashes of different
// lists are sorted apart. O(L · g log g) for g txns reading lists of
// length L, O(L · g) when all lists are equal.
func (tc *txnChecks) lostGroup(g lostKey, cands []lostCand) {
	c := tc.c
	if len(cands) < 2 {
		return
	}
	readOf := func(x lostCand) []model.MsgID {
		es, _, _ := tc.v.readOf(x.rec, &c.mops(x.rec)[x.mop])
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
		// a stable sort by state keeps each run in txn order, and a run's
		// first txn is where its state was first read
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
		in := &Instance{Subject: analysis.Subject{Key: c.keyVal(g.k)}, Evidence: analysis.Evidence{Witness: c.witness(recs...)}}
		v := c.stateVal(tc.readSrc.list, readOf(run[0]), false)
		in.Value = &v
		for _, x := range recs {
			in.Txns = append(in.Txns, analysis.AtomValue(model.IntAtom(c.idx(x))))
		}
		c.add(LostUpdate, in)
	}
}
