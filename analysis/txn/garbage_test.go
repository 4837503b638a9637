package txn

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testhist"
)

// junkReads is a history of n txns that each append to a key and read
// another key, whose read returns a value no txn wrote: n garbage reads
// (list-append; rw-register with writes and single values).
func junkReads(n int, list bool) *testhist.Lines {
	var l testhist.Lines
	for i := range n {
		if list {
			l.Pair(i%4, "txn", fmt.Sprintf("[[:append %d %d] [:r %d nil]]", i%3, i, 10+i%3), "ok",
				fmt.Sprintf("[[:append %d %d] [:r %d [%d %d]]]", i%3, i, 10+i%3, 1000000+i, 2000000+i))
		} else {
			l.Pair(i%4, "txn", fmt.Sprintf("[[:w %d %d] [:r %d nil]]", i%3, i, 10+i%3), "ok",
				fmt.Sprintf("[[:w %d %d] [:r %d %d]]", i%3, i, 10+i%3, 1000000+i))
		}
	}
	return &l
}

// TestCompactGarbageReads: garbage-read instances are kept compact
// (analysis.Lazy), and each writes, through MarshalJSON, the JSON of the
// Instance its Full builds: a list read's unwritten elements as element
// and values, a register read's as value.
func TestCompactGarbageReads(t *testing.T) {
	for _, c := range []struct {
		list  bool
		first string
	}{
		{true, `{"key":10,"values":[1000000,2000000],"op":1,"mop":[":r",10,[1000000,2000000]],"element":1000000,"witness":[0,1]}`},
		{false, `{"key":10,"value":1000000,"op":1,"mop":[":r",10,1000000],"witness":[0,1]}`},
	} {
		h, p := testhist.Read(t, bytes.NewReader(junkReads(6, c.list).Bytes()), "junk")
		check := CheckRWRegister
		if c.list {
			check = CheckListAppend
		}
		ins := check(h, p, DefaultOptions()).Anomalies[GarbageRead]
		if len(ins) != 6 {
			t.Fatalf("list %v: %d garbage reads, want 6", c.list, len(ins))
		}
		for i, in := range ins {
			if got := testhist.LazyJSON(t, in); i == 0 && got != c.first {
				t.Errorf("list %v #0: %s, want %s", c.list, got, c.first)
			}
		}
	}
}

// TestCompactGarbageReadsOddValues: compact garbage reads write keys and
// values that need escaping, big integers and keywords as encoding/json
// does, in list-append and rw-register alike.
func TestCompactGarbageReadsOddValues(t *testing.T) {
	for _, list := range []bool{true, false} {
		var l testhist.Lines
		vals := []string{`"v<&>\"é"`, "123456789012345678901234", ":kw<2>"}
		for i, v := range vals {
			if list {
				l.Pair(i, "txn", `[[:r "k<&>" nil]]`, "ok", fmt.Sprintf(`[[:r "k<&>" [%s %s]]]`, v, vals[(i+1)%len(vals)]))
			} else {
				l.Pair(i, "txn", `[[:r "k<&>" nil]]`, "ok", fmt.Sprintf(`[[:r "k<&>" %s]]`, v))
			}
		}
		h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "odd")
		check := CheckRWRegister
		if list {
			check = CheckListAppend
		}
		ins := check(h, p, DefaultOptions()).Anomalies[GarbageRead]
		if len(ins) != len(vals) {
			t.Fatalf("list %v: %d garbage reads, want %d", list, len(ins), len(vals))
		}
		for _, in := range ins {
			testhist.LazyJSON(t, in)
		}
	}
}

// BenchmarkCompactGarbageReads reports the heap a list-append check's
// result holds per garbage-read instance (B/instance), with 100k of them.
func BenchmarkCompactGarbageReads(b *testing.B) {
	const n = 100000
	h, p := testhist.Read(b, bytes.NewReader(junkReads(n, true).Bytes()), "junk")
	testhist.ReportHeapPer(b, func() (any, int) {
		res := CheckListAppend(h, p, DefaultOptions())
		return res, len(res.Anomalies[GarbageRead])
	})
}

