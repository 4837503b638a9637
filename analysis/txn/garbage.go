package txn

import (
	"encoding/json"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// garbageRead is a garbage-read instance kept compact (analysis.Lazy):
// which read of which txn, and which elements of it no txn wrote. Its
// Instance quotes the whole read and a Value (tens of bytes) for each
// unwritten element: about a kilobyte for a read of one element, which a
// history whose reads return unwritten values by the hundred thousand (a
// system returning junk, a history recorded without its writes) held for
// every read, 350 MB at the peak of one of 44 MB with 300k of them. This
// holds a hundred-odd bytes until an output builds the Instance (Full),
// or writes its JSON without it (AppendJSON: 1.8M of them, with 300k
// internal instances, were written in 0.59 s instead of 3.0 s).
type garbageRead struct {
	compactRead
	bad []model.MsgID // the unwritten elements, in the read's order
}

// readSource is what a check's compact read instances (garbage-read,
// internal, G1a, G1b) are built from: the history and its txns (not the
// checker, whose indexes are garbage once it is done), and whether a read
// is a list (list-append) or one value; the checks read the last too.
type readSource struct {
	h    *model.History
	recs []rec
	list bool
}

// compactRead is what the compact instances of one read share (garbageRead,
// internalRead, dirtyRead): the witness, where to build from, and which
// read of which txn.
type compactRead struct {
	ev  analysis.Evidence
	src *readSource
	r   int32       // the reading txn's rec
	mop int32       // the read's place among the txn's micro-ops (checker.mops)
	key model.KeyID // the read's key
}

// newCompactRead is the read mop (its place among rec r's micro-ops) of
// key k, witnessed by the ops of recs.
func (tc *txnChecks) newCompactRead(mop int32, k model.KeyID, r int32, recs ...int32) compactRead {
	return compactRead{ev: analysis.Evidence{Witness: tc.c.witness(recs...)}, src: tc.readSrc, r: r, mop: mop, key: k}
}

// InstanceKey returns the read's key, made afresh.
func (x *compactRead) InstanceKey() *analysis.Value {
	return analysis.AtomValuePtr(x.src.h.Keys[x.key])
}

// InstanceEvidence returns the witness.
func (x *compactRead) InstanceEvidence() *analysis.Evidence { return &x.ev }

// InstanceCycle returns nil: a read is no cycle.
func (*compactRead) InstanceCycle() *analysis.CycleFields { return nil }

// ListedValues returns what the full instance lists (analysis.Listed):
// nothing, for an internal read; garbageRead and dirtyRead list their own.
// A scan lists every instance's values, and these need not be built to.
func (*compactRead) ListedValues() (values, skipped []analysis.Value) { return nil, nil }

// ListedValues returns the unwritten values, as the full instance lists
// them (analysis.Listed), without building it: a list read's every one,
// a register read's one.
func (g *garbageRead) ListedValues() (values, skipped []analysis.Value) {
	values = g.values()
	if !g.src.list {
		values = values[:min(len(values), 1)]
	}
	return values, nil
}

// values are the unwritten values, in the read's order.
func (g *garbageRead) values() []analysis.Value {
	vals := make([]analysis.Value, len(g.bad))
	for j, e := range g.bad {
		vals[j] = analysis.AtomValue(g.src.h.MsgValue(e))
	}
	return vals
}

// read returns a checker that renders what x was built from (not the
// check's own, whose indexes are garbage once it is done) and the read.
func (x *compactRead) read() (*checker, *model.Mop) {
	c := &checker{h: x.src.h, recs: x.src.recs}
	return c, &c.mops(x.r)[x.mop]
}

// Full builds the Instance g stands for, as the check built it before it
// was kept compact: the read, its key, the reading op, and the unwritten
// elements (list-append: the first as element and all as values;
// rw-register: the value read).
func (g *garbageRead) Full() analysis.Instance {
	c, m := g.read()
	vals := g.values()
	in := &Instance{Op: analysis.IntPtr(c.idx(g.r)), Mop: c.mopVal(m), Subject: analysis.Subject{Key: c.keyVal(m.Key)}, Evidence: g.ev}
	if g.src.list {
		in.Element, in.Values = &vals[0], vals
	} else {
		in.Value = &vals[0]
	}
	return in
}

// MarshalJSON writes the Instance g stands for.
func (g *garbageRead) MarshalJSON() ([]byte, error) { return json.Marshal(g.Full()) }

// AppendJSON appends the JSON of the Instance g stands for, as report.JSON
// writes it, without building the Instance (the read is built, to write
// it).
func (g *garbageRead) AppendJSON(b []byte) []byte {
	c, m := g.read()
	bad := func(b []byte, i int) []byte { return c.msgVal(g.bad[i]).AppendJSON(b) }
	f := analysis.NewJSONFields(b)
	f.Value("key", analysis.AtomValue(c.h.Keys[m.Key]))
	if g.src.list {
		f.Name("values")
		f.B = analysis.AppendJSONList(f.B, len(g.bad), bad)
	} else {
		f.Name("value")
		f.B = bad(f.B, 0)
	}
	f.Int("op", c.idx(g.r))
	f.Name("mop")
	f.B = c.mopVal(m).AppendJSON(f.B)
	if g.src.list {
		f.Name("element")
		f.B = bad(f.B, 0)
	}
	f.Evidence(&g.ev)
	return f.End()
}

// internalRead is an internal instance kept compact (analysis.Lazy), as
// garbageRead is: which read of which txn, and the state the txn's own
// earlier micro-ops of the key led it to expect. A system that ignores its
// own writes makes one per txn, and its Instance (the read, the expected
// list as Values) took about 585 bytes each: 175 MB for the 300k of a
// 108 MB history.
type internalRead struct {
	compactRead
	es    []model.MsgID // the expected state (txnChecks.internal)
	isNil bool          // ... read as nil
	known bool          // ... known whole, not just by its end
}

// expected is the state the txn expected, as the Instance shows it.
func (x *internalRead) expected(c *checker) analysis.Value {
	exp := c.stateVal(x.src.list, x.es, x.isNil)
	if !x.known {
		exp = exp.KnownByItsEnd()
	}
	return exp
}

// Full builds the Instance x stands for, as the check built it before it
// was kept compact.
func (x *internalRead) Full() analysis.Instance {
	c, m := x.read()
	exp := x.expected(c)
	return &Instance{Op: analysis.IntPtr(c.idx(x.r)), Mop: c.mopVal(m), Subject: analysis.Subject{Key: c.keyVal(m.Key)},
		Expected: &exp, Evidence: x.ev}
}

// MarshalJSON writes the Instance x stands for.
func (x *internalRead) MarshalJSON() ([]byte, error) { return json.Marshal(x.Full()) }

// AppendJSON appends the JSON of the Instance x stands for, as report.JSON
// writes it, without building the Instance.
func (x *internalRead) AppendJSON(b []byte) []byte {
	c, m := x.read()
	f := analysis.NewJSONFields(b)
	f.Value("key", analysis.AtomValue(c.h.Keys[m.Key]))
	f.Int("op", c.idx(x.r))
	f.Name("mop")
	f.B = c.mopVal(m).AppendJSON(f.B)
	f.Value("expected", x.expected(c))
	f.Evidence(&x.ev)
	return f.End()
}
