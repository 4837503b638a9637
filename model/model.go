// Package model holds a history in the form every analysis works on: operations
// whose keys, values, messages and processes are interned to dense integers.
//
// A queue history is a sequence of operations
// (docs/README.md#ops-and-their-indices). Each client operation is an
// invocation followed by a completion of the same process; the completion's
// micro-ops carry what happened (offsets of sends, what polls read).
// Everything here is built by package ingest through a Builder and is
// read-only afterwards.
//
// Interning:
//   - Keys are interned by their text, so the JSON poll-map key "3" and the
//     integer key 3 are one key (ingest's package doc). The atom kept for
//     output is the first one seen in a typed position (a send, an assign, an
//     EDN map key).
//   - Values are interned by kind and text (the integer 3 and the string "3"
//     are different values).
//   - A message is a (key, value) pair; values are unique per key, so a message
//     is what a send writes once and polls read back. Analyses index their
//     per-message tables by MsgID, which keeps memory proportional to the number
//     of messages, never to the size of offsets.
//
// model imports nothing of hindsight's own.
package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// KeyID is a dense index into History.Keys.
type KeyID int32

// ValID is a dense index into History.Values.
type ValID int32

// MsgID is a dense index into History.Msgs: one (key, value) pair.
type MsgID int32

// NoOffset marks a send whose offset is unknown (nil in the history, or the
// micro-op is still in invocation form).
const NoOffset int64 = math.MinInt64

// NoTime marks an operation without a :time.
const NoTime int64 = math.MinInt64

// NoProcess marks an operation whose process is not an integer (the nemesis,
// or anything else that is not a client).
const NoProcess int32 = -1

// AnonProcess is the process of an operation that has no :process at all.
// Such ops are clients of one anonymous process, as Elle pairs them (the
// histories of Elle's paper and tests have no :process).
const AnonProcess int32 = -2

// OpType is the type of an operation: an invocation or one of the three kinds
// of completion.
type OpType uint8

// Operation types, as in Jepsen histories.
const (
	// Invoke starts an operation.
	Invoke OpType = iota
	// OK completes an operation that definitely happened.
	OK
	// Info completes an operation that may or may not have happened.
	Info
	// Fail completes an operation that definitely did not happen.
	Fail
)

// String returns the Jepsen name of the type, without the colon.
func (t OpType) String() string {
	switch t {
	case Invoke:
		return "invoke"
	case OK:
		return "ok"
	case Info:
		return "info"
	case Fail:
		return "fail"
	}
	return "OpType(" + strconv.Itoa(int(t)) + ")"
}

// ParseOpType reads a type name, with or without a leading colon. It takes
// the reader's bytes: a switch on string(b) compares them where they are.
func ParseOpType(b []byte) (OpType, bool) {
	if len(b) > 0 && b[0] == ':' {
		b = b[1:]
	}
	switch string(b) {
	case "invoke":
		return Invoke, true
	case "ok":
		return OK, true
	case "info":
		return Info, true
	case "fail":
		return Fail, true
	}
	return 0, false
}

// Func is the :f of an operation, reduced to the ones the analyses know.
type Func uint8

// Functions. Everything else is FOther; its name is kept in Op.FName.
const (
	FOther Func = iota
	FSend
	FPoll
	FTxn
	FAssign
	FSubscribe
	FCrash
	FDebugTopicPartitions
)

var funcNames = [...]string{"other", "send", "poll", "txn", "assign", "subscribe", "crash", "debug-topic-partitions"}

// String returns the function's name without the colon.
func (f Func) String() string {
	if int(f) < len(funcNames) {
		return funcNames[f]
	}
	return "Func(" + strconv.Itoa(int(f)) + ")"
}

// ParseFunc maps a function name (with or without a leading colon) to a Func;
// unknown names give FOther. It compares b where it is, without a copy.
func ParseFunc(b []byte) Func {
	if len(b) > 0 && b[0] == ':' {
		b = b[1:]
	}
	for i, n := range funcNames {
		if i > 0 && n == string(b) {
			return Func(i)
		}
	}
	return FOther
}

// MopKind says what a micro-op does.
type MopKind uint8

