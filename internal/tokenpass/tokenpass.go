// Package tokenpass is the floor that hindsight's reading speed is measured
// against: a bare, single-core tokenizer pass over a history file. It scans
// every delimiter, keyword, string, symbol and integer of EDN or JSON text
// and parses every integer, and does nothing else: no op maps, no
// interning, no allocation per token. It is a benchmark tool only
// (bench/tokenpass runs it on a file, and the check package's
// BenchmarkCheckVsTokenizer compares hindsight check with it); no part of
// hindsight uses it.
//
// The loop is what a careful reader of one op per line would write as the
// fastest possible first step: a table of byte classes, integers parsed as
// they are scanned, strings scanned to their closing quote (escapes
// skipped, not decoded). It does not check the syntax.
package tokenpass

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// Counts is what a pass saw. Sum is the sum of all integers (wrapping), so
// that no part of the scan can be optimised away.
type Counts struct {
	Bytes    int64
	Lines    int64
	Delims   int64 // { } [ ] ( ) #{
	Keywords int64 // EDN :keyword
	Strings  int64
	Ints     int64
	Symbols  int64 // other atoms: symbols, nil, true, false, floats, tags
	Sum      int64
}

// Tokens is the number of tokens counted.
func (c Counts) Tokens() int64 { return c.Delims + c.Keywords + c.Strings + c.Ints + c.Symbols }

// Byte classes.
const (
	cSym   uint8 = iota // continues a symbol, keyword or number
	cSpace              // whitespace, and ',' (EDN) or ':' ',' (JSON punctuation)
	cNL
	cDelim // { } [ ] ( )
	cQuote
	cColon // ':' starts an EDN keyword
	cHash
	cSemi
	cDigit
	cMinus
)

func table(json bool) (t [256]uint8) {
	for _, c := range []byte(" \t\r\f\v,") {
		t[c] = cSpace
	}
	t['\n'] = cNL
	for _, c := range []byte("{}[]()") {
		t[c] = cDelim
	}
	t['"'] = cQuote
	t[':'] = cColon
	t['#'] = cHash
	t[';'] = cSemi
	for c := '0'; c <= '9'; c++ {
		t[c] = cDigit
	}
	t['-'] = cMinus
	if json {
		t[':'] = cSpace
	}
	return t
}

var (
	ednTable  = table(false)
	jsonTable = table(true)
	// cont says whether a byte continues a symbol, keyword or number.
	cont = func() (t [256]bool) {
		for c := range 256 {
			switch ednTable[c] {
			case cSym, cColon, cHash, cDigit, cMinus:
				t[c] = true
			}
		}
		return t
	}()
)

// Scan tokenizes buf, a run of complete lines, adding to c. json selects
// JSON's punctuation (':' between key and value) instead of EDN keywords.
func Scan(buf []byte, json bool, c *Counts) {
	cls := &ednTable
	if json {
		cls = &jsonTable
	}
	var delims, keywords, strs, ints, syms, lines, sum int64
	n := len(buf)
	for p := 0; p < n; {
		switch cls[buf[p]] {
		case cSpace:
			p++
		case cNL:
			lines++
			p++
		case cDelim:
			delims++
			p++
		case cQuote:
			p++
			for p < n && buf[p] != '"' {
				if buf[p] == '\\' {
					p++
				}
				p++
			}
			p++
			strs++
		case cColon:
			p++
			for p < n && cont[buf[p]] {
				p++
			}
			keywords++
		case cDigit, cMinus:
			neg := buf[p] == '-'
			if neg {
				p++
			}
			var v int64
			for p < n && buf[p]-'0' <= 9 {
				v = v*10 + int64(buf[p]-'0')
				p++
			}
			if neg {
				v = -v
			}
			sum += v
			ints++
			for p < n && cont[buf[p]] { // 12N, 1.5, 1/2: the rest of the atom
				p++
			}
		case cHash:
			p++
			if p < n && buf[p] == '{' {
				p++
				delims++
				continue
			}
			for p < n && cont[buf[p]] {
				p++
			}
			syms++
		case cSemi:
			for p < n && buf[p] != '\n' {
				p++
			}
		default:
			for p < n && cont[buf[p]] {
				p++
			}
			syms++
		}
	}
	c.Bytes += int64(n)
	c.Delims += delims
	c.Keywords += keywords
	c.Strings += strs
	c.Ints += ints
	c.Symbols += syms
	c.Lines += lines
	c.Sum += sum
}

// bufSize is the read size: large enough that a read costs little per byte.
const bufSize = 1 << 20

// Reader tokenizes everything r holds, reading it through one buffer of
// bufSize (grown only for a line longer than that) and scanning up to the
// last newline of each read. json is as for Scan.
func Reader(r io.Reader, json bool) (Counts, error) {
	var c Counts
	buf := make([]byte, bufSize)
	have := 0
	for {
		k, err := io.ReadFull(r, buf[have:])
		have += k
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return c, err
		}
		if eof {
			Scan(buf[:have], json, &c)
			return c, nil
		}
		cut := bytes.LastIndexByte(buf[:have], '\n') + 1
		if cut == 0 {
			nb := make([]byte, 2*len(buf))
			copy(nb, buf[:have])
			buf = nb
			continue
		}
		Scan(buf[:cut], json, &c)
		have = copy(buf, buf[cut:have])
	}
}

// File tokenizes the file at path: JSON when its first byte that is not
// whitespace is '{' followed by '"', or '[' (JSON lines or a JSON array),
// EDN otherwise.
func File(path string) (Counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return Counts{}, err
	}
	defer f.Close()
	head := make([]byte, 64)
	k, _ := io.ReadFull(f, head)
	json := looksJSON(head[:k])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Counts{}, err
	}
	return Reader(f, json)
}

func looksJSON(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) > 0 && b[0] == '[' {
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		return len(b) > 0 && b[0] == '{'
	}
	if len(b) > 0 && b[0] == '{' {
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		return len(b) > 0 && b[0] == '"'
	}
	return false
}
