package ingest

import (
	"encoding/binary"
	"math"

	"github.com/hindsight-dev/hindsight/model"
)

// fastOp reads an EDN op map the way Jepsen, Maelstrom and histgen write
// them, straight from the buffer: one line, fields :index, :time, :type,
// :process, :f, :value and :error, each at most once, whose values are
// integers, keywords, nil, strings without escapes, and a :value of micro-op
// vectors (send, poll, append, w, r) or of keys. It fills the same scratch
// space as readOp and finishes with the same finishOp, so an op it reads is
// stored exactly as readOp would store it; it only skips the tokens. Its
// '{' is the current token.
//
// Anything else (another field, a newline, a nested map where no poll
// result goes, an escape, a float, the end of the buffer, a malformed
// micro-op) makes it give up before it changed anything but the scratch
// space, which readOp resets: ok false, and readOp reads the op from its
// '{'. ok true means it read the op; err is then finishOp's.
func (d *decoder) fastOp(start, brace srcPos) (ok bool, err error) {
	l := d.l
	buf := l.buf[:l.end]
	d.arena = d.arena[:0]
	d.rkeys = d.rkeys[:0]
	d.resetValue()
	d.vmode = vNone
	op := model.Op{Process: model.AnonProcess}
	t := model.NoTime
	line := clampInt(brace.line)
	var seen [fRebalance + 1]bool
	var index int64
	var fname, errText []byte
	var fOther, hasErr bool
	p := l.pos
	for {
		p = fastSpace(buf, p)
		if p >= len(buf) {
			return false, nil
		}
		if buf[p] == '}' {
			p++
			break
		}
		f, q := fastField(buf, p)
		if q < 0 {
			return false, nil
		}
		if f == fNone || f == fRebalance && len(d.hooks) == 0 || seen[f] {
			return false, nil
		}
		seen[f] = true
		p = fastSpace(buf, q)
		if p >= len(buf) {
			return false, nil
		}
		switch f {
		case fIndex, fTime:
			v, q := fastInteger(buf, p)
			if q < 0 {
				return false, nil
			}
			if f == fIndex {
				index = v
			} else {
				t = v
			}
			p = q
		case fType:
			if t, q := fastShort(buf, p, typeWords); q >= 0 {
				op.Type, p = model.OpType(t), q
				break
			}
			name, q := fastKeyword(buf, p)
			if q < 0 {
				return false, nil
			}
			t, ok := model.ParseOpType(name)
			if !ok {
				return false, nil
			}
			op.Type, p = t, q
		case fProcess:
			if v, q := fastInteger(buf, p); q >= 0 {
				if v < 0 || v > math.MaxInt32 {
					return false, nil
				}
				op.Process, p = int32(v), q
			} else if _, q := fastKeyword(buf, p); q >= 0 {
				op.Process, p = model.NoProcess, q
			} else {
				return false, nil
			}
		case fF:
			if fn, q := fastShort(buf, p, funcWords); q >= 0 {
				op.F, p = model.Func(fn), q
				break
			}
			name, q := fastKeyword(buf, p)
			if q < 0 {
				return false, nil
			}
			op.F = model.ParseFunc(name)
			fOther = op.F == model.FOther
			fname, p = name[1:], q
		case fValue:
			d.vpos = srcPos{off: l.base + int64(p), line: l.line, lineStart: l.lineStart}
			if seen[fF] && !fOther && buf[p] == '{' && len(d.hooks) > 0 {
				if q := d.fastClaimValue(buf, p, op.F.String()); q >= 0 {
					p = q
					break
				}
			}
			if p = d.fastValue(buf, p); p < 0 {
				return false, nil
			}
		case fRebalance:
			if p = d.fastHookField(buf, p, "rebalance-log"); p < 0 {
				return false, nil
			}
		case fError:
			if name, q := fastKeyword(buf, p); q >= 0 {
				errText, p = name, q
			} else if s, q := fastString(buf, p); q >= 0 {
				errText, p = s, q
			} else {
				return false, nil
			}
			hasErr = true
		}
	}
	// The op is read: from here on, as readOp.
	l.pos = p
	l.nest-- // its '}'
	if fOther {
		d.extra().Rare().FName = d.fname(fname)
	}
	if hasErr {
		d.setError(errText)
	}
	return true, d.finishOp(op, index, t, line, start, seen[fIndex], seen[fType], seen[fF])
}

