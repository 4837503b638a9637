package queue

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// rec is one op of the history: an invocation with its completion, or an
// invocation that never completed (typ info).
type rec struct {
	inv, comp int32 // positions in h.Ops; comp == inv for an open invocation
	typ       model.OpType
	vertex    int32 // graph vertex, or -1
	proc      int32 // the op's process, numbered densely (checker.procIDs)
}

// checker is the state of one check: the history, the records, and the
// tables the checks build over messages, keys and recs, each a slice
// indexed by dense id.
type checker struct {
	h    *model.History
	opts Options
	res  *analysis.Result

	recs    []rec
	procIDs []int32 // process of each dense process number, in order of first appearance
	// ordered: the ops' :index ascends strictly with their position, so
	// recs (in completion order) ascend by the :index of their completion
	ordered bool
	// per message
	writer   []int32 // rec that sent it, -1
	okReader []int32 // first ok rec that polled it, -1
	anyRead  []bool  // polled by any completed op
	lost     []bool  // reported as lost-write
	versionOrder
	log *logState // buildLog's observations so far (scanMessages made them)
	// per key: the highest first position an ok poll read, and its reader
	maxFirst, maxRead []int32
	// per rec
	committed []bool
	// per op position: the rec it invokes or completes, or -1 (events)
	ev []int32
}

// versionOrder is the log buildLog builds: the positions of each key (its
// distinct offsets, in order) and of each message in them.
type versionOrder struct {
	// per message
	first []int32 // first position in the log, -1
	last  []int32 // last position in the log (pos), -1
	// per key
	offsets [][]int64       // distinct offsets with a value, ascending
	kept    [][]model.MsgID // value listed for each position (observed first)
	// conflicts: the positions (key, position) that inconsistent-offsets
	// found holding more than one value, with each value's observer
	conflicts map[[2]int32][]conflictObs
}

// op returns the op at position pos of the history.
func (c *checker) op(pos int32) *model.Op { return &c.h.Ops[pos] }

// idx returns the :index of the op at pos.
func (c *checker) idx(pos int32) int64 { return c.h.Index(int(pos)) }

// witness returns the invocation and completion indices of recs.
func (c *checker) witness(recs ...int32) []int64 {
	w := make([]int64, 0, 2*len(recs))
	for _, r := range recs {
		if r < 0 {
			continue
		}
		w = append(w, c.idx(c.recs[r].inv), c.idx(c.recs[r].comp))
	}
	return w
}

// compIdx returns the :index of rec r's completion.
func (c *checker) compIdx(r int32) int64 { return c.idx(c.recs[r].comp) }

// mops returns the micro-ops of rec r, as its completion has them.
func (c *checker) mops(r int32) []model.Mop { return c.h.MopsOf(c.op(c.recs[r].comp)) }

// keyVal returns key k as it goes to JSON.
func (c *checker) keyVal(k model.KeyID) *analysis.Value { return analysis.AtomValuePtr(c.h.Keys[k]) }

// msgVal returns the value of message m as it goes to JSON.
func (c *checker) msgVal(m model.MsgID) analysis.Value { return analysis.AtomValue(c.h.MsgValue(m)) }

// msgValP returns a pointer to msgVal(m), for Instance fields.
func (c *checker) msgValP(m model.MsgID) *analysis.Value { return msgValue(c.h, m) }

// records builds the record list and the op statistics.
func (c *checker) records(p model.Pairing) {
	st, own := &c.res.Stats, analysis.OwnStats[Stats](c.res)
	st.Ops = int64(len(c.h.Ops))
	st.Keys = int64(len(c.h.Keys))
	own.Messages = int64(len(c.h.Msgs))
	vertices := int32(0)
	c.recs = make([]rec, 0, len(c.h.Ops)/2+1)
	var slots model.ByProcess[int32] // process -> its dense number
	c.ordered = c.h.Indices.Increasing()
	for i := range c.h.Ops {
		op := &c.h.Ops[i]
		if !op.IsClient() {
			continue
		}
		st.ClientOps++
		var r rec
		switch {
		case op.Type == model.Invoke && p.Partner[i] < 0:
			r = rec{inv: int32(i), comp: int32(i), typ: model.Info}
			st.OpenOps++
		case op.Type != model.Invoke && p.Partner[i] >= 0:
			r = rec{inv: p.Partner[i], comp: int32(i), typ: op.Type}
		default:
			continue
		}
		switch r.typ {
		case model.OK:
			st.OKOps++
		case model.Info:
			st.InfoOps++
		case model.Fail:
			st.FailOps++
		}
		r.vertex = -1
		slot, isNew := slots.Ref(op.Process)
		if isNew { // numbered in order of first appearance
			*slot = int32(len(c.procIDs))
			c.procIDs = append(c.procIDs, op.Process)
		}
		r.proc = *slot
		switch op.F {
		case model.FSend:
			own.Sends++
		case model.FPoll:
			own.Polls++
		case model.FTxn:
			own.Txns++
		}
		switch op.F {
		case model.FSend, model.FPoll, model.FTxn:
			r.vertex = vertices
			vertices++
		}
		c.recs = append(c.recs, r)
	}
}

// filled returns n copies of v.
func filled(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// lessCmp compares two atoms in model.Atom.Less order, as cmp.Compare does.
func lessCmp(a, b model.Atom) int {
	if a.Less(b) {
		return -1
	}
	if b.Less(a) {
		return 1
	}
	return 0
}

// pos is the position of a value for order comparisons: the last position
// at which the log holds it, whether or not it is the value listed there,
// or -1 when no completed op observed it at an offset (see the package doc).
func (c *checker) pos(m model.MsgID) int32 { return c.last[m] }