// Micro-op kinds: the queue's sends and polls, the transactional workloads'
// appends, writes and reads (docs/list-append.md#the-workload,
// docs/rw-register.md#the-workload).
const (
	// MopSend is [:send k v] (invocation form) or [:send k [offset v]].
	MopSend MopKind = iota
	// MopPoll is [:poll] (invocation form) or [:poll {k [[offset v] ...]}].
	MopPoll
	// MopOther is a micro-op of an op whose :f is not send, poll or txn
	// (those with an unknown name are input errors); no analysis uses it.
	MopOther
	// MopAppend is list-append's [:append k v]: Key, Msg.
	MopAppend
	// MopWrite is rw-register's [:w k v]: Key, Msg.
	MopWrite
	// MopRead is [:r k v] with a value that is not a list: rw-register's
	// read. Done is false when v is nil: an invocation's placeholder, an
	// unknown read of an info op, or (in an ok rw-register completion) the
	// initial state; Msg is then NoMsg.
	MopRead
	// MopReadList is [:r k [v1 v2 ...]]: list-append's read of a whole
	// list, its elements in History.ElemsOf. Done is always true.
	MopReadList

	// mopKindsEnd follows the last kind: a new kind goes before it.
	mopKindsEnd
)

// MopKinds is the number of micro-op kinds: every kind is below it, so a
// table by kind has MopKinds entries.
const MopKinds = int(mopKindsEnd)

// String names the kind as a history spells it ("send", "append", "r", ...).
func (k MopKind) String() string {
	switch k {
	case MopSend:
		return "send"
	case MopPoll:
		return "poll"
	case MopAppend:
		return "append"
	case MopWrite:
		return "w"
	case MopRead, MopReadList:
		return "r"
	}
	return "other"
}

// NoMsg is the Msg of a micro-op that carries no value (a nil read).
const NoMsg MsgID = -1

// Read is one [offset value] pair returned by a poll. It packs the offset
// into two 32-bit halves so that a read takes 12 bytes, not 16: histories
// hold millions of them.
type Read struct {
	Msg   MsgID
	offLo uint32
	offHi int32
}

// NewRead returns the read of message m at offset off.
func NewRead(off int64, m MsgID) Read {
	return Read{Msg: m, offLo: uint32(off), offHi: int32(off >> 32)}
}

// Offset is the offset the message was read at.
func (r Read) Offset() int64 { return int64(r.offHi)<<32 | int64(r.offLo) }

// KeyPoll is what one poll micro-op returned for one key, in order. Its
// reads (History.ReadsOf) may be empty ({k []}): the key was polled and
// nothing came back.
type KeyPoll struct {
	Key   KeyID
	Reads Span // in History.Reads
}

// Mop is one micro-op. It takes 16 bytes: histories hold millions of them
// (52M at 22M list-append transactions), and only a send has an offset,
// which it keeps where a poll or a list read keeps its span, in 48 bits.
// An offset or a span that does not fit (an offset below 0 or of 2^48 -
// 2^32 - 1 or more, a span of 65,535 elements or more) is kept whole in
// History.MopWide, and the micro-op holds its index there. So an offset
// or a span is read through the history (History.Offset, PollsOf,
// ElemsOf, SpanOf) and set through its Builder (SetOffset, SetSpan).
type Mop struct {
	// Key and Msg describe a send, an append, a write or a read.
	Key KeyID
	Msg MsgID
	// lo and hi: for a poll (History.PollsOf, keys in the order of the
	// history) and a list read (History.ElemsOf), its span's start and
	// length; for a send, its offset plus one (0: NoOffset), lo its low
	// 32 bits; either way, when hi is wideMop, lo is an index in
	// History.MopWide, which holds the offset or the span whole.
	lo   uint32
	hi   uint16
	Kind MopKind
	// Done is true when the micro-op is in completed form: a send with an
	// [offset value] pair (offset may still be NoOffset, for nil), a poll with
	// a map. An info or fail op may hold micro-ops still in invocation form.
	Done bool
}

// wideMop is a Mop's hi when its offset or span is in History.MopWide.
const wideMop = math.MaxUint16

// narrowOffsets is the number of offsets a Mop holds itself: 0 up to
// narrowOffsets-1, stored plus one below hi's wideMop.
const narrowOffsets = wideMop<<32 - 1

// Offset is the offset of send m: NoOffset when it is unknown (nil in the
// history, or the send still in invocation form), and for every other kind.
// The zero Mop's is NoOffset.
func (h *History) Offset(m *Mop) int64 {
	if m.Kind != MopSend {
		return NoOffset
	}
	if m.hi == wideMop {
		return h.MopWide[m.lo]
	}
	s := int64(m.hi)<<32 | int64(m.lo)
	if s == 0 {
		return NoOffset
	}
	return s - 1
}

// HasOffset reports whether m is a send with an offset (Offset is not
// NoOffset).
func (m *Mop) HasOffset() bool { return m.Kind == MopSend && (m.lo != 0 || m.hi != 0) }

