package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// fuzzRead reads data twice, in one piece and one byte at a time, and checks
// that it never panics, that errors are *Error with a position, that
// histories are consistent, and that both reads agree (the buffer refills at
// every byte in the second).
func fuzzRead(t *testing.T, data []byte, opts Options) {
	h, err := Read(bytes.NewReader(data), "fuzz", opts)
	h1, err1 := Read(iotest.OneByteReader(bytes.NewReader(data)), "fuzz", opts)
	// without the fast path: the same history, or the same error
	hs, errs := Read(bytes.NewReader(data), "fuzz", Options{Format: opts.Format, noFast: true, Decoders: opts.Decoders})
	if (err == nil) != (errs == nil) || err != nil && err.Error() != errs.Error() {
		t.Fatalf("read with the fast path: %v; without: %v", err, errs)
	}
	if err == nil {
		if d := sameHistory(h, hs); d != "" {
			t.Fatalf("read with the fast path: %s", d)
		}
	}
	// in parallel, in blocks of a few lines: the same history, or a
	// fallback to the sequential read (always so for an error)
	if hp, ok, errp := readBlocks(data, "fuzz", opts, 2, 1+len(data)%23); ok {
		if err != nil || errp != nil {
			t.Fatalf("read in blocks: error %v; read in one piece: %v", errp, err)
		}
		if d := sameHistory(hp, h); d != "" {
			t.Fatalf("read in blocks: %s", d)
		}
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *Error", err, err)
		}
		if e.Line < 1 || e.Col < 1 {
			t.Fatalf("error at %d:%d: %v", e.Line, e.Col, err)
		}
		_ = e.Error()
		var e1 *Error
		if !errors.As(err1, &e1) || e1.Line != e.Line || e1.Col != e.Col || e1.Msg != e.Msg {
			t.Fatalf("read in one piece: %v\nread byte by byte: %v", err, err1)
		}
		return
	}
	if err1 != nil {
		t.Fatalf("read in one piece: no error; read byte by byte: %v", err1)
	}
	if err := checkHistory(h); err != nil {
		t.Fatal(err)
	}
	if err := replay(h); err != nil {
		t.Fatal(err)
	}
	// a truncated history has one warning saying so; any history may
	// have one of a :time that is not an integer
	var truncation, times int
	for _, w := range h.Warnings {
		if strings.Contains(w, ", not an integer: an op whose") {
			times++
		} else {
			truncation++
		}
	}
	if h.Truncated != (truncation == 1) || truncation > 1 || times > 1 {
		t.Fatalf("truncated %v with warnings %q", h.Truncated, h.Warnings)
	}
	a, b := renderAll(h), renderAll(h1)
	if strings.Join(a, "\n") != strings.Join(b, "\n") || h.Truncated != h1.Truncated ||
		fmt.Sprint(h.Warnings) != fmt.Sprint(h1.Warnings) {
		t.Fatalf("read in one piece:\n%s\n%q\nread byte by byte:\n%s\n%q",
			strings.Join(a, "\n"), h.Warnings, strings.Join(b, "\n"), h1.Warnings)
	}
	for i := range h.Ops {
		if h.Line(i) != h1.Line(i) || h.Line(i) < 1 {
			t.Fatalf("op %d: line %d and %d", i, h.Line(i), h1.Line(i))
		}
	}
}