// TestCompactInternalReads: internal instances are kept compact
// (analysis.Lazy) and write, through MarshalJSON and AppendJSON, the JSON
// of the Instance their Full builds (testhist.LazyJSON), for an expected
// state known whole, known by its end only, read as nil, and a register's,
// with keys and values that need escaping, big integers and keywords.
func TestCompactInternalReads(t *testing.T) {
	for _, c := range []struct {
		list  bool
		txns  []string // each the completion of an ok txn of process 0
		wants []string // the JSON of each instance
	}{
		{true, []string{
			`[[:r "k<&>" [1 2]] [:append "k<&>" 3] [:r "k<&>" [1 2]]]`,
			`[[:append :kw 123456789012345678901234] [:r :kw [5]]]`,
			`[[:r 7 nil] [:r 7 ["v<\"é>"]]]`,
		}, []string{
			`{"key":"k\u003c\u0026\u003e","op":1,"mop":[":r","k\u003c\u0026\u003e",[1,2]],"expected":[1,2,3],"witness":[0,1]}`,
			`{"key":":kw","op":3,"mop":[":r",":kw",[5]],"expected":["...",123456789012345678901234],"witness":[2,3]}`,
			`{"key":7,"op":5,"mop":[":r",7,["v\u003c\"é\u003e"]],"expected":null,"witness":[4,5]}`,
		}},
		{false, []string{
			`[[:w "k<&>" 1] [:r "k<&>" 2]]`,
			`[[:r :kw nil] [:r :kw "v<\"é>"]]`,
		}, []string{
			`{"key":"k\u003c\u0026\u003e","op":1,"mop":[":r","k\u003c\u0026\u003e",2],"expected":1,"witness":[0,1]}`,
			`{"key":":kw","op":3,"mop":[":r",":kw","v\u003c\"é\u003e"],"expected":null,"witness":[2,3]}`,
		}},
	} {
		var l testhist.Lines
		for _, txn := range c.txns {
			inv := strings.NewReplacer(" [1 2]]", " nil]", " [5]]", " nil]", ` ["v<\"é>"]]`, " nil]", " 2]", " nil]", ` "v<\"é>"]`, " nil]").Replace(txn)
			l.Pair(0, "txn", inv, "ok", txn)
		}
		h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "internal")
		check := CheckRWRegister
		if c.list {
			check = CheckListAppend
		}
		ins := check(h, p, DefaultOptions()).Anomalies[Internal]
		if len(ins) != len(c.wants) {
			t.Fatalf("list %v: %d internal instances, want %d", c.list, len(ins), len(c.wants))
		}
		for i, in := range ins {
			if _, ok := in.(*internalRead); !ok {
				t.Errorf("list %v #%d: a %T, not kept compact", c.list, i, in)
			}
			if got := testhist.LazyJSON(t, in); got != c.wants[i] {
				t.Errorf("list %v #%d: %s, want %s", c.list, i, got, c.wants[i])
			}
		}
	}
}

// BenchmarkCompactInternalReads reports the heap a list-append check's
// result holds per internal instance (B/instance), with 100k of them (each
// txn reads its key without the element it has just appended).
func BenchmarkCompactInternalReads(b *testing.B) {
	const n = 100000
	var l testhist.Lines
	for i := range n {
		l.Pair(i%4, "txn", fmt.Sprintf("[[:append %d %d] [:r %d nil]]", i%3, i, i%3), "ok",
			fmt.Sprintf("[[:append %d %d] [:r %d []]]", i%3, i, i%3))
	}
	h, p := testhist.Read(b, bytes.NewReader(l.Bytes()), "internal")
	testhist.ReportHeapPer(b, func() (any, int) {
		res := CheckListAppend(h, p, DefaultOptions())
		return res, len(res.Anomalies[Internal])
	})
}