// SpanOf is the span of a poll's keys in PollStore, or of a list read's
// elements in ElemStore; the zero Span for any other micro-op.
func (h *History) SpanOf(m *Mop) Span {
	if m.Kind != MopPoll && m.Kind != MopReadList {
		return Span{}
	}
	if m.hi == wideMop {
		return unpackSpan(h.MopWide[m.lo])
	}
	return Span{Start: int32(m.lo), N: int32(m.hi)}
}

// packSpan and unpackSpan keep a Span in an int64 of MopWide.
func packSpan(sp Span) int64 { return int64(uint64(uint32(sp.Start))<<32 | uint64(uint32(sp.N))) }

func unpackSpan(w int64) Span { return Span{Start: int32(uint64(w) >> 32), N: int32(uint32(w))} }

// Rebase moves m into a history that adopted its store's chunks and
// appended its MopWide: a poll's or list read's span by the chunk base its
// store was adopted at (Store.Adopt, Span.Rebase), rewriting the wide span
// in wide, m's own history's MopWide; and m's index in MopWide, if any,
// by wideBase, where that MopWide begins in the other's.
func (m *Mop) Rebase(wide []int64, base, wideBase int32) {
	if m.Kind != MopSend && m.Kind != MopPoll && m.Kind != MopReadList {
		return
	}
	if m.hi != wideMop {
		if m.Kind != MopSend {
			m.lo = uint32(Span{Start: int32(m.lo), N: int32(m.hi)}.Rebase(base).Start)
		}
		return
	}
	if m.Kind != MopSend {
		wide[m.lo] = packSpan(unpackSpan(wide[m.lo]).Rebase(base))
	}
	m.lo += uint32(wideBase)
}

// Op is one line of a history. It is kept small (12 bytes) because a
// history holds one per line: its micro-ops live in the history's stores
// (History.MopsOf), and what is not needed op by op lives beside the ops,
// by position: the :time (History.Time), the :index (History.Index), the
// source line (History.Line) and the fields most ops lack
// (History.Extras).
type Op struct {
	// Mops locates the micro-ops of send, poll and txn ops. An invocation
	// that has a completion may have none: its micro-ops are the
	// invocation form of its completion's (ingest drops them to save
	// memory; InvocationMops rebuilds them).
	Mops    MopRef
	Type    OpType
	F       Func
	Process int32
}

// OpExtra holds the fields of an op that most ops do not have: its
// :error text, the commonest (every failed or indeterminate op may have
// one; the abort workload fails about a third of its polls on purpose),
// and the rarer ones behind a pointer, so that an op with only an error
// costs 24 bytes here, not 80.
type OpExtra struct {
	// Error is the :error text, if any, for display.
	Error string
	// More holds the rarer fields; nil when the op has none of them.
	More *OpMore
}

// OpMore holds the rarest fields of an op.
type OpMore struct {
	// FName is the :f text for FOther.
	FName string
	// Keys holds the keys of an assign or subscribe.
	Keys []KeyID
	// Rebalance holds the keys named in :rebalance-log; internal poll checks
	// skip them.
	Rebalance []KeyID
}

// Rare returns e.More, adding it when e has none.
func (e *OpExtra) Rare() *OpMore {
	if e.More == nil {
		e.More = &OpMore{}
	}
	return e.More
}

// extra returns the rarer fields of the op at position i, or nil. Cost:
// O(log extras).
func (h *History) extra(i int) *OpExtra {
	k, ok := slices.BinarySearch(h.ExtraPos, int32(i))
	if !ok {
		return nil
	}
	return &h.Extras[k]
}

// more returns the rarest fields of the op at position i, or nil.
func (h *History) more(i int) *OpMore {
	if e := h.extra(i); e != nil {
		return e.More
	}
	return nil
}

// FNameOf is the :f text of the FOther op at position i.
func (h *History) FNameOf(i int) string {
	if m := h.more(i); m != nil {
		return m.FName
	}
	return ""
}

// KeysOf are the keys of the assign or subscribe op at position i.
func (h *History) KeysOf(i int) []KeyID {
	if m := h.more(i); m != nil {
		return m.Keys
	}
	return nil
}

// RebalanceOf are the keys named in the :rebalance-log of the op at
// position i.
func (h *History) RebalanceOf(i int) []KeyID {
	if m := h.more(i); m != nil {
		return m.Rebalance
	}
	return nil
}

// ErrorOf is the :error text of the op at position i.
func (h *History) ErrorOf(i int) string {
	if e := h.extra(i); e != nil {
		return e.Error
	}
	return ""
}

