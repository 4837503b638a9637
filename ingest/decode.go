package ingest

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/hindsight-dev/hindsight/model"
)

// errEOF is returned inside the decoder when the input ends before the form
// being read is complete.
var errEOF = errors.New("unexpected end of input")

func (e *lexErr) Error() string { return e.msg }

// valueMode says what an op's :value looked like, before :f is known (it may
// come after :value).
type valueMode uint8

const (
	vNone    valueMode = iota // no :value
	vNil                      // nil
	vEmpty                    // an empty vector, list or set
	vMops                     // a vector of vectors: micro-ops
	vKeys                     // a vector, list or set of atoms: keys
	vOther                    // anything else
	vClaimed                  // decoded by a ValueDecoder (hook.go)
)

// satom is an atom in the per-op scratch space; its text lives in the
// decoder's arena until the op is complete and it is interned.
type satom struct {
	kind   model.AtomKind
	byText bool // a JSON object key: interned with Builder.KeyText
	i      int64
	off, n uint32
}

// smop is a micro-op in the scratch space.
type smop struct {
	kind     model.MopKind
	done     bool
	ints     bool // a read list of integers only: decoder.readInts[p0:p1]
	key, val satom
	off      int64
	p0, p1   int32 // its polls: decoder.polls[p0:p1]; a read list's elements: decoder.reads[p0:p1] (decoder.readInts with ints)
}

// spoll is one key of a poll result in the scratch space.
type spoll struct {
	key    satom
	r0, r1 int32 // its reads: decoder.reads[r0:r1]
}

// sread is one [offset value] pair in the scratch space.
type sread struct {
	off int64
	val satom
}

// opener is an open bracket and the token that closes it.
type opener struct {
	close tokKind
	at    srcPos
}

// field is an op map key the decoder knows.
type field uint8

const (
	fNone field = iota
	fIndex
	fTime
	fType
	fProcess
	fF
	fValue
	fError
	fRebalance
)

func fieldOf(name []byte) field {
	if len(name) > 0 && name[0] == ':' {
		name = name[1:]
	}
	switch string(name) {
	case "index":
		return fIndex
	case "time":
		return fTime
	case "type":
		return fType
	case "process":
		return fProcess
	case "f":
		return fF
	case "value":
		return fValue
	case "error":
		return fError
	case "rebalance-log", "rebalance_log":
		return fRebalance
	}
	return fNone
}

const maxErrorRunes = 300

// decoder reads op maps from a token stream into a model.Builder.
type decoder struct {
	l    *lexer
	b    *model.Builder
	name string
	json bool
	n    int64 // ops read so far
	// timeWarned is set once an op's :time was found not to be an
	// integer (warned of once)
	timeWarned bool

	// Scratch space of the op being read.
	arena []byte
	mops  []smop
	polls []spoll
	reads []sread
	// readInts holds the elements of read lists of integers only, which
	// are most of a list-append history's bytes: 8 bytes an element
	// rather than an sread's 32 (smop.ints)
	readInts []int64
	vkeys    []satom
	rkeys    []satom
	vmode    valueMode
	vpos     srcPos
	verr     lexErr // first problem found in the micro-ops, reported only if they are used
	hasVErr  bool
	stack    []opener

	// Interning caches in front of the builder: same ids, fewer allocations.
	smallKeys  []model.KeyID // id+1 of the integer key keyLo+i, for small i >= 0
	nSmallKeys int           // the keys in smallKeys
	keyLo      int64
	keyBased   bool // keyLo is set
	intKeys    map[int64]model.KeyID
	fnames     map[string]string
	errs       map[string]string
	msgTab     []keyMsgs
	// tabCells is the entries of all msgTab tables, tabMsgs the integer
	// messages interned (msgInt's bound on tabCells)
	tabCells, tabMsgs int64
	smallVals         []model.ValID // id+1 of the integer value valLo+i, for small i >= 0
	valLo             int64
	valBased          bool // valLo is set
	rset              map[model.KeyID]bool

	ops      opChunks
	indices  model.Runs    // the ops' :index values
	lines    model.Runs    // and lines
	times    model.Times   // and :time values
	pending  pendingSet    // invocation whose completion has not come yet, by process
	freeMops [][]model.Mop // buffers for pending micro-ops, for reuse

	keyStore model.Store[model.KeyID] // backs assign/subscribe key lists

	// List-append reads: the elements of the one being stored, and each
	// key's run of shared elements (lists.go).
	elemBuf []model.MsgID
	lists   []listRun

	// gz is the gzip stream being read, if the input is gzip: it knows
	// whether NUL bytes followed its last member (gzipMembers).
	gz *gzipMembers

	// part is set when the decoder reads one block of a file read in
	// parallel (parallel.go); nil for a sequential read.
	part *partOut

	noFast bool // Options.noFast

	// Workload decoders (Options.Decoders, hook.go) and their scratch
	// space, allocated only when there are any.
	hooks []ValueDecoder
	raws  []RawDecoder // by hook: the hook as a RawDecoder, or nil
	hx    *hookScratch
}

func newDecoder(l *lexer, b *model.Builder, name string) *decoder {
	return &decoder{l: l, b: b, name: name, json: l.json,
		intKeys: map[int64]model.KeyID{}, fnames: map[string]string{}, errs: map[string]string{}}
}

