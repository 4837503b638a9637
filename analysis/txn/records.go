package txn

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// records collects the transactions: every client completion, and every
// client invocation never completed, whose micro-ops are transactional.
// The checker does not keep p: the records hold each transaction's
// invocation and completion, and the pairing (4 bytes an op) is garbage
// once they are built, before the heap's peak.
//
// The ops are classified on every core, in pieces (recKinds), and the
// records then filled on every core, each piece from where the pieces
// before it end, so that recs and vrec are in op order whatever the number
// of workers. (One pass on one core took 20 to 30 ms of a 1M-txn check,
// with the other core idle: the realtime windows start after it.)
func (c *checker) records(p model.Pairing) {
	h := c.h
	n := len(h.Ops)
	pieces := (n + recPiece - 1) / recPiece
	kinds := make([]recKind, n)
	counts := make([]recCount, pieces)
	par.Pieces(n, recPiece, func() func(i, lo, hi int) {
		return func(i, lo, hi int) {
			var ct recCount // counted here: neighbours share a cache line
			for j := lo; j < hi; j++ {
				k := c.recKindOf(p, j, &ct.st)
				kinds[j] = k
				if k != notTxn {
					ct.recs++
				}
				if k == vertexTxn {
					ct.vertices++
				}
			}
			counts[i] = ct
		}
	})
	// where each piece's recs and vertices start; the stats summed
	st := &c.res.Stats
	st.Ops = int64(len(h.Ops))
	recAt, vAt := make([]int32, pieces+1), make([]int32, pieces+1)
	for i, ct := range counts {
		st.ClientOps += ct.st.ClientOps
		st.OpenOps += ct.st.OpenOps
		st.OKOps += ct.st.OKOps
		st.InfoOps += ct.st.InfoOps
		st.FailOps += ct.st.FailOps
		recAt[i+1] = recAt[i] + ct.recs
		vAt[i+1] = vAt[i] + ct.vertices
	}
	c.recs = make([]rec, recAt[pieces])
	c.vrec = make([]int32, vAt[pieces])
	par.Pieces(n, recPiece, func() func(i, lo, hi int) {
		return func(i, lo, hi int) {
			r, v := recAt[i], vAt[i]
			for j := lo; j < hi; j++ {
				if kinds[j] == notTxn {
					continue
				}
				rc := rec{inv: int32(j), comp: int32(j), vertex: -1}
				if h.Ops[j].Type != model.Invoke {
					rc.inv = p.Partner[j]
				}
				if kinds[j] == vertexTxn {
					rc.vertex = v
					c.vrec[v] = r
					v++
				}
				c.recs[r] = rc
				r++
			}
		}
	})
	analysis.OwnStats[Stats](c.res).Txns = int64(len(c.recs))
	st.Keys = int64(len(h.Keys))
}

// recPiece is how many ops a worker of records takes at a time.
const recPiece = 1 << 15

// recCount is what a piece of records' first pass counted.
type recCount struct {
	st             analysis.Stats
	recs, vertices int32
}

// recKind is what an op is to records: no txn's rec, the rec of a txn
// that is a graph vertex (ok, info, open), or of a failed one.
type recKind uint8

const (
	notTxn recKind = iota
	vertexTxn
	failedTxn
)

// recKindOf classifies op i for records and counts it in st: its client
// ops, and its txns by type.
func (c *checker) recKindOf(p model.Pairing, i int, st *analysis.Stats) recKind {
	h := c.h
	op := &h.Ops[i]
	if !op.IsClient() {
		return notTxn
	}
	st.ClientOps++
	inv, typ := int32(i), model.Info
	switch {
	case op.Type != model.Invoke && p.Partner[i] >= 0:
		inv, typ = p.Partner[i], op.Type
	case op.Type == model.Invoke && p.Partner[i] < 0:
	default:
		return notTxn
	}
	if !isTxn(h.MopsOf(op)) && !(inv != int32(i) && isTxn(h.MopsOf(&h.Ops[inv]))) {
		return notTxn
	}
	switch {
	case inv == int32(i):
		st.OpenOps++
	case typ == model.OK:
		st.OKOps++
	case typ == model.Info:
		st.InfoOps++
	case typ == model.Fail:
		st.FailOps++
	}
	if typ == model.Fail {
		return failedTxn
	}
	return vertexTxn
}