// InvocationMops returns the micro-ops of the invocation at position i of
// h: its own, or the invocation form of its completion's when ingest
// dropped them (sends without their offsets, polls without results).
func (h *History) InvocationMops(i int, p Pairing) []Mop {
	op := &h.Ops[i]
	own := h.MopsOf(op)
	if len(own) > 0 || op.Type != Invoke || p.Partner[i] < 0 {
		return own
	}
	comp := h.MopsOf(&h.Ops[p.Partner[i]])
	out := make([]Mop, len(comp))
	for j, m := range comp {
		out[j] = Mop{Kind: m.Kind, Key: m.Key, Msg: m.Msg}
		switch m.Kind {
		case MopRead, MopReadList:
			out[j] = Mop{Kind: MopRead, Key: m.Key, Msg: NoMsg}
		case MopAppend, MopWrite:
			out[j].Done = true
		}
	}
	return out
}

// IsClient reports whether the op belongs to a client process.
func (o *Op) IsClient() bool { return o.Process != NoProcess }

// Msg is one (key, value) pair.
type Msg struct {
	Key KeyID
	Val ValID
}

// History is a parsed history with its intern tables.
type History struct {
	// Source names where it came from (a path, or "-").
	Source string
	// Ops in file order.
	Ops []Op
	// Indices holds the ops' :index values, or their positions for the
	// ops without one (History.Index); Lines the 1-based line in the
	// source where each op starts (History.Line).
	Indices Runs
	Lines   Runs
	// Times holds the ops' :time values (History.Time).
	Times Times
	// Keys, Values: atoms by id.
	Keys   []Atom
	Values []Atom
	// Msgs: (key, value) by id.
	Msgs []Msg
	// MopStore, PollStore and ReadStore hold every op's micro-ops, every
	// poll's keys and every key's reads, referenced by Spans.
	// Extras holds the rarer fields of the ops that have them, in the order
	// of their positions, ExtraPos (ascending).
	Extras    []OpExtra
	ExtraPos  []int32
	MopStore  Store[Mop]
	PollStore Store[KeyPoll]
	ReadStore Store[Read]
	// ElemStore holds the elements of list-append reads (MopReadList).
	ElemStore Store[MsgID]
	// MopWide holds the micro-ops' offsets and spans too wide for a Mop
	// (Mop): almost always empty.
	MopWide []int64
	// ExtRecs, ExtWords and ExtKeys hold what workloads' own decoders read
	// (ext.go); ExtOwners names those decoders (ExtRec.Owner). ExtSpans,
	// indexed like Ops, locates an op's records in ExtRecs; it is nil when
	// no op has any, and may be shorter than Ops (the ops past its end
	// have none), so that it costs nothing where no workload decoder
	// wrote.
	ExtSpans  []Span
	ExtRecs   Store[ExtRec]
	ExtWords  Store[int64]
	ExtKeys   Store[KeyID]
	ExtOwners []string
	// Truncated is set when the input ended in the middle of an op; Ops holds
	// everything up to the last complete op.
	Truncated bool
	// Warnings are things worth telling the user that do not stop analysis.
	Warnings []string
}

// Index is the :index of the op at position i, or i when it has none.
func (h *History) Index(i int) int64 { return h.Indices.At(i) }

// Time is the :time of the op at position i, in nanoseconds since the
// test began, or NoTime when it has none (or the times were dropped).
func (h *History) Time(i int) int64 { return h.Times.At(i) }

// DropTimes lets the ops' times go, for a caller that will read none:
// Time is NoTime for every op after it. 4 bytes an op (186 MB at 22M
// list-append transactions, whose check reads no time).
func (h *History) DropTimes() { h.Times = Times{} }

// Line is the 1-based line in the source where the op at position i
// starts.
func (h *History) Line(i int) int { return int(h.Lines.At(i)) }

// MopsOf returns op's micro-ops. The slice aliases the history.
func (h *History) MopsOf(op *Op) []Mop { return op.Mops.get(&h.MopStore) }

// PollsOf returns what a poll micro-op returned, key by key; nil for any
// other micro-op.
func (h *History) PollsOf(m *Mop) []KeyPoll {
	if m.Kind != MopPoll {
		return nil
	}
	return h.PollStore.Get(h.SpanOf(m))
}

// ReadsOf returns the [offset value] pairs one poll returned for one key.
func (h *History) ReadsOf(kp *KeyPoll) []Read { return h.ReadStore.Get(kp.Reads) }

// ElemsOf returns the elements a list-append read returned, as messages of
// its key, in list order. The slice aliases the history.
func (h *History) ElemsOf(m *Mop) []MsgID {
	if m.Kind != MopReadList {
		return nil
	}
	return h.ElemStore.Get(h.SpanOf(m))
}

// KeyAtom returns the atom of a key.
func (h *History) KeyAtom(k KeyID) Atom { return h.Keys[k] }