// run reads the whole input. It returns nil, or a *Error.
func (d *decoder) run() error {
	l := d.l
	var cont opener // the top-level vector, if inside one
	inCont := false
	for {
		l.next()
		switch l.kind {
		case tEOF:
			return d.atEOF(inCont, cont)
		case tErr:
			return d.toError(&l.err, nil)
		case tMapBegin:
			at := l.tok
			if err := d.op(at, at); err != nil {
				return d.opErr(err, at)
			}
		case tTag:
			at := l.tok
			l.next()
			switch l.kind {
			case tMapBegin:
				if err := d.op(at, l.tok); err != nil {
					return d.opErr(err, at)
				}
			case tEOF:
				return d.opErr(errEOF, at)
			case tErr:
				return d.toError(&l.err, nil)
			default:
				return d.toError(&lexErr{at, "expected an op map, found a tagged " + d.describe()}, nil)
			}
		case tVecBegin, tListBegin:
			if d.part != nil {
				return errSequential // a top-level vector may span blocks
			}
			if inCont {
				return d.toError(&lexErr{l.tok, "expected an op map, found " + l.kindText()}, nil)
			}
			cont, _ = d.opener()
			inCont = true
		case tVecEnd, tListEnd, tMapEnd:
			if inCont && l.kind == cont.close {
				inCont = false
				continue
			}
			if inCont {
				return d.toError(d.mismatch(cont), nil)
			}
			return d.toError(&lexErr{l.tok, "unexpected " + l.kindText()}, nil)
		default:
			return d.toError(&lexErr{l.tok, "expected an op map, found " + d.describe()}, nil)
		}
	}
}

// op reads one op map whose '{' is the current token; start is where the op
// begins (its tag, if any).
func (d *decoder) op(start, brace srcPos) error {
	if !d.json && !d.noFast {
		if ok, err := d.fastOp(start, brace); ok {
			return err
		}
	}
	d.l.opStart, d.l.opAt = start.off, start
	err := d.readOp(start, brace)
	d.l.opStart = -1
	return err
}

// readErr is the *Error for a failed read of the underlying input.
func (d *decoder) readErr() error {
	l := d.l
	at := l.posAt(l.pos)
	return d.toError(&lexErr{at, "cannot read input: " + l.rerr.Error()}, l.rerr)
}

func (d *decoder) hardReadErr() bool {
	return d.l.rerr != nil && !errors.Is(d.l.rerr, io.ErrUnexpectedEOF)
}

// opErr handles an error from reading the op that starts at start: the end
// of the input there means the file was cut off.
func (d *decoder) opErr(err error, start srcPos) error {
	if err != errEOF {
		if le, ok := err.(*lexErr); ok {
			return d.toError(le, nil)
		}
		return err
	}
	if d.hardReadErr() {
		return d.readErr()
	}
	if d.part != nil && !d.part.last {
		return errSequential // an op spread over two blocks
	}
	if d.padded(fmt.Sprintf(", inside the op that starts at line %d, column %d", start.line, start.col())) {
		return nil
	}
	d.b.SetTruncated()
	d.warnOps("%s:%d:%d: the input ends in the middle of the op that starts here; kept the %d complete ops before it",
		d.name, start.line, start.col())
	return nil
}

// warnOps records a warning whose last argument is the number of ops read
// so far, d.n; for a block of a parallel read, the number of ops of the
// blocks before it is added once it is known.
func (d *decoder) warnOps(format string, args ...any) { d.warnOpsOnce(0, format, args...) }

// warnOpsOnce is warnOps for a warning a history gives once (once is not
// 0), at its first cause in file order: the decoder gives it once, each
// block of a parallel read may give its own, and the merge keeps the
// earliest block's (parallelRead.warned).
func (d *decoder) warnOpsOnce(once warnOnce, format string, args ...any) {
	if d.part != nil {
		d.part.warns = append(d.part.warns, opsWarning{format, append(args, d.n), once})
		return
	}
	d.b.Warn(format, append(args, d.n)...)
}

// atEOF finishes at the end of the input.
func (d *decoder) atEOF(inCont bool, cont opener) error {
	l := d.l
	switch {
	case d.hardReadErr():
		return d.readErr()
	case (l.cut || inCont || l.rerr != nil) && d.part != nil && !d.part.last:
		return errSequential // a form spread over two blocks
	case inCont && d.padded(fmt.Sprintf(", inside the top-level %s opened at line %d, column %d",
		d.openText(cont.close), cont.at.line, cont.at.col())):
	case !inCont && d.padded(""):
	case l.cut:
		d.b.SetTruncated()
		d.warnOps("%s:%d:%d: the input ends in the middle of this form; kept the %d complete ops before it",
			d.name, l.tok.line, l.tok.col())
	case inCont:
		d.b.SetTruncated()
		d.warnOps("%s:%d:%d: the input ends inside the top-level %s opened here, after %d complete ops",
			d.name, cont.at.line, cont.at.col(), d.openText(cont.close))
	case l.rerr != nil:
		at := l.posAt(l.pos)
		d.b.SetTruncated()
		d.warnOps("%s:%d:%d: the compressed input ends early (%v); kept the %d complete ops before it",
			d.name, at.line, at.col(), l.rerr)
	}
	return nil
}