// shortWord is a keyword of at most 8 bytes, colon included, that fastShort
// compares in one load: its bytes (little-endian) and a mask of them, its
// length, and what it stands for.
type shortWord struct {
	w, mask uint64
	n       int
	v       uint8
}

// short packs keyword k (at most 8 bytes) standing for v.
func short(k string, v uint8) shortWord {
	var b [8]byte
	copy(b[:], k)
	return shortWord{w: binary.LittleEndian.Uint64(b[:]), mask: math.MaxUint64 >> (64 - 8*len(k)), n: len(k), v: v}
}

// The keywords fastOp meets on nearly every op: the field names, the
// :type values and the commonest :f values. Reading them with fastShort
// instead of fastKeyword and a switch on the name took the 1M-poll abort
// check of bench/bench.sh from 1.79 to 1.72 s of user time (bench/ab.sh,
// eight runs each), and the table by first letter from 2.01 to 1.92 s
// (ten each; the machine was slower that hour).
var (
	fieldWords = newShortTable(short(":index", uint8(fIndex)), short(":time", uint8(fTime)), short(":type", uint8(fType)),
		short(":process", uint8(fProcess)), short(":f", uint8(fF)), short(":value", uint8(fValue)), short(":error", uint8(fError)))
	typeWords = newShortTable(named(model.Invoke), named(model.OK), named(model.Info), named(model.Fail))
	funcWords = newShortTable(named(model.FTxn), named(model.FPoll), named(model.FSend), named(model.FAssign))
)

// named is the keyword of an op type or function, as model names it.
func named[T interface {
	~uint8
	String() string
}](v T) shortWord {
	return short(":"+v.String(), uint8(v))
}

// shortTable holds a few shortWords by the byte after their colon, at
// most two to a byte, so that fastShort compares one or two of them, not
// all.
type shortTable struct {
	words []shortWord
	at    [256][2]uint8 // 1 + the index in words of each word whose second byte is the index; 0 for none
}

// newShortTable makes the table of words.
func newShortTable(words ...shortWord) *shortTable {
	t := &shortTable{words: words}
	for i, k := range words {
		c := byte(k.w >> 8)
		slot := 0
		if t.at[c][0] != 0 {
			slot = 1
		}
		if t.at[c][slot] != 0 {
			panic("ingest: three short keywords with one first letter")
		}
		t.at[c][slot] = uint8(i + 1)
	}
	return t
}

// fastShort reads the keyword at p if it is one of t's, whole (the byte
// after it cannot continue a symbol), as fastKeyword would read it: what
// it stands for and the index after it; -1 when it is none of them, or
// too near the end of buf to tell.
func fastShort(buf []byte, p int, t *shortTable) (uint8, int) {
	if p+9 > len(buf) {
		return 0, -1
	}
	w := binary.LittleEndian.Uint64(buf[p:])
	for _, j := range t.at[buf[p+1]] {
		if j == 0 {
			break
		}
		k := &t.words[j-1]
		if w&k.mask == k.w && !symChar[buf[p+k.n]] {
			return k.v, p + k.n
		}
	}
	return 0, -1
}

// fastField reads an op field's name at p, as fastKeyword and fieldOf
// do: the field (fNone for one fastOp does not know) and the index after
// it, or -1 for no keyword.
func fastField(buf []byte, p int) (field, int) {
	if f, q := fastShort(buf, p, fieldWords); q >= 0 {
		return field(f), q
	}
	name, q := fastKeyword(buf, p)
	if q < 0 {
		return fNone, -1
	}
	return fieldOf(name), q
}

// fastSpace skips blanks and commas; it stops at a newline, which fastOp
// leaves to readOp.
func fastSpace(buf []byte, p int) int {
	for p < len(buf) && (buf[p] == ' ' || buf[p] == ',') {
		p++
	}
	return p
}