// MsgKey returns the key of a message.
func (h *History) MsgKey(m MsgID) KeyID { return h.Msgs[m].Key }

// MsgValue returns the value atom of a message.
func (h *History) MsgValue(m MsgID) Atom { return h.Values[h.Msgs[m].Val] }

// AtomKind says how an atom was written in the history.
type AtomKind uint8

// Atom kinds.
const (
	// KInt is an integer that fits in int64.
	KInt AtomKind = iota
	// KBigInt is an integer that does not fit; Text holds its digits.
	KBigInt
	// KString is a string; Text holds it unescaped.
	KString
	// KKeyword is an EDN keyword; Text holds it with its colon (":x").
	KKeyword
	// KOther is anything else (nil, a vector, a ratio ...); Text holds its
	// source text.
	KOther
	// KNil is no value at all: the initial state of a key in the
	// transactional workloads (an empty list, a register never written).
	// Ingest never makes one; analyses do, for output.
	KNil
)

// NilAtom is the atom of the initial state (KNil).
var NilAtom = Atom{Kind: KNil, Text: "nil"}

// Atom is a key or value as it appeared in the history.
type Atom struct {
	Kind AtomKind
	Int  int64
	Text string
}

// IntAtom returns the atom of an integer.
func IntAtom(i int64) Atom { return Atom{Kind: KInt, Int: i} }

// StringAtom returns the atom of a string.
func StringAtom(s string) Atom { return Atom{Kind: KString, Text: s} }

// KeywordAtom returns the atom of an EDN keyword; s includes the colon.
func KeywordAtom(s string) Atom { return Atom{Kind: KKeyword, Text: s} }

// String renders the atom for people: integers as digits, strings quoted,
// keywords with their colon.
func (a Atom) String() string {
	switch a.Kind {
	case KInt:
		return strconv.FormatInt(a.Int, 10)
	case KString:
		return strconv.Quote(a.Text)
	}
	return a.Text
}

// PlainText is the atom's text without quotes: the text of a key in the sense
// of ingest's package doc ("3" and 3 have the same text).
func (a Atom) PlainText() string {
	if a.Kind == KInt {
		return strconv.FormatInt(a.Int, 10)
	}
	return a.Text
}

// IsNumber reports whether the atom is an integer (it goes to JSON as a number).
func (a Atom) IsNumber() bool { return a.Kind == KInt || a.Kind == KBigInt }

// Less orders atoms: numbers before everything else, numbers by value, the
// rest by text. Used to sort values and keys for output.
func (a Atom) Less(b Atom) bool {
	an, bn := a.IsNumber(), b.IsNumber()
	if an != bn {
		return an
	}
	if a.Kind == KInt && b.Kind == KInt {
		return a.Int < b.Int
	}
	if an { // at least one big integer: compare by length, then digits
		at, bt := a.PlainText(), b.PlainText()
		if at == bt {
			return false
		}
		an, bn := at[0] == '-', bt[0] == '-'
		if an != bn {
			return an
		}
		if len(at) != len(bt) {
			return (len(at) < len(bt)) != an
		}
		return (at < bt) != an
	}
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Text < b.Text
}

// Builder interns atoms and collects ops. It is what ingest writes into.
type Builder struct {
	h       History
	keyIdx  map[string]KeyID
	keyWeak []bool
	// keyHot caches keys KeyBytes found, by a hash of their text's length
	// and ends: a history names few keys (topics, keys) over and over, and
	// a comparison in place costs less than a map's hashing. It holds only
	// keys that are not weak, which never turn weak again.
	keyHot  [64]hotKey
	intVals map[int64]ValID
	strVals [KOther + 1]map[string]ValID // by kind, then text
	msgIdx  map[uint64]MsgID
	// msgGoal is the number of messages the history is expected to hold
	// (ExpectMsgs); 0 when nobody said
	msgGoal int
}

// NewBuilder returns an empty builder for a history read from source.
func NewBuilder(source string) *Builder {
	return &Builder{
		h:       History{Source: source},
		keyIdx:  map[string]KeyID{},
		intVals: map[int64]ValID{},
		msgIdx:  map[uint64]MsgID{},
	}
}

// Key interns a key seen in a typed position (a send, an assign, an EDN map
// key).
func (b *Builder) Key(a Atom) KeyID {
	if a.Kind == KInt {
		return b.key(a, []byte(a.PlainText()))
	}
	return b.key(a, nil)
}

// KeyBytes interns the key of kind k (not KInt) and text t without
// allocating when it is known already: a reader's fast path.
func (b *Builder) KeyBytes(k AtomKind, t []byte) KeyID {
	if id, ok := b.KnownKeyBytes(t); ok {
		return id
	}
	id := b.key(Atom{Kind: k, Text: string(t)}, nil)
	b.keepHot(id, t)
	return id
}