// padded reports whether the input ends in NUL bytes (lexer.nulTail), and
// then marks the history truncated with a warning where they begin; where
// says what they cut off, if anything (", inside the op that starts at
// ...").
func (d *decoder) padded(where string) bool {
	l := d.l
	if d.gz != nil && d.gz.pad > 0 && l.nulRun == 0 {
		at := l.posAt(l.end)
		d.b.SetTruncated()
		d.warnOps("%s:%d:%d: the gzip stream ends in %d NUL bytes after its last complete member, as a writer that crashed leaves it%s; kept the %d complete ops before it",
			d.name, at.line, at.col(), d.gz.pad, where)
		return true
	}
	if l.nulRun == 0 {
		return false
	}
	// The NUL bytes hold no line break, and the lexer has counted every
	// one before the end of the input: they are on the current line.
	at := srcPos{off: l.nulRun - 1, line: l.line, lineStart: l.lineStart}
	d.b.SetTruncated()
	d.warnOps("%s:%d:%d: the input ends in %d NUL bytes from here, as a writer that crashed leaves it%s; kept the %d complete ops before it",
		d.name, at.line, at.col(), l.base+int64(l.end)-at.off, where)
	return true
}

// toError turns a position and message into an *Error with an excerpt.
func (d *decoder) toError(le *lexErr, cause error) *Error {
	ex, caret := d.l.excerpt(le.at)
	return &Error{File: d.name, Line: le.at.line, Col: le.at.col(), Msg: le.msg,
		Excerpt: ex, caret: caret, Err: cause}
}

// clampInt is v, at most 2^31-1: a line number kept for an op
// (model.History.Line) fits an int32.
func clampInt(v int64) int {
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(v)
}

// tokErr is the error the current token stands for, if it is tEOF or tErr.
func (d *decoder) tokErr() error {
	switch d.l.kind {
	case tEOF:
		return errEOF
	case tErr:
		e := d.l.err
		return &e
	}
	return nil
}

// opener returns the opener of the current token, if it opens a collection.
func (d *decoder) opener() (opener, bool) {
	l := d.l
	switch l.kind {
	case tMapBegin, tSetBegin:
		return opener{tMapEnd, l.tok}, true
	case tVecBegin:
		return opener{tVecEnd, l.tok}, true
	case tListBegin:
		return opener{tListEnd, l.tok}, true
	}
	return opener{}, false
}

func (d *decoder) openText(close tokKind) string {
	switch {
	case d.json:
		return "array"
	case close == tVecEnd:
		return "vector"
	}
	return "list"
}

func openChar(close tokKind) string {
	switch close {
	case tMapEnd:
		return "'{'"
	case tVecEnd:
		return "'['"
	}
	return "'('"
}

// atClose reports whether the current token closes o. A closer of another
// kind is a syntax error; the end of input and lexer errors are returned.
func (d *decoder) atClose(o opener) (bool, error) {
	k := d.l.kind
	if k == o.close {
		return true, nil
	}
	if k <= tListEnd {
		return d.closeSlow(o)
	}
	return false, nil
}

func (d *decoder) closeSlow(o opener) (bool, error) {
	if d.l.kind <= tErr {
		return false, d.tokErr()
	}
	return true, d.mismatch(o)
}

func (d *decoder) mismatch(o opener) *lexErr {
	return &lexErr{d.l.tok, fmt.Sprintf("mismatched bracket: %s does not close the %s opened at line %d, column %d",
		d.l.kindText(), openChar(o.close), o.at.line, o.at.col())}
}

// describe names the current token for an error message.
func (d *decoder) describe() string {
	l := d.l
	switch l.kind {
	case tMapBegin, tMapEnd, tVecBegin, tVecEnd, tListBegin, tListEnd, tSetBegin:
		return l.kindText()
	case tInt:
		return fmt.Sprintf("the integer %d", l.ival)
	case tString:
		return "the string " + fmt.Sprintf("%q", clip(string(l.text), 40))
	case tTag:
		return "#" + clip(string(l.text), 40)
	case tEOF:
		return "the end of the input"
	}
	return clip(string(l.text), 40)
}

// skip consumes the form that starts with the current token.
func (d *decoder) skip() error {
	l := d.l
	for l.kind == tTag {
		l.next()
	}
	o, ok := d.opener()
	if !ok {
		switch l.kind {
		case tMapEnd, tVecEnd, tListEnd:
			return &lexErr{l.tok, "unexpected " + l.kindText()}
		}
		return d.tokErr()
	}
	return d.skipRest(o)
}

// skipRest consumes tokens up to and including the closer of o.
func (d *decoder) skipRest(o opener) error {
	l := d.l
	st := append(d.stack[:0], o)
	var err error
	for err == nil && len(st) > 0 {
		l.next()
		switch l.kind {
		case tMapBegin, tSetBegin, tVecBegin, tListBegin:
			o, _ := d.opener()
			st = append(st, o)
		case tMapEnd, tVecEnd, tListEnd:
			if top := st[len(st)-1]; l.kind != top.close {
				err = d.mismatch(top)
			} else {
				st = st[:len(st)-1]
			}
		case tEOF, tErr:
			err = d.tokErr()
		}
	}
	d.stack = st[:0]
	return err
}

