package queue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
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
	checkCompact(t, res, map[string]compactWant{
		GarbageRead: {5, `{"key":":y","value":0,"offset":0,"reader":11,"witness":[10,11]}`},
		LostWrite:   {4, `{"key":":x","value":0,"offset":0,"index":0,"max_read_index":4,"writer":1,"max_read":11,"max_read_offset":4,"witness":[0,1,10,11]}`},
	})
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

// doubled is a history of n values sent to key :x, each of which the log
// holds twice (offsets 2i and 2i+1), read whole by one poll of process 1:
// duplicate for each value, int-nonmonotonic-poll for each repeat,
// int-poll-skip for each step to the next value (past its first copy: a
// duplicate's position is its last offset, package doc).
func doubled(n int) *testhist.Lines {
	var l testhist.Lines
	var read []string
	for i := range n {
		l.Pair(0, "send", fmt.Sprintf("[[:send :x %d]]", i), "ok", fmt.Sprintf("[[:send :x [%d %d]]]", 2*i, i))
		read = append(read, fmt.Sprintf("[%d %d] [%d %d]", 2*i, i, 2*i+1, i))
	}
	l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:x ["+strings.Join(read, " ")+"]}]]")
	return &l
}

// TestCompactDuplicatesAndSteps: duplicate and int-* step instances are
// kept compact and write, through MarshalJSON and AppendJSON, the JSON of
// the Instance their Full builds (a skip with its skipped values, and
// with skipped_count past MaxSkipped), keys and values that need escaping
// included.
func TestCompactDuplicatesAndSteps(t *testing.T) {
	h, p := testhist.Read(t, bytes.NewReader(doubled(3).Bytes()), "doubled")
	res := Check(h, p, DefaultOptions())
	checkCompact(t, res, map[string]compactWant{
		Duplicate:           {3, `{"key":":x","value":0,"offsets":[0,1],"count":2,"witness":[0,1,6,7]}`},
		IntNonmonotonicPoll: {3, `{"key":":x","values":[0,0],"op":7,"delta":0,"witness":[6,7]}`},
		IntPollSkip:         {2, `{"key":":x","values":[0,1],"op":7,"delta":2,"skipped":[1],"witness":[2,3,6,7]}`},
	})
	for _, typ := range []string{Duplicate, IntNonmonotonicPoll, IntPollSkip} {
		for i, in := range res.Anomalies[typ] {
			switch in.(type) {
			case *duplicate, *opStep:
			default:
				t.Errorf("%s #%d: a %T, not kept compact", typ, i, in)
			}
		}
	}
	// a skip past MaxSkipped values, of odd keys and values
	var l testhist.Lines
	var read []string
	for i := range MaxSkipped + 5 {
		v := fmt.Sprintf(`"v<&>%d"`, i)
		l.Pair(0, "send", `[[:send "k<&>" `+v+`]]`, "ok", fmt.Sprintf(`[[:send "k<&>" [%d %s]]]`, i, v))
		if i == 0 || i == MaxSkipped+4 {
			read = append(read, fmt.Sprintf("[%d %s]", i, v))
		}
	}
	l.Pair(1, "poll", "[[:poll]]", "ok", `[[:poll {"k<&>" [`+strings.Join(read, " ")+`]}]]`)
	h, p = testhist.Read(t, bytes.NewReader(l.Bytes()), "skip")
	ins := Check(h, p, DefaultOptions()).Anomalies[IntPollSkip]
	if len(ins) != 1 {
		t.Fatalf("%d int-poll-skip instances, want 1", len(ins))
	}
	if got := testhist.LazyJSON(t, ins[0]); !strings.Contains(got, fmt.Sprintf(`"skipped_count":%d}`, MaxSkipped+3)) {
		t.Errorf("a skip of %d values: %s", MaxSkipped+3, got)
	}
}

// BenchmarkCompactDuplicatesAndSteps reports the heap a check's result
// holds per duplicate or int-* instance (B/instance), of 30k values each
// held twice.
func BenchmarkCompactDuplicatesAndSteps(b *testing.B) {
	h, p := testhist.Read(b, bytes.NewReader(doubled(30000).Bytes()), "doubled")
	testhist.ReportHeapPer(b, func() (any, int) {
		res := Check(h, p, DefaultOptions())
		return res, len(res.Anomalies[Duplicate]) + len(res.Anomalies[IntNonmonotonicPoll]) + len(res.Anomalies[IntPollSkip])
	})
}

// compactWant is how many instances of a type a test expects, and the
// JSON of the first.
type compactWant struct {
	n     int
	first string
}

// checkCompact checks res's instances of each type in wants: their number,
// that each is kept compact and writes the JSON of its Full instance
// and lists its values (testhist.LazyJSON), that its Sketch is that
// instance without Skipped, and the first's JSON.
func checkCompact(t *testing.T, res *analysis.Result, wants map[string]compactWant) {
	t.Helper()
	for typ, want := range wants {
		ins := res.Anomalies[typ]
		if len(ins) != want.n {
			t.Fatalf("%s: %d instances, want %d", typ, len(ins), want.n)
		}
		for i, in := range ins {
			if got := testhist.LazyJSON(t, in); i == 0 && got != want.first {
				t.Errorf("%s #0: %s, want %s", typ, got, want.first)
			}
			full := analysis.Full(in).(*Instance)
			full.Skipped = nil
			sketch, err1 := json.Marshal(Sketch(in))
			wantSketch, err2 := json.Marshal(full)
			if err1 != nil || err2 != nil || string(sketch) != string(wantSketch) {
				t.Errorf("%s #%d: sketch %s, want %s (%v, %v)", typ, i, sketch, wantSketch, err1, err2)
			}
		}
	}
}