// FuzzEDN reads arbitrary bytes with format detection (seeds are EDN).
func FuzzEDN(f *testing.F) {
	for _, s := range []string{
		threeOps,
		`{:index 3, :time 4, :type :ok, :process 0, :f :poll, :value [[:poll {"a" [[0 1] [1 2]] "b" []}]]}`,
		`[#jepsen.history.Op{:type :invoke :process 0 :f :txn :value [[:send 1 2] [:poll]]}]`,
		`{:type :info :process :nemesis :f :kill :value #{"n1"} :error #error {:cause "x"} :at #inst "2024"}`,
		"; c\n{:type :fail,, :process 1 :f :send :value [[:send 1 [nil 2]]] #_ :x}",
		`{:type :ok :f :send :value [[:send 99999999999999999999N [3 1/2]] [:send \a 1.5M]]}`,
		`{:type :ok :f :assign :value [1 "2" :three] :rebalance-log [{:keys [1 2]}]}`,
		`{:type "ok" :value [[:append 1 2] [:r 1 [1 2]]]}`,
		`{:index 1 :type :ok :value [[:send 1 [0 2]}`,
		`{:type :ok :error "a\"b\u00e9\n"}`,
		`({:type :invoke} {:type :ok}) [{:type :info}`,
		"{:type :invoke :value [[:send 1",
		"##Inf #\"re\" \\newline",
		"{:index 0 :type :ok :value [[:send 1 2]]\n{:index 1 :type :ok}\n",
		"[{:index 0,\n  :type :ok,\n  :value\n  {:type :x}}\n {:index 1 :error \"a\n{:index 2}",
		// the shapes fastOp reads
		"{:index 7, :time 18394482, :type :ok, :process 2, :f :send, :value [[:send 13 [0 0]] [:send 3 [nil -1]]]}\n" +
			"{:index 8, :time 18506271, :type :ok, :process 7, :f :txn, :value [[:send 3 [1 1]] [:poll {2 [[2 23]], 5 [[3 53]] 6 nil}] [:poll nil]]}\n" +
			"{:index 9, :time 2, :type :info, :process 1, :f :poll, :value [[:poll]], :error :net-timeout}\n" +
			"{:index 10, :time 3, :type :invoke, :process 4, :f :assign, :value [6 \"1\" :k]}\n" +
			"{:index 11, :time 4, :type :info, :process :nemesis, :f :start-partition, :value :majority, :error \"x y\"}\n",
		"{:type :ok, :value [[:append 2 12] [:r 5 nil] [:r 5 [1 2 3]] [:w 1 2] [:r 1 2] [:r 3]], :process 3, :time 1589367458999246707, :index 99}\n" +
			"{:index 1, :type :ok, :process 0, :value [[:send \"8\" [14 15]]], :f :send}\n",
		// read lists: integers only (decoder.readInts), then mixed, empty,
		// negative and too long for the fast path
		"{:type :ok, :value [[:r 5 [1 -2 3]] [:r 5 [1 :a \"b\" 4]] [:r 6 [:a 1 2]] [:r 7 []]], :process 3}\n" +
			"{:type :ok, :value [[:r 5 [1 -2 3 5]] [:r 6 [:a 1 2 -7]] [:r 8 [1 99999999999999999999]]], :process 4}\n" +
			"{:type :invoke, :value [[:r 5 nil] [:r 5 [1 x]]], :process 5}\n",
		// reads of one key that begin its run, extend it, leave it and
		// disagree with it (runPrefix), values that step by 3 (cover,
		// coverVal) and fall below the first one met
		"{:type :ok, :value [[:append 9 300] [:r 9 [300]]], :process 1}\n" +
			"{:type :ok, :value [[:append 9 303] [:r 9 [300 303]] [:r 9 [300]]], :process 1}\n" +
			"{:type :ok, :value [[:r 9 [300 303 306]] [:r 9 [300 306]] [:r 9 [\"300\" 303]]], :process 2}\n" +
			"{:type :ok, :value [[:r 9 [300 303 306 9]] [:r 9 [3 6 9]] [:w 4 12] [:w 4 15] [:w 4 6]], :process 2}\n",
		// hostile shapes: deep nesting, CR-only lines, NUL-padded tails
		strings.Repeat("{", MaxNesting+2),
		"{:type :ok :value " + strings.Repeat("#{", MaxNesting) + "}",
		"{:type :ok :x " + strings.Repeat("#object[", 20) + "]",
		"; c\r{:index 0 :type :ok ; d\r :process 0}\r\n{:index 1 :type :ok :error \"a\rb\"}\r",
		threeOps + "\x00\x00\x00",
		threeOps + "{:index 3 :type :ok :error \"ab\x00\x00",
		threeOps + "#\x00\x00",
		threeOps + "\x00 {:index 3 :type :ok}",
	} {
		f.Add([]byte(s))
	}
	f.Add(testpack.Gzip(f, []byte(threeOps)))
	f.Add(testpack.Zstd(f, []byte(threeOps)))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, Options{})
	})
}

// FuzzJSON reads arbitrary bytes as JSON.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`[{"index": 0, "time": 10, "type": "invoke", "process": 0, "f": "send", "value": [["send", 3, 5]]}]`,
		`{"type": ":ok", "process": 0, "f": ":poll", "value": [[":poll", {"3": [[12, 5]], "4": []}]]}`,
		"{\"type\": \"ok\", \"process\": 0, \"f\": \"txn\", \"value\": [[\"send\", \"k\", [null, 1]], [\"poll\", null]]}\n{\"type\": \"invoke\"}",
		`{"type": "ok", "f": "assign", "value": [1, "2"], "rebalance_log": [{"keys": [1]}]}`,
		`{"type": "fail", "error": {"a": [1.5, -2e3, true, false, null]}}`,
		`{"type": "ok", "x": "\ud83d\ude00\ud83d\u00e9\/"}`,
		`[{"type": "ok"},]`,
		`{"type" "ok"}`,
		`[{"type": "invoke", "process": 0},`,
		`{"type": "ok", "value": [["append", 1, 2], ["r", 1, [1, 2]]]}`,
		`{"index": 99999999999999999999, "type": "ok"}`,
		` [ { "type" : "ok" } ] `,
		"{\"index\": 0, \"type\": \"ok\", \"error\": \"x}\n{\"index\": 1, \"type\": \"ok\"}\n",
		"[\n  {\n    \"type\": \"ok\",\n    \"value\": [\n      {\n        \"type\": 1\n      }\n  ,\n  {\n    \"index\": 1\n  }\n]",
		`{"type": "ok", "value": ` + strings.Repeat("[", MaxNesting+2),
		"{\"type\": \"ok\",\r \"process\": 0}\r{\"type\": \"ok\"}\r",
		"{\"type\": \"ok\"}\n{\"type\": \"ok\", \"x\": \x00\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, Options{Format: FormatJSON})
	})
}

