package queue

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testhist"
)

// massLoss is a history with n values of :x sent and acknowledged and n
// values of :y read that nobody sent; one consumer reads only :x's last
// value: n-1 lost writes and n garbage reads.
func massLoss(n int) *testhist.Lines {
	var l testhist.Lines
	for i := range n {
		l.Pair(0, "send", fmt.Sprintf("[[:send :x %d]]", i), "ok", fmt.Sprintf("[[:send :x [%d %d]]]", i, i))
	}
	l.Pair(1, "poll", "[[:poll]]", "ok", fmt.Sprintf("[[:poll {:x [[%d %d]], :y [%s]}]]", n-1, n-1, testhist.Ints(0, n, "[%d %d]")))
	return &l
}

// TestCompactInstances: garbage-read and lost-write instances are kept
// compact (analysis.Lazy), and each writes, through MarshalJSON, the JSON
// of the Instance its Full builds, with the fields the types document.
func TestCompactInstances(t *testing.T) {
	h, p := testhist.Read(t, bytes.NewReader(massLoss(5).Bytes()), "mass")
	res := Check(h, p, DefaultOptions())
	for typ, want := range map[string]struct {
		n     int
		first string
	}{
		GarbageRead: {5, `{"key":":y","value":0,"offset":0,"reader":11,"witness":[10,11]}`},
		LostWrite:   {4, `{"key":":x","value":0,"offset":0,"index":0,"max_read_index":4,"writer":1,"max_read":11,"max_read_offset":4,"witness":[0,1,10,11]}`},
	} {
		ins := res.Anomalies[typ]
		if len(ins) != want.n {
			t.Fatalf("%s: %d instances, want %d", typ, len(ins), want.n)
		}
		for i, in := range ins {
			if got := testhist.LazyJSON(t, in); i == 0 && got != want.first {
				t.Errorf("%s #0: %s, want %s", typ, got, want.first)
			}
		}
	}
}

// TestCompactInstancesOddValues: compact instances write keys and values
// that need escaping, big integers and keywords as encoding/json does.
func TestCompactInstancesOddValues(t *testing.T) {
	var l testhist.Lines
	l.Pair(0, "send", `[[:send "k<&>" "a"]]`, "ok", `[[:send "k<&>" [0 "a"]]]`)
	l.Pair(0, "send", `[[:send "k<&>" "b"]]`, "ok", `[[:send "k<&>" [1 "b"]]]`)
	l.Pair(1, "poll", "[[:poll]]", "ok", `[[:poll {"k<&>" [[1 "b"]], :y<1> [[0 "v<&>\"é"] [1 123456789012345678901234] [2 :kw<2>] [3 nil]]}]]`)
	h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "odd")
	res := Check(h, p, DefaultOptions())
	if len(res.Anomalies[GarbageRead]) != 4 || len(res.Anomalies[LostWrite]) != 1 {
		t.Fatalf("%d garbage reads and %d lost writes, want 4 and 1", len(res.Anomalies[GarbageRead]), len(res.Anomalies[LostWrite]))
	}
	for _, typ := range []string{GarbageRead, LostWrite} {
		for _, in := range res.Anomalies[typ] {
			testhist.LazyJSON(t, in)
		}
	}
}

// BenchmarkCompactInstances reports the heap a check's result holds per
// garbage-read or lost-write instance (B/instance), with 100k of each.
func BenchmarkCompactInstances(b *testing.B) {
	const n = 100000
	h, p := testhist.Read(b, bytes.NewReader(massLoss(n).Bytes()), "mass")
	testhist.ReportHeapPer(b, func() (any, int) {
		res := Check(h, p, DefaultOptions())
		return res, len(res.Anomalies[GarbageRead]) + len(res.Anomalies[LostWrite])
	})
}
