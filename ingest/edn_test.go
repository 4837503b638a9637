package ingest

import (
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// TestEDN decodes every construct real EDN histories contain.
func TestEDN(t *testing.T) {
	tests := []readCase{
		{"EDN one op per line - parses",
			`{:index 0, :time 10, :type :invoke, :process 0, :f :send, :value [[:send 1 2]]}
{:index 1, :time 20, :type :ok, :process 0, :f :send, :value [[:send 1 [5 2]]]}
{:index 2, :time 30, :type :invoke, :process 1, :f :poll, :value [[:poll]]}
{:index 3, :time 40, :type :ok, :process 1, :f :poll, :value [[:poll {1 [[5 2] [6 3]], 2 []}]]}
`,
			[]string{
				"0 invoke p0 send send(1,2) t=10",
				"1 ok p0 send send(1,2)@5 t=20",
				"2 invoke p1 poll poll t=30",
				"3 ok p1 poll poll{1:[5=2 6=3] 2:[]} t=40",
			}},
		{"EDN maps without commas - parses",
			`{:index 0 :type :invoke :process 3 :f :send :value [[:send "k" 7]]}`,
			[]string{`0 invoke p3 send send("k",7)`}},
		{"EDN commas everywhere and comments - parses",
			"; a history\n{:index 0,,, :type :invoke, ; the type\n :process 0, :f :poll, :value [[:poll,],],}, ; trailing\n;; the end\n",
			[]string{"0 invoke p0 poll poll"}},
		{"EDN several ops on one line - parses",
			`{:type :invoke :process 0 :f :poll :value [[:poll]]}{:type :ok :process 0 :f :poll :value [[:poll nil]]} {:type :invoke :process 1 :f :crash :value nil}`,
			[]string{"0 invoke p0 poll poll", "1 ok p0 poll poll{}", "2 invoke p1 crash"}},
		{"EDN op spread over lines - parses",
			"{:index 0\n :type :invoke\n :process 0\n :f :send\n :value [[:send 1\n 2]]}\n",
			[]string{"0 invoke p0 send send(1,2)"}},
		{"EDN top-level vector - parses",
			"[{:index 0 :type :invoke :process 0 :f :poll :value [[:poll]]}\n {:index 1 :type :ok :process 0 :f :poll :value [[:poll {}]]}]\n",
			[]string{"0 invoke p0 poll poll", "1 ok p0 poll poll{}"}},
		{"EDN top-level list - parses",
			"({:type :invoke :process 0 :f :poll :value [[:poll]]})",
			[]string{"0 invoke p0 poll poll"}},
		{"EDN tagged Op record - parses",
			`#jepsen.history.Op{:index 4, :time 7, :type :ok, :process 2, :f :send, :value [[:send 0 [1 2]]]}
#jepsen.history.Op {:index 5, :time 8, :type :invoke, :process 2, :f :poll, :value [[:poll]]}`,
			[]string{"4 ok p2 send send(0,2)@1 t=7", "5 invoke p2 poll poll t=8"}},
		{"EDN #object as value - kept as source text",
			`{:type :invoke :process 0 :f :send :value [[:send 1 #object[java.lang.Foo 0x1 "x"]]]}`,
			[]string{`0 invoke p0 send send(1,<#object[java.lang.Foo 0x1 "x"]>)`}},
		{"EDN #object, #inst, #uuid in unknown fields - skipped",
			`{:type :info :process :nemesis :f :kill :value nil :node #object[java.lang.Foo 0x1 "x"] :at #inst "2024-01-01T00:00:00Z" :id #uuid "0f4e2f5c-0000-0000-0000-000000000000"}`,
			[]string{`0 info p- other:kill`}},
		{"EDN #error as :error - kept as source text",
			`{:type :info :process 0 :f :send :value [[:send 1 2]] :error #error {:cause "boom" :via [{:type java.net.SocketTimeoutException :message "Read timed out"}]}}`,
			[]string{`0 info p0 send send(1,2) err="#error {:cause \"boom\" :via [{:type java.net.SocketTimeoutException :message \"Read timed out\"}]}"`}},
		{"EDN error string and keyword - as text",
			"{:type :info :process 0 :f :poll :value [[:poll]] :error \"timed out\"}\n{:type :fail :process 1 :f :poll :value [[:poll]] :error :net-timeout}\n{:type :fail :process 2 :f :poll :value [[:poll]] :error [:not-supported \"txn\"]}",
			[]string{`0 info p0 poll poll err="timed out"`, `1 fail p1 poll poll err=":net-timeout"`, `2 fail p2 poll poll err="[:not-supported \"txn\"]"`}},
		{"EDN discard #_ - skipped",
			"#_{:type :invoke} {:type :invoke :process 0 #_ :process #_ 9 :f :poll :value [#_[:send 1 2] [:poll]]} #_ #_ [1] [2]",
			[]string{"0 invoke p0 poll poll"}},
		{"EDN strings with escapes and non-ASCII - unescaped",
			`{:type :invoke :process 0 :f :send :value [[:send "a\"b\\c\n\t\r\u00e9" "héllo ☃"]]}`,
			[]string{`0 invoke p0 send send("a\"b\\c\n\t\ré","héllo ☃")`}},
		{"EDN characters - kept as source text",
			`{:type :invoke :process 0 :f :txn :value [[:send \a \newline] [:send \space \u0041] [:send \( \\]]}`,
			[]string{`0 invoke p0 txn send(<\a>,<\newline>) send(<\space>,<\u0041>) send(<\(>,<\\>)`}},
		{"EDN sets - keys of assign, skipped elsewhere",
			`{:type :invoke :process 0 :f :assign :value #{1 2} :extra #{#{3} [4]}}`,
			[]string{"0 invoke p0 assign keys=[1 2]"}},
		{"EDN nil everywhere - parses",
			`{:index nil :time nil :type :ok :process nil :f :txn :value [[:send 1 [nil 5]] [:poll nil] [:poll {2 nil}]] :error nil}`,
			[]string{`0 ok p? txn send(1,5)@nil poll{} poll{2:[]} err="nil"`}},
		{"EDN nil value - no micro-ops",
			`{:type :invoke :process 0 :f :poll :value nil}`,
			[]string{"0 invoke p0 poll"}},
		{"EDN big integers - KBigInt with normalised digits",
			`{:type :ok :process 0 :f :send :value [[:send 99999999999999999999 [3 -000123456789012345678901N]] [:send +9223372036854775807 -9223372036854775808] [:send 9223372036854775808 1]]}`,
			[]string{"0 ok p0 send send(N99999999999999999999N,N-123456789012345678901N)@3 send(9223372036854775807,-9223372036854775808) send(N9223372036854775808N,1)"}},
		{"EDN N suffix and sign - integers",
			`{:type :ok :process 0 :f :send :value [[:send 5N [+7 -3N]]]}`,
			[]string{"0 ok p0 send send(5,-3)@7"}},
		{"EDN floats, decimals and ratios - kept as source text",
			`{:type :invoke :process 0 :f :txn :value [[:send 1/2 1.5] [:send 1e3 1.5M] [:send 0x1F ##Inf]]}`,
			[]string{"0 invoke p0 txn send(<1/2>,<1.5>) send(<1e3>,<1.5M>) send(<0x1F>,<##Inf>)"}},
		{"EDN keywords with namespaces - keep their text",
			`{:type :invoke :process 0 :f :my.ns/frob :value [[:send :a/b :c.d/e]]}`,
			[]string{"0 invoke p0 other:my.ns/frob send(:a/b,:c.d/e)"}},
		{"EDN symbols, true, false - kept as source text",
			`{:type :invoke :process 0 :f :send :value [[:send foo true] [:send bar/baz false]]}`,
			[]string{"0 invoke p0 send send(<foo>,<true>) send(<bar/baz>,<false>)"}},
		{"EDN missing index - position in file",
			"{:type :invoke :process 0 :f :poll :value [[:poll]]}\n{:index 10 :type :ok :process 0 :f :poll :value [[:poll {}]]}\n{:type :invoke :process 0 :f :poll :value [[:poll]]}",
			[]string{"0 invoke p0 poll poll", "10 ok p0 poll poll{}", "2 invoke p0 poll poll"}},
		{"EDN process not an integer - not a client",
			`{:type :info :process :nemesis :f :start-partition :value [:isolated {"n1" #{"n2" "n3"}}]}
{:type :info :process "worker" :f :kill :value :all}
{:type :info :f :kill}`,
			[]string{"0 info p- other:start-partition", "1 info p- other:kill", "2 info p- other:kill"}},
		{"EDN type as string or symbol - parses",
			`{:type "ok" :process 0 :f "poll" :value [["poll" {"k" [[0 1]]}]]} {:type ":fail" :process 0 :f poll :value [[poll]]}`,
			[]string{`0 ok p0 poll poll{"k":[0=1]}`, "1 fail p0 poll poll"}},
		{"EDN no f and micro-op vectors - txn",
			`{:index 0 :type :invoke  :value [[:append 253 1] [:r 253 nil]]}`,
			[]string{"0 invoke p? txn append(253,1) r(253)"}},
		{"EDN other f with micro-op vectors - micro-ops kept",
			`{:type :invoke, :f :read, :value [[:r 9 nil] [:w 9 1] [:send 2 3]], :process 3}`,
			[]string{"0 invoke p3 other:read r(9) w(9,1) send(2,3)"}},
		{"EDN other f with vectors that are not micro-ops - no micro-ops",
			`{:type :info :process :nemesis :f :grudge :value [[1 2] ["n1"]]}`,
			[]string{"0 info p- other:grudge"}},
		{"EDN assign and subscribe - keys",
			`{:type :invoke :process 0 :f :assign :value [1 "two" :three]} {:type :ok :process 0 :f :subscribe :value (4 5)} {:type :ok :process 0 :f :assign :value []}`,
			[]string{`0 invoke p0 assign keys=[1 "two" :three]`, "1 ok p0 subscribe keys=[4 5]", "2 ok p0 assign"}},
		{"EDN rebalance-log - union of keys in order of first appearance",
			`{:type :ok :process 0 :f :poll :value [[:poll {1 [[0 1]]}]] :rebalance-log [{:type :assigned :keys [3 1]} {:type :revoked :keys [1 2] :extra {:a [1]}} {:keys nil} 7]}`,
			[]string{"0 ok p0 poll poll{1:[0=1]} rebal=[3 1 2]"}},
		{"EDN poll map keys in file order - kept",
			`{:type :ok :process 0 :f :poll :value [[:poll {9 [[0 1]], 2 [[4 5] [5 6]], 30 []}]]}`,
			[]string{"0 ok p0 poll poll{9:[0=1] 2:[4=5 5=6] 30:[]}"}},
		{"EDN partly executed info op - invocation forms kept",
			`{:type :info :process 0 :f :txn :value [[:send 4 [1 5]] [:send 4 6] [:poll]] :error :net-timeout}`,
			[]string{`0 info p0 txn send(4,5)@1 send(4,6) poll err=":net-timeout"`}},
		{"EDN unknown keys with nested values - skipped",
			`{:type :ok :process 0 :f :poll :value [[:poll {}]] :seek-to-beginning? true :x {:a [1 (2 #{3}) {"b" nil}]} "str-key" 1 [1 2] 3 {:m 1} 4}`,
			[]string{"0 ok p0 poll poll{}"}},
		{"EDN composite keys and values - source text",
			`{:type :invoke :process 0 :f :send :value [[:send [1 2] {:a 1}]]}`,
			[]string{"0 invoke p0 send send(<[1 2]>,<{:a 1}>)"}},
		{"EDN regex and tagged values - kept as source text",
			`{:type :invoke :process 0 :f :send :value [[:send #"a.b" #inst "2024-01-01"]]}`,
			[]string{`0 invoke p0 send send(<#"a.b">,<#inst "2024-01-01">)`}},
		{"EDN :index large and negative time - parses",
			`{:index 9223372036854775807 :time -5 :type :invoke :process 2147483647 :f :poll :value [[:poll]]}`,
			[]string{"9223372036854775807 invoke p2147483647 poll poll t=-5"}},
		{"EDN list-append txn - appends and list reads",
			`{:index 0 :type :invoke :process 1 :f :txn :value [[:append :x 1] [:r :x nil] [:r :y nil]]}
{:index 1 :type :ok :process 1 :f :txn :value [[:append :x 1] [:r :x [0 1]] [:r :y []]]}
{:index 2 :type :invoke :process 2 :value [[:r "k" nil]]}
{:index 3 :type :info :process 2 :value [[:r "k" nil]] :error [:timeout "db"]}`,
			[]string{
				"0 invoke p1 txn append(:x,1) r(:x) r(:y)",
				"1 ok p1 txn append(:x,1) r(:x,[0 1]) r(:y,[])",
				`2 invoke p2 txn r("k")`,
				`3 info p2 txn r("k") err="[:timeout \"db\"]"`,
			}},
		{"EDN rw-register txn - writes and value reads",
			`{:index 0 :type :invoke :process 0 :f :txn :value [[:w 3 7] [:r 4 nil]]}
{:index 1 :type :ok :process 0 :f :txn :value [[:w 3 7] [:r 4 nil]]}
{:index 2 :type :invoke :process 0 :f :txn :value [[:r 3 nil] (:r 4 nil)]}
{:index 3 :type :ok :process 0 :f :txn :value [[:r 3 7] (r 4 :v)]}`,
			[]string{
				"0 invoke p0 txn w(3,7) r(4)",
				"1 ok p0 txn w(3,7) r(4)",
				"2 invoke p0 txn r(3) r(4)",
				"3 ok p0 txn r(3,7) r(4,:v)",
			}},
		{"EDN no process on txn ops - one anonymous client",
			`{:index 0 :type :invoke :value [[:append 1 2]]}
{:index 1 :type :ok :value [[:append 1 2]]}
{:index 2 :type :info :f :kill}`,
			[]string{"0 invoke p? txn append(1,2)", "1 ok p? txn append(1,2)", "2 info p- other:kill"}},
		{"EDN empty input - no ops", "  \n ; nothing\n", []string{}},
		{"EDN byte order mark - skipped", "\ufeff{:type :invoke :process 0 :f :poll :value [[:poll]]}", []string{"0 invoke p0 poll poll"}},
	}
	readCases(t, "t.edn", tests)
}

// readCase is a history text and the ops it reads as (renderAll).
type readCase struct {
	name string
	in   string
	want []string
}

// readCases reads each case's text as a file named file and checks its ops,
// that it reads whole, without warnings, and that the history is well
// formed (checkHistory).
func readCases(t *testing.T, file string, tests []readCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := readString(t, file, tc.in, Options{})
			equalLines(t, renderAll(h), tc.want)
			if h.Truncated || len(h.Warnings) > 0 {
				t.Errorf("truncated %v, warnings %q", h.Truncated, h.Warnings)
			}
			if err := checkHistory(h); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestEDNAtoms checks the kinds of interned keys and values.
func TestEDNAtoms(t *testing.T) {
	h := readString(t, "t.edn",
		`{:type :ok :process 0 :f :txn :value [[:send 3 [0 3]] [:send "3" [1 "3"]] [:send :k [2 :v]] [:send 99999999999999999999 [3 1/2]]]}`, Options{})
	op := h.Ops[0]
	mops := h.MopsOf(&op)
	wantKeys := []model.Atom{model.IntAtom(3), model.IntAtom(3), model.KeywordAtom(":k"), {Kind: model.KBigInt, Text: "99999999999999999999"}}
	wantVals := []model.Atom{model.IntAtom(3), model.StringAtom("3"), model.KeywordAtom(":v"), {Kind: model.KOther, Text: "1/2"}}
	for i, m := range mops {
		if got := h.KeyAtom(m.Key); got != wantKeys[i] {
			t.Errorf("mop %d key = %#v, want %#v", i, got, wantKeys[i])
		}
		if got := h.MsgValue(m.Msg); got != wantVals[i] {
			t.Errorf("mop %d value = %#v, want %#v", i, got, wantVals[i])
		}
	}
	if mops[0].Key != mops[1].Key {
		t.Errorf("key 3 and key \"3\" are different keys")
	}
	if mops[0].Msg == mops[1].Msg {
		t.Errorf("value 3 and value \"3\" are one message")
	}
}

// TestEDNLines checks Op.Line.
func TestEDNLines(t *testing.T) {
	src := "; header\n\n{:type :invoke :process 0 :f :poll :value [[:poll]]}\n[{:type :ok\n  :process 0 :f :poll :value [[:poll {\"a\n b\" [[0 1]]}]]}\n  {:type :invoke :process 0 :f :poll}]\n#jepsen.history.Op\n{:type :invoke :process 1}"
	h := readString(t, "t.edn", src, Options{})
	var got []int32
	for i := range h.Ops {
		got = append(got, int32(h.Line(i)))
	}
	want := []int32{3, 4, 7, 9}
	if len(got) != len(want) {
		t.Fatalf("lines %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("lines %v, want %v", got, want)
			break
		}
	}
}

// TestErrorCap checks that :error is cut to 300 characters.
func TestErrorCap(t *testing.T) {
	long := strings.Repeat("é", 400)
	h := readString(t, "t.edn", `{:type :info :process 0 :f :poll :error "`+long+`"}`, Options{})
	want := strings.Repeat("é", 300) + "..."
	if h.ErrorOf(0) != want {
		t.Errorf("error has %d runes, want 300 and ...", len([]rune(h.ErrorOf(0))))
	}
}

// TestFormatForced reads EDN with string keys, which the detector takes for
// JSON, by forcing EDN; and EDN forced to JSON fails.
func TestFormatForced(t *testing.T) {
	src := `{"type" :invoke "process" 0 "f" :poll "value" [[:poll]]}`
	if _, err := Read(strings.NewReader(src), "t", Options{}); err == nil {
		t.Errorf("auto-detected JSON read EDN without error")
	}
	h := readString(t, "t", src, Options{Format: FormatEDN})
	equalLines(t, renderAll(h), []string{"0 invoke p0 poll poll"})
	if _, err := Read(strings.NewReader(`{:type :invoke}`), "t", Options{Format: FormatJSON}); err == nil {
		t.Errorf("EDN forced to JSON read without error")
	}
	for f, s := range map[Format]string{FormatAuto: "auto", FormatEDN: "edn", FormatJSON: "json", 7: "Format(7)"} {
		if f.String() != s {
			t.Errorf("Format(%d).String() = %q, want %q", f, f.String(), s)
		}
	}
}