// capture consumes the form that starts with the current token and returns
// its source text as a KOther atom.
func (d *decoder) capture() (satom, error) {
	l := d.l
	start := l.tok.off
	l.capStart = start
	err := d.skip()
	l.capStart = -1
	if err != nil {
		return satom{}, err
	}
	return d.textAtom(model.KOther, l.buf[start-l.base:l.pos]), nil
}

func (d *decoder) textAtom(k model.AtomKind, t []byte) satom {
	a := satom{kind: k, off: uint32(len(d.arena)), n: uint32(len(t))}
	if len(d.arena)+len(t) > cap(d.arena) {
		d.arena = slices.Grow(d.arena, max(len(d.arena), len(t)))
	}
	d.arena = append(d.arena, t...)
	return a
}

// push appends v to *s, doubling its capacity when it is full. append
// alone grows a large slice by a quarter, which allocates about five times
// the final size over a long op in all; doubling, twice: the bytes
// allocated stay a small multiple of the input (FuzzParserMemory). The
// scratch slices are reused from op to op. It takes the slice by pointer,
// so that when there is room only the length is stored: `d.x =
// append(grow(d.x), v)` stored the whole header, and while a collection
// marks, every store of its pointer goes through the write barrier (on 1M
// list-append txns, whose read runs beside about forty collections, 0.1 to
// 0.2 s of CPU in gcWriteBarrier and wbBufFlush, by its profile).
func push[S ~[]E, E any](s *S, v E) {
	if len(*s) == cap(*s) {
		*s = slices.Grow(*s, max(len(*s), 16))
	}
	*s = append(*s, v)
}

func (d *decoder) atomText(a *satom) []byte { return d.arena[a.off : a.off+a.n] }

// atom consumes the form that starts with the current token as an atom.
func (d *decoder) atom() (satom, error) {
	l := d.l
	switch l.kind {
	case tInt:
		return satom{kind: model.KInt, i: l.ival}, nil
	case tBigInt:
		return d.textAtom(model.KBigInt, l.text), nil
	case tString:
		return d.textAtom(model.KString, l.text), nil
	case tKeyword:
		return d.textAtom(model.KKeyword, l.text), nil
	case tSymbol, tNil, tOther:
		return d.textAtom(model.KOther, l.text), nil
	case tMapEnd, tVecEnd, tListEnd:
		return satom{}, &lexErr{l.tok, "unexpected " + l.kindText()}
	case tEOF, tErr:
		return satom{}, d.tokErr()
	}
	return d.capture()
}

func isName(k tokKind) bool { return k == tKeyword || k == tString || k == tSymbol }

func trimColon(b []byte) []byte {
	if len(b) > 0 && b[0] == ':' {
		return b[1:]
	}
	return b
}

func (d *decoder) deferErr(at srcPos, msg string) {
	if !d.hasVErr {
		d.hasVErr = true
		d.verr = lexErr{at, msg}
	}
}

func (d *decoder) fieldName(s string) string {
	if d.json {
		return `"` + s + `"`
	}
	return ":" + s
}

