package txn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
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
			if _, ok := in.(analysis.Lazy); !ok {
				t.Fatalf("list %v #%d: a %T, not kept compact", c.list, i, in)
			}
			lazy, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			full, err := json.Marshal(analysis.Full(in))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(lazy, full) {
				t.Errorf("list %v #%d: %s, its full instance %s", c.list, i, lazy, full)
			}
			if i == 0 && string(full) != c.first {
				t.Errorf("list %v #0: %s, want %s", c.list, full, c.first)
			}
		}
	}
}

// BenchmarkCompactGarbageReads reports the heap a list-append check's
// result holds per garbage-read instance (B/instance), with 100k of them.
func BenchmarkCompactGarbageReads(b *testing.B) {
	const n = 100000
	h, p := testhist.Read(b, bytes.NewReader(junkReads(n, true).Bytes()), "junk")
	var per float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res := CheckListAppend(h, p, DefaultOptions())
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = float64(after.HeapAlloc-before.HeapAlloc) / float64(len(res.Anomalies[GarbageRead]))
		runtime.KeepAlive(res)
	}
	b.ReportMetric(per, "B/instance")
}