// TestCompactProcessSteps: poll-skip, nonmonotonic-poll and
// nonmonotonic-send instances are kept compact and write, through
// MarshalJSON and AppendJSON, the JSON of the Instance their Full builds:
// a skip with its skipped values (and skipped_count past MaxSkipped), a
// subscribed consumer's skip allowed, keys and values that need escaping.
func TestCompactProcessSteps(t *testing.T) {
	var l testhist.Lines
	n := MaxSkipped + 6
	v := func(i int) string { return fmt.Sprintf(`"v<&>%d"`, i) }
	for i := range n {
		l.Pair(0, "send", `[[:send "k<&>" `+v(i)+`]]`, "ok", fmt.Sprintf(`[[:send "k<&>" [%d %s]]]`, i, v(i)))
	}
	// process 3 sends the second value of :q before the first
	l.Pair(3, "send", `[[:send :q "b"]]`, "ok", `[[:send :q [1 "b"]]]`)
	l.Pair(3, "send", `[[:send :q "a"]]`, "ok", `[[:send :q [0 "a"]]]`)
	poll := func(p int, offs ...int) {
		var read []string
		for _, o := range offs {
			read = append(read, fmt.Sprintf("[%d %s]", o, v(o)))
		}
		l.Pair(p, "poll", "[[:poll]]", "ok", `[[:poll {"k<&>" [`+strings.Join(read, " ")+`]}]]`)
	}
	poll(1, 0)   // op 2n+5
	poll(1, 3)   // skips 1 and 2
	poll(1, 1)   // back by two
	poll(1, n-1) // skips n-3 values
	l.Pair(2, "subscribe", `["k<&>"]`, "ok", `["k<&>"]`)
	poll(2, 0)
	poll(2, 2) // skips 1, allowed: process 2 subscribed
	h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "steps")
	res := Check(h, p, DefaultOptions())
	first := 2*n + 4 // the first poll's invocation
	checkCompact(t, res, map[string]compactWant{
		PollSkip: {3, fmt.Sprintf(`{"key":"k\u003c\u0026\u003e","values":["v\u003c\u0026\u003e0","v\u003c\u0026\u003e3"],"ops":[%d,%d],"delta":3,"skipped":["v\u003c\u0026\u003e1","v\u003c\u0026\u003e2"],"process":1,"witness":[2,3,%d,%d,%d,%d]}`,
			first+1, first+3, first, first+1, first+2, first+3)},
		NonmonotonicPoll: {1, fmt.Sprintf(`{"key":"k\u003c\u0026\u003e","values":["v\u003c\u0026\u003e3","v\u003c\u0026\u003e1"],"ops":[%d,%d],"delta":-2,"process":1,"witness":[%d,%d,%d,%d]}`,
			first+3, first+5, first+2, first+3, first+4, first+5)},
		NonmonotonicSend: {1, fmt.Sprintf(`{"key":":q","values":["b","a"],"ops":[%d,%d],"delta":-1,"process":3,"witness":[%d,%d,%d,%d]}`,
			2*n+1, 2*n+3, 2*n, 2*n+1, 2*n+2, 2*n+3)},
	})
	for _, typ := range []string{PollSkip, NonmonotonicPoll, NonmonotonicSend} {
		for i, in := range res.Anomalies[typ] {
			if _, ok := in.(*procStep); !ok {
				t.Errorf("%s #%d: a %T, not kept compact", typ, i, in)
			}
		}
	}
	var long, allowed int
	for _, in := range res.Anomalies[PollSkip] {
		got := testhist.LazyJSON(t, in)
		if strings.Contains(got, fmt.Sprintf(`"skipped_count":%d}`, n-3)) {
			long++
		}
		if strings.Contains(got, `"process":2,"allowed":true,`) {
			allowed++
		}
	}
	if long != 1 || allowed != 1 {
		t.Errorf("%d skips with skipped_count %d and %d allowed skips of process 2, want 1 and 1", long, n-3, allowed)
	}
	for _, typ := range []string{NonmonotonicPoll, NonmonotonicSend, PollSkip} {
		if !slices.Contains(res.BadTypes, typ) {
			t.Errorf("bad types %v, without %s", res.BadTypes, typ)
		}
	}
}

// BenchmarkCompactProcessSteps reports the heap a check's result holds per
// poll-skip or nonmonotonic-poll instance (B/instance): one consumer's 30k
// polls, each reading one of three values, back and forth over the middle
// one.
func BenchmarkCompactProcessSteps(b *testing.B) {
	var l testhist.Lines
	for i := range 3 {
		l.Pair(0, "send", fmt.Sprintf("[[:send :x %d]]", i), "ok", fmt.Sprintf("[[:send :x [%d %d]]]", i, i))
	}
	for i := range 30000 {
		o := 2 * (i % 2)
		l.Pair(1, "poll", "[[:poll]]", "ok", fmt.Sprintf("[[:poll {:x [[%d %d]]}]]", o, o))
	}
	h, p := testhist.Read(b, bytes.NewReader(l.Bytes()), "steps")
	testhist.ReportHeapPer(b, func() (any, int) {
		res := Check(h, p, DefaultOptions())
		return res, len(res.Anomalies[PollSkip]) + len(res.Anomalies[NonmonotonicPoll])
	})
}