// TestCompactDirtyReads: G1a and G1b instances are kept compact
// (dirtyRead) and write, through MarshalJSON and AppendJSON, the JSON of
// the Instance their Full builds, in list-append (a read cut to its first
// MaxMopElements elements, with mop_elements) and rw-register, with keys
// and values that need escaping.
func TestCompactDirtyReads(t *testing.T) {
	long := make([]string, MaxMopElements+3)
	for i := range long {
		long[i] = fmt.Sprint(100 + i)
	}
	for _, c := range []struct {
		list  bool
		lines func(l *testhist.Lines)
		want  map[string]int // instances of each type
	}{
		{true, func(l *testhist.Lines) {
			l.Pair(0, "txn", `[[:append "k<&>" "v<é>"]]`, "fail", `[[:append "k<&>" "v<é>"]]`)
			l.Pair(1, "txn", `[[:r "k<&>" nil]]`, "ok", `[[:r "k<&>" ["v<é>"]]]`)
			l.Pair(2, "txn", "[[:append 5 1] [:append 5 2]]", "ok", "[[:append 5 1] [:append 5 2]]")
			l.Pair(3, "txn", "[[:r 5 nil]]", "ok", "[[:r 5 [1]]]")
			for _, e := range long {
				l.Pair(4, "txn", fmt.Sprintf("[[:append 6 %s]]", e), "fail", fmt.Sprintf("[[:append 6 %s]]", e))
			}
			l.Pair(5, "txn", "[[:r 6 nil]]", "ok", "[[:r 6 ["+strings.Join(long, " ")+"]]]")
		}, map[string]int{G1a: 1 + len(long), G1b: 1}},
		{false, func(l *testhist.Lines) {
			l.Pair(0, "txn", `[[:w "k<&>" "v<é>"]]`, "fail", `[[:w "k<&>" "v<é>"]]`)
			l.Pair(1, "txn", `[[:r "k<&>" nil]]`, "ok", `[[:r "k<&>" "v<é>"]]`)
			l.Pair(2, "txn", "[[:w 5 1] [:w 5 2]]", "ok", "[[:w 5 1] [:w 5 2]]")
			l.Pair(3, "txn", "[[:r 5 nil]]", "ok", "[[:r 5 1]]")
		}, map[string]int{G1a: 1, G1b: 1}},
	} {
		var l testhist.Lines
		c.lines(&l)
		h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "dirty")
		check := CheckRWRegister
		if c.list {
			check = CheckListAppend
		}
		res := check(h, p, DefaultOptions())
		cut := 0
		for typ, n := range c.want {
			ins := res.Anomalies[typ]
			if len(ins) != n {
				t.Fatalf("list %v: %d %s instances, want %d", c.list, len(ins), typ, n)
			}
			for i, in := range ins {
				if _, ok := in.(*dirtyRead); !ok {
					t.Errorf("list %v %s #%d: a %T, not kept compact", c.list, typ, i, in)
				}
				if js := testhist.LazyJSON(t, in); strings.Contains(js, fmt.Sprintf(`"mop_elements":%d`, len(long))) {
					cut++
				}
			}
		}
		if c.list && cut != len(long) {
			t.Errorf("%d instances name a cut read's length, want %d", cut, len(long))
		}
	}
}

// BenchmarkCompactDirtyReads reports the heap a list-append check's result
// holds per G1a instance (B/instance), with 100k of them (each read sees
// the element of a failed append).
func BenchmarkCompactDirtyReads(b *testing.B) {
	const n = 100000
	var l testhist.Lines
	for i := range n {
		l.Pair(i%4, "txn", fmt.Sprintf("[[:append %d %d]]", i%50, i), "fail", fmt.Sprintf("[[:append %d %d]]", i%50, i))
		l.Pair(4+i%4, "txn", fmt.Sprintf("[[:r %d nil]]", i%50), "ok", fmt.Sprintf("[[:r %d [%d]]]", i%50, i))
	}
	h, p := testhist.Read(b, bytes.NewReader(l.Bytes()), "dirty")
	testhist.ReportHeapPer(b, func() (any, int) {
		res := CheckListAppend(h, p, DefaultOptions())
		return res, len(res.Anomalies[G1a])
	})
}
