package par

import (
	"runtime"
	"slices"
)

// sortSerialBelow is the length under which SortFunc sorts on the calling
// goroutine: below it the goroutines and the split cost more than they
// save.
const sortSerialBelow = 1 << 15

// pivotSamples is how many evenly spaced elements SortFunc's pivot is the
// median of: enough for halves within a few per cent of each other.
const pivotSamples = 255

// SortFunc sorts s by cmp on up to GOMAXPROCS cores: it partitions s in
// place around the median of a sample, like one step of quicksort, and
// sorts the two sides at once (each split again while cores remain), with
// no memory beyond the sample. cmp must be a total order in which only
// identical elements compare equal: then the result is the same for any
// number of cores, and the same as slices.SortFunc's. Cost: O(n log n)
// comparisons; the split passes are serial, O(n) each, one per level of
// log2(GOMAXPROCS).
//
// It is written here because slices has no parallel sort and the
// transactional checkers otherwise sort lists of millions of edges on one
// core (rw-register's version edges: a fifth of its analysis at 1M txns).
// A merge of sorted halves instead of the partition was slower on this
// project's 2-core machine: its buffer's first touch cost as much as the
// merge (BenchmarkSortFunc).
func SortFunc[S ~[]E, E any](s S, cmp func(a, b E) int) {
	depth := 0
	for p := runtime.GOMAXPROCS(0); p > 1; p = (p + 1) / 2 {
		depth++
	}
	sortSplit(s, cmp, depth)
}

// sortSplit sorts s, with depth more levels of splitting across cores.
func sortSplit[E any](s []E, cmp func(a, b E) int, depth int) {
	if depth == 0 || len(s) < sortSerialBelow {
		slices.SortFunc(s, cmp)
		return
	}
	mid := partition(s, medianSample(s, cmp), cmp)
	var g Group
	g.Go(func() { sortSplit(s[:mid], cmp, depth-1) })
	sortSplit(s[mid:], cmp, depth-1)
	g.Wait()
}

// medianSample returns the median of pivotSamples evenly spaced elements
// of s (len(s) >= pivotSamples).
func medianSample[E any](s []E, cmp func(a, b E) int) E {
	sample := make([]E, pivotSamples)
	step := len(s) / pivotSamples
	for i := range sample {
		sample[i] = s[i*step]
	}
	slices.SortFunc(sample, cmp)
	return sample[pivotSamples/2]
}

// partition reorders s around p, a value that s holds (Hoare's scheme),
// and returns m such that every element of s[:m] is <= p and every one of
// s[m:] is >= p.
func partition[E any](s []E, p E, cmp func(a, b E) int) int {
	i, j := -1, len(s)
	for {
		for i++; cmp(s[i], p) < 0; i++ {
		}
		for j--; cmp(s[j], p) > 0; j-- {
		}
		if i >= j {
			return j + 1
		}
		s[i], s[j] = s[j], s[i]
	}
}
