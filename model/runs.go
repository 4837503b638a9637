package model

import "sort"

// Runs is a column of one integer per op of a history, kept beside the
// ops rather than in them, as runs in which the value grows by one per
// position: an op's :index (History.Indices) and the line it starts on
// (History.Lines). Histories almost always number their ops 0, 1, 2, ...,
// one op to a line, so a whole column usually costs one run (16 bytes)
// where a field of Op cost 4 or 8 bytes an op. A column whose values jump
// at every op (scrambled indices, pretty-printed ops) costs 16 bytes an
// op, still linear.
//
// An op without an :index takes its position in the whole history as its
// index. A block of a file read on its own (ingest's parallel read) does
// not know where its ops will stand, so such an op is kept as a
// positional entry, which [Runs.Concat] places.
type Runs struct {
	runs []run
	n    int32
}

// run covers the positions from start up to the next run's start: the
// op at position p has the value p + delta. A positional run has delta 0 and
// keeps it when the run is moved by Concat.
type run struct {
	start      int32
	positional bool
	delta      int64
}

// Len is the number of ops recorded.
func (x *Runs) Len() int { return int(x.n) }

// Append records idx as the value of the op at position Len().
func (x *Runs) Append(idx int64) {
	p := int64(x.n)
	x.n++
	if k := len(x.runs); k > 0 && !x.runs[k-1].positional && x.runs[k-1].delta == idx-p {
		return
	}
	x.runs = append(x.runs, run{start: int32(p), delta: idx - p})
}

// AppendPosition records that the op at position Len() has no :index, so
// that its index is its position in the history it ends up in.
func (x *Runs) AppendPosition() {
	p := x.n
	x.n++
	if k := len(x.runs); k > 0 && x.runs[k-1].positional {
		return
	}
	x.runs = append(x.runs, run{start: p, positional: true})
}

// At is the value of the op at position pos (0 <= pos < Len()). Cost:
// O(1) for one run, O(log runs) otherwise.
func (x *Runs) At(pos int) int64 {
	r := len(x.runs) - 1
	if r > 0 {
		r = sort.Search(len(x.runs), func(i int) bool { return int(x.runs[i].start) > pos }) - 1
	}
	return int64(pos) + x.runs[r].delta
}

// Values returns every value in position order, in a new slice: O(n), for
// the passes that would otherwise look each one up (At) many times.
func (x *Runs) Values() []int64 {
	out := make([]int64, x.n)
	for r, run := range x.runs {
		end := x.n
		if r+1 < len(x.runs) {
			end = x.runs[r+1].start
		}
		for p := run.start; p < end; p++ {
			out[p] = int64(p) + run.delta
		}
	}
	return out
}

// Concat appends y's entries after x's. y's positional entries take their
// positions in x; its other entries keep their values.
func (x *Runs) Concat(y *Runs) {
	base := int64(x.n)
	for i, r := range y.runs {
		start := int64(r.start) + base
		if !r.positional {
			// the run's indices stay; its positions move by base
			idx := int64(r.start) + r.delta
			if k := len(x.runs); i == 0 && k > 0 && !x.runs[k-1].positional && x.runs[k-1].delta == idx-start {
				continue
			}
			x.runs = append(x.runs, run{start: int32(start), delta: idx - start})
			continue
		}
		if k := len(x.runs); i == 0 && k > 0 && x.runs[k-1].positional {
			continue
		}
		x.runs = append(x.runs, run{start: int32(start), positional: true})
	}
	x.n += y.n
}

// Increasing reports whether the values strictly increase with position.
// Cost: O(runs).
func (x *Runs) Increasing() bool {
	for i := 1; i < len(x.runs); i++ {
		// the last index of run i-1 against the first of run i
		p := int64(x.runs[i].start)
		if p-1+x.runs[i-1].delta >= p+x.runs[i].delta {
			return false
		}
	}
	return true
}
