package ingest

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/model"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc, the
// sum of every allocation, garbage included).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNestingLimit checks that a form nested past MaxNesting is an *Error
// at the bracket that passes it, in EDN and JSON, read from a reader (and,
// for the 20 MB cases, from a file: the parallel reader), and that 20 MB
// of brackets costs a bounded amount of memory (4 GB before the limit).
func TestNestingLimit(t *testing.T) {
	deep := func(prefix, open string) string { return prefix + strings.Repeat(open, (20<<20)/len(open)) }
	msg := func(what string) string {
		return fmt.Sprintf("too deeply nested: this %s opens level %d, past the limit of %d nested forms", what, MaxNesting+1, MaxNesting)
	}
	tests := []struct {
		name, in string
		format   Format
		col      int64
		msg      string
	}{
		{"EDN 20 MB of '{' - error at the 1001st", deep("", "{"), FormatAuto, MaxNesting + 1, msg("'{'")},
		{"EDN '[' in an op's value - error at level 1001", deep("{:type :ok :value ", "["), FormatAuto, 18 + MaxNesting, msg("'['")},
		{"EDN '(' in a key - error at level 1001", deep("{:type :ok ", "("), FormatAuto, 11 + MaxNesting, msg("'('")},
		{"EDN '#{' - error at level 1001", deep("{:type :ok :value ", "#{"), FormatEDN, 19 + 2*(MaxNesting-1), msg("'#{'")},
		{"EDN '#object[' - error at level 1001", deep("{:type :ok :x ", "#object["), FormatEDN, 22 + 8*(MaxNesting-1), msg("'['")},
		{"EDN '#_' - error at level 1001", deep("{:type :ok ", "#_"), FormatEDN, 12 + 2*(MaxNesting-1), msg("#_")},
		{"EDN '[' inside the top-level vector's op - error at level 1001", deep("[{:type :ok :value ", "["), FormatAuto, 19 + MaxNesting - 1, msg("'['")},
		{"JSON 20 MB of '[' in a value - error at level 1001", deep(`{"type": "ok", "value": `, "["), FormatAuto, 25 + MaxNesting - 1, msg("'['")},
		{"JSON '{' in values - error at level 1001", deep(`[{"type": "ok", "value": `, `{"a":`), FormatJSON, 26 + 5*(MaxNesting-2), msg("'{'")},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			check := func(how string, err error, alloc uint64) {
				t.Helper()
				e := asError(t, err)
				if e.Line != 1 || e.Col != tc.col || e.Msg != tc.msg {
					t.Errorf("%s: got %d:%d: %s\nwant 1:%d: %s", how, e.Line, e.Col, e.Msg, tc.col, tc.msg)
				}
				if alloc > 200<<20 {
					t.Errorf("%s: %d MB allocated reading %d MB", how, alloc>>20, len(data)>>20)
				}
			}
			var err error
			a := allocated(func() { _, err = Read(bytes.NewReader(data), "h", Options{Format: tc.format}) })
			check("Read", err, a)
			if !strings.Contains(tc.name, "20 MB") {
				return
			}
			p := filepath.Join(dir, "h")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			a = allocated(func() { _, err = ReadFile(p, Options{Format: tc.format, Workers: 2}) })
			check("ReadFile", err, a)
		})
	}
}

// TestNestingAtLimit checks that forms nested exactly MaxNesting deep, the
// op map included, are read.
func TestNestingAtLimit(t *testing.T) {
	n := MaxNesting - 1 // inside the op's map
	edn := "{:type :ok :x " + strings.Repeat("[", n) + strings.Repeat("]", n) + " :value [[:send 1 2]]}\n" + threeOps
	json := `{"type": "ok", "x": ` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}\n"
	discard := "{:type :ok " + strings.Repeat("#_", n) + strings.Repeat(":a ", n) + "}\n"
	for _, in := range []string{edn, json, discard} {
		h := readString(t, "h", in, Options{})
		if len(h.Ops) == 0 {
			t.Errorf("no ops in %.40q", in)
		}
	}
}

// crOnly and crlf rewrite the line breaks of an LF text.
func crOnly(s string) string { return strings.ReplaceAll(s, "\n", "\r") }
func crlf(s string) string   { return strings.ReplaceAll(s, "\n", "\r\n") }