// fastNext skips white space from p and returns the index of the byte
// after it, or -1 at the end of buf.
func fastNext(buf []byte, p int) int {
	if p = fastSpace(buf, p); p < len(buf) {
		return p
	}
	return -1
}

// fastEnd reports whether the byte at p can end an atom: it exists, in the
// buffer, and cannot continue a symbol.
func fastEnd(buf []byte, p int) bool { return p < len(buf) && !symChar[buf[p]] }

// fastKeyword reads a keyword at p: its text with the colon, and the index
// after it; -1 when there is none.
func fastKeyword(buf []byte, p int) ([]byte, int) {
	if p >= len(buf) || buf[p] != ':' {
		return nil, -1
	}
	q := p + 1
	for q < len(buf) && symChar[buf[q]] {
		q++
	}
	if q == p+1 || q >= len(buf) {
		return nil, -1
	}
	return buf[p:q], q
}

// fastInteger reads an integer of at most 18 digits at p, as lexer.fastInt
// does; -1 when there is none.
func fastInteger(buf []byte, p int) (int64, int) {
	q := p
	if q < len(buf) && buf[q] == '-' {
		q++
	}
	s := q
	var u uint64
	for ; q < len(buf); q++ {
		c := buf[q] - '0'
		if c > 9 {
			break
		}
		u = u*10 + uint64(c) // wraps past 19 digits, which fail below
	}
	if q == s || q-s > 18 || !fastEnd(buf, q) {
		return 0, -1
	}
	if s > p {
		return -int64(u), q
	}
	return int64(u), q
}

// fastString reads a string without escapes or line breaks at p: its text and
// the index after it; -1 when there is none.
func fastString(buf []byte, p int) ([]byte, int) {
	if p >= len(buf) || buf[p] != '"' {
		return nil, -1
	}
	for q := p + 1; q < len(buf); q++ {
		switch buf[q] {
		case '"':
			return buf[p+1 : q], q + 1
		case '\\', '\n', '\r':
			return nil, -1
		}
	}
	return nil, -1
}

// fastNil reports whether nil is at p.
func fastNil(buf []byte, p int) bool {
	return p+3 < len(buf) && buf[p] == 'n' && buf[p+1] == 'i' && buf[p+2] == 'l' && !symChar[buf[p+3]]
}

// fastAtom reads an integer, keyword or string at p into a scratch atom, as
// decoder.atom does; -1 when there is none.
func (d *decoder) fastAtom(buf []byte, p int) (satom, int) {
	if c := buf[p]; c == '-' || c >= '0' && c <= '9' {
		v, q := fastInteger(buf, p)
		return satom{kind: model.KInt, i: v}, q
	}
	if t, q := fastKeyword(buf, p); q >= 0 {
		return d.textAtom(model.KKeyword, t), q
	}
	if t, q := fastString(buf, p); q >= 0 {
		return d.textAtom(model.KString, t), q
	}
	return satom{}, -1
}

// fastValue reads :value at p as readValue does; it returns the index
// after it, or -1.
func (d *decoder) fastValue(buf []byte, p int) int {
	switch c := buf[p]; {
	case fastNil(buf, p):
		d.vmode = vNil
		return p + 3
	case c == '[':
	case c == ':' || c == '"' || c == '-' || c >= '0' && c <= '9':
		if len(d.hooks) > 0 {
			return d.fastCapture(buf, p, fastAtomEnd(buf, p))
		}
		_, q := d.fastAtom(buf, p)
		d.vmode = vOther
		return q
	case c == '{' && len(d.hooks) > 0:
		return d.fastCapture(buf, p, fastFormEnd(buf, p))
	default:
		return -1
	}
	// a vector: micro-ops if its first element is a vector, else keys
	d.vmode = vEmpty
	p++
	for {
		if p = fastNext(buf, p); p < 0 {
			return -1
		}
		switch c := buf[p]; {
		case c == ']':
			return p + 1
		case c == '[':
			if d.vmode == vKeys {
				return -1
			}
			d.vmode = vMops
			if p = d.fastMop(buf, p+1); p < 0 {
				return -1
			}
		default:
			if d.vmode == vMops {
				return -1
			}
			d.vmode = vKeys
			a, q := d.fastAtom(buf, p)
			if q < 0 {
				return -1
			}
			push(&d.vkeys, a)
			p = q
		}
	}
}