// readOp reads an op map whose '{' (brace) is the current token.
func (d *decoder) readOp(start, brace srcPos) error {
	l := d.l
	d.arena = d.arena[:0]
	d.rkeys = d.rkeys[:0]
	d.resetValue()
	if d.hx != nil {
		d.resetExt()
	}
	d.vmode = vNone
	op := model.Op{Process: model.AnonProcess}
	t := model.NoTime
	line := clampInt(brace.line)
	var haveIndex, haveType, haveF bool
	var index int64
	hookField := false // d.hx.fieldBuf names a field ingest does not know, for a ValueDecoder
	var seen [fRebalance + 1]bool
	o := opener{tMapEnd, brace}
	for {
		l.next()
		if c, err := d.atClose(o); err != nil {
			return err
		} else if c {
			break
		}
		f := fNone
		if isName(l.kind) {
			f = fieldOf(l.text)
			if f != fNone && seen[f] {
				// an EDN map cannot hold a key twice, and which of two
				// :index (or :type ...) values an op has is anyone's guess
				return &lexErr{l.tok, "op has " + d.fieldName(string(trimColon(l.text))) + " twice"}
			}
			seen[f] = true
			if f == fNone && len(d.hooks) > 0 {
				d.hx.fieldBuf = append(d.hx.fieldBuf[:0], trimColon(l.text)...)
				hookField = true
			}
		} else if err := d.skip(); err != nil {
			return err
		}
		l.next()
		if c, err := d.atClose(o); err != nil {
			return err
		} else if c {
			return &lexErr{l.tok, "map has a key with no value"}
		}
		switch f {
		case fIndex:
			switch l.kind {
			case tInt:
				index, haveIndex = l.ival, true
			case tNil:
			case tBigInt:
				return &lexErr{l.tok, d.fieldName("index") + " " + string(l.text) + " is out of range"}
			default:
				return &lexErr{l.tok, d.fieldName("index") + " must be an integer, found " + d.describe()}
			}
		case fTime:
			if l.kind == tInt {
				t = l.ival
			} else if l.kind == tBigInt {
				return &lexErr{l.tok, d.fieldName("time") + " " + string(l.text) + " is out of range"}
			} else {
				if l.kind != tNil && !d.timeWarned {
					d.timeWarned = true
					d.warnOpsOnce(onceTime, "%s:%d:%d: %s is %s, not an integer: an op whose %s is not an integer (nanoseconds) has no time, so the queue's realtime lag and stalls leave it out and the report's timelines fall back to op positions where times are missing (this is the first such op, after %d ops)",
						d.name, l.tok.line, l.tok.col(), d.fieldName("time"), d.describe(), d.fieldName("time"))
				}
				if err := d.skip(); err != nil {
					return err
				}
			}
		case fType:
			if isName(l.kind) {
				if t, ok := model.ParseOpType(l.text); ok {
					op.Type, haveType = t, true
					break
				}
			}
			return &lexErr{l.tok, "unknown " + d.fieldName("type") + " " + d.describe()}
		case fProcess:
			if l.kind == tInt {
				if l.ival < 0 || l.ival > math.MaxInt32 {
					return &lexErr{l.tok, fmt.Sprintf("%s %d is out of range", d.fieldName("process"), l.ival)}
				}
				op.Process = int32(l.ival)
			} else if l.kind == tNil {
				op.Process = model.AnonProcess
			} else if l.kind == tBigInt {
				return &lexErr{l.tok, d.fieldName("process") + " " + string(l.text) + " is out of range"}
			} else {
				op.Process = model.NoProcess
				if err := d.skip(); err != nil {
					return err
				}
			}
		case fF:
			if isName(l.kind) {
				op.F = model.ParseFunc(l.text)
				if d.b.HasExtra(int(d.n)) && d.extra().More != nil {
					d.extra().More.FName = ""
				}
				if op.F == model.FOther {
					d.extra().Rare().FName = d.fname(trimColon(l.text))
				}
				haveF = true
			} else if err := d.skip(); err != nil {
				return err
			}
		case fValue:
			if err := d.readValue(); err != nil {
				return err
			}
		case fError:
			if err := d.readError(); err != nil {
				return err
			}
		case fRebalance:
			if len(d.hooks) > 0 && l.kind != tVecBegin && l.kind != tListBegin {
				// not the queue's vector of events: perhaps a workload's
				if ok, err := d.offerField("rebalance-log"); ok || err != nil {
					if err != nil {
						return err
					}
					break
				}
			}
			if err := d.readRebalance(); err != nil {
				return err
			}
		default:
			if hookField {
				ok, err := d.offerField(d.hookName(d.hx.fieldBuf))
				hookField = false
				if err != nil {
					return err
				}
				if ok {
					break
				}
			}
			if err := d.skip(); err != nil {
				return err
			}
		}
	}
	return d.finishOp(op, index, t, line, start, haveIndex, haveType, haveF)
}

// finishOp checks and stores op, whose fields (t its :time, or
// model.NoTime) and :value (in the scratch space) were read, whichever way
// (readOp, fastOp).
func (d *decoder) finishOp(op model.Op, index, t int64, line int, start srcPos, haveIndex, haveType, haveF bool) error {
	var held []model.Mop // an invocation's micro-ops, held until its completion
	if !haveType {
		return &lexErr{start, "op has no " + d.fieldName("type")}
	}
	if !haveF && d.vmode == vMops && (!d.hasVErr || op.Process != model.NoProcess) {
		// A client op without :f whose :value is micro-ops is a txn (Elle's
		// histories have no :f), and its micro-ops must be well formed.
		op.F = model.FTxn
	}
	if d.hx != nil && d.hx.hasVRaw {
		// a :value ingest does not decode itself: perhaps a workload's
		f := ""
		if haveF {
			f = op.F.String()
			if op.F == model.FOther {
				f = d.extra().Rare().FName
			}
		}
		if ok, err := d.offerValue(f); err != nil {
			return err
		} else if ok {
			d.vmode = vClaimed
		}
	}
	switch op.F {
	case model.FSend, model.FPoll, model.FTxn:
		switch d.vmode {
		case vMops:
			if d.hasVErr {
				e := d.verr
				return &e
			}
			if op.Type == model.Invoke && op.Process != model.NoProcess && d.deferrable() {
				held = d.holdMops()
			} else {
				op.Mops = d.buildMops()
			}
		case vNone, vNil, vEmpty, vClaimed:
		default:
			return &lexErr{d.vpos, fmt.Sprintf("%s of a %s op must be a vector of micro-ops", d.fieldName("value"), op.F)}
		}
	case model.FAssign, model.FSubscribe:
		switch d.vmode {
		case vKeys:
			_, keys := d.keyStore.Alloc(len(d.vkeys))
			for i := range d.vkeys {
				keys[i] = d.key(&d.vkeys[i])
			}
			d.extra().Rare().Keys = keys
		case vNone, vNil, vEmpty, vClaimed:
		default:
			return &lexErr{d.vpos, fmt.Sprintf("%s of a %s op must be a list of keys", d.fieldName("value"), op.F)}
		}
	case model.FOther:
		if d.vmode == vMops && !d.hasVErr {
			op.Mops = d.buildMops()
		}
	}
	if op.Process == model.AnonProcess && op.F != model.FSend && op.F != model.FPoll && op.F != model.FTxn {
		op.Process = model.NoProcess // only an op with micro-ops can be anonymous
	}
	if len(d.rkeys) > 0 {
		d.extra().Rare().Rebalance = d.rebalance()
	}
	if d.hx != nil && len(d.hx.xrecs) > 0 {
		d.storeExt()
	}
	if op.Process != model.NoProcess {
		d.settle(op.Process, op.Type == model.Invoke || op.Mops.Empty())
	}
	at := d.ops.add(op)
	if haveIndex {
		d.indices.Append(index)
	} else {
		d.indices.AppendPosition() // its position in the history: Runs.Concat places a block's
	}
	d.lines.Append(int64(line))
	d.times.Append(t)
	if held != nil {
		pi, _ := d.pending.Ref(op.Process)
		*pi = pendingInv{op: at, pos: d.n, mops: held}
	}
	d.n++
	return nil
}

