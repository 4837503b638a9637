package ingest

import (
	"fmt"

	"github.com/hindsight-dev/hindsight/model"
)

// ValueField is the field name a ValueDecoder is offered for an op's
// :value (its other fields are offered by their own names, without the
// colon: "rebalance-log").
const ValueField = "value"

// Shape is what a form looks like, from its first token: all a
// ValueDecoder knows of a form when it is offered one.
type Shape uint8

// Shapes.
const (
	ShapeNil     Shape = iota // EDN nil, JSON null
	ShapeInt                  // an integer (any size)
	ShapeString               // a string
	ShapeKeyword              // an EDN keyword
	ShapeSymbol               // an EDN symbol, JSON true and false
	ShapeMap                  // an EDN map, a JSON object
	ShapeVector               // an EDN vector or list, a JSON array
	ShapeSet                  // an EDN set
	ShapeOther                // anything else: a float, a tagged form ...
)

var shapeNames = [...]string{"nil", "integer", "string", "keyword", "symbol", "map", "vector", "set", "other"}

// String names the shape.
func (s Shape) String() string {
	if int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return fmt.Sprintf("Shape(%d)", s)
}

func shapeOf(k tokKind) Shape {
	switch k {
	case tNil:
		return ShapeNil
	case tInt, tBigInt:
		return ShapeInt
	case tString:
		return ShapeString
	case tKeyword:
		return ShapeKeyword
	case tSymbol:
		return ShapeSymbol
	case tMapBegin:
		return ShapeMap
	case tVecBegin, tListBegin:
		return ShapeVector
	case tSetBegin:
		return ShapeSet
	}
	return ShapeOther
}

// A ValueDecoder decodes the forms of one workload that ingest does not
// decode itself, and keeps what it reads in the op's workload records
// (model.ExtRec), through an ExtWriter. Options.Decoders installs them;
// package workload lists every workload's. See the package doc, "Workload
// values", for what is offered to a decoder and when.
type ValueDecoder interface {
	// Name names the decoder (its workload) in History.ExtOwners.
	Name() string
	// Claim reports whether the decoder decodes field (ValueField, or the
	// name of another op field without its colon) of an op whose :f is f
	// (without its colon), when the form has shape s. f is "" for a field
	// other than :value (fields come in any order, :f perhaps later) and
	// for an op without :f. Claim must not depend on anything else: it is
	// asked once per form offered, and the first decoder that claims a form
	// owns it.
	Claim(field, f string, s Shape) bool
	// Decode reads the form at v, whose shape the decoder claimed, and
	// writes what it keeps into w: one record per call. An error (from v's
	// methods, or v.Errorf) stops the read: the history is not read, and
	// the error becomes an *Error at the position it names.
	Decode(field, f string, v *Value, w *ExtWriter) error
}

// Value is a form being read by a ValueDecoder: a cursor on the token
// stream, positioned at the form's first token. Each method that reads
// consumes the whole form (Map and Seq through their callbacks); a form a
// callback does not read is skipped. No tree is built: maps and vectors
// are walked in place, integers and names cost no allocation.
type Value struct {
	d    *decoder
	done bool
}

// Shape is the shape of the form.
func (v *Value) Shape() Shape { return shapeOf(v.d.l.kind) }

// IsNil reports whether the form is nil (JSON null).
func (v *Value) IsNil() bool { return v.d.l.kind == tNil }

// Pos is a position in the input, for an error about a form already read.
type Pos struct{ at srcPos }

// Line is the position's 1-based line.
func (p Pos) Line() int64 { return p.at.line }

// Col is the position's 1-based column, in bytes.
func (p Pos) Col() int64 { return p.at.col() }

// Pos returns where the form starts (before it is read).
func (v *Value) Pos() Pos { return Pos{v.d.l.tok} }

// ErrorAt returns an error at p, as Errorf does at the form: for a problem
// found once a form is read (offsets in a map without a topic).
func (v *Value) ErrorAt(p Pos, format string, args ...any) error {
	return &lexErr{p.at, fmt.Sprintf(format, args...)}
}

// Describe names the form for an error message: "the string \"t1\"",
// "'['", "the integer 3".
func (v *Value) Describe() string { return v.d.describe() }

// Errorf returns an error at the start of the form, which ingest reports
// as an *Error with the file, line, column and an excerpt of the line.
func (v *Value) Errorf(format string, args ...any) error {
	return &lexErr{v.d.l.tok, fmt.Sprintf(format, args...)}
}

// Skip consumes the form.
func (v *Value) Skip() error {
	v.done = true
	if err := v.d.tokErr(); err != nil {
		return err
	}
	return v.d.skip()
}