// fastClose skips blanks to the ']' that must be at p; it returns the
// index after it, or -1.
func fastClose(buf []byte, p int) int {
	p = fastSpace(buf, p)
	if p < len(buf) && buf[p] == ']' {
		return p + 1
	}
	return -1
}

// fastMop reads a micro-op whose '[' is before p, as readMop does (only
// well-formed ones); it returns the index after its ']', or -1.
func (d *decoder) fastMop(buf []byte, p int) int {
	name, p := fastKeyword(buf, fastSpace(buf, p))
	if p < 0 {
		return -1
	}
	var m smop
	switch string(name[1:]) {
	case "send":
		m = smop{kind: model.MopSend, off: model.NoOffset}
	case "poll":
		m = smop{kind: model.MopPoll}
		if p = fastNext(buf, p); p < 0 {
			return -1
		}
		m.done, m.p0 = true, int32(len(d.polls))
		switch {
		case buf[p] == ']':
			push(&d.mops, smop{kind: model.MopPoll})
			return p + 1
		case fastNil(buf, p):
			p += 3
		case buf[p] == '{':
			if p = d.fastPollMap(buf, p+1); p < 0 {
				return -1
			}
		default:
			return -1
		}
		m.p1 = int32(len(d.polls))
		if p = fastClose(buf, p); p < 0 {
			return -1
		}
		push(&d.mops, m)
		return p
	case "append":
		m = smop{kind: model.MopAppend, done: true}
	case "w":
		m = smop{kind: model.MopWrite, done: true}
	case "r":
		m = smop{kind: model.MopRead}
	default:
		return -1
	}
	// the key
	if p = fastNext(buf, p); p < 0 {
		return -1
	}
	if m.key, p = d.fastAtom(buf, p); p < 0 {
		return -1
	}
	if p = fastNext(buf, p); p < 0 {
		return -1
	}
	// the value
	switch {
	case m.kind == model.MopRead && buf[p] == ']':
		push(&d.mops, m) // [:r k]
		return p + 1
	case m.kind == model.MopRead && fastNil(buf, p):
		p += 3
	case m.kind == model.MopRead && buf[p] == '[':
		if p = d.fastReadList(buf, p+1, &m); p < 0 {
			return -1
		}
		push(&d.mops, m)
		return p
	case m.kind == model.MopSend && buf[p] == '[':
		var r sread
		if p = d.fastPair(buf, p+1, &r); p < 0 {
			return -1
		}
		m.done, m.off, m.val = true, r.off, r.val
	default:
		if m.val, p = d.fastAtom(buf, p); p < 0 {
			return -1
		}
		if m.kind == model.MopRead {
			m.done = true
		}
	}
	if p = fastClose(buf, p); p < 0 {
		return -1
	}
	push(&d.mops, m)
	return p
}

// fastReadList reads the elements of a read list whose '[' is before p
// into m (a read, as [:r k [...]] makes it), as readMop does, and the
// micro-op's closing ']'; it returns the index after that, or -1. While
// every element is an integer they go to decoder.readInts (m.ints); the
// first that is not moves them to decoder.reads.
func (d *decoder) fastReadList(buf []byte, p int, m *smop) int {
	m.kind, m.done, m.ints = model.MopReadList, true, true
	m.p0 = int32(len(d.readInts))
	for {
		if p = fastNext(buf, p); p < 0 {
			return -1
		}
		c := buf[p]
		if c == ']' {
			p++
			break
		}
		if m.ints && (c == '-' || c >= '0' && c <= '9') {
			var v int64
			if v, p = fastInteger(buf, p); p < 0 {
				return -1
			}
			push(&d.readInts, v)
			continue
		}
		if m.ints {
			m.ints = false
			lo := m.p0
			m.p0 = int32(len(d.reads))
			for _, v := range d.readInts[lo:] {
				push(&d.reads, sread{val: satom{kind: model.KInt, i: v}})
			}
			d.readInts = d.readInts[:lo]
		}
		var v satom
		if v, p = d.fastAtom(buf, p); p < 0 {
			return -1
		}
		push(&d.reads, sread{val: v})
	}
	if m.ints {
		m.p1 = int32(len(d.readInts))
	} else {
		m.p1 = int32(len(d.reads))
	}
	return fastClose(buf, p)
}

