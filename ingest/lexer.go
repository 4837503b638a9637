package ingest

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// tokKind is the kind of a token. EDN and JSON produce the same kinds, so one
// decoder reads both.
type tokKind uint8

const (
	tEOF       tokKind = iota // end of input (cut is set when it came inside a token)
	tErr                      // syntax error, in lexer.err
	tMapEnd                   // }
	tVecEnd                   // ]
	tListEnd                  // )
	tMapBegin                 // {
	tVecBegin                 // [
	tListBegin                // (
	tSetBegin                 // #{ (closed by tMapEnd)
	tInt                      // integer that fits an int64, in ival
	tBigInt                   // integer too big for an int64: text holds its digits, normalised
	tString                   // string: text holds it unescaped
	tKeyword                  // EDN keyword: text holds it with its colon
	tSymbol                   // EDN symbol, JSON true/false: text holds the source
	tNil                      // EDN nil, JSON null: text holds the source
	tOther                    // any other scalar (float, ratio, character, regex): text holds the source
	tTag                      // EDN #tag: text holds the tag without '#'; a form follows
)

// Byte classes.
const (
	cBad   uint8 = iota // not allowed outside strings
	cSpace              // whitespace (EDN: also ',')
	cNL                 // '\n' and '\r': a line break
	cSym                // may be part of a symbol, keyword or number
	cDelim              // a byte that is its own token or starts one: {}[]()";\#
)

var ednClass = func() (t [256]uint8) {
	for c := 0x21; c < 256; c++ {
		t[c] = cSym
	}
	t[0x7f] = cBad
	for _, c := range []byte(" \t\f\v,") {
		t[c] = cSpace
	}
	t['\n'], t['\r'] = cNL, cNL
	for _, c := range []byte("{}[]()\";\\") {
		t[c] = cDelim
	}
	return t
}()

// symChar reports whether c continues a symbol, keyword, tag or number.
var symChar = func() (t [256]bool) {
	for c := range 256 {
		t[c] = ednClass[c] == cSym
	}
	return t
}()

// JSON parser states.
const (
	jTop      uint8 = iota // between top-level values
	jValue                 // a value must follow
	jFirstArr              // just after '[': a value or ']'
	jFirstObj              // just after '{': a key or '}'
	jKey                   // after ',' in an object: a key
	jColon                 // after a key: ':'
	jAfter                 // after a value inside a container: ',' or the closer
)

const (
	readSize    = 256 << 10
	excerptHalf = 50      // bytes shown each side of an error's column
	maxOpKeep   = 4 << 20 // keep an op's bytes for excerpts while it is at most this long
)

// MaxNesting is how deeply forms may nest: maps, vectors, lists, sets and
// JSON objects and arrays inside one another, an op map and a top-level
// vector included, and each #_ discard (which holds a form) counted as a
// level. An opening bracket (or #_) past it is an *Error at its line and
// column. Jepsen histories nest fewer than 10 levels; the limit keeps the
// reader's memory and stack bounded on any input (see the package doc).
const MaxNesting = 1000

// lexErr is a syntax error found by the lexer or decoder, at an absolute
// offset.
type lexErr struct {
	at  srcPos
	msg string
}

// srcPos is a position in the source: absolute byte offset, its 1-based line
// and the absolute offset of that line's first byte.
type srcPos struct {
	off, line, lineStart int64
}

func (p srcPos) col() int64 { return p.off - p.lineStart + 1 }

// lexer turns bytes into tokens. It owns a sliding buffer: bytes before the
// current token are dropped when more input is read, except those a caller
// asked to keep (the current op, a form whose source text is captured, and a
// little context for error excerpts).
type lexer struct {
	src  io.Reader
	buf  []byte
	pos  int   // next unread byte in buf
	end  int   // bytes of buf holding data
	base int64 // absolute offset of buf[0]
	eof  bool  // src is exhausted (or failed)
	rerr error // read error other than io.EOF (io.ErrUnexpectedEOF included)

	line      int64 // line of buf[pos]
	lineStart int64 // absolute offset of that line's first byte

	// The current token.
	kind tokKind
	ival int64
	text []byte // valid until the next call to next
	tok  srcPos // where it starts
	cut  bool   // tEOF came in the middle of a token
	err  lexErr // with tErr

	opStart  int64  // absolute offset of the op being read, or -1
	opAt     srcPos // where the op being read starts, when opStart >= 0
	capStart int64  // absolute offset of a form being captured, or -1

	sbuf  []byte // unescaped strings, normalised big integers
	depth int    // #_ nesting
	nest  int    // open EDN brackets (JSON: len(jstack)); with depth at most MaxNesting

	// afterCR is 1 + the absolute offset of the byte after the last '\r',
	// which counts as a line break: a '\n' there (CRLF) does not count again.
	// 0: none yet. (Offsets plus one, so that a zero lexer is ready.)
	afterCR int64
	// nulRun is 1 + the absolute offset where the NUL bytes that end the
	// input read so far begin; 0 when it does not end in NUL (see nulTail).
	nulRun int64

	json   bool
	jstate uint8
	jstack []byte // open JSON containers: '{' or '['
}

