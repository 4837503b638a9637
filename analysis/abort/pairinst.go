package abort

import (
	"sync"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// A pair instance is kept compact: what its Instance says is a few numbers
// and two polls' positions in the history, and an Instance spells them
// out as a dozen small objects behind pointers, the form encoding/json and
// the explanations want. A million-poll history has a few hundred thousand
// pair instances, every one of them in the result: as Instances they took
// 456 bytes each with their witnesses (bench/bench.sh's abort history:
// 224,416 instances, 102 MB, a quarter of the check's peak); a
// pairInstance takes 160 and its witness 48 (peak RSS 387 -> 325 MB).
// The outputs build the Instance when they need it (AsInstance), into
// scratch space for the JSON; the result is byte for byte the same.

// source is what an instance needs of its check to be spelled out: the
// history and the abort decoder's records in it. A checker and its
// instances share one.
type source struct {
	h     *model.History
	owner model.ExtOwner
	mine  bool // the abort decoder was installed
}

// pollAt is a poll as a pair instance keeps it.
type pollAt struct {
	inv, comp int32 // positions in History.Ops (poll.inv, poll.comp)
	proc      int32
	typ       model.OpType
	abort     bool
	offs      model.Span // in History.ExtWords
}

// newSource is the source of a check of h.
func newSource(h *model.History) *source {
	s := &source{h: h}
	s.owner, s.mine = h.ExtOwnerOf(Workload)
	return s
}

// at is poll p as a pair instance keeps it.
func at(p *poll) pollAt {
	return pollAt{inv: p.inv, comp: p.comp, proc: p.proc, typ: p.typ, abort: p.abort, offs: p.offs}
}

// Flags of a pairInstance: which of its optional fields are set.
const (
	hasCommitted uint8 = 1 << iota // cp and cpBy
	hasGap                         // gap
	hasResume                      // rp and rpBy
	rebalanced                     // a rebalance came with the pair (Pair.Rebalance)
)

// pairInstance is a pair instance (Instance with a Pair) in compact form.
type pairInstance struct {
	ev  analysis.Evidence
	key *analysis.Value
	src *source
	// the pair's polls, and the empty polls whose rebalances it carries
	p, n    pollAt
	carried []pollAt
	// committed position and gap, resume point: set as flags say; cpBy and
	// rpBy are the positions of the completions of the polls that set the
	// committed position and made the resume point
	cp, gap, rp int64
	cpBy, rpBy  int32
	class       uint8
	flags       uint8
}

// InstanceKey returns the topic.
func (x *pairInstance) InstanceKey() *analysis.Value { return x.key }

// InstanceEvidence returns the witness and the allowed flag.
func (x *pairInstance) InstanceEvidence() *analysis.Evidence { return &x.ev }

// InstanceCycle returns nil: the abort workload has no cycles.
func (*pairInstance) InstanceCycle() *analysis.CycleFields { return nil }

// AppendJSON appends the JSON of the Instance x stands for, built in
// scratch space (Instance.AppendJSON).
func (x *pairInstance) AppendJSON(b []byte) []byte {
	box := scratch.Get().(*pairBox)
	x.fill(box)
	b = box.in.AppendJSON(b)
	*box = pairBox{} // holds nothing of the history while pooled
	scratch.Put(box)
	return b
}

// scratch holds pairBoxes for AppendJSON: one on the stack escaped to the
// heap (its fields point into it), a garbage box of about 400 bytes per
// instance written.
var scratch = sync.Pool{New: func() any { return &pairBox{} }}

// MarshalJSON is AppendJSON, for encoding/json.
func (x *pairInstance) MarshalJSON() ([]byte, error) { return x.AppendJSON(nil), nil }

// pairBox is room for the objects of one Instance of a pair.
type pairBox struct {
	in   Instance
	pair Pair
	p, n PollRef
	// the integers the Instance points to: process, P's and N's
	// invocation, committed position and poll, gap, resume point and poll
	ints [8]int64
}

// fill builds in box the Instance x stands for. Its offsets alias the
// history's.
func (x *pairInstance) fill(box *pairBox) {
	s := x.src
	in := &box.in
	box.ints[0] = int64(x.n.proc)
	*in = Instance{Subject: analysis.Subject{Key: x.key}, Process: &box.ints[0], Pair: &box.pair, Evidence: x.ev}
	box.pair = Pair{P: s.pollRef(&box.p, &box.ints[1], &x.p), N: s.pollRef(&box.n, &box.ints[2], &x.n),
		Class: Classes[x.class], Rebalance: x.flags&rebalanced != 0}
	if x.flags&hasCommitted != 0 {
		box.ints[3], box.ints[4] = x.cp, s.index(x.cpBy)
		box.pair.CommittedPosition, box.pair.CommittedBy = &box.ints[3], &box.ints[4]
	}
	if x.flags&hasGap != 0 {
		box.ints[5] = x.gap
		box.pair.Gap = &box.ints[5]
	}
	if x.flags&hasResume != 0 {
		box.ints[6], box.ints[7] = x.rp, s.index(x.rpBy)
		box.pair.ResumePoint, box.pair.ResumedFrom = &box.ints[6], &box.ints[7]
	}
	if x.flags&rebalanced != 0 {
		s.events(&box.pair, &x.p, true)
		for i := range x.carried {
			s.events(&box.pair, &x.carried[i], false)
		}
		s.events(&box.pair, &x.n, false)
	}
}

// Full builds the Instance x stands for, afresh (analysis.Lazy).
func (x *pairInstance) Full() analysis.Instance {
	box := &pairBox{}
	x.fill(box)
	return &box.in
}

// AsInstance returns in as an *Instance: itself if it is one, the Instance
// a pair instance stands for (built afresh on every call), and nil for an
// instance of another workload.
func AsInstance(in analysis.Instance) *Instance {
	x, _ := analysis.Full(in).(*Instance)
	return x
}

// PairEnds returns, for an instance of a pair type, the :index of P's and
// N's completions, P's last offset and N's first as they listed them, and
// the pair's class, without building its Instance; ok is false for any
// other instance, and for a pair whose P or N read nothing.
func PairEnds(in analysis.Instance) (pOp, nOp, pLast, nFirst int64, class string, ok bool) {
	switch x := in.(type) {
	case *Instance:
		if p := x.Pair; p != nil && p.P != nil && p.N != nil && len(p.P.Offsets) > 0 && len(p.N.Offsets) > 0 {
			return p.P.Op, p.N.Op, p.P.Offsets[len(p.P.Offsets)-1], p.N.Offsets[0], p.Class, true
		}
	case *pairInstance:
		s := x.src
		po, no := s.h.ExtWords.Get(x.p.offs), s.h.ExtWords.Get(x.n.offs)
		if len(po) > 0 && len(no) > 0 {
			return s.index(x.p.comp), s.index(x.n.comp), po[len(po)-1], no[0], Classes[x.class], true
		}
	}
	return 0, 0, 0, 0, "", false
}

// index is the :index of the op at position i.
func (s *source) index(i int32) int64 { return s.h.Index(int(i)) }

// records calls each with the abort decoder's records of the op at
// position i.
func (s *source) records(i int32, each func(r *model.ExtRec)) {
	if !s.mine || i < 0 {
		return
	}
	recs := s.h.ExtAt(int(i))
	for k := range recs {
		if recs[k].Owner == s.owner {
			each(&recs[k])
		}
	}
}

// pollRef describes poll p for an instance, in r; invoke holds the
// invocation's index. Its offsets alias the history's.
func (s *source) pollRef(r *PollRef, invoke *int64, p *pollAt) *PollRef {
	offs := s.h.ExtWords.Get(p.offs)
	*r = PollRef{Op: s.index(p.comp), Process: int64(p.proc), Outcome: Outcomes[outcome(p.typ)], Offsets: offs[:len(offs):len(offs)], AbortAsked: p.abort}
	if p.inv >= 0 && p.inv != p.comp {
		*invoke = s.index(p.inv)
		r.Invoke = invoke
	}
	return r
}

// events appends the rebalance events of poll p to pair: only those
// during it when duringOnly (P's).
func (s *source) events(pair *Pair, p *pollAt, duringOnly bool) {
	ats := []int32{p.comp}
	if p.inv >= 0 && p.inv != p.comp {
		ats = []int32{p.inv, p.comp}
	}
	for _, pos := range ats {
		s.records(pos, func(r *model.ExtRec) {
			if r.Kind != recRebalance {
				return
			}
			ws, ks := s.h.ExtWordsOf(r), s.h.ExtKeysOf(r)
			for j := 2; j+1 < len(ws); j += 2 {
				flags, nk := ws[j], int(ws[j+1])
				ev := RebalanceEvent{Op: s.index(pos), When: "before"}
				if flags&eventDuring != 0 {
					ev.When = "during"
				}
				if flags&eventType != 0 {
					v := analysis.AtomValue(s.h.KeyAtom(ks[0]))
					ev.Type = &v
					ks = ks[1:]
				}
				for _, id := range ks[:nk] {
					ev.Keys = append(ev.Keys, analysis.AtomValue(s.h.KeyAtom(id)))
				}
				ks = ks[nk:]
				if duringOnly && flags&eventDuring == 0 {
					continue
				}
				pair.RebalanceEvents = append(pair.RebalanceEvents, ev)
			}
		})
	}
}
