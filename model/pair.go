package model

import (
	"fmt"
	"slices"
	"strings"
)

// Pairing links each client invocation with its completion, by position in
// History.Ops.
type Pairing struct {
	// Partner[i] is the position of op i's completion (for an invocation) or
	// invocation (for a completion); -1 when there is none (an invocation
	// never completed, or a non-client op).
	Partner []int32
}

// Problem is one thing wrong with a history's structure.
type Problem struct {
	// Line is the source line of the op at fault.
	Line int32
	// Ops are the indices of the ops involved.
	Ops []int64
	// Msg says what is wrong.
	Msg string
}

// ValidationError lists every structural problem of a history.
type ValidationError struct {
	Source   string
	Problems []Problem
}

// Error names the first few problems, each with its line.
func (e *ValidationError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: malformed history (%d problem", e.Source, len(e.Problems))
	if len(e.Problems) != 1 {
		sb.WriteString("s")
	}
	sb.WriteString(")")
	for i, p := range e.Problems {
		if i == 5 {
			fmt.Fprintf(&sb, "\n  ... and %d more", len(e.Problems)-5)
			break
		}
		fmt.Fprintf(&sb, "\n  %s:%d: %s", e.Source, p.Line, p.Msg)
	}
	return sb.String()
}

// Pair computes the invocation/completion pairing of h and validates it
// (docs/README.md#ops-and-their-indices): for each client process an
// invocation is completed by the next non-invoke op of that process. Two
// invocations in a row, a completion with no invocation, and two ops with the
// same :index are problems; all are collected into one *ValidationError. An
// invocation that is never completed stays open (Partner -1), which analyses
// treat as info.
//
// Cost: O(ops) time, O(processes) extra memory (plus O(ops) for the index
// uniqueness check).
func Pair(h *History) (Pairing, error) {
	p := Pairing{Partner: make([]int32, len(h.Ops))}
	var open ByProcess[int32] // process -> position of its open invocation
	probs := duplicateIndices(h)
	for i := range h.Ops {
		op := &h.Ops[i]
		p.Partner[i] = -1
		if !op.IsClient() {
			continue
		}
		jp, isOpen := open.Get(op.Process)
		if op.Type == Invoke {
			if isOpen {
				j := *jp
				pi, oi := h.Index(int(j)), h.Index(i)
				probs = append(probs, Problem{Line: int32(h.Line(i)), Ops: []int64{pi, oi},
					Msg: fmt.Sprintf("process %d invoked op %d (line %d) before its op %d (line %d) completed",
						op.Process, oi, h.Line(i), pi, h.Line(int(j)))})
			}
			v, _ := open.Ref(op.Process)
			*v = int32(i)
			continue
		}
		if !isOpen {
			oi := h.Index(i)
			probs = append(probs, Problem{Line: int32(h.Line(i)), Ops: []int64{oi},
				Msg: fmt.Sprintf("op %d (process %d, %s) completes nothing: the process has no open invocation",
					oi, op.Process, op.Type)})
			continue
		}
		j := *jp
		open.Delete(op.Process)
		p.Partner[i] = j
		p.Partner[j] = int32(i)
	}
	if len(probs) > 0 {
		return p, &ValidationError{Source: h.Source, Problems: probs}
	}
	return p, nil
}

// duplicateIndices reports ops that reuse an :index. Histories almost always
// number ops in increasing order, which needs no extra memory; otherwise the
// positions are sorted by index, O(n log n).
func duplicateIndices(h *History) []Problem {
	if h.Indices.Increasing() {
		return nil
	}
	idx := h.Indices.Values()
	pos := make([]int32, len(h.Ops))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortStableFunc(pos, func(a, b int32) int {
		x, y := idx[a], idx[b]
		if x < y {
			return -1
		} else if x > y {
			return 1
		}
		return 0
	})
	var probs []Problem
	for i := 1; i < len(pos); i++ {
		a, b := int(pos[i-1]), int(pos[i])
		if ia, ib := idx[a], idx[b]; ia == ib {
			probs = append(probs, Problem{Line: int32(h.Line(b)), Ops: []int64{ib},
				Msg: fmt.Sprintf("op index %d used twice (lines %d and %d)", ib, h.Line(a), h.Line(b))})
		}
	}
	slices.SortFunc(probs, func(a, b Problem) int { return int(a.Line) - int(b.Line) })
	return probs
}
