package queue

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/scaling"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// TestAdversarialAllocs checks each adversarial history of
// BenchmarkAdversarial at n and 10n, with write-write edges and the
// series on, and requires the bytes allocated by the check to grow at
// most 12-fold (a quadratic check grows about 100-fold).
func TestAdversarialAllocs(t *testing.T) { scaling.AllocGrowth(t, cases(), 300) }

// TestSkippedCapped checks that a poll-skip over many values lists the
// first MaxSkipped of them and counts them all in SkippedCount.
func TestSkippedCapped(t *testing.T) {
	a := scaling.Find(t, cases(), "poll-skip-back-and-forth")
	const n = 100
	h, p := a.Read(t, n)
	res := Check(h, p, DefaultOptions())
	a.Verify(t, res)
	ins := analysis.InstancesOf[*Instance](res, PollSkip)
	if len(ins) == 0 {
		t.Fatal("no poll-skip")
	}
	for _, in := range ins {
		if len(in.Skipped) != MaxSkipped || in.SkippedCount == nil || *in.SkippedCount != n-2 {
			t.Fatalf("skipped %d values, count %v; want %d listed of %d", len(in.Skipped), in.SkippedCount, MaxSkipped, n-2)
		}
		if got := in.Skipped[0].String(); got != "1" {
			t.Fatalf("first skipped value %s, want 1", got)
		}
		if got, want := skippedVals(in), "1, 2, 3, 4, 5, 6, 7, 8, … (90 more)"; got != want {
			t.Fatalf("skipped worded %q, want %q", got, want)
		}
	}
}

// sendAll renders n sends of values from..to-1 to key k at offsets equal
// to the values, as an invocation and an ok completion.
func sendAll(k string, from, to int) (inv, ok string) {
	return testhist.Ints(from, to, "[:send "+k+" %d]"), testhist.Ints(from, to, "[:send "+k+" [%d %d]]")
}

// concurrentBatches: one op invoked first and completed last, sending 0
// to x (and, with cycle, polling z); a poll completed at once reads x's 0
// before its send is acknowledged (a backward edge that makes every op one
// stretch to search); then n sends to y running at once, completed, then
// n more sends to z running at once (n² realtime pairs, which the graph
// keeps through hubs), and a poll of them all. With cycle, the first op's poll reads the first z:
// its send → the early poll → every y send → the first z send → it, a
// cycle of wr and realtime steps.
func concurrentBatches(n int, cycle bool) *testhist.Lines {
	var l testhist.Lines
	first, firstOK := "[[:send :x 0]]", "[[:send :x [0 0]]]"
	if cycle {
		first, firstOK = "[[:send :x 0] [:poll]]", "[[:send :x [0 0]] [:poll {:z [[0 0]]}]]"
	}
	l.Op("invoke", 0, "txn", first)
	l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:x [[0 0]]}]]")
	for _, k := range []string{":y", ":z"} {
		for p := range n {
			l.Op("invoke", 2+p, "send", fmt.Sprintf("[[:send %s %d]]", k, p))
		}
		for p := range n {
			l.Op("ok", 2+p, "send", fmt.Sprintf("[[:send %s [%d %d]]]", k, p, p))
		}
	}
	l.Op("ok", 0, "txn", firstOK)
	l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:y ["+testhist.Ints(0, n, "[%d %d]")+"] :z ["+testhist.Ints(0, n, "[%d %d]")+"]}]]")
	return &l
}