func (d *decoder) fname(b []byte) string {
	if s, ok := d.fnames[string(b)]; ok {
		return s
	}
	s := string(b)
	d.fnames[s] = s
	return s
}

func (d *decoder) resetValue() {
	d.mops = d.mops[:0]
	d.polls = d.polls[:0]
	d.reads = d.reads[:0]
	d.readInts = d.readInts[:0]
	d.vkeys = d.vkeys[:0]
	d.hasVErr = false
	if d.hx != nil {
		d.hx.hasVRaw, d.hx.vsrc = false, nil
	}
}

// readValue reads :value, whose first token is current.
func (d *decoder) readValue() error {
	l := d.l
	d.resetValue()
	d.vpos = l.tok
	switch l.kind {
	case tNil:
		d.vmode = vNil
		return nil
	case tVecBegin, tListBegin, tSetBegin:
		o, _ := d.opener()
		return d.readSeq(o, l.kind == tSetBegin)
	}
	d.vmode = vOther
	if len(d.hooks) > 0 {
		// kept for the workload decoders, which need :f (hook.go)
		d.hx.vshape = shapeOf(l.kind)
		raw, err := d.capture()
		d.hx.vraw, d.hx.vsrc, d.hx.hasVRaw = raw, nil, err == nil
		return err
	}
	return d.skip()
}

// readSeq reads the elements of a :value collection: micro-ops if the first
// element is a vector, keys otherwise.
func (d *decoder) readSeq(o opener, set bool) error {
	l := d.l
	d.vmode = vEmpty
	for {
		l.next()
		if c, err := d.atClose(o); err != nil {
			return err
		} else if c {
			return nil
		}
		if d.vmode == vEmpty {
			if !set && (l.kind == tVecBegin || l.kind == tListBegin) {
				d.vmode = vMops
			} else {
				d.vmode = vKeys
			}
		}
		switch d.vmode {
		case vMops:
			mo, ok := d.opener()
			if !ok || l.kind == tMapBegin || l.kind == tSetBegin {
				d.deferErr(l.tok, "expected a micro-op vector, found "+d.describe())
				d.vmode = vOther
				if err := d.skip(); err != nil {
					return err
				}
				continue
			}
			if err := d.readMop(mo); err != nil {
				return err
			}
		case vKeys:
			a, err := d.atom()
			if err != nil {
				return err
			}
			push(&d.vkeys, a)
		default:
			if err := d.skip(); err != nil {
				return err
			}
		}
	}
}

// next reads the next token and reports whether it closes o.
func (d *decoder) nextClose(o opener) (bool, error) {
	d.l.next()
	return d.atClose(o)
}

// bad records a problem with a micro-op at the current token and skips the
// rest of the micro-op (from the current token, then up to o's closer).
func (d *decoder) bad(o opener, msg string) error {
	d.deferErr(d.l.tok, msg+d.describe())
	if err := d.skip(); err != nil {
		return err
	}
	return d.skipRest(o)
}

// readMop reads one micro-op vector opened by o.
func (d *decoder) readMop(o opener) error {
	l := d.l
	if c, err := d.nextClose(o); err != nil {
		return err
	} else if c {
		d.deferErr(o.at, "empty micro-op")
		return nil
	}
	if !isName(l.kind) {
		return d.bad(o, "a micro-op starts with its name, found ")
	}
	switch name := trimColon(l.text); string(name) {
	case "send":
		return d.readSend(o)
	case "poll":
		return d.readPoll(o)
	case "append":
		return d.readKV(o, model.MopAppend, "an append")
	case "w":
		return d.readKV(o, model.MopWrite, "a write")
	case "r":
		return d.readR(o)
	}
	name := string(l.text)
	if l.kind == tString {
		name = strconv.Quote(name)
	}
	d.deferErr(l.tok, "unknown micro-op "+name+
		" (known: :send and :poll for queues, :append and :r for list-append, :w and :r for rw-register)")
	push(&d.mops, smop{kind: model.MopOther})
	return d.skipRest(o)
}

// readKV reads the rest of [:append k v] or [:w k v]; what names the
// micro-op in messages.
func (d *decoder) readKV(o opener, kind model.MopKind, what string) error {
	m := smop{kind: kind, done: true}
	if ok, err := d.mopKey(o, &m, what+" micro-op needs a key and a value"); !ok {
		return err
	}
	if c, err := d.nextClose(o); err != nil {
		return err
	} else if c {
		d.deferErr(o.at, what+" micro-op needs a value")
		return nil
	}
	var err error
	if m.val, err = d.atom(); err != nil {
		return err
	}
	return d.endMop(o, m, what)
}

