package workload

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/shrink"
)

func read(t *testing.T, edn string) *model.History {
	t.Helper()
	h, err := ingest.Read(strings.NewReader(edn), "h.edn", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, edn, want string
	}{
		{"queue - sends and polls", `{:type :invoke :process 0 :f :send :value [[:send 1 2]]}
{:type :ok :process 0 :f :send :value [[:send 1 [0 2]]]}`, "queue"},
		{"list-append - appends", `{:type :invoke :process 0 :value [[:append :x 1] [:r :y nil]]}
{:type :ok :process 0 :value [[:append :x 1] [:r :y [1 2]]]}`, "list-append"},
		{"list-append - list reads alone", `{:type :ok :process 0 :f :txn :value [[:r :y []]]}`, "list-append"},
		{"rw-register - writes", `{:type :invoke :process 0 :f :txn :value [[:r :y nil] [:w :x 1]]}`, "rw-register"},
		{"rw-register - a value read decides", `{:type :ok :process 0 :f :txn :value [[:r :y nil] [:r :x 3]]}`, "rw-register"},
		{"nil reads only - list-append", `{:type :invoke :process 0 :f :txn :value [[:r :y nil]]}`, "list-append"},
		{"nemesis ops only - queue", `{:type :info :process :nemesis :f :start :value [[:n1 :n2]]}`, "queue"},
		{"empty history - queue", ``, "queue"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Detect(read(t, tc.edn))
			if err != nil {
				t.Fatal(err)
			}
			if w.Name != tc.want {
				t.Errorf("detected %s, want %s", w.Name, tc.want)
			}
		})
	}
}