// TestCROnly checks that a file whose lines end in a lone CR (old Mac
// style) reads as its LF version: the same ops, lines and warnings, ';'
// comments ending at the CR, and errors at the same line and column. It
// also holds for CRLF, and for the parallel reader.
func TestCROnly(t *testing.T) {
	ednHist := "; a history\n; with comments\n" + threeOps +
		"{:index 3, :time 4, ; a comment inside an op\n :type :ok, :process 0, :f :poll,\n :value [[:poll {\"a\" [[0 1]]}]]}\n" +
		"#_ {:index 99\n :type :ok}\n{:index 4 :type :info :process 1 :f :send :error \"two lines\"}\n"
	jsonHist := "[" + strings.TrimSuffix(jsonOp0, "\n") + ",\n" + strings.TrimSuffix(jsonOp2, "\n") + ",\n {\"index\": 3,\n  \"type\": \"ok\"}]\n"
	for _, tc := range []struct{ name, in string }{
		{"EDN", ednHist},
		{"JSON", jsonHist},
		{"EDN cut off - truncated", ednHist + "{:index 9\n :type"},
		{"EDN many ops", string(synthHistory(300, false))},
	} {
		want := readString(t, "h", tc.in, Options{})
		if len(want.Ops) < 3 {
			t.Fatalf("%s: %d ops in the LF version", tc.name, len(want.Ops))
		}
		for _, conv := range []struct {
			name string
			f    func(string) string
		}{{"CR", crOnly}, {"CRLF", crlf}} {
			t.Run(tc.name+" "+conv.name+" - same as LF", func(t *testing.T) {
				data := []byte(conv.f(tc.in))
				got := readString(t, "h", string(data), Options{})
				if d := sameHistory(got, want); d != "" {
					t.Error(d)
				}
				fuzzRead(t, data, Options{}) // byte by byte, without the fast path, in blocks
				if h, ok, err := readBlocks(data, "h", Options{}, 2, 200); ok && (err != nil || sameHistory(h, want) != "") {
					t.Errorf("in blocks: error %v, %s", err, sameHistory(h, want))
				}
			})
		}
	}
	// errors: the same position and message as in the LF version
	for _, in := range []string{
		threeOps + "{:index 3 :type :bogus}\n",
		"; comment\n" + threeOps + "; {:index 3 :type :ok}\n{:index 3\n :type :ok :value [[:send 1 2]}\n",
		"{:index 0 :type :ok :error \"a\nb\" :x ]}\n",
		"{\"type\": \"ok\",\n \"x\": nul}\n",
	} {
		_, want := Read(strings.NewReader(in), "h", Options{})
		we := asError(t, want)
		for _, conv := range []func(string) string{crOnly, crlf} {
			_, err := Read(strings.NewReader(conv(in)), "h", Options{})
			e := asError(t, err)
			if e.Line != we.Line || e.Col != we.Col || e.Msg != we.Msg {
				t.Errorf("%q: got %d:%d: %s\nwant %d:%d: %s", conv(in), e.Line, e.Col, e.Msg, we.Line, we.Col, we.Msg)
			}
		}
	}
}

