package ingest

import "github.com/hindsight-dev/hindsight/model"

// This file stores the elements of list-append reads ([:r k [v1 v2 ...]])
// so that reads of one key share them. A key's list only grows, so almost
// every read of it is a prefix of a later, longer one; storing each read
// whole costs the sum of all read lengths, which at a million transactions
// is half the size of the parsed history. Instead each key has a current
// run in the history's element store, reserved with room to grow: a read
// that is a prefix of the run's filled part takes a span of its first
// elements, one that extends it writes only its new elements into the
// reserved room, and any other (a longer list than the room holds, or one
// that disagrees with the run, as an incompatible order does) starts a new
// run. model.History.ElemsOf returns the same elements either way; only
// where they are stored changes (the spans of two reads may overlap).
//
// Memory: per block of a parallel read (each block's decoder starts runs
// of its own), at most about four times the longest list of each key
// (runs double, from minRun), instead of the sum of its reads. Time: O(elements read), the
// comparison with the run included.

// listRun is the current run of one key's list reads: run[:n] are the
// elements of the longest read so far that agrees with it; run[n:] is
// reserved room (filled with a valid id when the run starts, so that
// ingest's renumbering of a block's store maps every slot; an extension
// overwrites only the slots it fills).
type listRun struct {
	run   []model.MsgID
	start int32 // Span.Start of run in the element store
	n     int32
}

// minRun is the least room a key's run reserves.
const minRun = 8

// storeList stores the elements of one list read of key k, held in
// d.elemBuf, and returns their span in the element store.
func (d *decoder) storeList(k model.KeyID) model.Span {
	es := d.elemBuf
	n := int32(len(es))
	if int(k) >= len(d.lists) {
		d.lists = append(d.lists, make([]listRun, int(k)+1-len(d.lists))...)
	}
	lr := &d.lists[k]
	p := int32(0) // the common prefix of es and the run's filled part
	for m := min(n, lr.n); p < m && es[p] == lr.run[p]; p++ {
	}
	switch {
	case p == n: // a prefix of what the run holds
	case p == lr.n && int(n) <= len(lr.run): // extends it, in its room
		// run[n:] keeps the valid ids the run was reserved with
		copy(lr.run[p:n], es[p:])
		lr.n = n
	default: // a new run, with room to grow
		sp, run := d.b.Elems(max(2*len(es), minRun))
		copy(run, es)
		fill(run[n:], es[n-1])
		*lr = listRun{run: run, start: sp.Start, n: n}
	}
	return model.Span{Start: lr.start, N: n}
}

// runPrefix returns how many of the integers vs, the elements of a list
// read of key k, begin key k's current run (storeList): their messages are
// the run's. A list read is mostly the run's list or an extension of it,
// so its elements need not be interned one by one: comparing each with
// the run's value costs two array loads, where interning a value that the
// key's dense table does not cover (values shared among many keys, or
// older than the block of a parallel read) took two map look-ups. On a
// history of 200 keys whose lists grow to 500 elements (100k txns, 163
// MB, values from one counter), the read went from 1.77 to 0.88 s (the
// bare tokenizer pass: 0.24 s); at 1,500 elements (300k txns, 1.49 GB)
// the check from 26.1 to 19.0 s, most of the rest being each block's first
// read of each key, which has no run yet. O(the prefix).
func (d *decoder) runPrefix(k model.KeyID, vs []int64) int {
	if int(k) >= len(d.lists) {
		return 0
	}
	lr := &d.lists[k]
	n := min(len(vs), int(lr.n))
	for j := range n {
		if v, ok := d.b.MsgInt(lr.run[j]); !ok || v != vs[j] {
			return j
		}
	}
	return n
}

// fill sets every element of s to v.
func fill(s []model.MsgID, v model.MsgID) {
	for i := range s {
		s[i] = v
	}
}
