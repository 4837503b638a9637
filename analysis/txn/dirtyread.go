package txn

import (
	"encoding/json"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// dirtyRead is a G1a or G1b instance kept compact (analysis.Lazy), as
// garbageRead is: which read of which txn saw which element (list-append)
// or value (rw-register) of which writer. A system that lets aborted or
// intermediate writes be read makes one for each such read, and each
// Instance held its read, writer and element as pointers and Values:
// about 780 bytes, 223 MiB for the 300k G1a of a 110 MB history.
type dirtyRead struct {
	compactRead
	w int32       // the writing txn's rec
	e model.MsgID // the element or value read
}

// Full builds the Instance x stands for, as the check built it before it
// was kept compact: a list read's element as Element and the read cut to
// its first MaxMopElements (cutMop), a register read's value as Value.
func (x *dirtyRead) Full() analysis.Instance {
	c, m := x.read()
	in := &Instance{Op: analysis.IntPtr(c.idx(x.r)), Writer: analysis.IntPtr(c.idx(x.w)),
		Subject: analysis.Subject{Key: c.keyVal(m.Key)}, Evidence: x.ev}
	v := analysis.AtomValuePtr(c.h.MsgValue(x.e))
	if x.src.list {
		in.Mop, in.MopElements = c.cutMop(m)
		in.Element = v
	} else {
		in.Mop, in.Value = c.mopVal(m), v
	}
	return in
}

// ListedValues returns what the full instance lists (analysis.Listed),
// without building it: a register read's value (a list read's element is
// no listed value).
func (x *dirtyRead) ListedValues() (values, skipped []analysis.Value) {
	if x.src.list {
		return nil, nil
	}
	return []analysis.Value{analysis.AtomValue(x.src.h.MsgValue(x.e))}, nil
}

// MarshalJSON writes the Instance x stands for.
func (x *dirtyRead) MarshalJSON() ([]byte, error) { return json.Marshal(x.Full()) }

// AppendJSON appends the JSON of the Instance x stands for, as report.JSON
// writes it, without building the Instance.
func (x *dirtyRead) AppendJSON(b []byte) []byte {
	c, m := x.read()
	v := analysis.AtomValue(c.h.MsgValue(x.e))
	f := analysis.NewJSONFields(b)
	f.Value("key", analysis.AtomValue(c.h.Keys[m.Key]))
	if !x.src.list {
		f.Value("value", v)
	}
	f.Int("writer", c.idx(x.w))
	f.Int("op", c.idx(x.r))
	f.Name("mop")
	if !x.src.list {
		f.B = c.mopVal(m).AppendJSON(f.B)
		f.Evidence(&x.ev)
		return f.End()
	}
	mv, ml := c.cutMop(m)
	f.B = mv.AppendJSON(f.B)
	f.Value("element", v)
	f.Evidence(&x.ev)
	f.Ptr("mop_elements", ml)
	return f.End()
}

// dirtyRead makes the G1a or G1b instance of rec r's read mop (its place
// among r's micro-ops) of key k seeing element or value e of rec w.
func (tc *txnChecks) dirtyRead(r, w, mop int32, k model.KeyID, e model.MsgID) *dirtyRead {
	return &dirtyRead{compactRead: tc.newCompactRead(mop, k, r, r, w), w: w, e: e}
}
