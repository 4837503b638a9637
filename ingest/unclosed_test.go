package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// Ops of the tests below, one per line.
const (
	ednOp0  = "{:index 0, :time 1, :type :invoke, :process 0, :f :send, :value [[:send 1 2]]}\n"
	ednOp2  = "{:index 2, :time 3, :type :invoke, :process 1, :f :poll, :value [[:poll]]}\n"
	ednOp3  = "{:index 3, :time 4, :type :ok, :process 1, :f :poll, :value [[:poll {1 [[0 2]]}]]}\n"
	jsonOp0 = `{"index": 0, "type": "invoke", "process": 0, "f": "send", "value": [["send", 1, 2]]}` + "\n"
	jsonOp2 = `{"index": 2, "type": "invoke", "process": 1, "f": "poll", "value": [["poll"]]}` + "\n"
)

// TestUnclosedOp checks that an op left unclosed before the next op begins is
// an *Error at the unclosed op's first byte naming what is left open, in
// every layout, and not a truncation.
func TestUnclosedOp(t *testing.T) {
	const notClosed = "the op that starts here is not closed before the next op begins on line "
	tests := []struct {
		name, file, in string
		line, col      int64
		msg            string // the whole message
	}{
		{"EDN one op per line, missing '}' - error at the op", "h.edn",
			ednOp0 + "{:index 1, :time 2, :type :ok, :process 0, :f :send, :value [[:send 1 [0 2]]]\n" + ednOp2 + ednOp3,
			2, 1, notClosed + "3: missing its closing '}'"},
		{"EDN one op per line, missing ']' and '}' - error at the op", "h.edn",
			ednOp0 + "{:index 1, :time 2, :type :ok, :process 0, :f :send, :value [[:send 1 [0 2]]\n" + ednOp2 + ednOp3,
			2, 1, notClosed + "3: missing ']}', the first for the '[' at line 2, column 61"},
		{"EDN one op per line, missing ']' before '}' - mismatched bracket at the '}'", "h.edn",
			ednOp0 + "{:index 1, :time 2, :type :ok, :process 0, :f :send, :value [[:send 1 [0 2]]}\n" + ednOp2,
			2, 77, "mismatched bracket: '}' does not close the '[' opened at line 2, column 61"},
		{"EDN one op per line, missing '\"' - error at the op", "h.edn",
			ednOp0 + "{:index 1, :time 2, :type :info, :process 0, :f :send, :error \"timeout, :value [[:send 1 2]]}\n" +
				"{:index 2, :time 3, :type :info, :process 1, :f :send, :error \"timeout\", :value [[:send 1 3]]}\n" + ednOp3,
			2, 1, notClosed + "3: missing '\"}', the first for the string at line 2, column 63"},
		{"EDN several ops per line, second one unclosed - error at the second", "h.edn",
			"{:index 0 :type :invoke :process 0} {:index 1 :type :ok :process 0 :value [[:send 1 2]\n" + ednOp2,
			1, 37, notClosed + "2: missing ']}', the first for the '[' at line 1, column 75"},
		{"EDN tagged records, one unclosed - error at its tag", "h.edn",
			"#jepsen.history.Op{:index 0, :type :invoke, :process 0, :f :poll, :value [[:poll]\n" +
				"#jepsen.history.Op{:index 1, :type :ok, :process 0, :f :poll, :value [[:poll {}]]}\n",
			1, 1, notClosed + "2: missing ']}', the first for the '[' at line 1, column 74"},
		{"EDN top-level vector with a missing close inside - error at the op", "h.edn",
			"[" + ednOp0 + " {:index 1, :time 2, :type :ok, :process 0, :f :send, :value [[:send 1 [0 2]]]\n " + ednOp2 + "]\n",
			2, 2, notClosed + "3: missing its closing '}'"},
		{"EDN pretty-printed ops, one unclosed - error at the op", "h.edn",
			"[{:index 0,\n  :type :invoke,\n  :process 0,\n  :f :poll,\n  :value\n  [[:poll]]\n" +
				" {:index 1,\n  :type :ok,\n  :value\n  [[:poll\n    {1 [[0 2]]}]]}]\n",
			1, 2, notClosed + "7: missing its closing '}'"},
		{"EDN unclosed discard before the next op - error at the op", "h.edn",
			"{:index 0 :type :invoke #_ \n" + ednOp2,
			1, 1, notClosed + "2: missing its closing '}'"},
		{"JSON Lines, missing '}' - error at the op", "h.json",
			jsonOp0 + `{"index": 1, "type": "ok", "process": 0, "f": "send", "value": [["send", 1, [0, 2]]]` + "\n" + jsonOp2,
			2, 1, notClosed + "3: missing its closing '}'"},
		{"JSON Lines, missing ']' and '}' - error at the op", "h.json",
			jsonOp0 + `{"index": 1, "type": "ok", "process": 0, "f": "send", "value": [["send", 1, [0, 2]]` + "\n" + jsonOp2,
			2, 1, notClosed + "3: missing ']}', the first for the '[' at line 2, column 64"},
		{"JSON Lines, missing '\"' - error at the op", "h.json",
			jsonOp0 + `{"index": 1, "type": "info", "process": 0, "error": "timeout}` + "\n" + jsonOp2,
			2, 1, notClosed + "3: missing '\"}', the first for the string at line 2, column 53"},
		{"JSON Lines, missing '}' then a comma - error at the op", "h.json",
			jsonOp0 + `{"index": 1, "type": "ok", "process": 0,` + "\n" + jsonOp2,
			2, 1, notClosed + "3: missing its closing '}'"},
		{"JSON array with a missing close inside - error at the op", "h.json",
			"[" + strings.TrimSuffix(jsonOp0, "\n") + ",\n" + `{"index": 1, "type": "ok", "process": 0, "value": [["send", 1, [0, 2]],` + "\n" + strings.TrimSuffix(jsonOp2, "\n") + "]\n",
			2, 1, notClosed + "3: missing ']}', the first for the '[' at line 2, column 51"},
		{"JSON indented array, one op unclosed - error at the op", "h.json",
			"[\n  {\n    \"index\": 0,\n    \"type\": \"invoke\",\n    \"value\": [\n      [\"poll\"]\n    ]\n  ,\n  {\n    \"index\": 1,\n    \"type\": \"ok\"\n  }\n]\n",
			2, 3, notClosed + "9: missing its closing '}'"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := ReadFile(p, Options{})
			if err == nil {
				t.Fatalf("no error; %d ops, truncated %v, warnings %q", len(h.Ops), h.Truncated, h.Warnings)
			}
			e := asError(t, err)
			if e.File != p || e.Line != tc.line || e.Col != tc.col || e.Msg != tc.msg {
				t.Errorf("got  %s:%d:%d: %s\nwant %s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg, p, tc.line, tc.col, tc.msg)
			}
			// The same error when every byte needs a refill of the buffer.
			_, err1 := Read(iotest.OneByteReader(strings.NewReader(tc.in)), p, Options{})
			if err1 == nil || err1.Error() != err.Error() {
				t.Errorf("read byte by byte: %v\nread in one piece: %v", err1, err)
			}
		})
	}
}