// KnownKeyBytes is KeyBytes for a key that is known already and not weak
// (KeyWeak): its id, and true; for any other it interns nothing and
// returns false. A reader that must not intern out of the input's order
// (ingest's early reading of a :value) asks this first.
func (b *Builder) KnownKeyBytes(t []byte) (KeyID, bool) {
	slot := &b.keyHot[hotSlot(t)]
	if slot.text == string(t) && slot.text != "" {
		return slot.id, true
	}
	id, ok := b.keyIdx[string(t)]
	if !ok || b.keyWeak[id] {
		return 0, false
	}
	b.keepHot(id, t)
	return id, true
}

// keepHot puts key id, whose text is t, in its keyHot slot, when its
// stored text is t.
func (b *Builder) keepHot(id KeyID, t []byte) {
	if a := &b.h.Keys[id]; a.Text == string(t) {
		b.keyHot[hotSlot(t)] = hotKey{text: a.Text, id: id}
	}
}

// hotKey is an entry of Builder.keyHot.
type hotKey struct {
	text string
	id   KeyID
}

// hotSlot is the keyHot entry of the key of text t.
func hotSlot(t []byte) int {
	if len(t) == 0 {
		return 0
	}
	return (len(t)*7 + int(t[0])*3 + int(t[len(t)-1])) & 63
}

// key interns a typed key whose text is text, or a.Text when text is nil.
func (b *Builder) key(a Atom, text []byte) KeyID {
	t := a.Text
	if text != nil {
		t = string(text)
	}
	if id, ok := b.keyIdx[t]; ok {
		if b.keyWeak[id] {
			b.h.Keys[id] = a
			b.keyWeak[id] = false
		}
		return id
	}
	id := KeyID(len(b.h.Keys))
	b.h.Keys = append(b.h.Keys, a)
	b.keyWeak = append(b.keyWeak, false)
	b.keyIdx[t] = id
	return id
}

// KeyWeak reports whether key k is known only by its text so far (it was
// interned with KeyText and never seen in a typed position). It stays valid
// after History.
func (b *Builder) KeyWeak(k KeyID) bool { return b.keyWeak[k] }

// KeyText interns a key known only by its text (a JSON object key): it is the
// key of that text if one exists or appears later, a string key otherwise.
func (b *Builder) KeyText(text string) KeyID {
	return b.KeyTextBytes([]byte(text))
}

// KeyTextBytes is KeyText without allocating for a key known already.
func (b *Builder) KeyTextBytes(text []byte) KeyID {
	if id, ok := b.keyIdx[string(text)]; ok {
		return id
	}
	t := string(text)
	id := KeyID(len(b.h.Keys))
	b.h.Keys = append(b.h.Keys, StringAtom(t))
	b.keyWeak = append(b.keyWeak, true)
	b.keyIdx[t] = id
	return id
}

// Value interns a value.
func (b *Builder) Value(a Atom) ValID {
	if a.Kind == KInt {
		if id, ok := b.intVals[a.Int]; ok {
			return id
		}
		id := b.addValue(a)
		b.intVals[a.Int] = id
		return id
	}
	return b.ValueBytes(a.Kind, []byte(a.Text))
}

// ValueBytes interns the value of kind k (not KInt) and text t without
// allocating when it is known already: a reader's fast path.
func (b *Builder) ValueBytes(k AtomKind, t []byte) ValID {
	m := b.strVals[k]
	if m == nil {
		m = map[string]ValID{}
		b.strVals[k] = m
	}
	if id, ok := m[string(t)]; ok {
		return id
	}
	s := string(t)
	id := b.addValue(Atom{Kind: k, Text: s})
	m[s] = id
	return id
}

// NumValues is the number of values interned so far.
func (b *Builder) NumValues() int { return len(b.h.Values) }

// LookupIntValue finds the integer value i among the values interned with
// Value. Values added with AppendIntValue are not found.
func (b *Builder) LookupIntValue(i int64) (ValID, bool) {
	id, ok := b.intVals[i]
	return id, ok
}

// AppendIntValue adds the integer value i without indexing it: for a caller
// (ingest) that keeps its own dense index of small values and has checked
// LookupIntValue, so that the builder's maps need not hold a million
// entries while a history is read.
func (b *Builder) AppendIntValue(i int64) ValID { return b.addValue(IntAtom(i)) }

