package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/hindsight-dev/hindsight/model"
)

// abortDecoder is a test workload decoder for the input of an abort-style
// workload: poll values that are maps ({:topic "t1" :offsets [1 2 3]
// :abort? true}), assign and subscribe values that are a topic name,
// create values that are maps, and :rebalance-log maps ({:before [...]
// :during [...]}). Its records:
//
//	kPoll:      keys [topic] (none without one); words [flags offset ...]
//	            (flags: 1 abort?, 2 has :offsets)
//	kTopic:     keys [topic]
//	kCreate:    keys [topic]; words [count] when there is one
//	kRebalance: keys of every event, before then during; words [events
//	            before, events during]
type abortDecoder struct{}

const (
	kPoll uint16 = iota + 1
	kTopic
	kCreate
	kRebalance
)

func (abortDecoder) Name() string { return "abortish" }

func (abortDecoder) Claim(field, f string, s Shape) bool {
	switch {
	case field == "rebalance-log":
		return s == ShapeMap
	case field != ValueField:
		return false
	case f == "poll":
		return s != ShapeVector // a vector is the queue's micro-ops; nil is never offered
	case f == "assign" || f == "subscribe":
		return s == ShapeString
	case f == "create":
		return s == ShapeMap
	}
	return false
}

func (abortDecoder) Decode(field, f string, v *Value, w *ExtWriter) error {
	switch {
	case field == "rebalance-log":
		w.SetKind(kRebalance)
		w.Word(0) // events before
		w.Word(0) // events during
		return v.Map(func(k string, ev *Value) error {
			i := 0
			switch k {
			case "before":
			case "during":
				i = 1
			default:
				return nil
			}
			n := 0
			err := ev.Seq(func(e *Value) error {
				n++
				return e.Map(func(k string, ks *Value) error {
					if k != "keys" {
						return nil
					}
					return ks.Seq(func(kv *Value) error {
						id, err := kv.Key()
						w.Key(id)
						return err
					})
				})
			})
			w.SetWord(i, int64(n))
			return err
		})
	case f == "assign" || f == "subscribe":
		w.SetKind(kTopic)
		id, err := v.Key()
		w.Key(id)
		return err
	case f == "create":
		w.SetKind(kCreate)
		return v.Map(func(k string, x *Value) error {
			switch k {
			case "topic":
				id, err := x.Key()
				w.Key(id)
				return err
			case "count":
				n, err := x.Int()
				w.Word(n)
				return err
			}
			return nil
		})
	}
	// a poll
	w.SetKind(kPoll)
	if v.Shape() != ShapeMap {
		return v.Errorf("the value of a poll must be a map or nil, found %s", v.Describe())
	}
	at := v.Pos()
	w.Word(0) // the flags, set below
	var flags int64
	topic := false
	err := v.Map(func(k string, x *Value) error {
		switch k {
		case "topic":
			id, err := x.Key()
			w.Key(id)
			topic = true
			return err
		case "abort?":
			b, err := x.Bool()
			if b {
				flags |= 1
			}
			return err
		case "offsets":
			flags |= 2
			return x.Seq(func(o *Value) error {
				n, err := o.Int()
				w.Word(n)
				return err
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if flags&2 != 0 && !topic {
		return v.ErrorAt(at, "a poll with offsets needs a topic")
	}
	w.SetWord(0, flags)
	return nil
}

// DecodeRaw reads what Decode reads of a poll map with keyword keys and
// of a topic, from the source bytes (RawDecoder); fuzzRead compares the
// two, as it reads with the fast path and without.
func (abortDecoder) DecodeRaw(field, f string, s *Scanner, w *ExtWriter) bool {
	switch {
	case field != ValueField:
		return false
	case f == "assign" || f == "subscribe":
		w.SetKind(kTopic)
		return s.Key(w)
	case f != "poll":
		return false
	}
	w.SetKind(kPoll)
	w.Word(0)
	var flags int64
	topic := false
	ok := s.Map(func(k []byte) bool {
		switch string(k) {
		case "topic":
			topic = true
			return s.Key(w)
		case "abort?":
			b, ok := s.Bool()
			if b {
				flags |= 1
			}
			return ok
		case "offsets":
			flags |= 2
			return s.Words(w)
		}
		return s.Skip()
	})
	if !ok {
		return false
	}
	if flags&2 != 0 && !topic {
		return false
	}
	w.SetWord(0, flags)
	return true
}

var abortOpts = Options{Decoders: []ValueDecoder{abortDecoder{}}}

const abortEDN = `{:index 0 :type :invoke :process 0 :f :create :value {:topic "t1" :count 128}}
{:index 1 :type :ok :process 0 :f :create :value {:topic "t1" :count 128}}
{:index 2 :type :invoke :process 0 :f :subscribe :value "t1"}
{:index 3 :type :ok :process 0 :f :subscribe :value "t1"}
{:index 4 :type :invoke :process 0 :f :poll :value {:topic "t1" :abort? true}}
{:index 5 :type :fail :process 0 :f :poll :value {:topic "t1" :abort? true :offsets [1 2 3]} :error :intentional-abort :rebalance-log {:before [{:type :revoked :keys ["t1"]}] :during [{:type :assigned :keys ["t1" "t2"]}]}}
{:index 6 :type :invoke :process 0 :f :poll :value nil}
{:index 7 :type :ok :process 0 :f :poll :value {:topic "t1"} :extra-key {:a [1 2]}}
{:index 8 :type :invoke :process 0 :f :crash :value nil}
{:index 9 :type :info :process 0 :f :crash :value nil}
{:index 10 :type :ok :value {:offsets [4 5], :topic "t1"} :process 1 :f :poll}
`

var abortWant = []string{
	`0 invoke p0 other:create ext(abortish:3 ["t1"] [128])`,
	`1 ok p0 other:create ext(abortish:3 ["t1"] [128])`,
	`2 invoke p0 subscribe ext(abortish:2 ["t1"] [])`,
	`3 ok p0 subscribe ext(abortish:2 ["t1"] [])`,
	`4 invoke p0 poll ext(abortish:1 ["t1"] [1])`,
	`5 fail p0 poll ext(abortish:4 ["t1" "t1" "t2"] [1 1]) ext(abortish:1 ["t1"] [3 1 2 3]) err=":intentional-abort"`,
	`6 invoke p0 poll`,
	`7 ok p0 poll ext(abortish:1 ["t1"] [0])`,
	`8 invoke p0 crash`,
	`9 info p0 crash`,
	`10 ok p1 poll ext(abortish:1 ["t1"] [2 4 5])`,
}

// abortJSON is abortEDN in JSON Lines, field names with and without a
// leading colon.
const abortJSON = `{"index": 0, "type": "invoke", "process": 0, "f": "create", "value": {"topic": "t1", "count": 128}}
{"index": 1, "type": "ok", "process": 0, "f": ":create", "value": {":topic": "t1", ":count": 128}}
{"index": 2, "type": "invoke", "process": 0, "f": "subscribe", "value": "t1"}
{"index": 3, "type": "ok", "process": 0, "f": "subscribe", "value": "t1"}
{"index": 4, "type": "invoke", "process": 0, "f": "poll", "value": {"topic": "t1", "abort?": true}}
{"index": 5, "type": "fail", "process": 0, "f": "poll", "value": {"topic": "t1", ":abort?": true, "offsets": [1, 2, 3]}, "error": "intentional-abort", "rebalance_log": {"before": [{"type": "revoked", "keys": ["t1"]}], ":during": [{"type": "assigned", "keys": ["t1", "t2"]}]}}
{"index": 6, "type": "invoke", "process": 0, "f": "poll", "value": null}
{"index": 7, "type": "ok", "process": 0, "f": "poll", "value": {"topic": "t1"}, "extra-key": {"a": [1, 2]}}
{"index": 8, "type": "invoke", "process": 0, "f": "crash", "value": null}
{"index": 9, "type": "info", "process": 0, "f": "crash", "value": null}
{"index": 10, "type": "ok", "value": {"offsets": [4, 5], "topic": "t1"}, "process": 1, "f": "poll"}
`

// TestValueDecoder reads an abort-style history through a workload
// decoder, in EDN and JSON, sequentially and (TestPackageInBlocks) in
// blocks.
func TestValueDecoder(t *testing.T) {
	for _, tc := range []struct{ name, src string }{{"EDN", abortEDN}, {"JSON", abortJSON}} {
		t.Run(tc.name, func(t *testing.T) {
			h := readString(t, "a."+strings.ToLower(tc.name), tc.src, abortOpts)
			want := abortWant
			if tc.name == "JSON" {
				want = append([]string(nil), want...)
				want[5] = strings.Replace(want[5], `":intentional-abort"`, `"intentional-abort"`, 1)
			}
			equalLines(t, renderAll(h), want)
			if o, ok := h.ExtOwnerOf("abortish"); !ok || o != 1 {
				t.Errorf("ExtOwnerOf = %d, %v; want 1, true", o, ok)
			}
			if err := checkHistory(h); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestValueDecoderMultiline checks positions in a value read by a decoder
// that spans lines, and that the value may come before :f.
func TestValueDecoderMultiline(t *testing.T) {
	src := "[{:index 0\n  :type :ok\n  :value {:topic \"t1\"\n          :offsets [1\n                    :x]}\n  :f :poll\n  :process 0}]\n"
	_, err := Read(strings.NewReader(src), "m.edn", abortOpts)
	e := asError(t, err)
	if e.Line != 5 || e.Col != 21 || !strings.Contains(e.Msg, "expected an integer, found :x") {
		t.Fatalf("got %d:%d %q; want 5:21 expected an integer", e.Line, e.Col, e.Msg)
	}
	if !strings.Contains(e.Error(), ":x]}") {
		t.Errorf("excerpt missing: %v", e)
	}
}

// TestValueDecoderErrors: what a decoder rejects is an *Error at the form,
// with the file, line and column; what no decoder claims is decoded (or
// rejected) as without decoders.
func TestValueDecoderErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		opts      Options
		want      string // FILE:LINE:COL: message prefix
	}{
		{"poll value not a map - invalid", `{:type :ok :process 0 :f :poll :value "t1"}`, abortOpts,
			`e.edn:1:39: the value of a poll must be a map or nil, found the string "t1"`},
		{"poll value not a map, before :f - invalid", `{:type :ok :process 0 :value 12 :f :poll}`, abortOpts,
			`e.edn:1:30: the value of a poll must be a map or nil, found the integer 12`},
		{"offset not an integer - invalid", `{:type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1 "2"]}}`, abortOpts,
			`e.edn:1:64: expected an integer, found the string "2"`},
		{"offset past 64 bits - invalid", `{:type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1 99999999999999999999]}}`, abortOpts,
			`e.edn:1:64: an integer must fit in 64 bits, found 99999999999999999999`},
		{"offsets without a topic - invalid", "{:type :ok :process 0\n :f :poll :value {:offsets [1 2]}}", abortOpts,
			`e.edn:2:18: a poll with offsets needs a topic`},
		{"offsets without a topic, JSON - invalid", `{"type": "ok", "process": 0, "f": "poll", "value": {"offsets": [1, 2]}}`, abortOpts,
			`e.edn:1:52: a poll with offsets needs a topic`},
		{"offsets not a vector - invalid", `{:type :ok :process 0 :f :poll :value {:topic "t1" :offsets 3}}`, abortOpts,
			`e.edn:1:61: expected a vector, found the integer 3`},
		{"rebalance log event not a map - invalid", `{:type :ok :process 0 :f :poll :value nil :rebalance-log {:before [1]}}`, abortOpts,
			`e.edn:1:68: expected a map, found the integer 1`},
		{"subscribe to a topic without decoders - invalid", `{:type :ok :process 0 :f :subscribe :value "t1"}`, Options{},
			`e.edn:1:44: :value of a subscribe op must be a list of keys`},
		{"poll map without decoders - invalid", `{:type :ok :process 0 :f :poll :value {:topic "t1"}}`, Options{},
			`e.edn:1:39: :value of a poll op must be a vector of micro-ops`},
		{"subscribe to a number, not claimed - invalid", `{:type :ok :process 0 :f :subscribe :value 3}`, abortOpts,
			`e.edn:1:44: :value of a subscribe op must be a list of keys`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.src), "e.edn", tc.opts)
			e := asError(t, err)
			if got := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestValueDecoderTruncated: a history cut off inside a value a decoder
// reads in place (:rebalance-log) is truncated, as any other.
func TestValueDecoderTruncated(t *testing.T) {
	src := abortEDN + `{:index 11 :type :ok :process 0 :f :poll :rebalance-log {:before [{:keys ["t1"`
	h := readString(t, "t.edn", src, abortOpts)
	if !h.Truncated || len(h.Ops) != 11 {
		t.Fatalf("truncated %v, %d ops; want true, 11", h.Truncated, len(h.Ops))
	}
}

// TestValueDecoderLeavesQueueAlone: with a decoder installed, queue and
// transactional histories read exactly as without one (values ingest
// decodes itself are never offered).
func TestValueDecoderLeavesQueueAlone(t *testing.T) {
	for name, data := range map[string][]byte{
		"synthetic EDN":  synthHistory(2000, false),
		"synthetic JSON": synthHistory(2000, true),
		"three ops":      []byte(threeOps),
		"nemesis values": []byte(`{:type :info :process :nemesis :f :start :value {:n1 [:n2]} :rebalance-log [{:keys [1]}]}` + "\n" + threeOps),
	} {
		t.Run(name, func(t *testing.T) {
			want, err := Read(bytes.NewReader(data), name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Read(bytes.NewReader(data), name, abortOpts)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameHistory(got, want); d != "" {
				t.Fatal(d)
			}
			if got.ExtRecs.Len() != 0 {
				t.Errorf("%d workload records, want none", got.ExtRecs.Len())
			}
		})
	}
}

// abortHistory is n abort-style polls, invocations and completions, with
// a rebalance log on each completion.
func abortHistory(n int) []byte {
	var sb strings.Builder
	for i := range n {
		p := i % 7
		fmt.Fprintf(&sb, `{:index %d :type :invoke :process %d :f :poll :value {:topic "t%d" :abort? true}}`+"\n", 2*i, p, i%13)
		fmt.Fprintf(&sb, `{:index %d :type :fail :process %d :f :poll :value {:topic "t%d" :offsets [%d %d]} :rebalance-log {:during [{:keys ["t%d" %d]}]}}`+"\n",
			2*i+1, p, i%13, i, i+1, i%5, i%3)
	}
	return []byte(sb.String())
}

// TestValueDecoderParallel reads a large abort-style history in blocks and
// compares it with the sequential read: records, their keys and words.
func TestValueDecoderParallel(t *testing.T) {
	data := abortHistory(3000)
	want, err := read(bytes.NewReader(data), "p.edn", abortOpts, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, bs := range []int{100, 4096, 65536} {
		got, ok, err := readBlocks(data, "p.edn", abortOpts, 3, bs)
		if !ok || err != nil {
			t.Fatalf("blocks of %d: read in parallel %v, error %v", bs, ok, err)
		}
		if d := sameHistory(got, want); d != "" {
			t.Fatalf("blocks of %d: %s", bs, d)
		}
		if got.ExtOwners[0] != "abortish" {
			t.Errorf("owners %v", got.ExtOwners)
		}
	}
}

// TestOpSize: workload records, the :time, the :index, the line and the
// rarer fields live beside the op, never in it.
func TestOpSize(t *testing.T) {
	if n := unsafe.Sizeof(model.Op{}); n != 12 {
		t.Errorf("model.Op is %d bytes, want 12", n)
	}
}

// FuzzValueDecoder reads abort-style histories through the test decoder:
// never a panic, errors with a position, the same history in one piece,
// byte by byte, without the fast path and in blocks (fuzzRead).
func FuzzValueDecoder(f *testing.F) {
	for _, src := range []string{abortEDN, abortJSON} {
		f.Add([]byte(src))
		for _, line := range strings.SplitAfter(src, "\n") {
			f.Add([]byte(line))
		}
	}
	f.Add([]byte("{:type :ok :f :poll :value #_ {:topic 1} {:topic #x 2 :offsets (1 2)}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, abortOpts)
	})
}