// fastPair reads an [offset value] pair whose '[' is before p into r, as
// readPair does; it returns the index after its ']', or -1.
func (d *decoder) fastPair(buf []byte, p int, r *sread) int {
	if p = fastNext(buf, p); p < 0 {
		return -1
	}
	r.off = model.NoOffset
	if fastNil(buf, p) {
		p += 3
	} else if r.off, p = fastInteger(buf, p); p < 0 {
		return -1
	}
	if p = fastNext(buf, p); p < 0 {
		return -1
	}
	if r.val, p = d.fastAtom(buf, p); p < 0 {
		return -1
	}
	return fastClose(buf, p)
}

// fastPollMap reads {k [[offset value] ...] ...} whose '{' is before p, as
// readPollMap does; it returns the index after its '}', or -1.
func (d *decoder) fastPollMap(buf []byte, p int) int {
	for {
		if p = fastNext(buf, p); p < 0 {
			return -1
		}
		if buf[p] == '}' {
			return p + 1
		}
		k, q := d.fastAtom(buf, p)
		if q < 0 {
			return -1
		}
		p = fastSpace(buf, q)
		if p >= len(buf) {
			return -1
		}
		sp := spoll{key: k, r0: int32(len(d.reads))}
		switch {
		case fastNil(buf, p):
			p += 3
		case buf[p] == '[':
			for p++; ; {
				p = fastSpace(buf, p)
				if p >= len(buf) || buf[p] != '[' && buf[p] != ']' {
					return -1
				}
				if buf[p] == ']' {
					p++
					break
				}
				push(&d.reads, sread{})
				if p = d.fastPair(buf, p+1, &d.reads[len(d.reads)-1]); p < 0 {
					return -1
				}
			}
		default:
			return -1
		}
		sp.r1 = int32(len(d.reads))
		push(&d.polls, sp)
	}
}

// fastHookField offers the map at p, the value of the op field name, to
// the workload decoders there and then, as readOp does (offerField): the
// abort workload's :rebalance-log, on a fortieth of its ops, which readOp
// used to read whole. A RawDecoder reads it through a Scanner first, as
// offerValue has it read a :value. It returns the index after the map, or -1 to leave
// the op to readOp: a form that is not a map (the queue's vector of
// events), one no decoder claims, and one its decoder rejects (readOp
// reports the error).
func (d *decoder) fastHookField(buf []byte, p int, name string) int {
	if buf[p] != '{' {
		return -1
	}
	q := fastFormEnd(buf, p)
	if q < 0 {
		return -1
	}
	i := d.claim(name, "", ShapeMap)
	if i < 0 {
		return -1
	}
	if rd := d.raws[i]; rd != nil && d.decodeRaw(rd, i, name, "", buf[p:q]) {
		return q
	}
	l := d.l
	at := srcPos{off: l.base + int64(p), line: l.line, lineStart: l.lineStart}
	if err := d.runHookOn(i, name, "", buf[p:q], at); err != nil {
		return -1
	}
	return q
}