// adversarials are queue histories shaped to make one check super-linear
// if it were (Check, Cost): one poll returning n messages, one op of n
// sends, one key sent to n times, one process with n ops. cases gives each
// its Check.
var adversarials = []scaling.Case{
	// n ops running at once, then n more, in one stretch (realtime hubs)
	{Name: "concurrent-batches", Gen: func(n int) *testhist.Lines { return concurrentBatches(n, false) }, Want: analysis.Valid, Types: []string{}},
	// one poll returning n messages, each sent by its own op
	{Name: "huge-poll", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := range n {
			l.Pair(0, "send", fmt.Sprintf("[[:send :x %d]]", i), "ok", fmt.Sprintf("[[:send :x [%d %d]]]", i, i))
		}
		l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:x ["+testhist.Ints(0, n, "[%d %d]")+"]}]]")
		return &l
	}, Want: analysis.Valid, Types: []string{}},
	// one poll returning n messages nobody sent
	{Name: "huge-poll-garbage", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		l.Pair(0, "send", "[[:send :y 0]]", "ok", "[[:send :y [0 0]]]")
		l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:x ["+testhist.Ints(0, n, "[%d %d]")+"] :y [[0 0]]}]]")
		return &l
	}, Want: analysis.Invalid, Types: []string{GarbageRead}},
	// one op sending n messages to one key, then one poll of them
	{Name: "huge-send-txn-one-key", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		inv, ok := sendAll(":x", 0, n)
		l.Pair(0, "send", "["+inv+"]", "ok", "["+ok+"]")
		l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:x ["+testhist.Ints(0, n, "[%d %d]")+"]}]]")
		return &l
	}, Want: analysis.Valid, Types: []string{}},
	// one op sending to n keys, then one poll of every key
	{Name: "huge-send-txn-many-keys", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		l.Pair(0, "send", "["+testhist.Ints(0, n, "[:send %d %d]")+"]", "ok", "["+testhist.Ints(0, n, "[:send %d [0 %d]]")+"]")
		l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {"+testhist.Ints(0, n, "%d [[0 %d]]")+"}]]")
		return &l
	}, Want: analysis.Valid, Types: []string{}},
	// one poll of n messages of one key, at offsets n down to 1, whose
	// values repeat every 100: each value sits at n/100 offsets (a
	// duplicate per value, each checked against the value's other
	// offsets), and every read steps back from the one before it
	{Name: "one-poll-descending-repeats", Gen: func(n int) *testhist.Lines {
		return testhist.DescendingPoll(":x", n, 100)
	}, Want: analysis.Invalid, Types: []string{Duplicate, GarbageRead, IntNonmonotonicPoll, IntPollSkip}},
	// n ops on 40 processes, each sending to one key and polling the next
	// op's message: one cycle through them all (a G1c of n steps, which
	// the search must close and check for simplicity in time linear in
	// n), and a poll-skip per poll
	{Name: "ring-of-ops", Gen: func(n int) *testhist.Lines {
		return testhist.Ring(n, 40)
	}, Want: analysis.Invalid, Types: []string{G1c, G1cProcess, G1cRealtime, NonmonotonicPoll, PollSkip}},
	// one key sent to n times by 10 concurrent producers, read back by
	// polls of 10 messages each
	{Name: "one-key-n-sends", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := 0; i < n; i += 10 {
			for p := range 10 {
				l.Op("invoke", p, "send", fmt.Sprintf("[[:send :x %d]]", i+p))
			}
			for p := range 10 {
				l.Op("ok", p, "send", fmt.Sprintf("[[:send :x [%d %d]]]", i+p, i+p))
			}
		}
		for i := 0; i < n; i += 10 {
			l.Pair(10, "poll", "[[:poll]]", "ok", "[[:poll {:x ["+testhist.Ints(i, i+10, "[%d %d]")+"]}]]")
		}
		return &l
	}, Want: analysis.Valid, Types: []string{}},
	// one key sent to n times by n concurrent producers, acknowledged in
	// decreasing offset order (the lag's acknowledged log), then read back
	// by polls of 10
	{Name: "one-key-descending-acks", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := range n {
			l.Op("invoke", i, "send", fmt.Sprintf("[[:send :x %d]]", i))
		}
		for i := range n {
			l.Op("ok", i, "send", fmt.Sprintf("[[:send :x [%d %d]]]", n-1-i, i))
		}
		var b strings.Builder
		for off := 0; off < n; off += 10 {
			b.Reset()
			for o := off; o < off+10 && o < n; o++ {
				fmt.Fprintf(&b, "[%d %d] ", o, n-1-o)
			}
			l.Pair(n, "poll", "[[:poll]]", "ok", "[[:poll {:x ["+b.String()+"]}]]")
		}
		return &l
	}, Want: analysis.Valid, Types: []string{}},
	// one process running n ops: a send, then a poll of it, on 8 keys
	{Name: "one-process", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := 0; i < n; i += 2 {
			k, off := (i/2)%8, i/16
			l.Pair(0, "send", fmt.Sprintf("[[:send %d %d]]", k, i), "ok", fmt.Sprintf("[[:send %d [%d %d]]]", k, off, i))
			l.Pair(0, "poll", "[[:poll]]", "ok", fmt.Sprintf("[[:poll {%d [[%d %d]]}]]", k, off, i))
		}
		return &l
	}, Want: analysis.Valid, Types: []string{}},
	// n values sent to one key, and a consumer jumping from the first to
	// the last and back n/10 times: each jump forward is a poll-skip over
	// n-2 values, listed only up to MaxSkipped (skipped_count); another
	// consumer reads them all
	{Name: "poll-skip-back-and-forth", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		inv, ok := sendAll(":x", 0, n)
		l.Pair(0, "send", "["+inv+"]", "ok", "["+ok+"]")
		for range n / 10 {
			l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:x [[0 0]]}]]")
			l.Pair(1, "poll", "[[:poll]]", "ok", fmt.Sprintf("[[:poll {:x [[%d %d]]}]]", n-1, n-1))
		}
		l.Pair(2, "poll", "[[:poll]]", "ok", "[[:poll {:x ["+testhist.Ints(0, n, "[%d %d]")+"]}]]")
		return &l
	}, Want: analysis.Invalid, Types: []string{NonmonotonicPoll, PollSkip}},
	// one process running n ops on n keys: the realtime lag samples, at
	// each poll, every key the consumer holds a position on (as Jepsen's
	// realtime-lag does), which lag.go does explicitly only for the key
	// each poll reads
	{Name: "one-process-many-keys", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		for i := 0; i < n; i += 2 {
			l.Pair(0, "send", fmt.Sprintf("[[:send %d %d]]", i, i), "ok", fmt.Sprintf("[[:send %d [0 %d]]]", i, i))
			l.Pair(0, "poll", "[[:poll]]", "ok", fmt.Sprintf("[[:poll {%d [[0 %d]]}]]", i, i))
		}
		return &l
	}, Want: analysis.Valid, Types: []string{}},
	// one consumer assigned n keys, polling after each of n/2 sends to one
	// of them and reading it: it holds n keys at each poll, which a sweep
	// (lagsweep.go) samples every one of, n²/2 in all, past its budget;
	// lag.go samples the key each poll reads
	{Name: "consumer-assigned-many-keys", Gen: func(n int) *testhist.Lines {
		var l testhist.Lines
		var keys strings.Builder
		for k := range n {
			fmt.Fprintf(&keys, " %d", k)
		}
		l.Pair(0, "assign", "["+keys.String()+"]", "ok", "["+keys.String()+"]")
		for i := 0; i < n; i += 2 {
			l.Pair(1, "send", fmt.Sprintf("[[:send %d %d]]", i, i), "ok", fmt.Sprintf("[[:send %d [0 %d]]]", i, i))
			l.Pair(0, "poll", "[[:poll]]", "ok", fmt.Sprintf("[[:poll {%d [[0 %d]]}]]", i, i))
		}
		return &l
	}, Want: analysis.Valid, Types: []string{}},
}