// Memory bound of FuzzParserMemory: reading n bytes allocates at most
// memPerByte*n + memBase bytes in all (runtime.MemStats.TotalAlloc, garbage
// included). memBase covers the reader's fixed costs (a 256 KB buffer, the
// maps of the interning caches); memPerByte the history itself and the
// scratch space of the op being read, each a constant times the bytes that
// make it. Measured worst cases: about 80 bytes a byte for distinct keys of
// three characters each, all interned (a string, a map entry, an atom and
// the cache entries, maps grown by doubling), about 55 for micro-ops and
// values ([:w 1 abc]), 40 for read lists, under 10 for ordinary ops;
// brackets nested past MaxNesting stop at the limit (they cost 75 bytes a
// byte before it). 128 leaves room for mixtures the fuzzer finds.
const (
	memPerByte = 128
	memBase    = 2 << 20
)

// pump returns data with data[a:b] repeated 16*k more times, up to about
// 1 MB:
// the fuzzer finds a shape, pumping makes it large enough that its cost per
// byte shows over memBase.
func pump(data []byte, a, b, k uint16) []byte {
	i := min(int(a), len(data))
	j := min(max(int(b), i), len(data))
	mid := data[i:j]
	n := 0
	if len(mid) > 0 {
		n = min(16*int(k), (1<<20)/len(mid))
	}
	out := make([]byte, 0, len(data)+n*len(mid))
	out = append(out, data[:j]...)
	for range n {
		out = append(out, mid...)
	}
	return append(out, data[j:]...)
}

// FuzzParserMemory checks that reading any bytes, EDN or JSON, allocates at
// most memPerByte bytes a byte plus memBase: no input makes the reader's
// memory grow faster than the input (issue 17: 20 MB of '{' took 4 GB).
// The input is data with the part data[a:b] repeated 16*k times (pump).
func FuzzParserMemory(f *testing.F) {
	add := func(prefix, mid, suffix string, k uint16, json bool) {
		f.Add([]byte(prefix+mid+suffix), uint16(len(prefix)), uint16(len(prefix)+len(mid)), k, json)
	}
	add("", "{", "", 65535, false)
	add("", "[", "", 65535, false)
	add(`{"type": "ok", "value": `, "[", "", 65535, true)
	add(`[{"type": "ok", "value": `, `{"a":`, "", 65535, true)
	add("{:type :ok :value ", "#{", "", 65535, false)
	add("{:type :ok :x ", "#object[", "", 65535, false)
	add("{:type :ok ", "(", "", 65535, false)
	add("{:type :ok ", "#_", "", 65535, false)
	add("{:type :ok ", "#tag ", "{}}", 65535, false)
	add(`{:type :ok :error "`, `a\n`, `"}`, 65535, false)
	add(`{"type": "ok", "error": "`, `\u00e9`, `"}`, 65535, true)
	add(threeOps, "\x00", "", 65535, false)
	add(threeOps+"{:index 3 :type", "\x00", "", 65535, false)
	add(jsonOp0, "\x00", "", 65535, true)
	add("; c\r", "{:type :ok :process 0 :f :send :value [[:send 1 2]]}\r; c\r", "", 65535, false)
	add("", "{:index 1, :type :ok, :process 1, :f :send, :value [[:send 1 [0 2]]]}\n", "", 65535, false)
	add("{:type :ok :f :assign :value [", "k1 ", "]}", 65535, false)
	add("{:type :ok :f :txn :value [[:r 1 [", "1 ", "]]]}", 65535, false)
	add("{:type :ok :f :txn :value [", "[:append 1 2]", "]}", 65535, false)
	add("{:type :ok :f :txn :value [", "[r 1]", "]}", 65535, false)
	add("{:type :ok :f :poll :value [[:poll {", "1 [[1 1]] ", "}]]}", 65535, false)
	add(`{"type": "ok", "f": "poll", "value": [["poll", {`, `"a": [[1, 2]], `, `"b": null}]]}`, 65535, true)
	add(`{"type": "ok", "f": "txn", "value": [`, `["r", 1, [1, 2]], `, `["r", 1, null]]}`, 65535, true)
	f.Fuzz(func(t *testing.T, data []byte, a, b, k uint16, json bool) {
		in := pump(data, a, b, k)
		opts := Options{}
		if json {
			opts.Format = FormatJSON
		}
		var err error
		got := allocated(func() { _, err = Read(bytes.NewReader(in), "fuzz", opts) })
		if limit := memPerByte*uint64(len(in)) + memBase; got > limit {
			t.Fatalf("reading %d bytes allocated %d (%.1f a byte), more than %d; error %v",
				len(in), got, float64(got)/float64(len(in)), limit, err)
		}
	})
}

// TestOneByteReads reads real and synthetic histories one byte at a time,
// so that every token crosses a buffer refill, and compares.
func TestOneByteReads(t *testing.T) {
	inputs := map[string][]byte{
		"synthetic EDN":  synthHistory(2000, false),
		"synthetic JSON": synthHistory(2000, true),
	}
	for name, data := range inputs {
		t.Run(name+" - same ops", func(t *testing.T) { fuzzRead(t, data, Options{}) })
	}
}