func TestDetectMixed(t *testing.T) {
	h := read(t, `{:index 0 :type :invoke :process 0 :value [[:append :x 1]]}
{:index 1 :type :ok :process 0 :value [[:append :x 1]]}
{:index 2 :type :invoke :process 1 :value [[:w :x 2]]}
{:index 3 :type :ok :process 1 :value [[:w :x 2]]}`)
	_, err := Detect(h)
	var me *MixedError
	if !errors.As(err, &me) {
		t.Fatalf("want a *MixedError, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"h.edn:4:", "op 3 has a :w micro-op", "rw-register", "op 1 (line 2)", ":append", "list-append", "--workload"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestTypesDescribed checks that every type of every workload has a
// meaning, a documentation path on its workload's page, and a rule for
// when it is bad, and that names are unique within a workload.
func TestTypesDescribed(t *testing.T) {
	for _, w := range All() {
		if w.Check == nil {
			continue
		}
		seen := map[string]bool{}
		for _, ty := range w.Types {
			if seen[ty.Name] {
				t.Errorf("%s lists %s twice", w.Name, ty.Name)
			}
			seen[ty.Name] = true
			if ty.Meaning == "" || ty.When == "" {
				t.Errorf("%s/%s: meaning %q, when %q", w.Name, ty.Name, ty.Meaning, ty.When)
			}
			if !strings.HasPrefix(ty.Doc, w.Doc+"#") || strings.ContainsAny(ty.Doc[len(w.Doc)+1:], " ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				t.Errorf("%s/%s: doc %q is not an anchor of %s", w.Name, ty.Name, ty.Doc, w.Doc)
			}
		}
	}
}

func TestAllTypesWithoutRepeats(t *testing.T) {
	all := AllTypes()
	if len(slices.Compact(slices.Sorted(slices.Values(all)))) != len(all) {
		t.Fatalf("AllTypes repeats a type: %v", all)
	}
	for _, w := range All() {
		for _, n := range w.TypeNames() {
			if !slices.Contains(all, n) {
				t.Errorf("AllTypes lacks %s's %s", w.Name, n)
			}
		}
	}
	q := MustLookup("queue").TypeNames()
	if !slices.Equal(all[:len(q)], q) {
		t.Errorf("AllTypes does not start with the queue's types in order")
	}
}

func TestDocAnchor(t *testing.T) {
	for in, want := range map[string]string{"lost-write": "lost-write", "G1c-process": "g1c-process",
		"G-single-item": "g-single-item", "PL-SS cycle": "pl-ss-cycle"} {
		if got := catalog.Anchor(in); got != want {
			t.Errorf("catalog.Anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDocAnchorsExist: every type's documentation anchor is a heading (or
// an <a id>) of its workload's page, so the links in reports land.
func TestDocAnchorsExist(t *testing.T) {
	for _, w := range All() {
		if w.Check == nil {
			continue
		}
		page, err := os.ReadFile(filepath.Join("..", w.Doc))
		if err != nil {
			t.Fatal(err)
		}
		anchors := map[string]bool{}
		for _, line := range strings.Split(string(page), "\n") {
			if h, ok := strings.CutPrefix(line, "## "); ok {
				anchors[catalog.Anchor(strings.Trim(h, "`"))] = true
			}
			for rest := line; ; {
				_, after, ok := strings.Cut(rest, `<a id="`)
				if !ok {
					break
				}
				id, tail, _ := strings.Cut(after, `"`)
				anchors[id] = true
				rest = tail
			}
		}
		for _, ty := range w.Types {
			if _, a, _ := strings.Cut(ty.Doc, "#"); !anchors[a] {
				t.Errorf("%s/%s: %s has no anchor #%s", w.Name, ty.Name, w.Doc, a)
			}
		}
	}
}

// readWithDecoders reads a history as package check does: with every
// workload's value decoder installed.
func readWithDecoders(t *testing.T, src string) *model.History {
	t.Helper()
	h, err := ingest.Read(strings.NewReader(src), "h.edn", ingest.Options{Decoders: Decoders()})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestRegistryOrder: abort comes after the workloads before it, which
// keep their order.
func TestRegistryOrder(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{"queue", "list-append", "rw-register", "abort"}) {
		t.Errorf("Names() = %v", got)
	}
}

// TestDetectAbort: a poll map with a topic and offsets or :abort? decides
// an abort history; a history whose only abort values decide nothing is
// still one; queue and transactional histories read with the decoders
// installed are detected as before.
func TestDetectAbort(t *testing.T) {
	const abort, queue = "abort", "queue"
	want := map[string]string{
		`{:type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1 2]}}`:                   abort,
		`{:type :invoke :process 0 :f :poll :value {:topic "t1" :abort? true}}`:                 abort,
		`{"type": "ok", "process": 0, "f": "poll", "value": {":topic": "t1", ":offsets": [1]}}`: abort, // JSON, keys with colons
		`{:type :ok :process 0 :f :subscribe :value "t1"}`:                                      abort, // only a subscribe to a topic string
		`{:type :ok :process 0 :f :poll :value {:topic "t1"}}`:                                  abort, // only empty polls
		`{:type :ok :process 0 :f :send :value [[:send 1 [0 2]]]}`:                              queue,
		`{:type :invoke :process 0 :f :poll :value nil}`:                                        queue,
		`{:type :ok :process 0 :value [[:append :x 1]]}`:                                        "list-append",
	}
	for src, name := range want {
		w, err := Detect(readWithDecoders(t, src))
		if err != nil || w.Name != name {
			t.Errorf("%s: detected %v (%v), want %s", src, w, err, name)
		}
	}
}

// TestDetectAbortMixed: abort polls with queue or transactional
// micro-ops are an input error naming both ops, in either order.
func TestDetectAbortMixed(t *testing.T) {
	const poll = `{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1 2]}}`
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"abort then queue", poll + "\n" + `{:index 1 :type :ok :process 1 :f :send :value [[:send 1 [0 2]]]}`,
			[]string{"h.edn:2:", "op 1 has a :send micro-op, which belongs to queue histories", "op 0 (line 1) has a poll map with a :topic, which belongs to abort"}},
		{"queue then abort", `{:index 0 :type :ok :process 1 :f :poll :value [[:poll {1 [[0 2]]}]]}` + "\n" + strings.Replace(poll, ":index 0", ":index 1", 1),
			[]string{"op 1 has a poll map with a :topic, which belongs to abort histories", "op 0 (line 1) has a :poll micro-op, which belongs to queue"}},
		{"abort then list-append", poll + "\n" + `{:index 1 :type :ok :process 1 :f :txn :value [[:append :x 1]]}`,
			[]string{"op 1 has a :append micro-op, which belongs to list-append histories", "which belongs to abort"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Detect(readWithDecoders(t, tc.src))
			var me *MixedError
			if !errors.As(err, &me) {
				t.Fatalf("want a *MixedError, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

// TestAbortContractOption: the option reaches the checker and its
// result; an unknown contract is rejected.
func TestAbortContractOption(t *testing.T) {
	src := `{:index 0 :type :invoke :process 0 :f :poll :value {:topic "t1" :abort? true}}
{:index 1 :type :fail :process 0 :f :poll :value {:topic "t1" :abort? true :offsets [1 2]}}
{:index 2 :type :invoke :process 0 :f :poll :value {:topic "t1"}}
{:index 3 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [4]}}`
	h := readWithDecoders(t, src)
	p, err := model.Pair(h)
	if err != nil {
		t.Fatal(err)
	}
	w := MustLookup("abort")
	for contract, valid := range map[string]string{"": "valid", "kafka": "valid", "rewind": "invalid"} {
		o := DefaultOptions()
		o.AbortContract = contract
		res := w.Check(h, p, o)
		if res.Verdict.String() != valid || res.Options.AbortContract != map[string]string{"": "kafka"}[contract]+contract {
			t.Errorf("%q: %v, options %+v", contract, res.Verdict, res.Options)
		}
	}
	if ValidateAbortContract("rewind") != nil || ValidateAbortContract("kafka") != nil || ValidateAbortContract("none") == nil {
		t.Error("ValidateAbortContract")
	}
}

// TestAbortShrinkRoundTrip: each abort fixture shrunk to one of its types
// is written as EDN (shrink.WriteEDN with the workload's ValueEDN) that
// reads back and checks to the same type; the values the abort decoder
// read (poll maps, :rebalance-log) come back, so that a reproducer of a
// rebalance-dependent type keeps its rebalance.
func TestAbortShrinkRoundTrip(t *testing.T) {
	w := MustLookup("abort")
	files, err := filepath.Glob(filepath.Join(testpaths.Testdata("abort"), "*-invalid.edn"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no abort fixtures: %v", err)
	}
	files = append(files, filepath.Join(testpaths.Testdata("abort"), "bufstream-advance-without-rebalance-valid.edn"))
	o := DefaultOptions()
	run := func(h *model.History, p model.Pairing) *analysis.Result { return w.Check(h, p, o) }
	shrunk := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h := readWithDecoders(t, string(src))
		p, err := model.Pair(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range run(h, p).AnomalyTypes {
			r, err := shrink.Shrink(h, p, typ, run, 0)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := shrink.WriteEDN(&buf, r.History, r.Pairing, testhist.AllPositions(r.History), w.ValueEDN); err != nil {
				t.Fatal(err)
			}
			back := readWithDecoders(t, buf.String())
			bp, err := model.Pair(back)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", filepath.Base(f), typ, err, buf.String())
			}
			if res := run(back, bp); len(res.Anomalies[typ]) == 0 {
				t.Errorf("%s shrunk to %s reads back without it (%v):\n%s", filepath.Base(f), typ, res.AnomalyTypes, buf.String())
			}
			if len(back.Ops) < len(h.Ops) {
				shrunk++
			}
		}
	}
	if shrunk == 0 {
		t.Error("no fixture shrank: the round trip ran on whole histories only")
	}
}

// TestDetectMixedAcrossPieces: Detect looks through pieces of
// detectPiece ops on every core; the error must still name the first op
// that decided a workload and the first that decided another, wherever
// the pieces fall: here nemesis ops fill the first piece, list-append
// begins in the second, and rw-register's first write comes in the third,
// after an append in the same piece and before more of both.
func TestDetectMixedAcrossPieces(t *testing.T) {
	var b strings.Builder
	line := 0
	add := func(s string) {
		fmt.Fprintf(&b, "{:index %d %s}\n", line, s)
		line++
	}
	for line < detectPiece+10 {
		add(`:type :info :process :nemesis :f :start :value nil`)
	}
	first := line
	add(`:type :ok :process 0 :f :txn :value [[:append :x 1]]`)
	for line < 2*detectPiece+20 {
		add(`:type :info :process :nemesis :f :start :value nil`)
	}
	add(`:type :ok :process 0 :f :txn :value [[:append :x 2]]`)
	other := line
	add(`:type :ok :process 1 :f :txn :value [[:w :x 2]]`)
	add(`:type :ok :process 0 :f :txn :value [[:append :x 3]]`)
	add(`:type :ok :process 1 :f :txn :value [[:w :y 3]]`)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		_, err := Detect(read(t, b.String()))
		var me *MixedError
		if !errors.As(err, &me) {
			t.Fatalf("GOMAXPROCS=%d: want a *MixedError, got %v", procs, err)
		}
		if me.FirstIndex != int64(first) || me.OtherIndex != int64(other) || me.FirstW != "list-append" || me.OtherW != "rw-register" {
			t.Errorf("GOMAXPROCS=%d: ops %d (%s) and %d (%s), want %d (list-append) and %d (rw-register)",
				procs, me.FirstIndex, me.FirstW, me.OtherIndex, me.OtherW, first, other)
		}
	}
}
