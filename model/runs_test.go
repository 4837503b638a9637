package model

import (
	"math/rand/v2"
	"testing"
)

// entry is one op's index as a test writes it: positional, or absolute.
type entry struct {
	positional bool
	index      int64
}

// fill appends es to x.
func fill(x *Runs, es []entry) {
	for _, e := range es {
		if e.positional {
			x.AppendPosition()
		} else {
			x.Append(e.index)
		}
	}
}

// randomEntries makes n entries in stretches: counting up, positional, or
// jumping about, as a history that numbers its ops, leaves :index out, or
// scrambles it would.
func randomEntries(rng *rand.Rand, n int) []entry {
	es := make([]entry, 0, n)
	next := int64(rng.IntN(100))
	for len(es) < n {
		run := 1 + rng.IntN(8)
		switch rng.IntN(3) {
		case 0:
			for range run {
				es = append(es, entry{index: next})
				next++
			}
		case 1:
			for range run {
				es = append(es, entry{positional: true})
			}
		default:
			for range run {
				es = append(es, entry{index: rng.Int64N(1000) - 500})
			}
		}
		next += int64(rng.IntN(3))
	}
	return es[:n]
}

// TestIndicesConcat: blocks read on their own and joined give every op the
// index a single read would, positional ones taking their place in the
// whole; Increasing agrees with a pass over the values.
func TestIndicesConcat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		es := randomEntries(rng, 1+rng.IntN(200))
		var whole, joined Runs
		fill(&whole, es)
		for rest := es; len(rest) > 0; {
			k := 1 + rng.IntN(len(rest))
			var part Runs
			fill(&part, rest[:k])
			joined.Concat(&part)
			rest = rest[k:]
		}
		if whole.Len() != len(es) || joined.Len() != len(es) {
			t.Fatalf("round %d: lengths %d and %d, want %d", round, whole.Len(), joined.Len(), len(es))
		}
		increasing := true
		values := joined.Values()
		for p, e := range es {
			want := e.index
			if e.positional {
				want = int64(p)
			}
			if got := whole.At(p); got != want {
				t.Fatalf("round %d: whole.At(%d) = %d, want %d", round, p, got, want)
			}
			if got := joined.At(p); got != want {
				t.Fatalf("round %d: joined.At(%d) = %d, want %d", round, p, got, want)
			}
			if values[p] != want {
				t.Fatalf("round %d: Values()[%d] = %d, want %d", round, p, values[p], want)
			}
			if p > 0 && want <= whole.At(p-1) {
				increasing = false
			}
		}
		if whole.Increasing() != increasing || joined.Increasing() != increasing {
			t.Fatalf("round %d: Increasing %v and %v, want %v", round, whole.Increasing(), joined.Increasing(), increasing)
		}
	}
}

// TestIndicesOneRun: a history numbered 0, 1, 2, ... costs one run however
// long it is, and so does one with no :index at all.
func TestIndicesOneRun(t *testing.T) {
	var counted, none Runs
	for i := range 100_000 {
		counted.Append(int64(i) + 7)
		none.AppendPosition()
	}
	if len(counted.runs) != 1 || len(none.runs) != 1 {
		t.Fatalf("runs: %d and %d, want 1 each", len(counted.runs), len(none.runs))
	}
	if counted.At(99_999) != 100_006 || none.At(5) != 5 {
		t.Fatalf("At: %d and %d", counted.At(99_999), none.At(5))
	}
}