// mopKey reads the key of a micro-op opened by o into m.key. It reports
// whether it did: when o closes first, it records missing (and err is
// nil).
func (d *decoder) mopKey(o opener, m *smop, missing string) (ok bool, err error) {
	if c, err := d.nextClose(o); err != nil {
		return false, err
	} else if c {
		d.deferErr(o.at, missing)
		return false, nil
	}
	if m.key, err = d.atom(); err != nil {
		return false, err
	}
	return true, nil
}

// endMop reads the closer of the micro-op m, which o opened, and keeps m;
// anything before the closer is recorded as a problem (what names the
// micro-op) and skipped, and m is dropped.
func (d *decoder) endMop(o opener, m smop, what string) error {
	if c, err := d.nextClose(o); err != nil {
		return err
	} else if !c {
		return d.bad(o, what+" micro-op has three elements; found more: ")
	}
	push(&d.mops, m)
	return nil
}

// readR reads the rest of [:r k v]: v nil (not read, or the initial state
// of a register), a list of elements (list-append), or one value
// (rw-register). The elements of a list go to the scratch reads.
func (d *decoder) readR(o opener) error {
	l := d.l
	m := smop{kind: model.MopRead}
	if ok, err := d.mopKey(o, &m, "a read micro-op needs a key"); !ok {
		return err
	}
	if c, err := d.nextClose(o); err != nil {
		return err
	} else if c {
		push(&d.mops, m) // [:r k]: nothing read yet
		return nil
	}
	switch l.kind {
	case tNil:
	case tVecBegin, tListBegin:
		lo, _ := d.opener()
		m.kind, m.done = model.MopReadList, true
		m.p0 = int32(len(d.reads))
		if err := d.eachAtom(lo, func(v satom) { push(&d.reads, sread{val: v}) }); err != nil {
			return err
		}
		m.p1 = int32(len(d.reads))
	default:
		m.done = true
		var err error
		if m.val, err = d.atom(); err != nil {
			return err
		}
	}
	return d.endMop(o, m, "a read")
}

// readSend reads the rest of [:send k v] or [:send k [offset v]].
func (d *decoder) readSend(o opener) error {
	l := d.l
	m := smop{kind: model.MopSend, off: model.NoOffset}
	if ok, err := d.mopKey(o, &m, "a send micro-op needs a key and a value"); !ok {
		return err
	}
	if c, err := d.nextClose(o); err != nil {
		return err
	} else if c {
		d.deferErr(o.at, "a send micro-op needs a value")
		return nil
	}
	var err error
	if po, ok := d.opener(); ok && (l.kind == tVecBegin || l.kind == tListBegin) {
		m.done = true
		var r sread
		if err = d.readPair(po, &r); err != nil {
			if err == errBadPair {
				return d.skipRest(o)
			}
			return err
		}
		m.off, m.val = r.off, r.val
	} else if m.val, err = d.atom(); err != nil {
		return err
	}
	return d.endMop(o, m, "a send")
}

// errBadPair says readPair found a malformed pair, recorded with deferErr and
// consumed.
var errBadPair = errors.New("bad pair")

// readPair reads the rest of an [offset value] pair opened by po into r.
func (d *decoder) readPair(po opener, r *sread) error {
	l := d.l
	r.off = model.NoOffset
	if c, err := d.nextClose(po); err != nil {
		return err
	} else if c {
		d.deferErr(po.at, "an [offset value] pair is empty")
		return errBadPair
	}
	switch l.kind {
	case tInt:
		r.off = l.ival
	case tNil:
	default:
		msg := "an offset must be an integer or nil, found "
		if l.kind == tBigInt {
			msg = "an offset must fit in 64 bits, found "
		}
		if err := d.bad(po, msg); err != nil {
			return err
		}
		return errBadPair
	}
	if c, err := d.nextClose(po); err != nil {
		return err
	} else if c {
		d.deferErr(po.at, "an [offset value] pair has no value")
		return errBadPair
	}
	if l.kind == tInt {
		r.val = satom{kind: model.KInt, i: l.ival}
	} else {
		v, err := d.atom()
		if err != nil {
			return err
		}
		r.val = v
	}
	if c, err := d.nextClose(po); err != nil {
		return err
	} else if !c {
		if err := d.bad(po, "an [offset value] pair has two elements; found more: "); err != nil {
			return err
		}
		return errBadPair
	}
	return nil
}

// readPoll reads the rest of [:poll] or [:poll {k [[offset v] ...]}].
func (d *decoder) readPoll(o opener) error {
	l := d.l
	m := smop{kind: model.MopPoll}
	if c, err := d.nextClose(o); err != nil {
		return err
	} else if c {
		push(&d.mops, m)
		return nil
	}
	m.done = true
	m.p0 = int32(len(d.polls))
	switch l.kind {
	case tNil:
	case tMapBegin:
		po, _ := d.opener()
		if err := d.readPollMap(po); err != nil {
			return err
		}
	default:
		return d.bad(o, "a poll result must be a map or nil, found ")
	}
	m.p1 = int32(len(d.polls))
	if c, err := d.nextClose(o); err != nil {
		return err
	} else if !c {
		return d.bad(o, "a poll micro-op has at most two elements; found more: ")
	}
	push(&d.mops, m)
	return nil
}