// LookupMsg finds (k, v) among the messages interned with Msg.
func (b *Builder) LookupMsg(k KeyID, v ValID) (MsgID, bool) {
	id, ok := b.msgIdx[uint64(uint32(k))<<32|uint64(uint32(v))]
	return id, ok
}

// AppendMsg adds the message (k, v) without indexing it, like
// AppendIntValue.
func (b *Builder) AppendMsg(k KeyID, v ValID) MsgID {
	b.roomForMsg()
	id := MsgID(len(b.h.Msgs))
	b.h.Msgs = append(b.h.Msgs, Msg{Key: k, Val: v})
	return id
}

// NumMsgs is the number of messages interned so far.
func (b *Builder) NumMsgs() int { return len(b.h.Msgs) }

// MsgInt returns the value of message m, interned so far, when it is an
// integer; ok is false when it is not.
func (b *Builder) MsgInt(m MsgID) (v int64, ok bool) {
	a := &b.h.Values[b.h.Msgs[m].Val]
	return a.Int, a.Kind == KInt
}

// ExpectMsgs tells the builder that the history will hold about n
// messages in all: the next time its message table is full, it grows to
// n instead of doubling, if n is at least an eighth more than the table
// holds (an estimate too low to be worth a copy is ignored). Ingest's
// parallel read extrapolates n from the blocks merged so far.
func (b *Builder) ExpectMsgs(n int) { b.msgGoal = n }

// roomForMsg makes room for one more message: when the table is full it
// grows to the expected number of messages (ExpectMsgs), else doubles.
// Doubling, not append's quarter: the table reaches millions of messages,
// interned in a parallel read's serial merge, where growing by a quarter
// copied it about five times over. With an expectation the table is
// copied about once, and History does not copy it again: on 1M
// list-append txns (1,252,020 messages, 10 MB) the doubling left a table
// of 2,096,128 (16.8 MB) at the end of the read, and History's copy to
// their length was made just where the read peaks.
func (b *Builder) roomForMsg() {
	n := len(b.h.Msgs)
	if n < cap(b.h.Msgs) {
		return
	}
	c := 2*n + 1024
	if b.msgGoal >= n+n/8+1 {
		c = b.msgGoal
	}
	b.h.Msgs = append(make([]Msg, 0, c), b.h.Msgs...)
}

// addValue appends a to the values table, unindexed, and returns its id.
// The table doubles when it is full, as roomForMsg's does and for the same
// reason: append grows a large slice by a quarter, so a table of millions
// of values (a history whose reads list millions of distinct integers)
// was copied about five times over into fresh memory.
func (b *Builder) addValue(a Atom) ValID {
	if n := len(b.h.Values); n == cap(b.h.Values) {
		b.h.Values = append(make([]Atom, 0, 2*n+1024), b.h.Values...)
	}
	b.h.Values = append(b.h.Values, a)
	return ValID(len(b.h.Values) - 1)
}

// Msg interns the message (k, v).
func (b *Builder) Msg(k KeyID, v ValID) MsgID {
	p := uint64(uint32(k))<<32 | uint64(uint32(v))
	if id, ok := b.msgIdx[p]; ok {
		return id
	}
	b.roomForMsg()
	id := MsgID(len(b.h.Msgs))
	b.h.Msgs = append(b.h.Msgs, Msg{Key: k, Val: v})
	b.msgIdx[p] = id
	return id
}

// Mops stores n micro-ops and returns where they are and the slice to
// fill.
func (b *Builder) Mops(n int) (MopRef, []Mop) { return allocMops(&b.h.MopStore, n) }

// Polls stores n poll entries and returns their span and the slice to fill.
func (b *Builder) Polls(n int) (Span, []KeyPoll) { return b.h.PollStore.Alloc(n) }

// Reads stores n reads and returns their span and the slice to fill.
func (b *Builder) Reads(n int) (Span, []Read) { return b.h.ReadStore.Alloc(n) }

// Elems stores n list elements and returns their span and the slice to
// fill.
func (b *Builder) Elems(n int) (Span, []MsgID) { return b.h.ElemStore.Alloc(n) }

// StoreElems copies one list read's elements into the history.
func (b *Builder) StoreElems(ms ...MsgID) Span { return b.h.ElemStore.Put(ms...) }

// StoreMops copies mops into the history and returns where they are: a
// convenience for building histories in code.
func (b *Builder) StoreMops(mops ...Mop) MopRef {
	r, dst := b.Mops(len(mops))
	copy(dst, mops)
	return r
}

