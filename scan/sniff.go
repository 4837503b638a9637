package scan

import (
	"bytes"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// sniffSizes are how much of a file's text notHistory looks at: the first
// size, and the next when the first value did not end within it (a
// results.json whose anomaly map is long); sniffSlack is how many stored
// bytes beyond that are read for a compressed file's blocks (a zstd block
// holds up to 128 KiB).
var sniffSizes = []int{64 << 10, 1 << 20, 8 << 20}

const sniffSlack = 256 << 10

// opFields are the keys of which an op map has at least one.
var opFields = []string{"type", "process", "f", "index"}

// notHistoryFile reports whether the file is certainly not a history (see
// notHistory). read returns up to n of its first bytes as stored
// (compressed or not).
func notHistoryFile(read func(n int) []byte) bool {
	for _, limit := range sniffSizes {
		text := textHead(read(limit+sniffSlack), limit)
		skip, ranOut := sniff(text)
		if !ranOut || len(text) < limit {
			return skip
		}
	}
	return false
}

// headOf is a notHistoryFile reader over bytes in memory.
func headOf(b []byte) func(int) []byte {
	return func(n int) []byte { return b[:min(len(b), n)] }
}

// textHead returns up to limit bytes of the text that head starts,
// decompressing a gzip or zstd head (as far as it goes).
func textHead(head []byte, limit int) []byte {
	var r io.Reader
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return head[:min(len(head), limit)]
		}
		r = zr
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(bytes.NewReader(head), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return head[:min(len(head), limit)]
		}
		defer zr.Close()
		r = zr
	default:
		return head[:min(len(head), limit)]
	}
	out := make([]byte, limit)
	n, _ := io.ReadFull(r, out)
	return out[:n]
}

// notHistory reports whether text (the start of a file) certainly does not
// hold a history, because its first value is not an op: not a map, or a
// map without any of the keys type, process, f and index (keyword, string
// or symbol, in EDN or JSON); a vector or list counts by its first
// element. It errs towards "history": an empty file, an empty vector, a
// first value that is not readable (bytes that are not text, a stray
// bracket, a #_ discard), or one that does not end within text is left to
// the parser, which says what is wrong with it, with its line and column.
func notHistory(text []byte) bool {
	skip, _ := sniff(text)
	return skip
}

// sniff is notHistory, and says whether it could not decide because the
// first value runs past the end of text.
func sniff(text []byte) (skip, ranOut bool) {
	s := &sniffer{b: text}
	skip = s.first()
	return skip, !skip && s.i >= len(s.b)
}

// first reads the first value.
func (s *sniffer) first() bool {
	s.b = bytes.TrimPrefix(s.b, []byte{0xef, 0xbb, 0xbf})
	s.space()
	if s.i >= len(s.b) {
		return false // empty: an empty history
	}
	switch c := s.b[s.i]; c {
	case '[', '(':
		s.i++
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ']', ')':
			return false // an empty history
		case '{', '#':
			return s.mapNotOp()
		}
		return s.readable()
	case '{', '#':
		return s.mapNotOp()
	}
	return s.readable()
}

type sniffer struct {
	b []byte
	i int
}

// space skips whitespace, commas and ';' comments.
func (s *sniffer) space() {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\r', '\n', ',', '\f':
			s.i++
		case ';':
			for s.i < len(s.b) && s.b[s.i] != '\n' {
				s.i++
			}
		default:
			return
		}
	}
}

// readable reports whether a well-formed value that is not a map starts at
// s.i: a string, a number, a keyword or symbol, or a vector, list or set
// (of anything). Such a first value is not an op.
func (s *sniffer) readable() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"', c == '[', c == '(':
		return true
	case c == '\\':
		return true // an EDN character
	}
	n := s.atom()
	return n > 0 && s.i == len(s.b) || n > 0 && s.delimiter()
}