// TestUnclosedOpText checks the whole error text: excerpt of the unclosed
// op's line, caret at its first byte.
func TestUnclosedOpText(t *testing.T) {
	in := ednOp0 + "  {:index 1, :type :ok, :process 0, :f :send, :value [[:send 1 [0 2]]]\n  " + ednOp2
	wantErrorText(t, "h.edn", in,
		"h.edn:2:3: the op that starts here is not closed before the next op begins on line 3: missing its closing '}'\n"+
			"  {:index 1, :type :ok, :process 0, :f :send, :value...\n"+
			"  ^")
}

// TestUnclosedLastOp checks that an op that runs into the end of the input,
// plain or compressed, is still a truncation: a warning, not an error.
func TestUnclosedLastOp(t *testing.T) {
	tests := []struct {
		name, in string
		ops      int
		warn     string
	}{
		{"EDN last line missing '}' - truncated", ednOp0 + ednOp2 + "{:index 3, :type :ok, :process 1, :f :poll, :value [[:poll]]\n",
			2, "h:3:1: the input ends in the middle of the op that starts here; kept the 2 complete ops before it"},
		{"EDN last line a partial op - truncated", ednOp0 + ednOp2 + "{:index 3, :type :ok, :process 1, :f :poll, :value [[:poll {1 [[0",
			2, "h:3:1: the input ends in the middle of the op"},
		{"EDN last line missing '\"' - truncated", ednOp0 + ednOp2 + "{:index 3, :type :info, :process 1, :error \"timeout}\n",
			2, "h:3:1: the input ends in the middle of the op"},
		{"EDN pretty-printed last op cut - truncated", "[{:index 0,\n  :type :invoke,\n  :value\n  [[:poll]]}\n {:index 1,\n  :type :ok,\n  :value\n  [[:poll\n    {1 [[0 2]]",
			1, "h:5:2: the input ends in the middle of the op"},
		{"JSON last line missing '}' - truncated", jsonOp0 + jsonOp2 + `{"index": 3, "type": "ok", "process": 1, "value": [["poll"]]` + "\n",
			2, "h:3:1: the input ends in the middle of the op"},
		{"JSON last line missing ']' - truncated", jsonOp0 + jsonOp2 + `{"index": 3, "type": "ok", "process": 1, "value": [["poll"]` + "\n",
			2, "h:3:1: the input ends in the middle of the op"},
	}
	for _, tc := range tests {
		for _, c := range []struct {
			name string
			data []byte
		}{{"plain", []byte(tc.in)}, {"gzip", testpack.Gzip(t, []byte(tc.in))}, {"zstd", testpack.Zstd(t, []byte(tc.in))}} {
			t.Run(tc.name+" ("+c.name+")", func(t *testing.T) {
				h := readString(t, "h", string(c.data), Options{})
				if len(h.Ops) != tc.ops || !h.Truncated || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], tc.warn) {
					t.Errorf("%d ops, truncated %v, warnings %q; want %d ops, truncated, a warning containing %q",
						len(h.Ops), h.Truncated, h.Warnings, tc.ops, tc.warn)
				}
			})
		}
	}
	// A compressed stream cut off in the middle of a line: the bytes that
	// come out end inside an op, which is a truncation whatever follows it in
	// the full file.
	plain := synthHistory(20000, false)
	for _, c := range []struct {
		name string
		data []byte
	}{{"gzip", testpack.Gzip(t, plain)}, {"zstd", testpack.Zstd(t, plain)}} {
		for _, frac := range []int{4, 6, 8} {
			cut := c.data[:len(c.data)*frac/10]
			h, err := Read(bytes.NewReader(cut), "h", Options{})
			if err != nil || !h.Truncated || len(h.Ops) == 0 {
				t.Errorf("%s cut at %d/10: error %v, truncated %v", c.name, frac, err, h != nil && h.Truncated)
			}
		}
	}
}