// TestCROnlyFile checks that ReadFile reads a large CR-only file (which
// the parallel reader leaves to the sequential one) with the right lines.
func TestCROnlyFile(t *testing.T) {
	lf := synthHistory(120000, false)
	want := readString(t, "h", string(lf), Options{})
	p := filepath.Join(t.TempDir(), "h")
	for _, conv := range []func(string) string{crOnly, crlf} {
		if err := os.WriteFile(p, []byte(conv(string(lf))), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		got.Source = want.Source
		if d := sameHistory(got, want); d != "" {
			t.Error(d)
		}
	}
}

// TestNULTail checks that NUL bytes that end the input, what a writer that
// crashed leaves, read as a truncation: the complete ops before them kept,
// the history truncated, and one warning where they begin; plain and
// compressed, EDN and JSON Lines, after a complete or a partial op, read
// in one piece, byte by byte and in blocks.
func TestNULTail(t *testing.T) {
	ednPartial := "{:index 3, :type :ok, :process 0, :f :poll, :value [[:poll {\"a\" [[0"
	tests := []struct {
		name, in string
		ops      int
		warn     string // a part of the single warning
	}{
		{"EDN complete ops then NULs - truncated", threeOps, 3,
			"h:4:1: the input ends in %d NUL bytes from here, as a writer that crashed leaves it; kept the 3 complete ops before it"},
		{"EDN a partial op then NULs - truncated", threeOps + ednPartial, 3,
			"h:4:68: the input ends in %d NUL bytes from here, as a writer that crashed leaves it, inside the op that starts at line 4, column 1; kept the 3 complete ops before it"},
		{"EDN a partial string then NULs - truncated", threeOps + `{:index 3, :type :info, :error "conn`, 3,
			"h:4:37: the input ends in %d NUL bytes from here, as a writer that crashed leaves it, inside the op that starts at line 4, column 1;"},
		{"EDN a partial keyword then NULs - truncated", threeOps + "{:index 3 :", 3, "h:4:12: the input ends in %d NUL bytes"},
		{"EDN a comment then NULs - truncated", threeOps + "; the end", 3, "h:4:10: the input ends in %d NUL bytes"},
		{"EDN top-level vector then NULs - truncated", "[" + threeOps, 3,
			"h:4:1: the input ends in %d NUL bytes from here, as a writer that crashed leaves it, inside the top-level vector opened at line 1, column 1; kept the 3"},
		{"EDN nothing but NULs - truncated", "", 0, "h:1:1: the input ends in %d NUL bytes"},
		{"JSON Lines complete ops then NULs - truncated", jsonOp0 + jsonOp2, 2,
			"h:3:1: the input ends in %d NUL bytes from here, as a writer that crashed leaves it; kept the 2 complete ops before it"},
		{"JSON Lines a partial op then NULs - truncated", jsonOp0 + jsonOp2 + `{"index": 3, "type": "ok", "va`, 2,
			"h:3:31: the input ends in %d NUL bytes from here, as a writer that crashed leaves it, inside the op that starts at line 3, column 1"},
		{"JSON Lines after a key then NULs - truncated", jsonOp0 + `{"index": 3, "type": "ok", "value": `, 1,
			"h:2:37: the input ends in %d NUL bytes"},
	}
	for _, tc := range tests {
		for _, nuls := range []int{1, 4096, 300 << 10} {
			in := tc.in + strings.Repeat("\x00", nuls)
			warn := fmt.Sprintf(tc.warn, nuls)
			for _, c := range []struct {
				name string
				data []byte
			}{{"plain", []byte(in)}, {"gzip", testpack.Gzip(t, []byte(in))}} {
				t.Run(fmt.Sprintf("%s, %d NULs (%s)", tc.name, nuls, c.name), func(t *testing.T) {
					opts := Options{}
					if strings.HasPrefix(tc.name, "JSON") {
						opts.Format = FormatJSON
					}
					h := readString(t, "h", string(c.data), opts)
					if len(h.Ops) != tc.ops || !h.Truncated || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], warn) {
						t.Errorf("%d ops, truncated %v, warnings %q; want %d ops, truncated, a warning containing %q",
							len(h.Ops), h.Truncated, h.Warnings, tc.ops, warn)
					}
					if c.name == "plain" && nuls < 5000 {
						fuzzRead(t, c.data, opts)
					}
				})
			}
		}
	}
	// A NUL byte anywhere else is an error, shown in the excerpt as \x00.
	_, err := Read(strings.NewReader(threeOps+"{:index 3 :type :ok}\x00\n{:index 4 :type :ok}\n"), "h", Options{})
	want := "h:4:21: unexpected byte 0x00\n{:index 3 :type :ok}\\x00\n                    ^"
	if err == nil || err.Error() != want {
		t.Errorf("a NUL byte before more ops: got\n%v\nwant\n%s", err, want)
	}
	_, err = Read(strings.NewReader(jsonOp0+"\x00\x00 "+jsonOp2), "h", Options{})
	if e := asError(t, err); e.Line != 2 || e.Col != 1 || e.Msg != "unexpected byte 0x00" {
		t.Errorf("JSON: a NUL byte before more ops: got %v", err)
	}
}

