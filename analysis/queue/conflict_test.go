package queue

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

// call is one operation of a hand-written history: its invocation and,
// unless typ is "", its completion, written on consecutive lines.
type call struct {
	process   int
	f         string
	inv, comp string // EDN values
	typ       string // ok, info, fail; "" leaves the invocation open
}

// history writes calls as EDN, one op per line, indexed and timed (1 ms
// apart) in order, and checks it.
func history(t *testing.T, opts Options, calls ...call) *checker {
	t.Helper()
	var b strings.Builder
	i := 0
	line := func(typ string, c call, v string) {
		fmt.Fprintf(&b, "{:index %d, :time %d, :type :%s, :process %d, :f :%s, :value %s}\n", i, i*1000000, typ, c.process, c.f, v)
		i++
	}
	for _, c := range calls {
		line("invoke", c, c.inv)
		if c.typ != "" {
			line(c.typ, c, c.comp)
		}
	}
	h, err := ingest.Read(strings.NewReader(b.String()), t.Name(), ingest.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	p := testhist.Pair(t, h)
	return check(h, p, opts)
}

func send(process int, typ, inv, comp string) call {
	return call{process: process, f: "send", inv: inv, comp: comp, typ: typ}
}

func poll(process int, typ, comp string) call {
	return call{process: process, f: "poll", inv: "[[:poll]]", comp: comp, typ: typ}
}

func assign(process int, keys string) call {
	return call{process: process, f: "assign", inv: keys, comp: keys, typ: "ok"}
}

func load(t *testing.T, path string, opts Options) *checker {
	t.Helper()
	h, p := testhist.File(t, path)
	return check(h, p, opts)
}

// TestRewrittenLog checks the truncated-and-rewritten log of
// testdata/types/inconsistent-offsets-rewritten-log-invalid.edn from the
// inside: every value at a conflicting offset has that offset's position,
// the listed value is the one observed first, no comparison is skipped, and
// under --ww-deps the ww edges join the listed values only.
func TestRewrittenLog(t *testing.T) {
	path := testpaths.Testdata("types", "inconsistent-offsets-rewritten-log-invalid.edn")
	for _, ww := range []bool{false, true} {
		t.Run(fmt.Sprintf("ww-deps %v", ww), func(t *testing.T) {
			opts := DefaultOptions()
			opts.WWDeps = ww
			c := load(t, path, opts)
			want := []string{InconsistentOffsets, LostWrite, Unseen}
			if !slices.Equal(c.res.AnomalyTypes, want) {
				t.Errorf("anomaly types %v, want %v (no skip: the consumers read 182, 186..189 in order)", c.res.AnomalyTypes, want)
			}
			if n := analysis.OwnOf[Stats](c.res.Stats).Unpositioned; n != 0 {
				t.Errorf("unpositioned_skipped = %d, want 0: every value was observed at an offset", n)
			}
			posOf := map[int64]int32{}
			for m := range c.h.Msgs {
				posOf[c.h.MsgValue(model.MsgID(m)).Int] = c.pos(model.MsgID(m))
			}
			wantPos := map[int64]int32{182: 0, 183: 1, 186: 1, 184: 2, 187: 2, 185: 3, 188: 3, 189: 4}
			for v, p := range wantPos {
				if posOf[v] != p {
					t.Errorf("position of %d = %d, want %d", v, posOf[v], p)
				}
			}
			var listed []int64
			for _, m := range c.kept[0] {
				listed = append(listed, c.h.MsgValue(m).Int)
			}
			if want := []int64{182, 183, 184, 185, 189}; !slices.Equal(listed, want) {
				t.Errorf("listed values %v, want %v (the first observed at each offset)", listed, want)
			}
			g, vrec := c.buildGraph()
			var wwEdges [][2]int64
			for v := range g.N() {
				for _, a := range g.Out(int32(v)) {
					if u := a.To(); a.Rel()&graph.WW != 0 {
						wwEdges = append(wwEdges, [2]int64{c.compIdx(vrec[v]), c.compIdx(vrec[u])})
					}
				}
			}
			var wantWW [][2]int64
			if ww {
				// writers of 182 -> 183 -> 184 -> 185 -> 189. Joining every
				// value of a position to every value of the next would add
				// 186 -> 184 (op 9 -> op 5), which with realtime order
				// (op 5 before op 9) is a G0-realtime no log ever held.
				wantWW = [][2]int64{{1, 3}, {3, 5}, {5, 7}, {7, 15}}
			}
			if !slices.Equal(wwEdges, wantWW) {
				t.Errorf("ww edges %v, want %v", wwEdges, wantWW)
			}
		})
	}
}

// TestConflictComparisons pins what the order comparisons make of two
// values at one position, and of positions around a conflict.
func TestConflictComparisons(t *testing.T) {
	cases := []struct {
		name  string
		calls []call
		want  []string
	}{
		{"two values of one offset read in one poll - not ordered - no int-nonmonotonic-poll",
			[]call{
				send(0, "ok", "[[:send :x :a]]", "[[:send :x [0 :a]]]"),
				send(1, "ok", "[[:send :x :b]]", "[[:send :x [0 :b]]]"),
				send(1, "ok", "[[:send :x :c]]", "[[:send :x [1 :c]]]"),
				poll(2, "ok", "[[:poll {:x [[0 :a] [0 :b] [1 :c]]}]]"),
			},
			[]string{InconsistentOffsets}},
		{"one value read twice at one offset - a repeat - int-nonmonotonic-poll",
			[]call{
				send(0, "ok", "[[:send :x :a]]", "[[:send :x [0 :a]]]"),
				poll(2, "ok", "[[:poll {:x [[0 :a] [0 :a]]}]]"),
			},
			[]string{IntNonmonotonicPoll}},
		{"two values of one offset in consecutive polls - not ordered - no nonmonotonic-poll",
			[]call{
				send(0, "ok", "[[:send :x :a]]", "[[:send :x [0 :a]]]"),
				send(1, "ok", "[[:send :x :b]]", "[[:send :x [0 :b]]]"),
				assign(2, "[:x]"),
				poll(2, "ok", "[[:poll {:x [[0 :a]]}]]"),
				poll(2, "ok", "[[:poll {:x [[0 :b]]}]]"),
			},
			[]string{InconsistentOffsets}},
		{"one producer acknowledged twice at one offset - not ordered - no nonmonotonic-send",
			[]call{
				send(0, "ok", "[[:send :x :a]]", "[[:send :x [0 :a]]]"),
				send(0, "ok", "[[:send :x :b]]", "[[:send :x [0 :b]]]"),
				poll(2, "ok", "[[:poll {:x [[0 :a]]}]]"),
				poll(3, "ok", "[[:poll {:x [[0 :b]]}]]"),
			},
			[]string{InconsistentOffsets}},
		{"rewritten value after the truncated ones - one position back - nonmonotonic-poll",
			// The consumer read offsets 0-2 of the stale log, then offset 1
			// of the rewritten one: it stepped back from position 2 to 1.
			[]call{
				send(0, "ok", "[[:send :x :a]]", "[[:send :x [0 :a]]]"),
				send(0, "ok", "[[:send :x :b] [:send :x :c]]", "[[:send :x [1 :b]] [:send :x [2 :c]]]"),
				send(1, "ok", "[[:send :x :d]]", "[[:send :x [1 :d]]]"),
				assign(2, "[:x]"),
				poll(2, "ok", "[[:poll {:x [[0 :a] [1 :b] [2 :c]]}]]"),
				poll(2, "ok", "[[:poll {:x [[1 :d]]}]]"),
			},
			[]string{InconsistentOffsets, NonmonotonicPoll}},
		{"rewritten value after the listed one - next position - no skip",
			[]call{
				send(0, "ok", "[[:send :x :a]]", "[[:send :x [0 :a]]]"),
				send(0, "ok", "[[:send :x :b] [:send :x :c]]", "[[:send :x [1 :b]] [:send :x [2 :c]]]"),
				send(1, "ok", "[[:send :x :d] [:send :x :e]]", "[[:send :x [1 :d]] [:send :x [2 :e]]]"),
				assign(2, "[:x]"),
				poll(2, "ok", "[[:poll {:x [[0 :a] [1 :b]]}]]"),
				poll(2, "ok", "[[:poll {:x [[2 :e]]}]]"),
				poll(3, "ok", "[[:poll {:x [[0 :a] [1 :d] [2 :c]]}]]"),
			},
			[]string{InconsistentOffsets}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := history(t, DefaultOptions(), tc.calls...)
			if !slices.Equal(c.res.AnomalyTypes, tc.want) {
				t.Errorf("anomaly types %v, want %v", c.res.AnomalyTypes, tc.want)
			}
			if n := analysis.OwnOf[Stats](c.res.Stats).Unpositioned; n != 0 {
				t.Errorf("unpositioned_skipped = %d, want 0", n)
			}
		})
	}
}