// Int reads an integer that fits an int64; anything else is an error
// ("expected an integer, found ...", or "an integer must fit in 64 bits,
// found ..." for a bigger one).
func (v *Value) Int() (int64, error) {
	v.done = true
	l := v.d.l
	if l.kind == tInt {
		return l.ival, nil
	}
	if err := v.d.tokErr(); err != nil {
		return 0, err
	}
	if l.kind == tBigInt {
		return 0, v.Errorf("an integer must fit in 64 bits, found %s", v.d.describe())
	}
	return 0, v.Errorf("expected an integer, found %s", v.d.describe())
}

// Bool reads true or false (EDN symbols, JSON literals); nil reads false.
// Anything else is an error.
func (v *Value) Bool() (bool, error) {
	v.done = true
	l := v.d.l
	switch {
	case l.kind == tNil:
		return false, nil
	case l.kind == tSymbol && string(l.text) == "true":
		return true, nil
	case l.kind == tSymbol && string(l.text) == "false":
		return false, nil
	}
	if err := v.d.tokErr(); err != nil {
		return false, err
	}
	return false, v.Errorf("expected true or false, found %s", v.d.describe())
}

// Text reads a string (unescaped), a keyword (with its colon) or a symbol;
// anything else is an error.
func (v *Value) Text() (string, error) {
	v.done = true
	l := v.d.l
	if isName(l.kind) {
		return string(l.text), nil
	}
	if err := v.d.tokErr(); err != nil {
		return "", err
	}
	return "", v.Errorf("expected a string, found %s", v.d.describe())
}

// Key reads the form as a key, interned as a key in a send or an assign
// is (an integer, string, keyword, or any other form by its source text):
// the same text names the same key across workloads' records and
// micro-ops.
func (v *Value) Key() (model.KeyID, error) {
	v.done = true
	if err := v.d.tokErr(); err != nil {
		return 0, err
	}
	a, err := v.d.atom()
	if err != nil {
		return 0, err
	}
	return v.d.key(&a), nil
}

// Map reads a map, calling fn for each entry in order with the key's name
// (a keyword without its colon, a string, a symbol; "" for a key of any
// other kind) and the entry's value, which is valid only during the call.
// A value fn does not read is skipped.
// A form that is not a map is an error ("expected a map, found ...").
func (v *Value) Map(fn func(key string, val *Value) error) error {
	v.done = true
	d, l := v.d, v.d.l
	if l.kind != tMapBegin {
		if err := d.tokErr(); err != nil {
			return err
		}
		return v.Errorf("expected a map, found %s", d.describe())
	}
	o, _ := d.opener()
	return d.elements(o, func(elem *Value) error {
		name := ""
		if isName(l.kind) {
			name = d.hookName(trimColon(l.text))
		} else if err := d.skip(); err != nil {
			return err
		}
		if c, err := d.nextClose(o); err != nil {
			return err
		} else if c {
			return &lexErr{l.tok, "map has a key with no value"}
		}
		return d.hand(elem, func(elem *Value) error { return fn(name, elem) })
	})
}

// Seq reads a vector, list or set (a JSON array), calling fn for each
// element in order; elem is valid only during the call. An element fn
// does not read is skipped. Any other form
// is an error ("expected a vector, found ...").
func (v *Value) Seq(fn func(elem *Value) error) error {
	v.done = true
	d, l := v.d, v.d.l
	o, ok := d.opener()
	if !ok || l.kind == tMapBegin {
		if err := d.tokErr(); err != nil {
			return err
		}
		return v.Errorf("expected a vector, found %s", d.describe())
	}
	return d.elements(o, func(elem *Value) error { return d.hand(elem, fn) })
}

// elements calls each at every token up to o's closer, with a Value for
// the element there (the same Value each time, taken for the loop).
func (d *decoder) elements(o opener, each func(elem *Value) error) error {
	elem := d.takeValue()
	defer d.putValue(elem)
	return d.forEach(o, func() error { return each(elem) })
}

// hand calls fn with elem, the form at the current token, and skips the
// form when fn did not read it.
func (d *decoder) hand(elem *Value, fn func(elem *Value) error) error {
	elem.done = false
	if err := fn(elem); err != nil {
		return err
	}
	if !elem.done {
		return d.skip()
	}
	return nil
}

// ExtWriter collects one workload record (model.ExtRec) of the op being
// read: its kind, words and keys. They are stored with the op once it is
// read in full.
type ExtWriter struct {
	d   *decoder
	rec int // index in d.hx.xrecs
}

// SetKind sets the record's kind, the decoder's own tag (0 unless set).
func (w *ExtWriter) SetKind(kind uint16) { w.d.hx.xrecs[w.rec].kind = kind }

