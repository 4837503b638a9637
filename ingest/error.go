package ingest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a problem in the input at a known place: a syntax error, an op
// that cannot be decoded, or a failure of the underlying reader (then Err
// holds the cause).
type Error struct {
	// File names the input, as given to Read or ReadFile.
	File string
	// Line and Col are 1-based; Col counts bytes of the line. They are
	// int64, as offsets are: a line may be longer than 2^31 bytes.
	Line, Col int64
	// Msg says what is wrong.
	Msg string
	// Excerpt is the offending source line, cut to about 100 bytes around
	// the column ("..." marks a cut), with control bytes other than tab, and
	// bytes that are not UTF-8, shown as \xNN (a NUL byte as \x00).
	// It is empty when the line is no longer available.
	Excerpt string
	// Err is the underlying error, if any.
	Err error

	caret int // 1 + byte offset of the column in Excerpt; 0: use Col
}

// Error returns "FILE:LINE:COL: MSG" and, when there is an excerpt, the
// excerpt on the next line and a caret under the column on the one after.
func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString(e.File)
	sb.WriteByte(':')
	sb.WriteString(strconv.FormatInt(e.Line, 10))
	sb.WriteByte(':')
	sb.WriteString(strconv.FormatInt(e.Col, 10))
	sb.WriteString(": ")
	sb.WriteString(e.Msg)
	if e.Excerpt != "" {
		c := e.caret - 1
		if e.caret == 0 {
			c = int(max(0, min(e.Col-1, int64(len(e.Excerpt)))))
		}
		c = max(0, min(c, len(e.Excerpt)))
		sb.WriteByte('\n')
		sb.WriteString(e.Excerpt)
		sb.WriteByte('\n')
		for _, r := range e.Excerpt[:c] {
			if r == '\t' {
				sb.WriteByte('\t')
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteByte('^')
	}
	return sb.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// excerpt returns the source line around at, elided to about 2*excerptHalf
// bytes, and 1 + the offset of at in it; "" when the bytes are gone.
func (l *lexer) excerpt(at srcPos) (string, int) {
	if at.off < l.base || at.off > l.base+int64(l.end) {
		return "", 0
	}
	start := max(at.lineStart, at.off-excerptHalf, l.base)
	// Read a little past the column, keeping the start.
	save := l.capStart
	l.capStart = min(start, l.base+int64(l.pos))
	q := int(at.off - l.base)
	l.ensure(&q, excerptHalf+1, int(start-l.base))
	l.capStart = save
	s, idx := int(start-l.base), int(at.off-l.base)
	for s < idx && !utf8.RuneStart(l.buf[s]) {
		s++
	}
	e := idx
	for e < l.end && e-idx < excerptHalf && l.buf[e] != '\n' && l.buf[e] != '\r' {
		e++
	}
	cutEnd := e < l.end && l.buf[e] != '\n' && l.buf[e] != '\r'
	if cutEnd {
		for e > idx && e < l.end && !utf8.RuneStart(l.buf[e]) {
			e--
		}
	}
	var sb strings.Builder
	if l.base+int64(s) > at.lineStart {
		sb.WriteString("...")
	}
	caret := 0
	raw := l.buf[s:e]
	for i := 0; i <= len(raw); {
		if caret == 0 && s+i >= idx {
			caret = sb.Len() + 1
		}
		if i == len(raw) {
			break
		}
		r, sz := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && sz <= 1 || r < 0x20 && r != '\t' || r == 0x7f {
			const hex = "0123456789abcdef"
			c := raw[i]
			sb.Write([]byte{'\\', 'x', hex[c>>4], hex[c&15]})
		} else {
			sb.WriteRune(r)
		}
		i += max(sz, 1)
	}
	if caret == 0 {
		caret = sb.Len() + 1
	}
	if cutEnd {
		sb.WriteString("...")
	}
	if strings.TrimSpace(sb.String()) == "" {
		return "", 0
	}
	return sb.String(), caret
}