// TestUnpositioned pins what still lands in stats.unpositioned_skipped: a
// value that no completed op observed at an offset (package doc). Each
// case says which comparisons counted it.
func TestUnpositioned(t *testing.T) {
	okA := send(0, "ok", "[[:send :x :a]]", "[[:send :x [0 :a]]]")
	readA := poll(9, "ok", "[[:poll {:x [[0 :a]]}]]")
	cases := []struct {
		name  string
		calls []call
		want  int64
	}{
		{"every value at an offset - 0", []call{okA, readA}, 0},
		{"two values at one offset - 0",
			[]call{okA, send(1, "ok", "[[:send :x :b]]", "[[:send :x [0 :b]]]"), readA}, 0},
		{"ok send with a nil offset, never read - its send and its lost-write check - 2",
			[]call{okA, send(0, "ok", "[[:send :x :b]]", "[[:send :x [nil :b]]]"), readA}, 2},
		{"ok send with a nil offset, read with a nil offset - the send and the read - 2",
			[]call{send(0, "ok", "[[:send :x :a]]", "[[:send :x [nil :a]]]"), poll(9, "ok", "[[:poll {:x [[nil :a]]}]]")}, 2},
		{"ok send with a nil offset, read at an offset - 0",
			[]call{send(0, "ok", "[[:send :x :a]]", "[[:send :x [nil :a]]]"), readA}, 0},
		{"info send still in invocation form, never read - its send - 1",
			[]call{okA, send(0, "info", "[[:send :x :b]]", "[[:send :x :b]]"), readA}, 1},
		{"send never completed - its send - 1",
			[]call{okA, readA, send(1, "", "[[:send :x :b]]", "")}, 1},
		{"failed send with an offset, never read - its send - 1",
			[]call{okA, send(1, "fail", "[[:send :x :b]]", "[[:send :x [1 :b]]]"), readA}, 1},
		{"unproven info send with an offset, never read - its send - 1",
			[]call{okA, send(1, "info", "[[:send :x :b]]", "[[:send :x [1 :b]]]"), readA}, 1},
		{"failed send read by a failed poll at an offset - 0",
			[]call{okA, send(1, "fail", "[[:send :x :b]]", "[[:send :x [1 :b]]]"), readA,
				poll(8, "fail", "[[:poll {:x [[1 :b]]}]]")}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := history(t, DefaultOptions(), tc.calls...)
			if got := analysis.OwnOf[Stats](c.res.Stats).Unpositioned; got != tc.want {
				t.Errorf("unpositioned_skipped = %d, want %d (types %v)", got, tc.want, c.res.AnomalyTypes)
			}
			if c.res.Verdict == analysis.Unknown {
				t.Errorf("unknown: %v", c.res.UnknownReasons)
			}
		})
	}
}