func newLexer(src io.Reader) *lexer {
	return &lexer{src: src, buf: make([]byte, readSize), line: 1, opStart: -1, capStart: -1}
}

// more reads more input, keeping buf[keep:] and whatever the lexer was asked
// to keep. *p is a buffer index, adjusted for the bytes dropped. It reports
// whether any byte was added.
func (l *lexer) more(p *int, keep int) bool {
	if l.eof {
		return false
	}
	k := l.base + int64(keep)
	k = min(k, max(k-excerptHalf-16, l.lineStart)) // context for error excerpts
	if l.capStart >= 0 {
		k = min(k, l.capStart)
	}
	if l.opStart >= 0 && l.base+int64(l.end)-l.opStart < maxOpKeep {
		// the op, and the start of its line for an excerpt there
		k = min(k, max(l.opStart-excerptHalf-16, l.opAt.lineStart))
	}
	drop := int(k - l.base)
	if drop < 0 {
		drop = 0
	}
	if drop > 0 {
		copy(l.buf, l.buf[drop:l.end])
		l.end -= drop
		l.pos -= drop
		*p -= drop
		l.base += int64(drop)
	}
	if len(l.buf)-l.end < readSize/4 {
		nb := make([]byte, max(2*len(l.buf), l.end+readSize))
		copy(nb, l.buf[:l.end])
		l.buf = nb
	}
	for range 100 {
		n, err := l.src.Read(l.buf[l.end:])
		l.end += n
		if n > 0 {
			l.trackNUL(l.end - n)
		}
		if err != nil {
			l.eof = true
			if !errors.Is(err, io.EOF) {
				l.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	l.eof, l.rerr = true, io.ErrNoProgress
	return false
}

// trackNUL updates nulRun for the bytes just read into buf[from:end]. It
// looks back only as far as the last byte that is not NUL: O(1) a read
// unless the input ends in NUL bytes, and O(n) over the whole input.
func (l *lexer) trackNUL(from int) {
	i := l.end
	for i > from && l.buf[i-1] == 0 {
		i--
	}
	switch {
	case i == l.end:
		l.nulRun = 0
	case i > from || l.nulRun == 0:
		l.nulRun = l.base + int64(i) + 1
	}
}

// newline counts the line break at buf[p], '\n' or '\r': a '\r' (CR-only
// and CRLF files) is one, and a '\n' right after it is not another.
func (l *lexer) newline(p int) {
	a := l.base + int64(p)
	if l.buf[p] == '\r' {
		l.afterCR = a + 2
	} else if a+1 == l.afterCR {
		l.lineStart = a + 1
		return
	}
	l.line++
	l.lineStart = a + 1
}

// nulTail reports whether the NUL byte at buf[p] begins NUL bytes that run to
// the end of the input, what a writer that crashed leaves (the file's
// length was written, its last blocks were not); the input is then read
// as cut off there, and the lexer is at its end (tEOF). It reads to the
// end of the input when the bytes are NUL, keeping at most a few KB of
// them. When it reports false, indexes into buf held by the caller are
// invalid; the current token's position is not.
func (l *lexer) nulTail(p int) bool {
	q, keep := p, p
	for {
		buf := l.buf[:l.end]
		for q < len(buf) && buf[q] == 0 {
			q++
		}
		if q < len(buf) {
			return false
		}
		if q-keep > 4096 {
			keep = q // the excerpt of an error at p is lost; memory is not
		}
		before := q
		if !l.more(&q, keep) {
			break
		}
		keep -= before - q
	}
	l.setEOF(q, false)
	return true
}

// tooDeep fails at the opening bracket (or #_) at buf[p], which passes
// MaxNesting, if it does; what names it.
func (l *lexer) tooDeep(p int, what string) bool {
	if l.nest+l.depth < MaxNesting {
		return false
	}
	l.startTok(p)
	l.fail(l.tok, fmt.Sprintf("too deeply nested: this %s opens level %d, past the limit of %d nested forms",
		what, l.nest+l.depth+1, MaxNesting))
	return true
}

// ensure makes buf[*p:*p+n] available if the input has it, keeping buf[keep:].
func (l *lexer) ensure(p *int, n, keep int) bool {
	for l.end-*p < n {
		before := *p
		if !l.more(p, keep) {
			return false
		}
		keep -= before - *p
	}
	return true
}

func (l *lexer) posAt(p int) srcPos {
	return srcPos{off: l.base + int64(p), line: l.line, lineStart: l.lineStart}
}

func (l *lexer) startTok(p int) {
	l.tok = srcPos{off: l.base + int64(p), line: l.line, lineStart: l.lineStart}
}

// tokIdx is the buffer index of the current token's first byte.
func (l *lexer) tokIdx() int { return int(l.tok.off - l.base) }

func (l *lexer) setEOF(p int, cut bool) {
	l.pos = p
	l.kind = tEOF
	l.cut = cut
	if !cut {
		l.tok = l.posAt(p)
	}
}

func (l *lexer) fail(at srcPos, msg string) {
	l.kind = tErr
	l.err = lexErr{at: at, msg: msg}
}

// single emits a one-byte token.
func (l *lexer) single(p int, k tokKind) {
	l.startTok(p)
	l.kind = k
	l.pos = p + 1
}

// enter makes the one-byte opener at p (what names it in the error) the
// current token of kind k, a level deeper, unless that is too deep.
func (l *lexer) enter(p int, what string, k tokKind) {
	if !l.tooDeep(p, what) {
		l.nest++
		l.single(p, k)
	}
}

// leave makes the one-byte closer at p the current token of kind k, a
// level up.
func (l *lexer) leave(p int, k tokKind) {
	l.nest--
	l.single(p, k)
}

// newOpAt reports whether the '{' or '#' at buf[*p] begins the next op
// while the op being read is left unclosed, and then makes the current
// token the error for that op. It costs two comparisons unless the byte is
// the first token of a line inside an op (opBreak). *p is adjusted if the
// buffer moves.
func (l *lexer) newOpAt(p *int) bool {
	return l.opStart >= 0 && l.base+int64(l.pos) < l.lineStart && l.opBreak(p)
}

// scanSym returns the end of the run of symbol bytes that starts at p.
func (l *lexer) scanSym(p int) int {
	for {
		buf := l.buf[:l.end]
		for p < len(buf) && symChar[buf[p]] {
			p++
		}
		if p < l.end || !l.more(&p, l.tokIdx()) {
			return p
		}
	}
}

// next reads the next token.
func (l *lexer) next() {
	if l.json {
		l.nextJSON()
		return
	}
	l.nextEDN()
}

// nextEDN reads the next EDN token.
func (l *lexer) nextEDN() {
	p := l.pos
	for {
		for {
			buf := l.buf[:l.end]
			for p < len(buf) {
				switch ednClass[buf[p]] {
				case cSpace:
					p++
					continue
				case cNL:
					l.newline(p)
					p++
					continue
				}
				break
			}
			if p < len(buf) {
				break
			}
			if !l.more(&p, p) {
				l.setEOF(p, false)
				return
			}
		}
		c := l.buf[p]
		switch c {
		case '{':
			// A '{' that is the first token of its line inside an op may be
			// the next op, when the one being read was left unclosed.
			if !l.newOpAt(&p) {
				l.enter(p, "'{'", tMapBegin)
			}
		case '}':
			l.leave(p, tMapEnd)
		case '[':
			l.enter(p, "'['", tVecBegin)
		case ']':
			l.leave(p, tVecEnd)
		case '(':
			l.enter(p, "'('", tListBegin)
		case ')':
			l.leave(p, tListEnd)
		case '"':
			l.startTok(p)
			l.scanString(p, false)
		case ':':
			l.startTok(p)
			e := l.scanSym(p + 1)
			s := l.tokIdx()
			if e == s+1 {
				if e < l.end && l.buf[e] == 0 {
					if !l.nulTail(e) { // else ':' then NUL padding
						l.fail(l.tok, "a lone ':' is not a keyword")
					}
					return
				}
				if e >= l.end && l.eof {
					// the input ends right after ':': a keyword cut off
					l.setEOF(e, true)
					return
				}
				l.fail(l.tok, "a lone ':' is not a keyword")
				return
			}
			l.kind, l.text, l.pos = tKeyword, l.buf[s:e], e
		case ';':
			for {
				buf := l.buf[:l.end]
				for p < len(buf) && buf[p] != '\n' && buf[p] != '\r' {
					p++
				}
				if p < len(buf) || !l.more(&p, p) {
					break
				}
			}
			continue
		case '#':
			if l.newOpAt(&p) {
				return
			}
			l.startTok(p)
			if !l.ensure(&p, 2, p) {
				l.setEOF(l.end, true)
				return
			}
			if l.buf[p+1] == '_' {
				if l.tooDeep(p, "#_") {
					return
				}
				l.pos = p + 2
				l.depth++
				l.discard()
				l.depth--
				if l.kind == tErr || l.kind == tEOF {
					return
				}
				p = l.pos
				continue
			}
			l.dispatch(p)
		case '\\':
			l.startTok(p)
			p++
			if !l.ensure(&p, 1, l.tokIdx()) {
				l.setEOF(p, true)
				return
			}
			if k := ednClass[l.buf[p]]; k == cSpace || k == cNL || k == cBad {
				if l.buf[p] == 0 && l.nulTail(p) {
					return // '\\' then NUL padding
				}
				l.fail(l.tok, "invalid character literal")
				return
			}
			e := l.scanSym(p + 1)
			s := l.tokIdx()
			l.kind, l.text, l.pos = tOther, l.buf[s:e], e
		default:
			l.startTok(p)
			if l.fastInt(p) {
				return
			}
			if ednClass[c] != cSym {
				if c == 0 && l.nulTail(p) {
					return
				}
				l.fail(l.tok, "unexpected "+quoteByte(c))
				return
			}
			e := l.scanSym(p)
			s := l.tokIdx()
			t := l.buf[s:e]
			l.pos = e
			c0 := t[0]
			if c0 >= '0' && c0 <= '9' || (c0 == '+' || c0 == '-') && len(t) > 1 && t[1] >= '0' && t[1] <= '9' {
				l.number(t)
				return
			}
			l.text = t
			l.kind = tSymbol
			if len(t) == 3 && t[0] == 'n' && t[1] == 'i' && t[2] == 'l' {
				l.kind = tNil
			}
		}
		return
	}
}

// fastInt reads an integer of at most 18 digits at p that ends, inside the
// buffer, with a byte that cannot continue a symbol: almost every integer in
// a history. Anything else is left to the general path.
func (l *lexer) fastInt(p int) bool {
	buf := l.buf[:l.end]
	u, s, q := intDigits(buf, p)
	if q == s || q >= len(buf) || symChar[buf[q]] {
		return false
	}
	l.kind, l.ival, l.pos = tInt, int64(u), q
	if s > p {
		l.ival = -l.ival
	}
	return true
}

// intDigits reads an optional '-' and then at most 18 decimal digits at
// p: their value u, the index s of the first digit, and q, the index
// after the last (q == s when there is none).
func intDigits(buf []byte, p int) (u uint64, s, q int) {
	q = p
	if q < len(buf) && buf[q] == '-' {
		q++
	}
	s = q
	for q < len(buf) && q-s < 18 {
		d := buf[q] - '0'
		if d > 9 {
			break
		}
		u = u*10 + uint64(d)
		q++
	}
	return u, s, q
}

// dispatch reads a token that starts with '#' at p (not #_); buf[p+1] is
// available.
func (l *lexer) dispatch(p int) {
	switch c := l.buf[p+1]; c {
	case '{':
		if l.tooDeep(p, "'#{'") {
			return
		}
		l.nest++
		l.kind, l.pos = tSetBegin, p+2
	case '"':
		l.scanString(p+1, false)
		if l.kind == tString {
			s := l.tokIdx()
			l.kind, l.text = tOther, l.buf[s:l.pos]
		}
	case '#':
		e := l.scanSym(p + 2)
		s := l.tokIdx()
		l.kind, l.text, l.pos = tOther, l.buf[s:e], e
	default:
		if !symChar[c] {
			if c == 0 && l.nulTail(p+1) {
				return // '#' then NUL padding
			}
			l.fail(l.tok, "unexpected "+quoteByte(c)+" after '#'")
			return
		}
		e := l.scanSym(p + 1)
		s := l.tokIdx()
		l.kind, l.text, l.pos = tTag, l.buf[s+1:e], e
	}
}

// discard reads and drops one form (after #_).
func (l *lexer) discard() {
	var stack []tokKind
	for {
		l.nextEDN()
		switch l.kind {
		case tEOF:
			l.cut = true
			return
		case tErr:
			return
		case tMapBegin, tSetBegin:
			stack = append(stack, tMapEnd)
		case tVecBegin:
			stack = append(stack, tVecEnd)
		case tListBegin:
			stack = append(stack, tListEnd)
		case tMapEnd, tVecEnd, tListEnd:
			if len(stack) == 0 {
				l.fail(l.tok, "#_ has nothing to discard before "+l.kindText())
				return
			}
			if stack[len(stack)-1] != l.kind {
				l.fail(l.tok, "mismatched "+l.kindText()+" in a form discarded by #_")
				return
			}
			stack = stack[:len(stack)-1]
		case tTag:
			continue // its form follows
		}
		if len(stack) == 0 {
			return
		}
	}
}

// kindText names a bracket token.
func (l *lexer) kindText() string {
	switch l.kind {
	case tMapBegin:
		return "'{'"
	case tMapEnd:
		return "'}'"
	case tVecBegin:
		return "'['"
	case tVecEnd:
		return "']'"
	case tListBegin:
		return "'('"
	case tListEnd:
		return "')'"
	case tSetBegin:
		return "'#{'"
	}
	return "token"
}

// number classifies the symbol-like text t that starts like a number:
// integers (optional sign, digits, optional N suffix) become tInt or tBigInt,
// anything else (floats, ratios, M suffix, hex) tOther.
func (l *lexer) number(t []byte) {
	i := 0
	neg := false
	if t[0] == '+' || t[0] == '-' {
		neg = t[0] == '-'
		i = 1
	}
	d := t[i:]
	if len(d) > 1 && d[len(d)-1] == 'N' {
		d = d[:len(d)-1]
	}
	const lim = (1 << 63) / 10
	var u uint64
	over := false
	for _, c := range d {
		v := uint64(c - '0')
		if v > 9 {
			l.kind, l.text = tOther, t
			return
		}
		if u > lim || u == lim && v > 8 {
			over = true
		} else {
			u = u*10 + v
		}
	}
	if u == 1<<63 && !neg {
		over = true
	}
	if !over {
		l.kind = tInt
		l.ival = int64(u)
		if neg {
			l.ival = -l.ival
		}
		return
	}
	for len(d) > 1 && d[0] == '0' {
		d = d[1:]
	}
	l.sbuf = l.sbuf[:0]
	if neg {
		l.sbuf = append(l.sbuf, '-')
	}
	l.sbuf = append(l.sbuf, d...)
	l.kind, l.text = tBigInt, l.sbuf
}

// scanString reads a string whose opening quote is at p. EDN and JSON differ
// only in the escapes they allow.
func (l *lexer) scanString(p int, json bool) {
	p++
	seg := p // start of the bytes not yet copied to sbuf
	escaped := false
	for {
		buf := l.buf[:l.end]
		for p < len(buf) {
			c := buf[p]
			if c <= '"' { // '"', and the line breaks below it
				if c == '"' {
					if escaped {
						l.sbuf = append(l.sbuf, buf[seg:p]...)
						l.text = l.sbuf
					} else {
						l.text = buf[seg:p]
					}
					l.kind, l.pos = tString, p+1
					return
				}
				if c == '\n' || c == '\r' {
					l.newline(p)
					if l.opStart >= 0 {
						break // see below
					}
				}
			} else if c == '\\' {
				if !escaped {
					escaped = true
					l.sbuf = l.sbuf[:0]
				}
				l.sbuf = append(l.sbuf, buf[seg:p]...)
				if !l.ensure(&p, 2, l.tokIdx()) {
					l.setEOF(l.end, true)
					return
				}
				if !l.escape(&p, json) {
					return
				}
				buf = l.buf[:l.end]
				seg = p
				continue
			}
			p++
		}
		if p < len(buf) {
			// A newline inside the op being read. Strings Jepsen writes
			// never hold one; one that runs into the next op was left
			// unclosed. (Checked out here, the hot loop above is as fast
			// as without the check.)
			var stop bool
			if p, seg, stop = l.stringBreak(p, seg); stop {
				return
			}
			p++
			continue
		}
		before := p
		if !l.more(&p, l.tokIdx()) {
			l.setEOF(p, true)
			return
		}
		seg -= before - p
	}
}

// escape decodes the escape sequence at buf[*p] ('\\') into sbuf.
func (l *lexer) escape(p *int, json bool) bool {
	at := l.posAt(*p)
	c := l.buf[*p+1]
	switch c {
	case '"', '\\':
		l.sbuf = append(l.sbuf, c)
	case 'n':
		l.sbuf = append(l.sbuf, '\n')
	case 't':
		l.sbuf = append(l.sbuf, '\t')
	case 'r':
		l.sbuf = append(l.sbuf, '\r')
	case 'b':
		l.sbuf = append(l.sbuf, '\b')
	case 'f':
		l.sbuf = append(l.sbuf, '\f')
	case '/':
		if !json {
			l.fail(at, `unknown escape \/ in string`)
			return false
		}
		l.sbuf = append(l.sbuf, '/')
	case 'u':
		r, n, ok := l.hex4(p, 2)
		if !ok {
			return false
		}
		adv := n
		if utf16Surrogate(r) {
			// a pair \uD83D\uDE00 (JSON and Java strings)
			q := *p
			if l.ensure(&q, adv+6, l.tokIdx()) && l.buf[q+adv] == '\\' && l.buf[q+adv+1] == 'u' {
				*p = q
				if r2, n2, ok2 := l.hex4(p, adv+2); ok2 && r2 >= 0xdc00 && r2 < 0xe000 && r < 0xdc00 {
					r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
					adv = n2
				} else if l.kind == tErr {
					return false
				} else {
					r = utf8.RuneError
				}
			} else {
				*p = q
				r = utf8.RuneError
			}
		}
		l.sbuf = utf8.AppendRune(l.sbuf, r)
		*p += adv
		return true
	default:
		l.fail(at, "unknown escape \\"+printable(c)+" in string")
		return false
	}
	*p += 2
	return true
}

func utf16Surrogate(r rune) bool { return r >= 0xd800 && r < 0xe000 }

// hex4 reads 4 hex digits at buf[*p+k:], returning the rune and k+4.
func (l *lexer) hex4(p *int, k int) (rune, int, bool) {
	if !l.ensure(p, k+4, l.tokIdx()) {
		l.setEOF(l.end, true)
		return 0, 0, false
	}
	var r rune
	for i := range 4 {
		c := l.buf[*p+k+i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			l.fail(l.posAt(*p+k+i), "bad \\u escape in string: "+quoteByte(c)+" is not a hex digit")
			return 0, 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, k + 4, true
}

func printable(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return string(rune(c))
	}
	return quoteByte(c)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	const hex = "0123456789abcdef"
	return "byte 0x" + string([]byte{hex[c>>4], hex[c&15]})
}

// nextJSON reads the next JSON token, checking the punctuation between
// tokens (which it does not report) as it goes.
//
// Its whitespace loop repeats nextEDN's on purpose: sharing it as a method
// taking a byte-class table cost 7% of reading speed (BenchmarkReadEDN,
// 210 -> 195 MB/s), since that loop runs on every byte between tokens.
func (l *lexer) nextJSON() {
	p := l.pos
	for {
		for {
			buf := l.buf[:l.end]
			for p < len(buf) {
				c := buf[p]
				if c == ' ' || c == '\t' {
					p++
					continue
				}
				if c == '\n' || c == '\r' {
					l.newline(p)
					p++
					continue
				}
				break
			}
			if p < len(buf) {
				break
			}
			if !l.more(&p, p) {
				l.setEOF(p, false)
				return
			}
		}
		c := l.buf[p]
		if c == 0 {
			l.startTok(p)
			if !l.nulTail(p) {
				l.fail(l.tok, "unexpected byte 0x00")
			}
			return
		}
		switch l.jstate {
		case jAfter:
			top := l.jstack[len(l.jstack)-1]
			if c == ',' {
				p++
				if top == '{' {
					l.jstate = jKey
				} else {
					l.jstate = jValue
				}
				continue
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				l.close(p, c)
				return
			}
			if top == '{' {
				l.jsonUnexpected(p, c, "expected ',' or '}' after an object member, found ")
			} else {
				l.jsonUnexpected(p, c, "expected ',' or ']' after an array element, found ")
			}
			return
		case jColon:
			if c != ':' {
				l.jsonUnexpected(p, c, "expected ':' after an object key, found ")
				return
			}
			p++
			l.jstate = jValue
			continue
		case jFirstObj, jKey:
			if c == '}' && l.jstate == jFirstObj {
				l.close(p, c)
				return
			}
			if c != '"' {
				l.jsonUnexpected(p, c, "expected a string key in an object, found ")
				return
			}
			l.startTok(p)
			l.scanString(p, true)
			if l.kind == tString {
				l.jstate = jColon
			}
			return
		case jFirstArr:
			if c == ']' {
				l.close(p, c)
				return
			}
		}
		l.jsonValue(p, c)
		return
	}
}

// jsonUnexpected fails at c, at p, which the punctuation does not allow
// there, with msg and c; but a '{' that begins the next op, while the op
// being read is left unclosed, is reported as that (see opBreak).
func (l *lexer) jsonUnexpected(p int, c byte, msg string) {
	if c == '{' && l.newOpAt(&p) {
		return
	}
	l.startTok(p)
	l.fail(l.tok, msg+printableTok(c))
}

func printableTok(c byte) string {
	if c == '"' {
		return "a string"
	}
	return quoteByte(c)
}

func (l *lexer) after() {
	if len(l.jstack) == 0 {
		l.jstate = jTop
	} else {
		l.jstate = jAfter
	}
}

func (l *lexer) close(p int, c byte) {
	l.jstack = l.jstack[:len(l.jstack)-1]
	l.nest--
	if c == '}' {
		l.single(p, tMapEnd)
	} else {
		l.single(p, tVecEnd)
	}
	l.after()
}

// jsonValue reads a JSON value token starting with c at p.
func (l *lexer) jsonValue(p int, c byte) {
	l.startTok(p)
	switch {
	case c == '{':
		if l.opStart >= 0 && l.base+int64(l.pos) < l.lineStart {
			// (not newOpAt: taking p's address here slows every value)
			var brk bool
			if p, brk = l.opBreakAt(p); brk {
				return
			}
		}
		if l.tooDeep(p, "'{'") {
			return
		}
		l.nest++
		l.jstack = append(l.jstack, '{')
		l.jstate = jFirstObj
		l.kind, l.pos = tMapBegin, p+1
		return
	case c == '[':
		if l.tooDeep(p, "'['") {
			return
		}
		l.nest++
		l.jstack = append(l.jstack, '[')
		l.jstate = jFirstArr
		l.kind, l.pos = tVecBegin, p+1
		return
	case c == '"':
		l.scanString(p, true)
		if l.kind == tString {
			l.after()
		}
		return
	case c == '-' || c >= '0' && c <= '9':
		if l.fastInt(p) && (l.pos == len(l.buf) || !jsonNumChar(l.buf[l.pos])) {
			l.after()
			return
		}
		e := l.scanJSONNum(p)
		s := l.tokIdx()
		t := l.buf[s:e]
		l.pos = e
		if t[0] == '-' && (len(t) == 1 || t[1] < '0' || t[1] > '9') {
			l.fail(l.tok, "invalid number "+string(t))
			return
		}
		l.number(t)
		l.after()
		return
	case c >= 'a' && c <= 'z':
		e := l.scanJSONNum(p)
		s := l.tokIdx()
		t := l.buf[s:e]
		l.pos = e
		switch string(t) {
		case "null":
			l.kind = tNil
		case "true", "false":
			l.kind = tSymbol
		default:
			l.fail(l.tok, "invalid literal "+clip(string(t), 20))
			return
		}
		l.text = t
		l.after()
		return
	case c == '}' || c == ']':
		l.fail(l.tok, "unexpected "+quoteByte(c))
		return
	}
	l.fail(l.tok, "unexpected "+printableTok(c))
}

// scanJSONNum returns the end of a run of bytes that may form a JSON number
// or literal.
func (l *lexer) scanJSONNum(p int) int {
	for {
		buf := l.buf[:l.end]
		for p < len(buf) {
			c := buf[p]
			if jsonNumChar(c) {
				p++
				continue
			}
			break
		}
		if p < l.end || !l.more(&p, l.tokIdx()) {
			return p
		}
	}
}

func jsonNumChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '.' || c == '-' || c == '+' || c == 'E'
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
