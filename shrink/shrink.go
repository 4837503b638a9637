// Package shrink cuts a history down to a small one that still shows a
// chosen anomaly, to paste into a bug ticket.
//
// It is delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating
// Failure-Inducing Input", 2002: ddmin) over units of the history: an
// invocation together with its completion, an invocation that never
// completed, or one non-client op. A candidate passes when the workload's
// checker (a CheckFunc the caller gets from package workload), run on the
// candidate alone with the same options, still reports at least one
// instance of the anomaly type. The search starts from the witness of
// the anomaly's first instance when that alone reproduces it (it almost
// always does: witnesses are minimal counterexamples), and from the whole
// history otherwise. The result is 1-minimal when the search finishes
// within its budget: removing any single unit loses the anomaly.
//
// Cost: each test is a full check of the candidate; ddmin needs O(u log u)
// tests on u units in the usual case and O(u²) in the worst.
package shrink

import (
	"fmt"
	"slices"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// CheckFunc checks a (candidate) history with fixed options.
type CheckFunc func(h *model.History, p model.Pairing) *analysis.Result

// Result is what Shrink found.
type Result struct {
	// History is the small history and Pairing its pairing; Positions are
	// the kept ops' positions in the original.
	History   *model.History
	Pairing   model.Pairing
	Positions []int32
	// Tests is how many candidates were checked.
	Tests int
	// Exhausted is set when the budget ran out before the result was
	// 1-minimal.
	Exhausted bool
}

type unit []int32

// Shrink reduces h to a small history on which check still reports anomaly
// type typ. It fails when h itself does not show it.
func Shrink(h *model.History, p model.Pairing, typ string, check CheckFunc, budget time.Duration) (*Result, error) {
	var deadline time.Time
	if budget > 0 {
		deadline = time.Now().Add(budget)
	}
	full := check(h, p)
	instances := full.Anomalies[typ]
	if len(instances) == 0 {
		return nil, fmt.Errorf("%s shows no %s anomaly under these options (it has: %v)", h.Source, typ, full.AnomalyTypes)
	}
	units := unitsOf(h, p)
	s := &shrinker{h: h, typ: typ, check: check, deadline: deadline}

	// Start from the first instance's witness when it reproduces alone.
	index := model.NewIndexMap(h)
	want := map[int32]bool{}
	for _, idx := range instances[0].InstanceEvidence().Witness {
		if pos := index.Pos(idx); pos >= 0 {
			want[int32(pos)] = true
		}
	}
	var seed []unit
	for _, u := range units {
		if slices.ContainsFunc(u, func(pos int32) bool { return want[pos] }) {
			seed = append(seed, u)
		}
	}
	if len(seed) > 0 && len(seed) < len(units) && s.test(seed) {
		units = seed
	}
	kept, exhausted := s.ddmin(units)
	sub, sp, positions := s.build(kept)
	return &Result{History: sub, Pairing: sp, Positions: positions, Tests: s.tests, Exhausted: exhausted}, nil
}

// unitsOf groups the ops of h into units that are kept or dropped together.
func unitsOf(h *model.History, p model.Pairing) []unit {
	var units []unit
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case !op.IsClient():
			units = append(units, unit{int32(i)})
		case op.Type == model.Invoke && p.Partner[i] >= 0:
			units = append(units, unit{int32(i), p.Partner[i]})
		case op.Type == model.Invoke:
			units = append(units, unit{int32(i)})
		}
	}
	return units
}

type shrinker struct {
	h        *model.History
	typ      string
	check    CheckFunc
	deadline time.Time
	tests    int
}

func (s *shrinker) build(units []unit) (*model.History, model.Pairing, []int32) {
	var positions []int32
	for _, u := range units {
		positions = append(positions, u...)
	}
	slices.Sort(positions)
	sub := *s.h
	sub.Ops = make([]model.Op, len(positions))
	sub.Indices, sub.Lines = model.Runs{}, model.Runs{}
	sub.Extras, sub.ExtraPos = nil, nil
	for i, pos := range positions {
		sub.Ops[i] = s.h.Ops[pos]
		sub.Indices.Append(s.h.Index(int(pos)))
		sub.Lines.Append(int64(s.h.Line(int(pos))))
		if k, ok := slices.BinarySearch(s.h.ExtraPos, pos); ok {
			sub.Extras = append(sub.Extras, s.h.Extras[k])
			sub.ExtraPos = append(sub.ExtraPos, int32(i))
		}
	}
	if len(s.h.ExtSpans) > 0 { // a workload's records, indexed like Ops
		sub.ExtSpans = make([]model.Span, len(positions))
		for i, pos := range positions {
			if int(pos) < len(s.h.ExtSpans) {
				sub.ExtSpans[i] = s.h.ExtSpans[pos]
			}
		}
	}
	sub.Truncated, sub.Warnings = false, nil
	p, _ := model.Pair(&sub) // units keep pairs whole, so this cannot fail
	return &sub, p, positions
}

func (s *shrinker) test(units []unit) bool {
	s.tests++
	sub, p, _ := s.build(units)
	res := s.check(sub, p)
	return len(res.Anomalies[s.typ]) > 0
}

func (s *shrinker) expired() bool {
	return !s.deadline.IsZero() && time.Now().After(s.deadline)
}

// ddmin is Zeller's minimising delta debugging: split the units into n
// chunks; keep a chunk alone, or drop one, if the anomaly survives; else
// split finer. Returns the kept units and whether the budget ran out.
func (s *shrinker) ddmin(units []unit) ([]unit, bool) {
	n := 2
	for len(units) >= 2 {
		if s.expired() {
			return units, true
		}
		chunks := split(units, n)
		reduced := false
		for _, c := range chunks {
			if s.test(c) {
				units, n, reduced = c, 2, true
				break
			}
		}
		if !reduced {
			for i := range chunks {
				if n == 2 && i == 1 {
					break // the complement of chunk 1 is chunk 0, just tried
				}
				comp := complement(chunks, i)
				if s.test(comp) {
					units, n, reduced = comp, max(n-1, 2), true
					break
				}
				if s.expired() {
					return units, true
				}
			}
		}
		if !reduced {
			if n >= len(units) {
				break
			}
			n = min(2*n, len(units))
		}
	}
	return units, false
}

func split(units []unit, n int) [][]unit {
	var chunks [][]unit
	for i := range n {
		a, b := i*len(units)/n, (i+1)*len(units)/n
		if a < b {
			chunks = append(chunks, units[a:b])
		}
	}
	return chunks
}

func complement(chunks [][]unit, skip int) []unit {
	var out []unit
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}
