package ingest

import (
	"bytes"
	"fmt"
	"strings"
)

// An op left unclosed would otherwise swallow every op after it as part of
// itself, and the reader would call the file truncated at the end of the
// input. These functions tell such an op from one spread over several
// lines: inside an op that began on an earlier line, a line whose first
// token is '{' (or, in EDN, a #tag then '{') at or left of the op's own
// column, followed by an op field name, starts the next op, and the op
// being read is a syntax error. Pretty printers such as clojure.pprint and
// the indenting JSON writers put a nested map that opens a line to the
// right of the map it is in (Jackson's default printer never opens a line
// with one), so their nested maps, whatever their keys, read as before.

// opLookahead is how far past the first byte of a line opAhead looks for the
// '{' and the op field name after it.
const opLookahead = 512

// lookahead returns up to n bytes from absolute offset at (fewer at the end
// of the input), reading more input as needed and keeping the bytes from
// absolute offset keep. Buffer indexes held by the caller are invalid
// afterwards; absolute offsets are not.
func (l *lexer) lookahead(at int64, n int, keep int64) []byte {
	q := int(at - l.base)
	l.ensure(&q, n, int(keep-l.base))
	return l.buf[q:min(l.end, q+n)]
}

// atOpColumn reports whether absolute offset a, on the current line, is at or
// left of the column where the op being read starts.
func (l *lexer) atOpColumn(a int64) bool {
	return a-l.lineStart <= l.opAt.off-l.opAt.lineStart
}

// opAhead reports whether an op map begins at absolute offset a: '{' (in EDN
// also a #tag and '{') then, after whitespace, an op field name such as
// :index or "type". It keeps the bytes from keep.
func (l *lexer) opAhead(a, keep int64) bool {
	w := l.lookahead(a, opLookahead, keep)
	blank := func(c byte) bool {
		if l.json {
			return c == ' ' || c == '\t' || c == '\r' || c == '\n'
		}
		k := ednClass[c]
		return k == cSpace || k == cNL
	}
	i := 0
	if !l.json && i < len(w) && w[i] == '#' {
		i++
		s := i
		for i < len(w) && symChar[w[i]] {
			i++
		}
		if i == s || string(w[s:i]) == "_" {
			return false
		}
		for i < len(w) && blank(w[i]) {
			i++
		}
	}
	if i >= len(w) || w[i] != '{' {
		return false
	}
	i++
	for i < len(w) && blank(w[i]) {
		i++
	}
	if i >= len(w) {
		return false
	}
	var name []byte
	switch w[i] {
	case ':':
		s := i
		i++
		for i < len(w) && symChar[w[i]] {
			i++
		}
		if i == len(w) && len(w) == opLookahead {
			return false // the name may go on past the window
		}
		name = w[s:i]
	case '"':
		e := bytes.IndexByte(w[i+1:], '"')
		if e < 0 {
			return false
		}
		name = w[i+1 : i+1+e]
	default:
		return false
	}
	return fieldOf(name) != fNone
}

// opBreak is called at buf[*p], the first token of a line inside the op
// being read, which therefore began on an earlier line. If the next op
// begins there, it makes the current token the error for the unclosed op
// and reports true. *p is adjusted if the buffer moves.
func (l *lexer) opBreak(p *int) bool {
	a := l.base + int64(*p)
	if !l.atOpColumn(a) {
		return false
	}
	ok := l.opAhead(a, a)
	*p = int(a - l.base)
	if ok {
		l.unclosedOp()
	}
	return ok
}

// opBreakAt is opBreak for a caller whose index must not have its address
// taken; it returns the index adjusted.
func (l *lexer) opBreakAt(p int) (int, bool) {
	brk := l.opBreak(&p)
	return p, brk
}

// stringBreak is called at buf[p], a newline inside a string of the op
// being read; seg is an index the caller keeps. If the next op begins on
// the next line (after blanks), it makes the current token the error for
// the unclosed op and reports true. It returns p and seg adjusted if the
// buffer moves.
func (l *lexer) stringBreak(p, seg int) (int, int, bool) {
	a, sg := l.base+int64(p), l.base+int64(seg)
	w := l.lookahead(a+1, opLookahead, l.tok.off)
	i := 0
	for i < len(w) && (w[i] == ' ' || w[i] == '\t' || w[i] == '\r' || w[i] == ',' && !l.json) {
		i++
	}
	b := a + 1 + int64(i)
	brk := i < len(w) && l.atOpColumn(b) && l.opAhead(b, l.tok.off)
	if brk {
		l.unclosedOp()
	}
	return int(a - l.base), int(sg - l.base), brk
}

// unclosedOp makes the current token the error for the op being read, left
// unclosed before the next op, which begins on the current line. The
// message names what is left open, found by reading the op's bytes up to
// that line again when they are still in the buffer (an op of at most
// maxOpKeep bytes).
func (l *lexer) unclosedOp() {
	msg := fmt.Sprintf("the op that starts here is not closed before the next op begins on line %d", l.line)
	if l.opStart >= l.base {
		if closers, what, at, ok := l.stillOpen(l.buf[l.opStart-l.base : l.lineStart-l.base]); ok {
			if len(closers) == 1 {
				// only the op's own '{'
				msg += ": missing its closing '" + closers + "'"
			} else {
				msg += fmt.Sprintf(": missing '%s', the first for the %s at line %d, column %d",
					closers, what, at.line, at.col())
			}
		}
	}
	l.fail(l.opAt, msg)
}

// stillOpen lexes src, the bytes of the op being read from its first byte,
// and returns the closers missing at its end (innermost first), what the
// innermost open form is ("'['", "string", ...) and where it starts.
func (l *lexer) stillOpen(src []byte) (closers, what string, at srcPos, ok bool) {
	s := newLexer(bytes.NewReader(src))
	s.json = l.json
	s.base, s.line, s.lineStart = l.opAt.off, l.opAt.line, l.opAt.lineStart
	type open struct {
		closer byte
		at     srcPos
		what   string
	}
	var st []open
	for {
		s.next()
		switch s.kind {
		case tMapBegin:
			st = append(st, open{'}', s.tok, "'{'"})
		case tSetBegin:
			st = append(st, open{'}', s.tok, "'#{'"})
		case tVecBegin:
			st = append(st, open{']', s.tok, "'['"})
		case tListBegin:
			st = append(st, open{')', s.tok, "'('"})
		case tMapEnd, tVecEnd, tListEnd:
			if len(st) > 0 {
				st = st[:len(st)-1]
			}
		case tErr:
			return "", "", srcPos{}, false
		case tEOF:
			if s.cut && s.cutString() {
				st = append(st, open{'"', s.tok, "string"})
			}
			if len(st) == 0 {
				return "", "", srcPos{}, false
			}
			var sb strings.Builder
			for i := len(st) - 1; i >= 0; i-- {
				sb.WriteByte(st[i].closer)
			}
			top := st[len(st)-1]
			return sb.String(), top.what, top.at, true
		}
	}
}

// cutString reports whether the token cut off by the end of the input is a
// string (or an EDN #"regex").
func (l *lexer) cutString() bool {
	i := l.tokIdx()
	if i >= 0 && i < l.end && l.buf[i] == '#' {
		i++
	}
	return i >= 0 && i < l.end && l.buf[i] == '"'
}