// cases are the adversarials as scaling runs them: checked with
// write-write edges and the series on; and those that try the realtime
// lag's sweep (lagsweep.go), which runs only without the series, once
// more as a check runs them (their names end in "/check"), four times as
// large: the sweep then gives up at every size the tests compare, where
// at n = 300 it finished and at 3,000 gave up, and the growth between
// the two measured the switch to lag.go, not either's growth.
func cases() []scaling.Case {
	cs := slices.Clone(adversarials)
	for i := range cs {
		cs[i].Check = func(h *model.History, p model.Pairing) *analysis.Result {
			opts := DefaultOptions()
			opts.WWDeps, opts.Series = true, true
			return Check(h, p, opts)
		}
	}
	for _, a := range adversarials {
		if a.Name != "one-process-many-keys" && a.Name != "consumer-assigned-many-keys" {
			continue
		}
		a.Name += "/check"
		gen := a.Gen
		a.Gen = func(n int) *testhist.Lines { return gen(4 * n) }
		a.Check = func(h *model.History, p model.Pairing) *analysis.Result { return Check(h, p, DefaultOptions()) }
		cs = append(cs, a)
	}
	return cs
}

// BenchmarkAdversarial checks each adversarial history at n = 10,000 and
// 100,000 (scaling.Bench).
func BenchmarkAdversarial(b *testing.B) { scaling.Bench(b, cases()) }

// BenchmarkAdversarialRatio is BenchmarkAdversarial made to resist a busy
// machine (scaling.BenchRatio). Run with -benchtime 1x.
func BenchmarkAdversarialRatio(b *testing.B) { scaling.BenchRatio(b, cases()) }
