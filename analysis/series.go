package analysis

import (
	"iter"
	"slices"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// UnseenPoint is one change of a key's unseen count: after the ok op at
// position Op (index OpIndex, time Time), Count ok-sent values of Key had not
// been read by an ok poll. Between points the count stays.
type UnseenPoint struct {
	Time    int64
	OpIndex int64
	Key     model.KeyID
	Count   int32
}

// LagPoint is one realtime-lag sample: at the ok poll OpIndex of Process
// (stamped with its invocation Time), Key lagged LagNS nanoseconds behind the
// acknowledged log. (The consumer's position, which the lag follows from,
// is not kept: the report does not draw it, and a 1.39M-op history's
// report holds millions of samples.)
type LagPoint struct {
	Time    int64
	OpIndex int64
	Process int32
	Key     model.KeyID
	LagNS   int64
}

// KeyOrder is the version order a transactional checker inferred for one
// key: its elements (list-append) or values, oldest first, and the op whose
// read showed it (-1: none, e.g. a key with a single append).
type KeyOrder struct {
	Key   model.KeyID
	Elems []model.MsgID
	From  int64
}

// VersionEdge is one edge of an rw-register key's version order: From
// came before To (model.NoMsg: the initial state, nil), by the source By
// (as Step.OrderBy) and the ops Ops that justify it (none for
// initial-state; the one txn for wfr-keys; the two txns otherwise).
type VersionEdge struct {
	From, To model.MsgID
	By       string
	Ops      []int64
}

// KeyVersions is the version order an rw-register check inferred for one
// key: a partial order, as the edges of a small DAG over the key's values
// (not a list, and not transitively closed: v1 < v3 may hold only through
// v1 < v2 < v3). Only edges of sources that kept the key's order acyclic
// are here; cyclic-versions instances tell of the others.
type KeyVersions struct {
	Key   model.KeyID
	Edges []VersionEdge
}

// Series are what a report draws beyond the anomalies: the queue's time
// series, and the transactional workloads' version orders (by key):
// list-append's as lists (Orders), rw-register's as partial orders
// (Versions). They are not part of the JSON result.
type Series struct {
	Unseen   Points[UnseenPoint]
	Lag      LagSeries
	Orders   []KeyOrder
	Versions []KeyVersions
}

// LagSeries holds realtime-lag samples in order, compactly: the samples of
// one poll share its time, op index and process, which are kept once.
type LagSeries struct {
	polls   Points[lagPoll]
	samples Points[lagSample]
}

type lagPoll struct {
	time, opIndex int64
	process       int32
}

type lagSample struct {
	key   model.KeyID
	poll  int32 // index in polls
	lagNS int64
}

// Append adds p at the end.
func (s *LagSeries) Append(p LagPoint) {
	n := s.polls.Len()
	if n == 0 || *s.polls.At(n - 1) != (lagPoll{p.Time, p.OpIndex, p.Process}) {
		s.polls.Append(lagPoll{p.Time, p.OpIndex, p.Process})
		n++
	}
	s.samples.Append(lagSample{p.Key, int32(n - 1), p.LagNS})
}

// Len is the number of samples.
func (s *LagSeries) Len() int { return s.samples.Len() }

// At returns the sample at i, 0 <= i < Len().
func (s *LagSeries) At(i int) LagPoint {
	x := s.samples.At(i)
	p := s.polls.At(int(x.poll))
	return LagPoint{Time: p.time, OpIndex: p.opIndex, Process: p.process, Key: x.key, LagNS: x.lagNS}
}

// All yields the samples in order.
func (s *LagSeries) All() iter.Seq2[int, LagPoint] {
	return func(yield func(int, LagPoint) bool) {
		for i, x := range s.samples.All() {
			p := s.polls.At(int(x.poll))
			if !yield(i, LagPoint{Time: p.time, OpIndex: p.opIndex, Process: p.process, Key: x.key, LagNS: x.lagNS}) {
				return
			}
		}
	}
}

// pointsChunk is the number of points in a chunk of Points.
const pointsChunk = 1 << 16

// Points is a sequence of points gathered one at a time, in chunks that
// never move: a history's millions of lag samples cost no copying as they
// grow (a slice's append copies them again and again, and for a large
// history that took longer than computing them). The zero value is empty.
type Points[T any] struct {
	chunks [][]T
	n      int
}

// Append adds p at the end.
func (s *Points[T]) Append(p T) {
	if s.n%pointsChunk == 0 {
		s.chunks = append(s.chunks, make([]T, 0, pointsChunk))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, p)
	s.n++
}

// Len is the number of points.
func (s *Points[T]) Len() int { return s.n }

// Drain sorts s, each chunk on its own (chunks at once on every core), and
// calls f on every point in compare's order (a k-way merge of the
// chunks), emptying s as it goes: O(n log n) for n points, with no copy of
// them all, and no single move of them all that the runtime could not
// interrupt (one append of a slice of millions of lag samples used to hold
// up every collection of a report's check). A chunk is let go as soon as
// it is merged, so that the points f keeps (a report's lag series) take
// the room of those it was given rather than adding to it: points
// gathered in order of time, as the lag's are, are merged about one chunk
// after the other. The order of points compare finds equal is not fixed:
// make it total.
func (s *Points[T]) Drain(compare func(a, b T) int, f func(T)) {
	DrainAll([]*Points[T]{s}, compare, f)
}

// DrainAll is Drain over the points of every one of ps at once: one
// merge of all their chunks, for points gathered in parts on several
// cores. Every one of ps is empty after it.
func DrainAll[T any](ps []*Points[T], compare func(a, b T) int, f func(T)) {
	var chunks [][]T
	for _, s := range ps {
		chunks = append(chunks, s.chunks...)
		*s = Points[T]{}
	}
	// the chunks are sorted on every core: a sort is the same whichever
	// goroutine runs it
	par.Each(len(chunks), 0, func() func(int) {
		return func(c int) { slices.SortFunc(chunks[c], compare) }
	})
	// heads holds the chunks not yet used up, a min-heap on their first
	// elements; pos[c] is how far chunk c is used.
	pos := make([]int, len(chunks))
	var heads []int
	less := func(a, b int) bool { return compare(chunks[a][pos[a]], chunks[b][pos[b]]) < 0 }
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(heads) && less(heads[l], heads[m]) {
				m = l
			}
			if r := l + 1; r < len(heads) && less(heads[r], heads[m]) {
				m = r
			}
			if m == i {
				return
			}
			heads[i], heads[m] = heads[m], heads[i]
			i = m
		}
	}
	for c, ch := range chunks {
		if len(ch) > 0 {
			heads = append(heads, c)
		}
	}
	for i := len(heads)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(heads) > 0 {
		c := heads[0]
		f(chunks[c][pos[c]])
		if pos[c]++; pos[c] == len(chunks[c]) {
			chunks[c] = nil // merged: the collector may have it
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		}
		down(0)
	}
}

// At returns the point at i, 0 <= i < Len().
func (s *Points[T]) At(i int) *T { return &s.chunks[i/pointsChunk][i%pointsChunk] }

// All yields the points in order.
func (s *Points[T]) All() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		i := 0
		for _, c := range s.chunks {
			for j := range c {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}
