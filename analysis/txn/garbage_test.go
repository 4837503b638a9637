package txn

import (
	"bytes"
	"fmt"
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