// delimiter reports whether s.i is at the end of the text or at a byte
// that may follow a value.
func (s *sniffer) delimiter() bool {
	if s.i >= len(s.b) {
		return true
	}
	switch s.b[s.i] {
	case ' ', '\t', '\r', '\n', ',', ';', '\f', '[', ']', '(', ')', '{', '}', '"':
		return true
	}
	return false
}

// isAtomRune reports whether r may be part of an EDN symbol, keyword or
// number, or a JSON literal.
func isAtomRune(r rune) bool {
	if r < utf8.RuneSelf {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return true
		}
		return bytes.IndexByte([]byte("*+!-_?<>=./:'&%$|"), byte(r)) >= 0
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// atom reads a symbol, keyword, number or literal and returns its length
// (0 when none starts at s.i, or it holds a byte that is not text).
func (s *sniffer) atom() int {
	start := s.i
	for s.i < len(s.b) {
		r, n := utf8.DecodeRune(s.b[s.i:])
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(s.b[s.i:]) {
				break // cut inside a rune at the end of the head
			}
			s.i = start
			return 0 // not text
		}
		if !isAtomRune(r) {
			break
		}
		s.i += n
	}
	return s.i - start
}

// mapNotOp reads the map (or tagged map) at s.i and reports whether it
// certainly is not an op; a map that holds an op key, or that cannot be
// read to its end within the text, is taken for an op.
func (s *sniffer) mapNotOp() bool {
	if s.b[s.i] == '#' {
		s.i++
		if s.i < len(s.b) && s.b[s.i] == '_' {
			return false // a discard: leave it to the parser
		}
		if s.atom() == 0 { // the tag: #jepsen.history.Op{...}
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		if s.b[s.i] != '{' {
			return true // a tagged value that is not a map: #inst "..."
		}
	}
	s.i++ // '{'
	for key := true; ; key = !key {
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		c := s.b[s.i]
		if c == '}' {
			return true // the whole map was read: no op key
		}
		if key {
			name, ok := s.key()
			if !ok {
				return false
			}
			for _, f := range opFields {
				if name == f {
					return false
				}
			}
			s.space()
			if s.i < len(s.b) && s.b[s.i] == ':' { // JSON
				s.i++
			}
			continue
		}
		if !s.skipValue() {
			return false
		}
	}
}

// key reads a map key and returns its name: a keyword without its colon, a
// string's content, a symbol; ok is false for what cannot be read here.
func (s *sniffer) key() (string, bool) {
	switch c := s.b[s.i]; {
	case c == '"':
		start := s.i + 1
		if !s.skipString() {
			return "", false
		}
		k := string(s.b[start : s.i-1])
		if len(k) > 0 && k[0] == ':' {
			k = k[1:]
		}
		return k, true
	case c == '{', c == '[', c == '(', c == '#':
		return "", s.skipValue()
	}
	start := s.i
	if s.atom() == 0 {
		return "", false
	}
	k := string(s.b[start:s.i])
	if len(k) > 0 && k[0] == ':' {
		k = k[1:]
	}
	return k, true
}

// skipString skips the string starting at s.i ('"'); false when it does not
// end within the text.
func (s *sniffer) skipString() bool {
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return true
		}
	}
	return false
}

// skipValue skips one value; false when it cannot be read within the text.
func (s *sniffer) skipValue() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '"':
		return s.skipString()
	case '\\':
		s.i += 2
		s.atom()
		return s.i <= len(s.b)
	case '#':
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '{' || s.b[s.i] == '_') {
			if s.b[s.i] == '_' {
				s.i++
				if !s.skipValue() {
					return false
				}
			}
			return s.skipValue() // a set, or the value after a discard
		}
		if s.atom() == 0 {
			return false
		}
		return s.skipValue() // the tagged value
	case '{', '[', '(':
		return s.skipNested()
	case '}', ']', ')':
		return false
	}
	return s.atom() > 0
}

// skipNested skips a map, vector or list, brackets balanced.
func (s *sniffer) skipNested() bool {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if !s.skipString() {
				return false
			}
			continue
		case ';':
			s.space()
			continue
		case '\\':
			s.i += 2
			continue
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}
