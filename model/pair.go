package model

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/hindsight-dev/hindsight/internal/par"
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
//
// A large history is paired on every core first (pairParallel); one that
// has any problem is paired again in one pass, which finds them all in
// op order.
func Pair(h *History) (Pairing, error) {
	if p, ok := pairParallel(h); ok {
		return p, nil
	}
	return pairSerial(h)
}

// pairSerial is Pair in one pass over the ops.
func pairSerial(h *History) (Pairing, error) {
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

// pairParallel pairs a history of pairParallelMin ops or more with
// increasing indices on every core, and reports false, having paired
// nothing for certain, when it is smaller, when GOMAXPROCS is 1, or at
// the first problem it meets (pairSerial then names them all). The ops
// are cut into pieces, each paired on its own with its processes' open
// invocations as it goes, noting each process's first op in the piece and
// what it left open; then, one piece after another, a process's first op
// in a piece, when a completion, is paired with what the pieces before it
// left open. One pass on one core took 30 to 40 ms of a 1M-txn check (the
// pairing of every workload) with the other core idle by the end.
func pairParallel(h *History) (Pairing, bool) {
	n := len(h.Ops)
	workers := runtime.GOMAXPROCS(0)
	if n < pairParallelMin || workers < 2 || !h.Indices.Increasing() {
		return Pairing{}, false
	}
	p := Pairing{Partner: make([]int32, n)}
	size := pairPieceSize(n, workers)
	pieces := make([]pairPiece, (n+size-1)/size)
	par.Pieces(n, size, func() func(i, lo, hi int) {
		return func(i, lo, hi int) { pieces[i] = pairPieceOf(h, p.Partner, lo, hi) }
	})
	var open ByProcess[int32] // what the pieces so far left open, or -1
	for _, pc := range pieces {
		if pc.bad {
			return Pairing{}, false
		}
		for _, f := range pc.firsts {
			j := int32(-1)
			if v, ok := open.Get(f.process); ok {
				j = *v
			}
			switch {
			case f.invoke && j >= 0, !f.invoke && j < 0:
				return Pairing{}, false // two invocations in a row; a completion of nothing
			case !f.invoke:
				p.Partner[f.pos], p.Partner[j] = j, f.pos
			}
			v, _ := open.Ref(f.process)
			*v = f.open
		}
	}
	return p, true
}

// pairParallelMin is the fewest ops pairParallel pairs.
const pairParallelMin = 1 << 16

// pairPieceSize is how many ops a piece of pairParallel holds: about four
// pieces a worker.
func pairPieceSize(n, workers int) int { return max(n/(4*workers), pairParallelMin/4) }

// pairPiece is what pairParallel learned of a piece of the ops: each
// process's first op in it, in op order, and whether it met a problem.
type pairPiece struct {
	firsts []pairFirst
	bad    bool
}

// pairFirst is a process's first op in a piece: its position, whether it
// is an invocation (else a completion, paired across pieces), and the
// invocation the process left open at the piece's end (-1: none).
type pairFirst struct {
	process   int32
	pos, open int32
	invoke    bool
}

// pairPieceOf pairs ops lo..hi-1 within themselves, setting their
// partners (-1 where the partner is outside the piece, or none).
func pairPieceOf(h *History, partner []int32, lo, hi int) pairPiece {
	var pc pairPiece
	var open ByProcess[int32] // the open invocation, or -1
	for i := lo; i < hi; i++ {
		op := &h.Ops[i]
		partner[i] = -1
		if !op.IsClient() {
			continue
		}
		v, isNew := open.Ref(op.Process)
		switch {
		case isNew:
			pc.firsts = append(pc.firsts, pairFirst{process: op.Process, pos: int32(i), invoke: op.Type == Invoke})
			*v = -1
			if op.Type == Invoke {
				*v = int32(i)
			}
		case op.Type == Invoke:
			if *v >= 0 {
				pc.bad = true
				return pc
			}
			*v = int32(i)
		case *v < 0:
			pc.bad = true
			return pc
		default:
			partner[i], partner[*v] = *v, int32(i)
			*v = -1
		}
	}
	for k := range pc.firsts {
		v, _ := open.Get(pc.firsts[k].process)
		pc.firsts[k].open = *v
	}
	return pc
}