// TestGzipNULTail checks that NUL bytes after the last complete member of
// a gzip file (the compressed file padded by a crash) read as a truncation,
// that members still follow one another, and that anything else after a
// member is still an error.
func TestGzipNULTail(t *testing.T) {
	gz := func(s string) string { return string(testpack.Gzip(t, []byte(s))) }
	nuls := strings.Repeat("\x00", 100<<10)
	for _, tc := range []struct {
		name, in, json string
		ops            int
		warn           string // the single warning; "" for none
	}{
		{"EDN one member then NULs - truncated", gz(threeOps) + nuls, "", 3,
			"h:4:1: the gzip stream ends in 102400 NUL bytes after its last complete member, as a writer that crashed leaves it; kept the 3 complete ops before it"},
		{"EDN two members then NULs - truncated", gz(threeOps) + gz("{:index 3, :type :ok, :process 0, :f :poll") + nuls, "", 3,
			"h:4:43: the gzip stream ends in 102400 NUL bytes after its last complete member, as a writer that crashed leaves it, inside the op that starts at line 4, column 1; kept the 3 complete ops before it"},
		{"JSON Lines one member then NULs - truncated", gz(jsonOp0+jsonOp2) + nuls, "json", 2,
			"h:3:1: the gzip stream ends in 102400 NUL bytes after its last complete member"},
		{"EDN two members - valid", gz(threeOps) + gz("{:index 3, :type :ok, :process 0, :f :poll, :value [[:poll]]}\n"), "", 4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{}
			if tc.json != "" {
				opts.Format = FormatJSON
			}
			h := readString(t, "h", tc.in, opts)
			want := 0
			if tc.warn != "" {
				want = 1
			}
			if len(h.Ops) != tc.ops || h.Truncated != (tc.warn != "") || len(h.Warnings) != want || want == 1 && !strings.HasPrefix(h.Warnings[0], tc.warn) {
				t.Errorf("%d ops, truncated %v, warnings %q; want %d ops, a warning %q", len(h.Ops), h.Truncated, h.Warnings, tc.ops, tc.warn)
			}
		})
	}
	garbage := strings.Repeat("x", 20) // a header's length: one byte is a cut header
	for _, in := range []string{gz(threeOps) + garbage, gz(threeOps) + nuls + "x"} {
		_, err := Read(strings.NewReader(in), "h", Options{})
		if e := asError(t, err); !strings.Contains(e.Msg, "gzip: invalid header") {
			t.Errorf("%d bytes after a member: %v", len(in)-len(gz(threeOps)), err)
		}
	}
}