// Word appends an integer to the record.
func (w *ExtWriter) Word(x int64) {
	push(&w.d.hx.xwords, x)
	w.d.hx.xrecs[w.rec].w1++
}

// Len is the number of words in the record so far.
func (w *ExtWriter) Len() int {
	r := &w.d.hx.xrecs[w.rec]
	return int(r.w1 - r.w0)
}

// SetWord replaces the record's word i (i < Len): room taken with Word
// for what is known only later (a count, flags).
func (w *ExtWriter) SetWord(i int, x int64) {
	w.d.hx.xwords[int(w.d.hx.xrecs[w.rec].w0)+i] = x
}

// Key appends a key (from Value.Key) to the record.
func (w *ExtWriter) Key(k model.KeyID) {
	push(&w.d.hx.xkeys, k)
	w.d.hx.xrecs[w.rec].k1++
}

// hookScratch is the decoder's scratch space for its workload decoders:
// the :value captured for them (vraw, vshape, when hasVRaw), and the
// records they wrote for the op being read.
type hookScratch struct {
	vraw     satom
	vsrc     []byte // the :value's source in the input, when the fast path read it; else vraw holds it
	vshape   Shape
	hasVRaw  bool
	early    int // 1 + the index in xrecs of the :value's record when fastClaimValue wrote it; 0 for none
	xrecs    []xrec
	xwords   []int64
	xkeys    []model.KeyID
	xout     []model.ExtRec
	fieldBuf []byte
	sub      lexer   // reads a captured :value (offerValue)
	scan     Scanner // reads it for a RawDecoder (decodeRaw)
	w        ExtWriter
	free     []*Value // Values for reuse: a Decode and each Map and Seq take one
}

// takeValue returns a Value at the current token, reused if one is free:
// reading a form allocates nothing once the first ops are read.
func (d *decoder) takeValue() *Value {
	hx := d.hx
	if n := len(hx.free); n > 0 {
		v := hx.free[n-1]
		hx.free = hx.free[:n-1]
		v.done = false
		return v
	}
	return &Value{d: d}
}

// putValue frees v for reuse; it must not be used afterwards.
func (d *decoder) putValue(v *Value) { d.hx.free = append(d.hx.free, v) }

// setHooks installs the workload decoders hooks.
func (d *decoder) setHooks(hooks []ValueDecoder) {
	d.hooks = hooks
	if len(hooks) > 0 {
		d.hx = &hookScratch{}
		d.raws = make([]RawDecoder, len(hooks))
		for i, h := range hooks {
			d.raws[i], _ = h.(RawDecoder)
		}
	}
}

// xrec is a workload record in the per-op scratch space: its words are
// decoder.xwords[w0:w1], its keys decoder.xkeys[k0:k1].
type xrec struct {
	kind   uint16
	owner  model.ExtOwner
	w0, w1 int32
	k0, k1 int32
}

// hookName returns b as a string, shared with earlier calls for the same
// text (map keys and field names repeat from op to op); past 4096
// different texts, new ones are no longer shared, so that the table stays
// small whatever the input.
func (d *decoder) hookName(b []byte) string {
	if s, ok := d.fnames[string(b)]; ok || len(d.fnames) >= 4096 {
		if !ok {
			s = string(b)
		}
		return s
	}
	return d.fname(b)
}

// claim returns the index of the first installed decoder that claims
// field (of an op whose :f is f) with shape s, or -1.
func (d *decoder) claim(field, f string, s Shape) int {
	for i, h := range d.hooks {
		if h.Claim(field, f, s) {
			return i
		}
	}
	return -1
}

// runHook has decoder i decode the form at the current token into a new
// record of the op being read; the form is consumed.
func (d *decoder) runHook(i int, field, f string) error {
	w := d.newRecord(i)
	v := d.takeValue()
	defer d.putValue(v)
	if err := d.hooks[i].Decode(field, f, v, w); err != nil {
		return err
	}
	if !v.done {
		return d.skip()
	}
	return nil
}

// newRecord starts a record of decoder i for the op being read and
// returns the writer that fills it.
func (d *decoder) newRecord(i int) *ExtWriter {
	d.hx.xrecs = append(d.hx.xrecs, xrec{owner: model.ExtOwner(i + 1),
		w0: int32(len(d.hx.xwords)), w1: int32(len(d.hx.xwords)),
		k0: int32(len(d.hx.xkeys)), k1: int32(len(d.hx.xkeys))})
	w := &d.hx.w
	if w.d != d { // stored once, not at every record (fastClaimValue)
		w.d = d
	}
	w.rec = len(d.hx.xrecs) - 1
	return w
}

