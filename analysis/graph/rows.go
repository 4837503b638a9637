package graph

import "slices"

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
	next := slices.Clone(start[:n])
	each(func(r, it int32) {
		items[next[r]] = it
		next[r]++
	})
	return start, items
}
