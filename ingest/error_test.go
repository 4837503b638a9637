package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestErrors checks that malformed input gives an *Error naming the file and
// the exact line and column.
func TestErrors(t *testing.T) {
	const inv = "{:index 0 :type :invoke :value [[:send 1 2]]}\n"
	tests := []struct {
		name      string
		file, in  string
		line, col int64
		msg       string // a part of the message
	}{
		{"EDN mismatched bracket - error at the brace", "h.edn",
			inv + "{:index 1 :type :ok :value [[:send 1 [0 2]}\n{:index 2 :type :invoke}\n",
			2, 43, "mismatched bracket: '}' does not close the '[' opened at line 2, column 29"},
		{"EDN mismatched bracket in a skipped field - error", "h.edn",
			"{:type :ok :extra [1 (2]]}", 1, 24, "mismatched bracket: ']' does not close the '(' opened at line 1, column 22"},
		{"EDN unknown micro-op in a txn - error at its name", "h.edn",
			inv + "{:index 1 :type :ok :process 0 :value [[:append 1 2] [:incr 1 1]]}\n", 2, 55,
			"unknown micro-op :incr (known: :send and :poll for queues"},
		{"EDN unknown micro-op in a send - error at its name", "h.edn",
			"{:index 0 :type :invoke :process 0 :f :send :value [[:sned 1 2]]}\n", 1, 54,
			"unknown micro-op :sned"},
		{"EDN append without a value - error", "h.edn",
			"{:type :ok :process 0 :f :txn :value [[:append 1]]}\n", 1, 39,
			"an append micro-op needs a value"},
		{"JSON unknown micro-op - error at its name", "h.json",
			`{"type":"ok","process":0,"value":[["r",1,[1]],["cas",1,2]]}`, 1, 48,
			`unknown micro-op "cas"`},
		{"EDN op without type - error at the op", "h.edn",
			inv + "\n  {:index 1 :process 0 :f :poll}", 3, 3, "op has no :type"},
		{"EDN unknown type - error at the type", "h.edn",
			"{:index 1 :type :foo}", 1, 17, "unknown :type :foo"},
		{"EDN type not a name - error", "h.edn",
			"{:type 3}", 1, 8, "unknown :type the integer 3"},
		{"EDN integer at top level - error", "h.edn",
			inv + "5", 2, 1, "expected an op map, found the integer 5"},
		{"EDN vector inside the top-level vector - error", "h.edn",
			"[" + inv + "[{:type :ok}]]", 2, 1, "expected an op map, found '['"},
		{"EDN closing bracket at top level - error", "h.edn",
			inv + "}", 2, 1, "unexpected '}'"},
		{"EDN tag before a non-map at top level - error", "h.edn",
			"#foo [1]", 1, 1, "expected an op map, found a tagged '['"},
		{"EDN bad string escape - error at the escape", "h.edn",
			`{:type :ok :error "ab\qc"}`, 1, 22, `unknown escape \q`},
		{"EDN bad unicode escape - error at the digit", "h.edn",
			`{:type :ok :error "\u00zz"}`, 1, 24, "not a hex digit"},
		{"EDN key without value - error at the brace", "h.edn",
			"{:type :ok :process}", 1, 20, "map has a key with no value"},
		{"EDN lone colon - error", "h.edn",
			"{:type : :ok}", 1, 8, "a lone ':' is not a keyword"},
		{"EDN control byte - error", "h.edn",
			"{:type :ok\x01}", 1, 11, "unexpected byte 0x01"},
		{"EDN index not an integer - error", "h.edn",
			`{:index "3" :type :ok}`, 1, 9, `:index must be an integer, found the string "3"`},
		{"EDN index out of range - error", "h.edn",
			"{:index 99999999999999999999 :type :ok}", 1, 9, ":index 99999999999999999999 is out of range"},
		{"EDN process out of range - error", "h.edn",
			"{:type :ok :process 99999999999}", 1, 21, ":process 99999999999 is out of range"},
		{"EDN send value not micro-ops - error at the value", "h.edn",
			"{:type :ok :f :send :value 5}", 1, 28, ":value of a send op must be a vector of micro-ops"},
		{"EDN malformed offset - error at the offset", "h.edn",
			"{:type :ok :f :send :value [[:send 1 [:x 2]]]}", 1, 39, "an offset must be an integer or nil, found :x"},
		{"EDN field twice - error at the second", "h.edn",
			"{:index 0, :type :ok, :index 5, :f :send, :value [[:send 1 [0 2]]]}", 1, 23, "op has :index twice"},
		{"JSON field twice - error at the second", "h.json",
			`[{"index": 0, "type": "ok", "f": "send", "type": "info", "value": [["send", 1, [0, 2]]]}]`, 1, 42, `op has "type" twice`},
		{"EDN time past 64 bits - error at the time", "h.edn",
			"{:index 0, :time 99999999999999999999, :type :ok, :f :send}", 1, 18, ":time 99999999999999999999 is out of range"},
		{"EDN process past 64 bits - error at the process", "h.edn",
			"{:index 0, :process 99999999999999999999, :type :ok, :f :send}", 1, 21, ":process 99999999999999999999 is out of range"},
		{"EDN offset past 64 bits - error at the offset", "h.edn",
			"{:type :ok :f :send :value [[:send 1 [99999999999999999999 2]]]}", 1, 39, "an offset must fit in 64 bits, found 99999999999999999999"},
		{"EDN send without value - error at the micro-op", "h.edn",
			"{:type :ok :f :txn :value [[:poll] [:send 1]]}", 1, 36, "a send micro-op needs a value"},
		{"EDN poll with a bad result - error", "h.edn",
			"{:type :ok :f :poll :value [[:poll [1]]]}", 1, 36, "a poll result must be a map or nil"},
		{"EDN poll read not a pair - error", "h.edn",
			"{:type :ok :f :poll :value [[:poll {1 [[0 1] 5]}]]}", 1, 46, "expected an [offset value] pair, found the integer 5"},
		{"EDN micro-op without a name - error", "h.edn",
			"{:type :ok :f :txn :value [[1 2]]}", 1, 29, "a micro-op starts with its name"},
		{"EDN assign of micro-ops - error", "h.edn",
			"{:type :ok :f :assign :value [[:send 1 2]]}", 1, 30, ":value of a assign op must be a list of keys"},
		{"EDN discard with nothing to discard - error", "h.edn",
			"[{:type :ok} #_]", 1, 16, "#_ has nothing to discard before ']'"},
		{"JSON missing colon - error", "h.json",
			`{"type" "ok"}`, 1, 9, "expected ':' after an object key"},
		{"JSON trailing comma - error", "h.json",
			`[{"type": "ok"},]`, 1, 17, "unexpected ']'"},
		{"JSON unquoted key - error", "h.json",
			"{\"type\": \"ok\",\n type: 1}", 2, 2, "expected a string key in an object, found 't'"},
		{"JSON bad literal - error", "h.json",
			`{"type": "ok", "x": nul}`, 1, 21, "invalid literal nul"},
		{"JSON missing comma - error", "h.json",
			`{"type": "ok" "x": 1}`, 1, 15, "expected ',' or '}' after an object member, found a string"},
		{"JSON array at top of array - error", "h.json",
			`[{"type": "ok"}, [1]]`, 1, 18, "expected an op map, found '['"},
		{"JSON op without type - error", "h.json",
			"[{\"type\": \"ok\"},\n {\"f\": \"poll\"}]", 2, 2, `op has no "type"`},
		{"JSON unknown type - error", "h.json",
			`{"type": "done"}`, 1, 10, `unknown "type" the string "done"`},
		{"JSON minus without digits - error", "h.json",
			`{"type": "ok", "x": -}`, 1, 21, "invalid number -"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), tc.file, Options{})
			if err == nil {
				t.Fatalf("no error")
			}
			e := asError(t, err)
			if e.File != tc.file || e.Line != tc.line || e.Col != tc.col {
				t.Errorf("at %s:%d:%d, want %s:%d:%d (%v)", e.File, e.Line, e.Col, tc.file, tc.line, tc.col, err)
			}
			if !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Msg, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), tc.file+":") {
				t.Errorf("error %q does not start with the file name", err)
			}
		})
	}
}