// ednPretty lays out a one-op-per-line EDN history the way clojure.pprint
// lays out long maps: every entry of an op on a line of its own, one column
// right of the op's '{', and every nested map or set opening a line of its
// own, further right. With vector, the ops go into one top-level vector, at
// column 2.
func ednPretty(src []byte, vector bool) []byte {
	var out bytes.Buffer
	lines := bytes.Split(bytes.TrimSuffix(src, []byte("\n")), []byte("\n"))
	for n, line := range lines {
		col := 1 // of the op's '{'
		if vector {
			col = 2
			if n == 0 {
				out.WriteByte('[')
			} else {
				out.WriteByte(' ')
			}
		}
		depth, inStr := 0, false
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case inStr:
				if c == '\\' {
					out.WriteByte(c)
					i++
					c = line[i]
				} else if c == '"' {
					inStr = false
				}
			case c == '"':
				inStr = true
			case c == ',' && depth == 1 && i+1 < len(line) && line[i+1] == ' ':
				out.WriteString(",\n" + strings.Repeat(" ", col))
				i++
				continue
			case c == '{' && depth >= 2:
				set := i > 0 && line[i-1] == '#'
				if set {
					out.Truncate(out.Len() - 1)
				}
				out.WriteString("\n" + strings.Repeat(" ", col+depth))
				if set {
					out.WriteByte('#')
				}
				depth++
			case c == '{' || c == '[' || c == '(':
				depth++
			case c == '}' || c == ']' || c == ')':
				depth--
			}
			out.WriteByte(c)
		}
		if vector && n == len(lines)-1 {
			out.WriteByte(']')
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TestMultiLineOpsNotMisread checks that layouts where an op spans several
// lines, and nested maps (poll results, nemesis values, rebalance logs,
// exceptions, some with op field names as keys) open lines inside it, read
// as they do when each op is on one line.
func TestMultiLineOpsNotMisread(t *testing.T) {
	compactEDN := synthHistory(2000, false)
	compactJSON := synthHistory(2000, true)
	var indented bytes.Buffer
	if err := json.Indent(&indented, compactJSON, "", "  "); err != nil {
		t.Fatal(err)
	}
	var twoPerLine bytes.Buffer
	for i, l := range bytes.Split(bytes.TrimSuffix(compactEDN, []byte("\n")), []byte("\n")) {
		twoPerLine.Write(l)
		twoPerLine.WriteString([]string{" ", "\n"}[i%2])
	}
	tests := []struct {
		name        string
		in, compact []byte
	}{
		{"EDN pprint layout, one op after another - same ops", ednPretty(compactEDN, false), compactEDN},
		{"EDN pprint layout in a top-level vector - same ops", ednPretty(compactEDN, true), compactEDN},
		{"EDN two ops per line - same ops", twoPerLine.Bytes(), compactEDN},
		{"JSON indented array (json.Indent, Python, jq) - same ops", indented.Bytes(), compactJSON},
		{"EDN nested maps with op field keys opening lines - same ops", []byte(`{:index 0,
 :type :info,
 :process :nemesis,
 :f :start-partition,
 :value
 {:type :isolated,
  :index {"n1" #{"n2" "n3"}}}}
[{:index 1,
  :type :ok,
  :process 0,
  :f :assign,
  :value [1 2],
  :rebalance-log
  [{:type :assigned, :keys [1 2]}
   {:type :revoked,
    :keys [3]}]}
 {:index 2,
  :type :info,
  :process 1,
  :f :send,
  :value [[:send 1 2]],
  :error #error {
 :cause "boom"
 :via
 [{:type clojure.lang.ExceptionInfo
   :message "boom"}
  {:type java.net.SocketTimeoutException
   :message "Read timed out"}]}}
 {:index 3,
  :type :ok,
  :process 2,
  :f :poll,
  :value
  [[:poll
    {1
     [[0 2] [1 3]],
     2 []}]]}]
{:index 4, :type :info, :process 3, :error "a message
over lines
{:with a map} and {:type :ok}", :f :poll}
{:index 5, :type :info, :process :nemesis, :f :start-partition, :value
{"n1" ["n2"], "n2" ["n1"]}}
`), []byte(`{:index 0, :type :info, :process :nemesis, :f :start-partition, :value {:type :isolated, :index {"n1" #{"n2" "n3"}}}}
{:index 1, :type :ok, :process 0, :f :assign, :value [1 2], :rebalance-log [{:type :assigned, :keys [1 2]} {:type :revoked, :keys [3]}]}
{:index 2, :type :info, :process 1, :f :send, :value [[:send 1 2]], :error #error {
 :cause "boom"
 :via
 [{:type clojure.lang.ExceptionInfo
   :message "boom"}
  {:type java.net.SocketTimeoutException
   :message "Read timed out"}]}}
{:index 3, :type :ok, :process 2, :f :poll, :value [[:poll {1 [[0 2] [1 3]], 2 []}]]}
{:index 4, :type :info, :process 3, :error "a message
over lines
{:with a map} and {:type :ok}", :f :poll}
{:index 5, :type :info, :process :nemesis, :f :start-partition, :value
{"n1" ["n2"], "n2" ["n1"]}}
`)},
		{"JSON Jackson pretty printer layout - same ops", []byte(`[ {
  "index" : 0,
  "type" : "ok",
  "process" : 0,
  "f" : "assign",
  "value" : [ 1, 2 ],
  "rebalance_log" : [ {
    "type" : "assigned",
    "keys" : [ 1, 2 ]
  }, {
    "type" : "revoked",
    "keys" : [ 3 ]
  } ]
}, {
  "index" : 1,
  "type" : "ok",
  "process" : 1,
  "f" : "poll",
  "value" : [ [ "poll", {
    "1" : [ [ 0, 2 ] ]
  } ] ]
} ]
`), []byte(`[{"index": 0, "type": "ok", "process": 0, "f": "assign", "value": [1, 2], "rebalance_log": [{"type": "assigned", "keys": [1, 2]}, {"type": "revoked", "keys": [3]}]},
{"index": 1, "type": "ok", "process": 1, "f": "poll", "value": [["poll", {"1": [[0, 2]]}]]}]
`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if bytes.Equal(tc.in, tc.compact) {
				t.Fatalf("the layout under test is the compact one")
			}
			want := renderAll(readString(t, "compact", string(tc.compact), Options{}))
			h := readString(t, "pretty", string(tc.in), Options{})
			if h.Truncated || len(h.Warnings) > 0 {
				t.Errorf("truncated %v, warnings %q", h.Truncated, h.Warnings)
			}
			equalLines(t, renderAll(h), want)
		})
	}
}

// TestMultiLineCorpus lays out the smaller EDN histories of the shared
// corpus (nemesis partitions with nested maps and sets among them) as
// clojure.pprint would, and checks they read as the originals do.
func TestMultiLineCorpus(t *testing.T) {
	n := 0
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(f, ".edn") || len(data) > 500_000 || len(data) == 0 || data[0] != '{' {
			continue
		}
		n++
		want := renderAll(readString(t, "compact", string(data), Options{}))
		for _, vector := range []bool{false, true} {
			t.Run(filepath.Base(filepath.Dir(f))+fmt.Sprintf(" vector %v - same ops", vector), func(t *testing.T) {
				h := readString(t, "pretty", string(ednPretty(data, vector)), Options{})
				if h.Truncated || len(h.Warnings) > 0 {
					t.Errorf("truncated %v, warnings %q", h.Truncated, h.Warnings)
				}
				equalLines(t, renderAll(h), want)
			})
		}
	}
	if n == 0 {
		t.Fatal("no corpus history of at most 500 kB starts with '{'")
	}
}