// SetOffset sets the offset of send m (NoOffset for none), in m or, when
// it does not fit there, in the history's MopWide.
func (b *Builder) SetOffset(m *Mop, off int64) {
	switch {
	case off == NoOffset:
		m.lo, m.hi = 0, 0
	case off >= 0 && off < narrowOffsets:
		s := off + 1
		m.lo, m.hi = uint32(s), uint16(s>>32)
	default:
		m.lo, m.hi = uint32(len(b.h.MopWide)), wideMop
		b.h.MopWide = append(b.h.MopWide, off)
	}
}

// SetSpan sets the span of poll or list read m, in m or, when it is
// 65,535 long or longer, in the history's MopWide.
func (b *Builder) SetSpan(m *Mop, sp Span) {
	if sp.N < wideMop {
		m.lo, m.hi = uint32(sp.Start), uint16(sp.N)
		return
	}
	m.lo, m.hi = uint32(len(b.h.MopWide)), wideMop
	b.h.MopWide = append(b.h.MopWide, packSpan(sp))
}

// Send returns the completed send of message msg to key k at offset off
// (NoOffset when the history gives none).
func (b *Builder) Send(k KeyID, msg MsgID, off int64) Mop {
	m := Mop{Kind: MopSend, Key: k, Msg: msg, Done: true}
	b.SetOffset(&m, off)
	return m
}

// Spanned returns m with span sp set (SetSpan): a convenience for
// building histories in code.
func (b *Builder) Spanned(m Mop, sp Span) Mop {
	b.SetSpan(&m, sp)
	return m
}

// StorePolls copies one poll micro-op's key entries into the history.
func (b *Builder) StorePolls(kps ...KeyPoll) Span { return b.h.PollStore.Put(kps...) }

// StoreReads copies one key's reads into the history.
func (b *Builder) StoreReads(rs ...Read) Span { return b.h.ReadStore.Put(rs...) }

// Extra returns the rarer fields of the op at position pos, adding an
// empty set when it has none. Ops are read in order: pos is the last
// position given, or a later one. The pointer is valid until the next
// call.
func (b *Builder) Extra(pos int) *OpExtra {
	if n := len(b.h.ExtraPos); n == 0 || b.h.ExtraPos[n-1] != int32(pos) {
		b.h.Extras = append(b.h.Extras, OpExtra{})
		b.h.ExtraPos = append(b.h.ExtraPos, int32(pos))
	}
	return &b.h.Extras[len(b.h.Extras)-1]
}

// HasExtra reports whether the op at position pos, the last given to
// Extra or a later one, has rarer fields.
func (b *Builder) HasExtra(pos int) bool {
	n := len(b.h.ExtraPos)
	return n > 0 && b.h.ExtraPos[n-1] == int32(pos)
}

// ReuseExtras gives the builder room's backing arrays for the ops'
// extras and their positions, which it overwrites; call it before the
// first op. (Ingest's parallel read hands a block's extras, once copied
// into the history, to the next block a worker reads, instead of growing
// them afresh.)
func (b *Builder) ReuseExtras(room []OpExtra, pos []int32) {
	b.h.Extras, b.h.ExtraPos = room[:0], pos[:0]
}

// SetKeys sets the keys of the assign or subscribe op at position pos.
func (b *Builder) SetKeys(pos int, keys []KeyID) { b.Extra(pos).Rare().Keys = keys }

// Add appends an op whose :index is index and :time t (or NoTime); its
// line is its position plus one, as in a file of one op to a line. Ops
// must be added in file order.
func (b *Builder) Add(index, t int64, op Op) {
	b.h.Ops = append(b.h.Ops, op)
	b.h.Indices.Append(index)
	b.h.Times.Append(t)
	b.h.Lines.Append(int64(len(b.h.Ops)))
}

// Len is the number of ops added, the position of the next.
func (b *Builder) Len() int { return len(b.h.Ops) }

// Warn records a warning.
func (b *Builder) Warn(format string, args ...any) {
	b.h.Warnings = append(b.h.Warnings, fmt.Sprintf(format, args...))
}

// SetTruncated marks the history as cut off mid-op.
func (b *Builder) SetTruncated() { b.h.Truncated = true }

// History finishes building. The builder must not be used afterwards.
// The message table, grown by doubling (AppendMsg), is copied to its
// length when more than an eighth of it is unused: it lives as long as
// the history, through the analyses' peaks, where the copy's moment,
// the end of the read, is not one (6 MB of 16 on 1M list-append txns).
func (b *Builder) History() *History {
	h := b.h
	if n := len(h.Msgs); cap(h.Msgs)-n > n/8 {
		h.Msgs = slices.Clone(h.Msgs)
	}
	b.keyIdx, b.intVals, b.strVals, b.msgIdx = nil, nil, [KOther + 1]map[string]ValID{}, nil
	b.keyHot = [64]hotKey{}
	return &h
}
