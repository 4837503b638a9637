package analysis

import "slices"

// Step is one edge of a dependency cycle, explained.
type Step struct {
	From int64  `json:"from"`
	To   int64  `json:"to"`
	Rel  string `json:"rel"`
	// Key and Value say which read created a wr edge; Key and Values (the
	// value written by From, then by To) which version order created a ww
	// edge. Process and realtime steps carry neither.
	Key    *Value  `json:"key,omitempty"`
	Value  *Value  `json:"value,omitempty"`
	Values []Value `json:"values,omitempty"`
	// Offsets are the offsets behind a ww step (From's value, To's value),
	// or the offset a wr step's read saw; for the report's explanation.
	Offsets []int64 `json:"offsets,omitempty"`
	// Mops locate a transactional step's micro-ops: the index of the mop
	// in From's value, then in To's.
	Mops []int `json:"mops,omitempty"`
	// Process is the process of a process step.
	Process *int64 `json:"process,omitempty"`
	// OrderOp is the op whose read showed the version order behind a ww or
	// rw step (Values[0] right before Values[1], or Values[0] as the last
	// element read when Unread). Unread says Values[1] was never read: it
	// was appended after the last element any read showed.
	OrderOp *int64 `json:"order_op,omitempty"`
	Unread  bool   `json:"unread,omitempty"`
	// OrderBy names the source of the version order behind an rw-register
	// ww or rw step (Values[0] before Values[1] in Key's version order):
	// "initial-state" (nil precedes every value; no op), "wfr-keys" (op
	// OrderOp read Values[0] and then wrote Values[1]), "sequential-keys"
	// (one process ran OrderOps[0], whose last value of Key was Values[0],
	// and then OrderOps[1], whose first value of it was Values[1]),
	// "linearizable-keys" (OrderOps[0] completed before OrderOps[1] was
	// invoked, same values) or "transaction-order" (the commit order given
	// puts OrderOps[0], which wrote Values[0], right before OrderOps[1],
	// which wrote Values[1]). List-append steps leave it empty.
	OrderBy  string  `json:"order_by,omitempty"`
	OrderOps []int64 `json:"order_ops,omitempty"`
	// Contested marks a ww or rw step whose version order (Values[0] right
	// before Values[1] in Key's order) some read of Key contradicts: the
	// step assumes the order the checker chose, it does not prove it.
	// ContradictedBy lists the ops whose reads contradict it (the first
	// few, by op index); a read there that shows Values[1] proves that the
	// element was read, so the step never calls it unread.
	Contested      bool    `json:"contested,omitempty"`
	ContradictedBy []int64 `json:"contradicted_by,omitempty"`
	// Placed marks a contested list-append step whose Values[1] some read
	// shows (ContradictedBy's first op) but no read shows right after
	// Values[0]: the chosen order placed it after its last element, which
	// OrderOp's read shows (where Unread would be claimed if nobody had
	// read it).
	Placed bool `json:"placed,omitempty"`
}

// Proof states of a cycle instance (CycleFields.Proof).
const (
	// Proven: every step follows from the history alone.
	Proven = "proven"
	// Assumes: some step rests on a version order that a read of the
	// history contradicts (CycleFields.Assumes lists them).
	Assumes = "assumes"
	// Given: no step is contested, but some step rests on a version order
	// the user gave as an option (CycleFields.Given names them).
	Given = "given"
)

// Assumption is a contested version order a cycle instance rests on: the
// order of Key, from the read of OrderOp (when one gave it), which the
// reads of ContradictedBy contradict.
type Assumption struct {
	Key            *Value  `json:"key"`
	OrderOp        *int64  `json:"order_op,omitempty"`
	ContradictedBy []int64 `json:"contradicted_by"`
}

// VersionStep is one edge of an rw-register version order, with why it
// holds: Values[0] came before Values[1] (null: the initial state) in the
// key's version order, by the source OrderBy and its ops, as on Step.
type VersionStep struct {
	Values   []Value `json:"values"`
	OrderBy  string  `json:"order_by"`
	OrderOp  *int64  `json:"order_op,omitempty"`
	OrderOps []int64 `json:"order_ops,omitempty"`
}

// Instance is one occurrence of an anomaly. Each workload declares its
// own instance type in its own package (analysis/queue, analysis/txn,
// analysis/abort), a struct that embeds Subject first, *CycleFields where
// it has cycles, and Evidence, each at the place their fields take in the
// JSON result, among its own fields: encoding/json then writes exactly the
// fields of docs/README.md#json-output in their order, with no custom
// marshalling. A Result holds pointers to them, or a Lazy instance that
// stands for one; the methods below are promoted from the embedded
// pieces.
type Instance interface {
	// InstanceKey is the key (or topic) the instance is about, nil if none.
	InstanceKey() *Value
	// InstanceEvidence is the instance's witness, allowed flag and
	// truncation flag.
	InstanceEvidence() *Evidence
	// InstanceCycle is the instance's cycle, nil for an instance that is
	// not a cycle.
	InstanceCycle() *CycleFields
}