// offerField offers the op field name (without colon), whose value is the
// current token, to the installed decoders; claimed reports whether one
// decoded it (and consumed it).
func (d *decoder) offerField(name string) (claimed bool, err error) {
	i := d.claim(name, "", shapeOf(d.l.kind))
	if i < 0 {
		return false, nil
	}
	return true, d.runHook(i, name, "")
}

// offerValue offers the op's :value, captured as d.hx.vsrc or d.hx.vraw
// because ingest does not decode it itself, to the installed decoders
// once :f is known; it reports whether one decoded it. A RawDecoder reads
// the captured text through a Scanner first (EDN only, and not when the
// fast path is off, so that the tests compare the two); when it declines,
// or the decoder is not one, the decoder reads the text through a lexer
// of its own that numbers lines and columns as the input does.
func (d *decoder) offerValue(f string) (bool, error) {
	i := d.claim(ValueField, f, d.hx.vshape)
	if i < 0 {
		return false, nil
	}
	raw := d.hx.vsrc
	if raw == nil {
		raw = d.atomText(&d.hx.vraw)
	}
	if rd := d.raws[i]; rd != nil && !d.json && !d.noFast && d.decodeRaw(rd, i, ValueField, f, raw) {
		return true, nil
	}
	return true, d.runHookOn(i, ValueField, f, raw, d.vpos)
}

// runHookOn has decoder i decode raw, the text of the form at at (the
// value of the op field field, of an op whose :f is f), through a lexer
// of its own that numbers lines and columns as the input does.
func (d *decoder) runHookOn(i int, field, f string, raw []byte, at srcPos) error {
	sub := &d.hx.sub // reused: its scratch buffers stay
	*sub = lexer{buf: raw, end: len(raw), eof: true, base: at.off, line: at.line, lineStart: at.lineStart,
		opStart: -1, capStart: -1, json: d.json, sbuf: sub.sbuf[:0], jstack: sub.jstack[:0]}
	main := d.l
	d.l = sub
	sub.next()
	err := d.runHook(i, field, f)
	d.l = main
	sub.buf = nil
	if err == errEOF { // the captured form is whole: a decoder read past it
		return &lexErr{at, "the " + d.hooks[i].Name() + " decoder read past the end of this value"}
	}
	return err
}

// storeExt stores the scratch records of the op being read, which will be
// at position d.n.
func (d *decoder) storeExt() {
	if cap(d.hx.xout) < len(d.hx.xrecs) {
		d.hx.xout = make([]model.ExtRec, len(d.hx.xrecs))
	}
	recs := d.hx.xout[:len(d.hx.xrecs)] // no store of the header: no write barrier
	if e := d.hx.early - 1; e >= 0 && e < len(d.hx.xrecs)-1 {
		// the :value read where it stood goes last, where offerValue
		// would have put it
		x := d.hx.xrecs[e]
		copy(d.hx.xrecs[e:], d.hx.xrecs[e+1:])
		d.hx.xrecs[len(d.hx.xrecs)-1] = x
	}
	for i, x := range d.hx.xrecs {
		r := &recs[i]
		r.Kind, r.Owner = x.kind, x.owner
		var ws []int64
		r.Words, ws = d.b.ExtWords(int(x.w1 - x.w0))
		copy(ws, d.hx.xwords[x.w0:x.w1])
		var ks []model.KeyID
		r.Keys, ks = d.b.ExtKeys(int(x.k1 - x.k0))
		copy(ks, d.hx.xkeys[x.k0:x.k1])
	}
	d.b.SetExtAt(int(d.n), recs...)
	d.resetExt()
}

func (d *decoder) resetExt() {
	// one reslice a statement, each in place (a length stored, no pointer)
	d.hx.xrecs = d.hx.xrecs[:0]
	d.hx.xwords = d.hx.xwords[:0]
	d.hx.xkeys = d.hx.xkeys[:0]
	d.hx.early = 0
}

// dropRecord drops the op's last record, which its decoder declined.
func (hx *hookScratch) dropRecord() {
	r := hx.xrecs[len(hx.xrecs)-1]
	hx.xrecs, hx.xwords, hx.xkeys = hx.xrecs[:len(hx.xrecs)-1], hx.xwords[:r.w0], hx.xkeys[:r.k0]
}

// hookNames are the names of decoders, for History.ExtOwners; nil when
// there are none.
func hookNames(hooks []ValueDecoder) []string {
	if len(hooks) == 0 {
		return nil
	}
	names := make([]string, len(hooks))
	for i, h := range hooks {
		names[i] = h.Name()
	}
	return names
}