// TestNULTailFile checks a large NUL-padded file read by ReadFile, whose
// last block (parallel.go) holds the NUL bytes.
func TestNULTailFile(t *testing.T) {
	for _, json := range []bool{false, true} {
		data := synthHistory(100000, json)
		want := readString(t, "h", string(data), Options{})
		data = append(data, make([]byte, 1<<20)...)
		p := filepath.Join(t.TempDir(), "h")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := ReadFile(p, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		lines := int64(bytes.Count(data, []byte{'\n'})) + 1
		w := fmt.Sprintf("%s:%d:1: the input ends in %d NUL bytes from here", p, lines, 1<<20)
		if len(h.Ops) != len(want.Ops) || !h.Truncated || len(h.Warnings) != 1 || !strings.HasPrefix(h.Warnings[0], w) {
			t.Errorf("%d ops, truncated %v, warnings %q; want %d ops, truncated, a warning %q...",
				len(h.Ops), h.Truncated, h.Warnings, len(want.Ops), w)
		}
	}
}

// TestWideColumns checks that lines and columns past 2^31 are kept whole
// (they were cut to 2^31-1): a line of 4 GB is not practical in a test, so
// the position is made by hand.
func TestWideColumns(t *testing.T) {
	d := newDecoder(newLexer(strings.NewReader("")), model.NewBuilder("h"), "h")
	at := srcPos{off: 5<<30 + 9, line: 3<<30 + 1, lineStart: 1 << 30}
	e := d.toError(&lexErr{at: at, msg: "m"}, nil)
	if e.Line != 3<<30+1 || e.Col != 4<<30+10 {
		t.Errorf("at %d:%d, want %d:%d", e.Line, e.Col, int64(3<<30+1), int64(4<<30+10))
	}
	if got, want := e.Error(), "h:3221225473:4294967306: m"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &Error{File: "f", Line: 1, Col: 5 << 30, Msg: "m", Excerpt: "abc"}
	if got, want := e.Error(), "f:1:5368709120: m\nabc\n   ^"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestExcerptControlBytes checks that an excerpt shows control bytes and
// bytes that are not UTF-8 as \xNN, and puts the caret under the right one.
func TestExcerptControlBytes(t *testing.T) {
	wantErrorText(t, "h", "{:type :ok :x \"a\x01\xff\" :y \x7f}",
		"h:1:24: unexpected byte 0x7f\n{:type :ok :x \"a\\x01\\xff\" :y \\x7f}\n"+strings.Repeat(" ", 29)+"^")
}

// TestLongTransactionKeepsEveryMicroOp reads ops with more micro-ops than
// an op's own count holds (model.MopRef), around that count and far past
// it, in EDN and JSON, and wants every micro-op back in order, the ops
// around them untouched. (TestPackageInBlocks runs it through the parallel
// reader too.)
func TestLongTransactionKeepsEveryMicroOp(t *testing.T) {
	for _, n := range []int{1<<16 - 2, 1<<16 - 1, 1 << 16, 70_000} {
		for _, json := range []bool{false, true} {
			var sb strings.Builder
			mop := func(i int) string {
				if json {
					return fmt.Sprintf(`["append", %d, %d]`, i%5, i)
				}
				return fmt.Sprintf("[:append %d %d]", i%5, i)
			}
			op := func(typ string, index, mops int) {
				parts := make([]string, mops)
				for i := range parts {
					parts[i] = mop(i)
				}
				if json {
					fmt.Fprintf(&sb, `{"index": %d, "type": %q, "process": 0, "f": "txn", "value": [%s]}`+"\n", index, typ, strings.Join(parts, ", "))
				} else {
					fmt.Fprintf(&sb, "{:index %d, :type :%s, :process 0, :f :txn, :value [%s]}\n", index, typ, strings.Join(parts, " "))
				}
			}
			op("invoke", 0, 1)
			op("ok", 1, 1)
			op("invoke", 2, n)
			op("ok", 3, n)
			op("invoke", 4, 2)
			op("ok", 5, 2)
			h := readString(t, "long", sb.String(), Options{})
			for pos, want := range []int{0, 1, 0, n, 0, 2} {
				mops := h.MopsOf(&h.Ops[pos])
				if len(mops) != want {
					t.Fatalf("%d micro-ops, json %v: op %d has %d, want %d", n, json, pos, len(mops), want)
				}
				for i, m := range mops {
					if m.Kind != model.MopAppend || h.KeyAtom(m.Key).Int != int64(i%5) || h.Values[h.Msgs[m.Msg].Val].Int != int64(i) {
						t.Fatalf("%d micro-ops, json %v: op %d micro-op %d is %+v", n, json, pos, i, m)
					}
				}
			}
		}
	}
}

// TestWideSpansAndOffsets reads list reads and polls whose spans are too
// long for a micro-op to hold itself, and sends whose offsets are too far
// out, each beside ordinary ones, so that model.History.MopWide holds some
// of them and (in TestPackageInBlocks' runs) several blocks' MopWide are
// joined: every list, poll and offset must come back whole.
func TestWideSpansAndOffsets(t *testing.T) {
	list := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strconv.Itoa(i)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	poll := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("%d [[%d %d]]", 10+i, i, 7*i)
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	lengths := []int{3, 1<<16 - 1, 2, 70_000, 1<<16 - 2}
	offsets := []int64{5, -3, 1 << 50, math.MaxInt64, 0, math.MinInt64 + 1}
	var sb strings.Builder
	idx := 0
	op := func(typ, f, value string) {
		fmt.Fprintf(&sb, "{:index %d :type :%s :process 0 :f :%s :value %s}\n", idx, typ, f, value)
		idx++
	}
	for _, n := range lengths {
		op("invoke", "txn", "[[:r 1 nil]]")
		op("ok", "txn", "[[:r 1 "+list(n)+"]]")
	}
	for _, n := range lengths {
		op("invoke", "poll", "[[:poll]]")
		op("ok", "poll", "[[:poll "+poll(n)+"]]")
	}
	for i, off := range offsets {
		op("invoke", "send", fmt.Sprintf("[[:send 3 %d]]", i))
		op("ok", "send", fmt.Sprintf("[[:send 3 [%d %d]]]", off, i))
	}
	h := readString(t, "wide", sb.String(), Options{})
	pos := 1
	for _, n := range lengths {
		m := &h.MopsOf(&h.Ops[pos])[0]
		es := h.ElemsOf(m)
		if len(es) != n {
			t.Fatalf("list read of %d elements: %d back", n, len(es))
		}
		for i, e := range es {
			if h.MsgValue(e).Int != int64(i) {
				t.Fatalf("list read of %d elements: element %d is %v", n, i, h.MsgValue(e))
			}
		}
		pos += 2
	}
	for _, n := range lengths {
		kps := h.PollsOf(&h.MopsOf(&h.Ops[pos])[0])
		if len(kps) != n {
			t.Fatalf("poll of %d keys: %d back", n, len(kps))
		}
		for i := range kps {
			rs := h.ReadsOf(&kps[i])
			if h.KeyAtom(kps[i].Key).Int != int64(10+i) || len(rs) != 1 || rs[0].Offset() != int64(i) || h.MsgValue(rs[0].Msg).Int != int64(7*i) {
				t.Fatalf("poll of %d keys: key %d is %v %v", n, i, h.KeyAtom(kps[i].Key), rs)
			}
		}
		pos += 2
	}
	for _, off := range offsets {
		m := &h.MopsOf(&h.Ops[pos])[0]
		if got := h.Offset(m); got != off || !m.Done || !m.HasOffset() {
			t.Errorf("send at offset %d: read back %d", off, got)
		}
		pos += 2
	}
}

// TestManyKeysMemory reads histories of many integer keys, each written
// and read once (the shape of Jepsen's list-append and rw-register runs,
// which retire a key after a few writes), with small values and with large
// ones, sequentially and in parallel blocks, and bounds what the read
// allocates per key. A key's dense value table (decoder.msgInt) used to
// start at 64 entries, 256 bytes for a key of one value, in every decoder
// that met it: 300k keys of one value took the check of a 106 MB history
// to a peak RSS of 220 to 228 MB, 154 to 172 MB with tables from 8
// entries. And it used to start at index 0, where a block of a parallel
// read puts a key's first value at winSlack: 4 KB a key of one large
// value (one poll of 500k keys, 10 MB, took 2.2 GB).
func TestManyKeysMemory(t *testing.T) {
	if testBlock > 0 {
		t.Skip("measures the reader's own block sizes, not TestPackageInBlocks' tiny ones")
	}
	const keys = 70000
	// measured (garbage included; the same in every run and on one
	// core), bytes a key read sequentially and in parallel blocks: small
	// values 831 and 1,255; large values 1,057 and 1,586 (1,226 and 6,582
	// with tables from a block's base); two values 60 apart, within one
	// key's bound, 1,215 and 1,981 (1,351 and 2,178 without the bound on a
	// decoder's tables together). The rest is the keys' own (atoms, the
	// builder's and the decoder's maps, grown by doubling) and the ops.
	for _, shape := range []struct {
		name       string
		value      func(k int) int
		spread     int // the second write's value is the first's plus this
		seq, inPar uint64
	}{
		{"small values", func(int) int { return 1 }, 0, 1100, 1600},
		{"large values", func(k int) int { return 1_000_000 + k }, 0, 1350, 2000},
		{"two values 60 apart", func(k int) int { return 1_000_000 + k }, 60, 1270, 2060},
	} {
		var b bytes.Buffer
		i := 0
		for k := range keys {
			v := shape.value(k)
			w, r := fmt.Sprintf("[[:w %d %d]]", k, v), fmt.Sprintf("[[:r %d %d]]", k, v)
			w2 := fmt.Sprintf("[[:w %d %d]]", k, v+shape.spread)
			for _, mops := range []string{w, w, fmt.Sprintf("[[:r %d nil]]", k), r, w2, w2} {
				typ := ":invoke"
				if i%2 == 1 {
					typ = ":ok"
				}
				fmt.Fprintf(&b, "{:index %d, :time %d, :type %s, :process %d, :f :txn, :value %s}\n", i, i, typ, k%10, mops)
				i++
			}
		}
		p := filepath.Join(t.TempDir(), "h.edn")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if !ReadsInParallel(p, Options{Workers: 2}) {
			t.Fatalf("a %d-byte history is not read in parallel: the test needs a larger one", b.Len())
		}
		for _, tc := range []struct {
			name   string
			read   func() (*model.History, error)
			perKey uint64
		}{
			{"Read", func() (*model.History, error) { return Read(bytes.NewReader(b.Bytes()), "h", Options{}) }, shape.seq},
			{"ReadFile in parallel", func() (*model.History, error) { return ReadFile(p, Options{Workers: 2}) }, shape.inPar},
		} {
			var h *model.History
			var err error
			a := allocated(func() { h, err = tc.read() })
			if msgs := keys * (1 + min(shape.spread, 1)); err != nil || len(h.Keys) != keys || len(h.Msgs) != msgs {
				t.Fatalf("%s, %s: %v, %d keys, %d messages", shape.name, tc.name, err, len(h.Keys), len(h.Msgs))
			}
			if perKey := a / keys; perKey > tc.perKey {
				t.Errorf("%s, %s: %d bytes allocated a key (%d MB for %d keys, %d MB of EDN)", shape.name, tc.name, perKey, a>>20, keys, b.Len()>>20)
			}
		}
	}
}

// TestSparseValuesLinear: the decoder's dense tables of integers (a key's
// messages by value, cover; all values, decoder.val) grow in proportion to
// what they hold, whatever the spacing of the values. Grown just enough to
// cover each new value (or a thousand more), a key's table was copied
// whole every value or two for a key whose values step by 2 or 3 or leave
// one in ten out (checking 100k txns writing the even numbers took 18.0 s,
// 200k 48.9 s): reading 4n such txns allocated 15 to 16 times what n did.
// Here 4n may allocate at most 6 times, and at most 4 KB a txn.
func TestSparseValuesLinear(t *testing.T) {
	if testBlock > 0 {
		t.Skip("measures the reader's own block sizes, not TestPackageInBlocks' tiny ones")
	}
	oneKey := func(int) int { return 1 }
	for _, shape := range []struct {
		name  string
		value func(i int) int
	}{
		{"even values", func(i int) int { return 2 * i }},
		{"one in ten left out", func(i int) int { return i + i/9 }},
		{"every third value", func(i int) int { return 3 * i }},
		{"dense", func(i int) int { return i }},
	} {
		sparseValuesLinear(t, shape.name, 4000, oneKey, shape.value)
	}
	// the table of values, over every key: a few thousand values are too
	// few to show how it grew
	sparseValuesLinear(t, "even values, a key each", 50000, func(i int) int { return i }, func(i int) int { return 2 * i })
	// and grown downward (coverVal), from the first value a block of a
	// parallel read meets
	sparseValuesLinear(t, "falling even values, a key each, in blocks", 50000, func(i int) int { return i }, func(i int) int { return 1_000_000 - 2*i })
	sparseValuesLinear(t, "falling values, a key each, in blocks", 50000, func(i int) int { return i }, func(i int) int { return 1_000_000 - i })
}

// sparseValuesLinear fails t when reading 4n txns, the ith writing
// value(i) to key(i), allocates more than 6 times what reading n does, or
// more than 4 KB a txn. A name ending in "in blocks" reads them in blocks
// of a parallel read.
func sparseValuesLinear(t *testing.T, name string, n int, key, value func(int) int) {
	t.Helper()
	alloc := func(n int) uint64 {
		var b bytes.Buffer
		for i := range n {
			k, v := key(i), value(i)
			fmt.Fprintf(&b, "{:index %d, :type :invoke, :process 0, :f :txn, :value [[:w %d %d]]}\n", 2*i, k, v)
			fmt.Fprintf(&b, "{:index %d, :type :ok, :process 0, :f :txn, :value [[:w %d %d]]}\n", 2*i+1, k, v)
		}
		var h *model.History
		var err error
		got := allocated(func() {
			if strings.HasSuffix(name, "in blocks") {
				// blocks of 1 MiB, read on two workers: each block's
				// table starts at the first value it meets
				var ok bool
				h, ok, err = readBlocks(b.Bytes(), "h", Options{}, 2, 1<<20)
				if !ok {
					t.Fatalf("%s: read sequentially", name)
				}
				return
			}
			h, err = Read(bytes.NewReader(b.Bytes()), "h", Options{})
		})
		if err != nil || len(h.Msgs) != n {
			t.Fatalf("%s: %v, %d messages, want %d", name, err, len(h.Msgs), n)
		}
		return got
	}
	small, large := alloc(n), alloc(4*n)
	t.Logf("%s: %.1f times, %d bytes a txn", name, float64(large)/float64(small), large/uint64(4*n))
	if large > 6*small {
		t.Errorf("%s: %d txns allocated %d bytes, %d txns %d: %.1f times", name, n, small, 4*n, large, float64(large)/float64(small))
	}
	// a table regrown too often within each block grows with the block,
	// not with the txns: 15 to 30 KB a txn in 1 MiB blocks, against 1.3
	if per := large / uint64(4*n); per > 4096 {
		t.Errorf("%s: %d bytes allocated a txn", name, per)
	}
}
