package abort

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

// valueOnly is the abort decoder without its byte-level entry point
// (DecodeRaw): ingest reads every value through Decode.
type valueOnly struct{ d Decoder }

func (v valueOnly) Name() string                               { return v.d.Name() }
func (v valueOnly) Claim(field, f string, s ingest.Shape) bool { return v.d.Claim(field, f, s) }
func (v valueOnly) Decode(field, f string, x *ingest.Value, w *ingest.ExtWriter) error {
	return v.d.Decode(field, f, x, w)
}

// records renders every op's workload records: kind, words and keys (as
// their text, so that the keys' numbering is compared too).
func records(h *model.History) string {
	var sb strings.Builder
	for i := range h.Ops {
		for _, r := range h.ExtAt(i) {
			fmt.Fprintf(&sb, "%d: %d/%d %v", i, r.Owner, r.Kind, h.ExtWordsOf(&r))
			for _, k := range h.ExtKeysOf(&r) {
				fmt.Fprintf(&sb, " %d=%s", k, h.Keys[k].String())
			}
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// sources are the abort fixtures and a generated history with every
// knob of the generator, by name.
func sources(t *testing.T) map[string]string {
	srcs := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(testpaths.Root(), "testdata", "abort", "*.*"))
	for _, f := range files {
		if strings.HasSuffix(f, ".expect.json") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[filepath.Base(f)] = string(b)
	}
	if len(srcs) < 5 {
		t.Fatalf("%d abort fixtures", len(srcs))
	}
	var buf bytes.Buffer
	cfg := gen.AbortConfig{Seed: 3, Ops: 20_000, Concurrency: 6, Topics: 6, AbortRate: gen.DefaultAbortRate,
		AfterAbort: gen.AbortRewind, RebalanceRate: 0.05, CrashRate: 0.01, InfoRate: 0.01, MaxPoll: 4}
	if _, err := gen.WriteAbort(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	srcs["generated.edn"] = buf.String()
	return srcs
}

// TestDecodeRaw: the abort decoder's byte-level reading (DecodeRaw)
// keeps exactly what Decode keeps, key numbering included, on every
// fixture, a generated history with every knob, and values DecodeRaw
// declines; and a value Decode rejects is the same error either way.
func TestDecodeRaw(t *testing.T) {
	srcs := sources(t)
	var odd hist
	for i, v := range []string{`{:topic "t1" :offsets [1 2] :abort? true}`, `{:topic :t1, :offsets [3], :x {:y [1 "a"]}}`,
		`{:topic 7 :offsets []}`, `{:topic nil :abort? nil}`, `{:offsets nil :topic "t1" :abort? false}`,
		`{"topic" "t1" :offsets [4]}`, `{:topic t1 :offsets [5]}`, `{:topic "t1" :offsets (6 7)}`,
		`{:topic "t1" :offsets [1234567890123456789]}`, `{:topic "t\"1" :offsets [8]}`, `{:topic "t1" :abort? true :abort? false}`} {
		odd.op("ok", i, "poll", v, "")
	}
	// rebalance logs in every shape decodeRebalance takes, some of which
	// DecodeRaw declines (a set of keys, a list of events, a string key)
	for i, r := range []string{`{:during [{:type :revoked :keys ["t1" "t2"]} {:type :assigned :keys ["t1"]}]}`,
		`{:before [{:keys ["t3" 4 :t5] :type :lost}] :during []}`, `{:during [{:keys #{"t1"} :type :x}]}`,
		`{:before ({:type :a})}`, `{:before [1 nil {:type :b :x [1 {:y 2}]}] :after [{:type :c}]}`,
		`{:during {:type :d}}`, `{"during" [{:type :e}]}`, `{:during [{:type :f :type :g :keys ["t1"] :keys ["t2"]}]}`,
		`{:before [{:type :h}] :before [{:type :i}]}`, `{:during [{}]}`, `{:during [{:keys [1 2 3 4 5 6 7 8 9 10 11]}]}`,
		`{}`} {
		odd.op("ok", i, "poll", `{:topic "t1" :offsets [1]}`, " :rebalance-log "+r)
	}
	odd.op("ok", 0, "assign", `"t2"`, "")
	odd.op("ok", 0, "subscribe", `"t3"`, "")
	odd.op("ok", 1, "assign", `"t\\u0041"`, "")
	// the orders the fast path meets a poll's parts in: its :value before
	// :f (offered once the op is read), a :rebalance-log before the value,
	// a new topic in the value with more in the :rebalance-log after it
	// (the value is read there only when its keys are known), a known one
	// with a new one after it (its record still goes last), an integer
	// topic
	for _, line := range []string{
		`{:index %d :type :ok :value {:topic "n1" :offsets [1]} :process 0 :f :poll}`,
		`{:index %d :type :ok :process 0 :f :poll :rebalance-log {:during [{:type :assigned :keys ["n2"]}]} :value {:topic "n3" :offsets [2]}}`,
		`{:index %d :type :ok :process 0 :f :poll :value {:topic "n4" :offsets [3]} :rebalance-log {:during [{:type :assigned :keys ["n5" "n4"]}]}}`,
		`{:index %d :type :ok :process 0 :f :poll :value {:topic "n5" :offsets [4]} :rebalance-log {:before [{:type :lost :keys ["n6"]}]}}`,
		`{:index %d :type :ok :process 0 :f :poll :value {:topic 8 :offsets [5]} :rebalance-log {:during [{:keys [9]}]}}`,
		`{:index %d :type :ok :process 0 :f :poll :value {:topic 8 :offsets [6]}}`,
	} {
		fmt.Fprintf(&odd.sb, line+"\n", odd.n)
		odd.n++
	}
	srcs["odd.edn"] = odd.String()
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			if err := sameDecoding(t, name, src); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, v := range []string{`{:topic "t1" :offsets [12345678901234567890]}`, `{:topic "t1" :offsets [1 "2"]}`, `{:offsets [1 2]}`, `{:topic "t1" :offsets 3}`, `"t1"`} {
		src := `{:index 0 :type :ok :process 0 :f :poll :value ` + v + "}\n"
		if err := sameDecoding(t, "e.edn", src); err == nil {
			t.Errorf("%s: read without an error", v)
		}
	}
}

// sameDecoding reads src (named name) with the abort decoder and with
// Decode alone (valueOnly), and fails t unless both give the same error,
// or the same records, in the same order, and the same keys with the
// same numbers. It returns the error both gave.
func sameDecoding(t *testing.T, name, src string) error {
	t.Helper()
	want, err1 := ingest.Read(strings.NewReader(src), name, ingest.Options{Decoders: []ingest.ValueDecoder{valueOnly{}}})
	got, err2 := ingest.Read(strings.NewReader(src), name, opts)
	if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
		t.Fatalf("with DecodeRaw: %v; without: %v\n%s", err2, err1, src)
	}
	if err1 != nil {
		return err1
	}
	if g, w := records(got), records(want); g != w {
		t.Fatalf("DecodeRaw kept\n%s\nDecode kept\n%s\n%s", g, w, src)
	}
	if g, w := fmt.Sprint(got.Keys), fmt.Sprint(want.Keys); g != w {
		t.Fatalf("keys %s, want %s\n%s", g, w, src)
	}
	return nil
}

// reorder rewrites the ops of a history fuzzAbort wrote so that, as the
// bytes of data say line by line, :f comes after the :value (the parser
// then meets the value before it knows what the op is) and a
// :rebalance-log comes before the :value (its topics are then met first).
func reorder(src string, data []byte) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if l == "" || len(data) == 0 {
			continue
		}
		m := data[i%len(data)] >> 2 % 4
		if m&2 != 0 {
			if at := strings.Index(l, " :rebalance-log "); at >= 0 {
				if end := strings.Index(l[at:], `"]}]}`); end >= 0 {
					reb := l[at : at+end+5]
					l = l[:at] + l[at+end+5:]
					f := strings.Index(l, " :f ")
					l = l[:f] + reb + l[f:]
				}
			}
		}
		if m&1 != 0 {
			f := strings.Index(l, " :f :")
			end := f + 4 + strings.IndexByte(l[f+4:], ' ')
			l = l[:f] + l[end:len(l)-1] + l[f:end] + "}"
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// FuzzDecodeRaw: the abort decoder's byte-level reading, where the parser
// meets a value (fastClaimValue) or once the op is read (offerValue), keeps
// exactly what Decode alone keeps, key numbering and record order
// included, or fails with the same error, on histories in any field order
// (data starting with '{' is read as it is).
func FuzzDecodeRaw(f *testing.F) {
	testhist.FuzzSeeds(f, "polls whose :f follows their value, with rebalance logs before it")
	f.Add([]byte(`{:index 0 :type :ok :value {:topic "a" :offsets [1]} :f :poll :rebalance-log {:during [{:keys ["b"]}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := string(data)
		if len(data) == 0 || data[0] != '{' {
			src = reorder(fuzzAbort(data), data)
		}
		_ = sameDecoding(t, "f.edn", src) // an error both give is fine
	})
}
