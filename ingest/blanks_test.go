package ingest

import (
	"io"
	"strings"
	"testing"
)

// blankReader yields n bytes of blank lines (spaces, tabs, CRLF and LF
// line ends), then tail.
type blankReader struct {
	n, at int // blanks left, blanks given
	tail  *strings.Reader
}

const blankPattern = "  \t \r\n \n"

func (b *blankReader) Read(p []byte) (int, error) {
	if b.n == 0 {
		return b.tail.Read(p)
	}
	k := min(len(p), b.n)
	for i := range k {
		p[i] = blankPattern[(b.at+i)%len(blankPattern)]
	}
	b.n -= k
	b.at += k
	return k, nil
}

var _ io.Reader = (*blankReader)(nil)

// TestLeadingBlanksStream: 64 MB of blank lines before the first op are
// read in a buffer of a few hundred KB (the format's detection used to
// keep them all), the lines are counted, and the format is still
// recognised: an error in the first op names its line, in EDN and JSON.
func TestLeadingBlanksStream(t *testing.T) {
	const n = 64 << 20
	lines := 1 + 2*n/len(blankPattern) // each pattern ends two lines (CRLF, LF)
	l := newLexer(&blankReader{n: n, tail: strings.NewReader("{:index 0}")})
	l.skipSpace()
	if len(l.buf) > 4*readSize {
		t.Errorf("the lexer's buffer grew to %d bytes over blanks", len(l.buf))
	}
	if int(l.line) != lines {
		t.Errorf("line %d after the blanks, want %d", l.line, lines)
	}
	for _, c := range []struct{ name, op, want string }{
		{"h.edn", "{:index 0, :type :ok, :process 0, :f :send, :value [[:send 1 [:x 2]]]}",
			"an offset must be an integer or nil, found :x"},
		{"h.json", `[{"index": 0, "type": "ok", "process": 0, "f": "send", "value": [["send", 1, ["x", 2]]]}]`,
			`an offset must be an integer or nil, found the string "x"`},
	} {
		_, err := Read(&blankReader{n: n, tail: strings.NewReader(c.op)}, c.name, Options{})
		e := asError(t, err)
		if e.Line != int64(lines) || !strings.Contains(e.Msg, c.want) {
			t.Errorf("%s: %d:%d %q; want line %d, %q", c.name, e.Line, e.Col, e.Msg, lines, c.want)
		}
	}
}

// TestLongLineReadSequentially: a line longer than maxBlockLine (here
// blanks between two ops) makes the parallel read give way to the
// sequential one, which does not hold the line; a long line shorter than
// that stays in a block. Both read the same ops as the sequential read.
func TestLongLineReadSequentially(t *testing.T) {
	lines := strings.SplitAfter(threeOps, "\n")
	for _, c := range []struct {
		blanks   int
		parallel bool
	}{{maxBlockLine + 1, false}, {maxBlockLine / 8, true}} {
		src := lines[0] + strings.Repeat(" ", c.blanks) + lines[1] + lines[2]
		h, ok, err := readBlocks([]byte(src), "long.edn", Options{}, 2, 64<<10)
		if err != nil || ok != c.parallel {
			t.Fatalf("%d blanks: read in blocks %v (%v), want %v", c.blanks, ok, err, c.parallel)
		}
		want := readString(t, "long.edn", src, Options{})
		if ok {
			if d := sameHistory(h, want); d != "" {
				t.Errorf("%d blanks: %s", c.blanks, d)
			}
		} else if len(want.Ops) != 3 || want.Line(2) != 3 {
			t.Errorf("%d blanks: %d ops, the last at line %d; want 3 ops, line 3", c.blanks, len(want.Ops), want.Line(2))
		}
	}
}