// Lazy is implemented by instances kept compact, which stand for a full
// instance built only when an output asks for it: the abort workload's
// pairs; the transactional checks' garbage-read, internal, G1a and G1b;
// the queue's garbage-read, lost-write, duplicate, int-* steps and
// poll-skip, nonmonotonic-poll and nonmonotonic-send. An
// anomaly a history
// holds by the hundred thousand (every read of a system returning junk)
// then costs tens of bytes until it is written, not the kilobyte of its
// workload's Instance, with a Value of tens of bytes for every element of
// the read it quotes. A Lazy answers the Instance methods itself (its key,
// witness and cycle); everything else about it is read from Full, which
// builds the workload's own instance afresh on every call, and MarshalJSON
// writes that instance's JSON.
type Lazy interface {
	Instance
	Full() Instance
}

// Full returns in itself, or the full instance a Lazy instance stands for,
// built afresh.
func Full(in Instance) Instance {
	if l, ok := in.(Lazy); ok {
		return l.Full()
	}
	return in
}

// Listed is implemented by the instance types whose instances list
// values: the values a scan's anomaly row names (Values, or the Value
// alone) and the values a skip jumped over.
type Listed interface {
	ListedValues() (values []Value, skipped []Value)
}

// Subject is the first field of every instance: the key (a queue's
// topic-partition, a transaction's key, an abort topic) it is about.
type Subject struct {
	Key *Value `json:"key,omitempty"`
}

// InstanceKey returns s.Key.
func (s *Subject) InstanceKey() *Value { return s.Key }

// CycleFields are the fields of a cycle instance (a G0, G1c, G2 ... of the
// queue and txn workloads): its ops in order, the steps between them, and
// what the steps rest on. Instance types embed it as a pointer, nil for
// instances that are not cycles.
type CycleFields struct {
	Cycle []int64 `json:"cycle,omitempty"`
	Steps []Step  `json:"steps,omitempty"`
	// Proof says what a cycle instance's steps rest on (Proven, Assumes or
	// Given); Assumes lists the contested keys when some step is
	// contested, Given the options (wfr-keys, sequential-keys,
	// linearizable-keys, transaction-order) some step's order comes from.
	Proof   string       `json:"proof,omitempty"`
	Assumes []Assumption `json:"assumes,omitempty"`
	Given   []string     `json:"given,omitempty"`
}

// InstanceCycle returns c (nil-safe: a nil *CycleFields gives nil).
func (c *CycleFields) InstanceCycle() *CycleFields { return c }

// Evidence is what every instance carries last: whether it is allowed,
// whether its Values were cut short, and its witness ops.
type Evidence struct {
	// Allowed marks an instance that does not make the history invalid
	// although others of its type might (a poll-skip of a subscribed
	// consumer, a G1c that needs a ww edge under --ww-deps).
	Allowed bool `json:"allowed,omitempty"`
	// Truncated is set when the instance's Values hold only the first
	// values of a long list (unseen); its Count has the full number.
	Truncated bool `json:"values_truncated,omitempty"`
	// Witness are the op indices that show the anomaly, sorted and
	// without repeats (Result.Add sees to it). Always set.
	Witness []int64 `json:"witness"`
}

// InstanceEvidence returns e.
func (e *Evidence) InstanceEvidence() *Evidence { return e }

// IntPtr returns a pointer to i, for instance fields.
func IntPtr(i int64) *int64 { return &i }

// FloatPtr returns a pointer to f, for instance fields.
func FloatPtr(f float64) *float64 { return &f }

// givenSources are the version-order sources (Step.OrderBy) that come from
// an option the user gave, not from the history.
var givenSources = []string{"wfr-keys", "sequential-keys", "linearizable-keys", "transaction-order"}

// SetProof fills a cycle instance's Proof, Assumes and Given from its
// steps: Assumes when some step is Contested (one Assumption per key, in
// the order the steps name them, with the union of their ContradictedBy
// ops, sorted), else Given when some step's OrderBy is an option's, else
// Proven. orderOp, when not nil, returns the op whose read gave a contested
// key's version order. O(steps · keys of the cycle).
func (in *CycleFields) SetProof(orderOp func(key *Value) *int64) {
	in.Assumes, in.Given = nil, nil
	for _, st := range in.Steps {
		if st.OrderBy != "" && slices.Contains(givenSources, st.OrderBy) && !slices.Contains(in.Given, st.OrderBy) {
			in.Given = append(in.Given, st.OrderBy)
		}
		if !st.Contested || st.Key == nil {
			continue
		}
		i := slices.IndexFunc(in.Assumes, func(a Assumption) bool {
			return !a.Key.Less(st.Key.Atom) && !st.Key.Less(a.Key.Atom)
		})
		if i < 0 {
			a := Assumption{Key: st.Key}
			if orderOp != nil {
				a.OrderOp = orderOp(st.Key)
			}
			in.Assumes = append(in.Assumes, a)
			i = len(in.Assumes) - 1
		}
		in.Assumes[i].ContradictedBy = append(in.Assumes[i].ContradictedBy, st.ContradictedBy...)
	}
	for i := range in.Assumes {
		slices.Sort(in.Assumes[i].ContradictedBy)
		in.Assumes[i].ContradictedBy = slices.Compact(in.Assumes[i].ContradictedBy)
		if in.Assumes[i].ContradictedBy == nil {
			in.Assumes[i].ContradictedBy = []int64{}
		}
	}
	slices.Sort(in.Given)
	switch {
	case len(in.Assumes) > 0:
		in.Proof = Assumes
	case len(in.Given) > 0:
		in.Proof = Given
	default:
		in.Proof = Proven
	}
}