// fastClaimValue has a RawDecoder read the map at p, the :value of an op
// whose :f (f) came before it, where it stands, instead of capturing it to
// offer it once the op is read (fastCapture, offerValue): the map is
// scanned once, not twice (on the 1M-poll abort history of bench/bench.sh,
// finding the end of each poll map before reading it was about 0.15 of
// its 2 CPU-seconds). It returns the index after the map, or -1 to leave
// it to fastValue: when no RawDecoder claims it, when the decoder
// declines, and when it names a key not yet interned, so that keys are
// numbered as a read that offers the value last numbers them (a
// :rebalance-log after the value is read before it there). The record
// it writes is stored after the op's other records, as it would be
// (storeExt).
func (d *decoder) fastClaimValue(buf []byte, p int, f string) int {
	i := d.claim(ValueField, f, ShapeMap)
	if i < 0 || d.raws[i] == nil {
		return -1
	}
	hx := d.hx
	w := d.newRecord(i)
	// The scanner reads the decoder's whole buffer from p on. Its
	// pointers are stored only when they change (once a block, not once
	// an op): while a collection marks, every store of a pointer goes
	// through the write barrier, and an abort history has a map :value
	// on each of its millions of ops. It keeps the buffer after, which
	// the decoder holds anyway.
	s := &hx.scan
	if s.d != d {
		s.d = d
	}
	if len(s.buf) != len(buf) || len(buf) > 0 && &s.buf[0] != &buf[0] {
		s.buf = buf
	}
	s.p, s.known, s.depth, s.end = p, true, 0, 0
	ok := d.raws[i].DecodeRaw(ValueField, f, s, w) && s.end > 0 && s.p == s.end
	q := s.p
	if !ok {
		hx.dropRecord()
		return -1
	}
	hx.early = len(hx.xrecs)
	d.vmode = vClaimed
	return q
}

// fastCapture keeps the :value at buf[p:q] for the workload decoders, as
// readValue does (decoder.capture): its source text, offered to them once
// the op is read (decoder.offerValue). q < 0 (no form fastFormEnd or
// fastAtomEnd accepts) gives up.
func (d *decoder) fastCapture(buf []byte, p, q int) int {
	if q < 0 {
		return -1
	}
	d.vmode = vOther
	d.hx.vshape = fastShape(buf[p])
	d.hx.vsrc, d.hx.hasVRaw = buf[p:q], true // the buffer holds it until the op is stored
	return q
}

// fastShape is the Shape of a form fastFormEnd or fastAtomEnd accepted,
// from its first byte.
func fastShape(c byte) Shape {
	switch c {
	case '{':
		return ShapeMap
	case '[':
		return ShapeVector
	case ':':
		return ShapeKeyword
	case '"':
		return ShapeString
	case 'n':
		return ShapeNil
	case 't', 'f':
		return ShapeSymbol
	}
	return ShapeInt
}

// fastAtomEnd returns the index after the integer, keyword or string at p
// (as fastAtom reads them), or after nil, true or false; -1 for anything
// else.
func fastAtomEnd(buf []byte, p int) int {
	switch c := buf[p]; {
	case c == '-' || c >= '0' && c <= '9':
		_, q := fastInteger(buf, p)
		return q
	case c == ':':
		_, q := fastKeyword(buf, p)
		return q
	case c == '"':
		_, q := fastString(buf, p)
		return q
	case fastNil(buf, p):
		return p + 3
	}
	for _, w := range [...]string{"true", "false"} {
		if q := p + len(w); q < len(buf) && string(buf[p:q]) == w && !symChar[buf[q]] {
			return q
		}
	}
	return -1
}

// fastMaxDepth bounds the nesting fastFormEnd takes: a value nested more
// deeply is left to readOp, which checks MaxNesting.
const fastMaxDepth = 32

// fastFormEnd returns the index after the map or vector at p, on one
// line, made only of maps and vectors (at most fastMaxDepth deep) and the
// atoms fastAtomEnd takes, each bracket closed by its own kind: a form the
// lexer reads without an error, token for token as here. -1 for anything
// else (a set, a tag, a float, an escape, a line break, a mismatched
// closer, the end of buf), which readOp then reads.
func fastFormEnd(buf []byte, p int) int {
	var stack [fastMaxDepth]byte // the closers expected
	depth := 0
	for {
		if p = fastNext(buf, p); p < 0 {
			return -1
		}
		switch c := buf[p]; c {
		case '{', '[':
			if depth == fastMaxDepth {
				return -1
			}
			stack[depth] = c + 2 // '}' and ']' are two past their openers
			depth++
			p++
		case '}', ']':
			if depth == 0 || stack[depth-1] != c {
				return -1
			}
			depth--
			p++
		default:
			if p = fastAtomEnd(buf, p); p < 0 {
				return -1
			}
		}
		if depth == 0 {
			return p
		}
	}
}
