package ingest

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// slowInteger is fastInteger's specification: lexer.fastInt on a buffer.
func slowInteger(buf []byte, p int) (int64, int) {
	u, s, q := intDigits(buf, p)
	if q == s || !fastEnd(buf, q) {
		return 0, -1
	}
	if s > p {
		return -int64(u), q
	}
	return int64(u), q
}

// TestFastInteger compares fastInteger with its specification on numbers
// of every length, followed by every kind of byte, at the end of the buffer
// or not.
func TestFastInteger(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var inputs []string
	for digits := 1; digits <= 22; digits++ {
		for range 20 {
			b := []byte{}
			if r.IntN(3) == 0 {
				b = append(b, '-')
			}
			for range digits {
				b = append(b, byte('0'+r.IntN(10)))
			}
			inputs = append(inputs, string(b))
		}
	}
	inputs = append(inputs, "", "-", "0", "-0", "007", "999999999999999999", "1000000000000000000")
	tails := []string{"", " ", ",", "]", "}", "\n", "a", ".5", "N", "/2", "x12345678", "\x00", "\xff", ":", "/", "9"}
	for _, in := range inputs {
		for _, tail := range tails {
			for _, pad := range []string{"", " 12345678"} {
				buf := []byte(in + tail + pad)
				v1, q1 := fastInteger(buf, 0)
				v2, q2 := slowInteger(buf, 0)
				if v1 != v2 || q1 != q2 {
					t.Fatalf("%q: fast (%d, %d), slow (%d, %d)", buf, v1, q1, v2, q2)
				}
				if q1 >= 0 {
					if want, _ := strconv.ParseInt(string(buf[:q1]), 10, 64); want != v1 {
						t.Fatalf("%q: %d, want %d", buf, v1, want)
					}
				}
			}
		}
	}
}

// FuzzFastInteger: fastInteger agrees with its specification on any bytes.
func FuzzFastInteger(f *testing.F) {
	f.Add([]byte("12345678 "), 0)
	f.Add([]byte("-1234567890123 x"), 0)
	f.Fuzz(func(t *testing.T, buf []byte, p int) {
		if p < 0 || p > len(buf) {
			return
		}
		v1, q1 := fastInteger(buf, p)
		v2, q2 := slowInteger(buf, p)
		if v1 != v2 || q1 != q2 {
			t.Fatalf("%q at %d: fast (%d, %d), slow (%d, %d)", buf, p, v1, q1, v2, q2)
		}
	})
}