// readPollMap reads {k [[offset v] ...] ...} opened by o.
func (d *decoder) readPollMap(o opener) error {
	l := d.l
	return d.forEach(o, func() error {
		k, err := d.atom()
		if err != nil {
			return err
		}
		k.byText = d.json
		if c, err := d.nextClose(o); err != nil {
			return err
		} else if c {
			return &lexErr{l.tok, "map has a key with no value"}
		}
		p := spoll{key: k, r0: int32(len(d.reads))}
		switch l.kind {
		case tNil:
		case tVecBegin, tListBegin:
			ro, _ := d.opener()
			if err := d.readReads(ro); err != nil {
				return err
			}
		default:
			d.deferErr(l.tok, "polled values must be a vector of [offset value] pairs, found "+d.describe())
			if err := d.skip(); err != nil {
				return err
			}
		}
		p.r1 = int32(len(d.reads))
		push(&d.polls, p)
		return nil
	})
}

// readReads reads [[offset v] ...] opened by o.
func (d *decoder) readReads(o opener) error {
	l := d.l
	return d.forEach(o, func() error {
		po, ok := d.opener()
		if !ok || l.kind == tMapBegin || l.kind == tSetBegin {
			d.deferErr(l.tok, "expected an [offset value] pair, found "+d.describe())
			return d.skip()
		}
		push(&d.reads, sread{})
		if err := d.readPair(po, &d.reads[len(d.reads)-1]); err != nil {
			d.reads = d.reads[:len(d.reads)-1]
			if err != errBadPair {
				return err
			}
		}
		return nil
	})
}

// readError reads :error: strings as they are, keywords as their text,
// anything else as its source text, capped at maxErrorRunes.
func (d *decoder) readError() error {
	l := d.l
	var t []byte
	switch l.kind {
	case tString, tKeyword:
		t = l.text
	default:
		mark := len(d.arena)
		a, err := d.capture()
		if err != nil {
			return err
		}
		t = d.atomText(&a)
		defer func() { d.arena = d.arena[:mark] }()
	}
	d.setError(t)
	return nil
}

// setError sets op's :error text to t.
func (d *decoder) setError(t []byte) {
	if len(t) <= 64 && len(d.errs) < 4096 {
		// Errors repeat (:net-timeout); share their text.
		e, ok := d.errs[string(t)]
		if !ok {
			e = string(t)
			d.errs[e] = e
		}
		d.extra().Error = e
		return
	}
	d.extra().Error = capRunes(t, maxErrorRunes)
}

// capRunes returns t as a string, cut to n runes with "..." when longer.
func capRunes(t []byte, n int) string {
	i := 0
	for k := 0; k < n; k++ {
		if i >= len(t) {
			return string(t)
		}
		_, sz := utf8.DecodeRune(t[i:])
		i += sz
	}
	if i >= len(t) {
		return string(t)
	}
	return string(t[:i]) + "..."
}

// readRebalance reads :rebalance-log, a vector of {:type ..., :keys [k ...]}
// maps, collecting the keys. Other shapes are skipped.
func (d *decoder) readRebalance() error {
	l := d.l
	o, ok := d.opener()
	if !ok || l.kind == tMapBegin || l.kind == tSetBegin {
		return d.skip()
	}
	for {
		if c, err := d.nextClose(o); err != nil {
			return err
		} else if c {
			return nil
		}
		if l.kind != tMapBegin {
			if err := d.skip(); err != nil {
				return err
			}
			continue
		}
		mo, _ := d.opener()
		for {
			if c, err := d.nextClose(mo); err != nil {
				return err
			} else if c {
				break
			}
			isKeys := isName(l.kind) && string(trimColon(l.text)) == "keys"
			if !isKeys {
				if err := d.skip(); err != nil {
					return err
				}
			}
			if c, err := d.nextClose(mo); err != nil {
				return err
			} else if c {
				return &lexErr{l.tok, "map has a key with no value"}
			}
			ko, ok := d.opener()
			if !isKeys || !ok || l.kind == tMapBegin {
				if err := d.skip(); err != nil {
					return err
				}
				continue
			}
			if err := d.eachAtom(ko, func(a satom) { push(&d.rkeys, a) }); err != nil {
				return err
			}
		}
	}
}

// eachAtom reads the atoms up to o's closer (decoder.atom), calling each
// with every one: a read's list, a rebalance event's keys.
func (d *decoder) eachAtom(o opener, each func(a satom)) error {
	return d.forEach(o, func() error {
		a, err := d.atom()
		if err == nil {
			each(a)
		}
		return err
	})
}

// forEach calls each at every form up to o's closer (the current token
// is the form's first); each consumes the form. It stops at the first
// error, and returns nil at the closer.
func (d *decoder) forEach(o opener, each func() error) error {
	for {
		if c, err := d.nextClose(o); err != nil {
			return err
		} else if c {
			return nil
		}
		if err := each(); err != nil {
			return err
		}
	}
}

// extra returns the rarer fields of the op being read, the one at
// position d.n (model.Builder.Extra).
func (d *decoder) extra() *model.OpExtra { return d.b.Extra(int(d.n)) }
