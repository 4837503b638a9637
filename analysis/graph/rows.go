package graph

import (
	"runtime"

	"github.com/hindsight-dev/hindsight/internal/par"
)

// Rows groups items into rows 0..n-1 as compressed sparse rows, the layout
// of Graph's edges: each calls f with every (row, item) pair, and Rows
// calls each twice (to count, then to fill), so each must give the same
// pairs in the same order both times. Row r is items[start[r]:start[r+1]],
// in the order each gave them. Cost: O(n + pairs) time and memory.
func Rows(n int, each func(f func(row, item int32))) (start, items []int32) {
	start = make([]int32, n+1)
	each(func(r, _ int32) { start[r+1]++ })
	for r := 1; r <= n; r++ {
		start[r] += start[r-1]
	}
	items = make([]int32, start[n])
	each(func(r, it int32) {
		items[start[r]] = it
		start[r]++
	})
	CursorsToStarts(start)
	return start, items
}

// CursorsToStarts turns the cursors of full rows back into their starts.
// A fill that takes row v's slots from start[v] on, bumping it, leaves
// start[v] at row v+1's start once every row is full; the cursors move up
// by one and start[0] is 0 again. So a layout's fill needs no second array
// of a cursor a row. O(rows).
func CursorsToStarts(start []int32) {
	if n := len(start) - 1; n > 0 {
		copy(start[1:n], start[:n-1])
		start[0] = 0
	}
}

// compactMinRows is the fewest rows CompactRows gives a piece (a variable:
// the tests make it small, to cut small layouts into pieces).
var compactMinRows = 1 << 14

// CompactRows rewrites the rows of a compressed-sparse-row layout in
// place, on every core, and closes the gaps between them. Row v holds the
// caller's items at [start[v], end[v]), with room up to start[v+1]. The
// rows are cut into pieces; each worker gets a row function of its own
// from newRow, and row(v, a, b, w) rewrites row v's items a..b-1 from
// position w on (w <= a: items only move down, within the piece's
// stretch), returning where the rewritten row ends. The pieces'
// stretches then move down into place in order, through move(dst, src,
// n) (dst < src; the ranges may overlap, as copy allows), and start
// becomes the rows' new starts, start[n] their end, which CompactRows
// returns. end may be start[:n] itself, for rows that start empty and
// that row fills (each row's end is read before its start is rewritten);
// or nil, for rows that are full: row v's items end at start[v+1]. The
// result does not depend on the cut. O(rows + items) beside the rows' own
// work.
func CompactRows(start, end []int32, newRow func() func(v int, a, b, w int32) int32, move func(dst, src, n int32)) int32 {
	n := len(start) - 1
	size := max(compactMinRows, n/(8*runtime.GOMAXPROCS(0))+1)
	pieces := (n + size - 1) / size
	top := make([]int32, pieces) // where each piece's rewritten stretch ends
	// full rows: the end of each piece's last row, read before any piece
	// rewrites the next one's first start
	var bound []int32
	if end == nil {
		bound = make([]int32, pieces)
		for p := range pieces {
			bound[p] = start[min(n, (p+1)*size)]
		}
	}
	par.Pieces(n, size, func() func(p, lo, hi int) {
		row := newRow()
		return func(p, lo, hi int) {
			w := start[lo]
			for v := lo; v < hi; v++ {
				a, b := start[v], int32(0)
				switch {
				case end != nil:
					b = end[v]
				case v+1 < hi:
					b = start[v+1]
				default:
					b = bound[p]
				}
				start[v] = w
				w = row(v, a, b, w)
			}
			top[p] = w
		}
	})
	shift := make([]int32, pieces)
	w := int32(0)
	for p := range pieces {
		base := start[p*size] // the piece's stretch begins at its first row
		if base != w {
			move(w, base, top[p]-base)
		}
		shift[p] = base - w
		w += top[p] - base
	}
	par.Pieces(n, size, func() func(p, lo, hi int) {
		return func(p, lo, hi int) {
			if d := shift[p]; d != 0 {
				for v := lo; v < hi; v++ {
					start[v] -= d
				}
			}
		}
	})
	start[n] = w
	return w
}