// TestFastFormEnd: fastFormEnd takes the maps and vectors of atoms an
// abort history's values are made of, on one line, and leaves everything
// else to readOp (-1), so that what it takes the lexer reads without an
// error.
func TestFastFormEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // the end, or -1
	}{
		{`{:topic "t1" :offsets [1 2 3]} `, 30},
		{`{:topic "t1", :abort? true}}`, 27},
		{`{:a {:b [[-1 :c] nil false]}}x`, 29},
		{`{} `, 2},
		{`[1 [2]] `, 7},
		{`{:topic "t1" :offsets [1 2}}`, -1},                          // a mismatched closer
		{`{:topic "t1" :offsets [1 2]`, -1},                           // the end of the buffer
		{"{:topic \"t1\"\n :offsets [1]}", -1},                        // a line break
		{`{:topic "t\"1"}`, -1},                                       // an escape
		{`{:offsets [1.5]}`, -1},                                      // a float
		{`{:offsets #{1}}`, -1},                                       // a set
		{`{:offsets #_ 1 [1]}`, -1},                                   // a discard
		{`{:offsets (1 2)}`, -1},                                      // a list
		{`{:x sym}`, -1},                                              // a symbol other than true, false, nil
		{`{:x 12345678901234567890}`, -1},                             // a big integer
		{`{:x truex}`, -1},                                            // not true
		{`{:x ; comment` + "\n" + `1}`, -1},                           // a comment
		{strings.Repeat("[", 33) + strings.Repeat("]", 33) + " ", -1}, // too deep
		{strings.Repeat("[", 32) + strings.Repeat("]", 32) + " ", 64},
	} {
		if got := fastFormEnd([]byte(tc.in), 0); got != tc.want {
			t.Errorf("fastFormEnd(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestFastCapture: a workload's value on one line is read by the fast path
// into the same history, or the same error at the same line and column, as
// readOp reads it (fuzzRead compares them), whether it takes it or leaves
// it to readOp.
func TestFastCapture(t *testing.T) {
	for _, line := range []string{
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1 2 3]}}`,
		`{:index 0 :type :fail :process 0 :f :poll :value {:topic "t1", :abort? true, :offsets [4]}, :error :intentional-abort}`,
		`{:index 0 :type :ok :process 0 :value {:offsets [1], :topic "t1"} :f :poll}`,
		`{:index 0 :type :ok :process 0 :f :subscribe :value "t1"}`,
		`{:index 0 :type :ok :process 0 :f :assign :value :t1}`,
		`{:index 0 :type :ok :process 0 :f :create :value {:topic "t1" :count 3}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1 "2"]}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:offsets [1 2]}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets 3}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1 2}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1.5]}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :abort? 1}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1]} :value nil}`,
		`{:index 0 :process 0 :f :poll :value {:topic "t1" :offsets [1]}}`,
		`{:index 0 :type :ok :process 0 :f :poll :value 12}`,
		`{:index 0 :type :ok :process 0 :f :subscribe :value 3}`,
		`{:index 0 :type :ok :process 0 :f :start :value {:n1 [:n2]}}`,
	} {
		for _, src := range []string{line + "\n", line + "\n" + line + "\n", line} {
			fuzzRead(t, []byte(src), abortOpts)
			fuzzRead(t, []byte(src), Options{})
		}
	}
}

// TestFastShort: fastShort and fastField read a keyword exactly as
// fastKeyword followed by fieldOf, ParseOpType or ParseFunc would, for
// every word of their tables, words that extend one or are a prefix of
// one, and every distance from the end of the buffer.
func TestFastShort(t *testing.T) {
	var words []string
	for _, w := range []string{":index", ":time", ":type", ":process", ":f", ":value", ":error", ":rebalance-log",
		":invoke", ":ok", ":info", ":fail", ":txn", ":poll", ":send", ":assign", ":subscribe", ":crash"} {
		words = append(words, w, w+"x", w+"?", w[:len(w)-1], w+"-log")
	}
	words = append(words, ":", "index", ":Index", ":ti", ":fx", ":o")
	hits := map[string]bool{}
	for _, w := range words {
		for _, after := range []string{" ", ",", "}", "\n", "", " 1234567890", ", :process 1}", ":b", "[1]", "?????????"} {
			src := []byte(w + after)
			name, q := fastKeyword(src, 0)
			f, fq := fastField(src, 0)
			if fq != q || q >= 0 && f != fieldOf(name) {
				t.Errorf("fastField(%q) = %d, %d; fastKeyword and fieldOf: %d, %d", src, f, fq, fieldOf(name), q)
			}
			if v, sq := fastShort(src, 0, typeWords); sq >= 0 {
				hits[w] = true
				if typ, ok := model.ParseOpType(name); sq != q || !ok || model.OpType(v) != typ {
					t.Errorf("fastShort(%q, typeWords) = %d, %d; fastKeyword and ParseOpType: %d, %d", src, v, sq, typ, q)
				}
			}
			if v, sq := fastShort(src, 0, funcWords); sq >= 0 {
				hits[w] = true
				if fn := model.ParseFunc(name); sq != q || model.Func(v) != fn || fn == model.FOther {
					t.Errorf("fastShort(%q, funcWords) = %d, %d; fastKeyword and ParseFunc: %d, %d", src, v, sq, fn, q)
				}
			}
		}
	}
	if len(hits) != len(typeWords.words)+len(funcWords.words) {
		t.Errorf("fastShort took %d words, want the %d of its tables: %v", len(hits), len(typeWords.words)+len(funcWords.words), hits)
	}
}