// TestErrorText checks the whole text of an error: position, message,
// excerpt and caret.
func TestErrorText(t *testing.T) {
	wantErrorText(t, "h.edn", "{:index 0 :type :invoke :value [[:send 1 2]]}\n{:index 1 :type :ok :value [[:send 1 [0 2]}\n",
		"h.edn:2:43: mismatched bracket: '}' does not close the '[' opened at line 2, column 29\n"+
			"{:index 1 :type :ok :value [[:send 1 [0 2]}\n"+
			"                                          ^")
}

// wantErrorText reads in as a file named name and checks that it fails
// with exactly the error text want.
func wantErrorText(t *testing.T, name, in, want string) {
	t.Helper()
	_, err := Read(strings.NewReader(in), name, Options{})
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

// TestErrorExcerpt checks the elision of long lines and tabs in the caret
// line.
func TestErrorExcerpt(t *testing.T) {
	line := "{:type :ok :x \"" + strings.Repeat("a", 200) + "\" :y \"\\q\" :z \"" + strings.Repeat("b", 200) + "\"}"
	_, err := Read(strings.NewReader(line), "h.edn", Options{})
	e := asError(t, err)
	if e.Col != 222 {
		t.Errorf("col %d, want 222", e.Col)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 {
		t.Fatalf("error has %d lines, want 3: %q", len(lines), err)
	}
	ex, caret := lines[1], lines[2]
	if !strings.HasPrefix(ex, "...") || !strings.HasSuffix(ex, "...") || len(ex) > 110 {
		t.Errorf("excerpt %q not elided to about 100 bytes", ex)
	}
	if i := strings.Index(caret, "^"); i < 0 || ex[i:i+2] != `\q` {
		t.Errorf("caret at %d does not point at \\q in %q", strings.Index(caret, "^"), ex)
	}

	_, err = Read(strings.NewReader("\t{:type\t:x}"), "h.edn", Options{})
	want := "h.edn:1:9: unknown :type :x\n\t{:type\t:x}\n\t      \t^"
	if err == nil || err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}

	e = &Error{File: "f", Line: 1, Col: 3, Msg: "m", Excerpt: "abcd"}
	if got := e.Error(); got != "f:1:3: m\nabcd\n  ^" {
		t.Errorf("hand-made error renders as %q", got)
	}
}

type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadFailure checks that a failing reader gives an *Error wrapping the
// cause, and that io.ErrUnexpectedEOF from a plain reader is a truncation.
func TestReadFailure(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := Read(&failingReader{data: []byte("{:type :invoke}\n{:type"), err: boom}, "h.edn", Options{})
	if e := asError(t, err); !errors.Is(err, boom) || e.Line != 2 {
		t.Errorf("got %v, want an *Error at line 2 wrapping the cause", err)
	}
	h, err := Read(&failingReader{data: []byte("{:type :invoke}\n"), err: io.ErrUnexpectedEOF}, "h.edn", Options{})
	if err != nil || !h.Truncated || len(h.Ops) != 1 {
		t.Errorf("got %v, %+v; want a truncated history of 1 op", err, h)
	}
}
