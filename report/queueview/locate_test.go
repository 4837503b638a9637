package queueview

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

// scanLocate is locate as a plain scan of the op's micro-ops, the
// reference the index must agree with.
func scanLocate(b *builder, idx int64, k model.KeyID, v *analysis.Value, off int64) (timelinePoint, bool) {
	op, x, ok := b.placed(idx)
	if !ok {
		return timelinePoint{}, false
	}
	match := func(m model.MsgID, o int64) bool {
		return (off == model.NoOffset || o == off) && (v == nil || b.H.MsgValue(m) == v.Atom)
	}
	for _, m := range b.H.MopsOf(op) {
		switch m.Kind {
		case model.MopSend:
			if o := b.H.Offset(&m); m.Key == k && m.Done && o != model.NoOffset && match(m.Msg, o) {
				return timelinePoint{x: x, y: float64(o), op: idx, proc: op.Process, msg: m.Msg}, true
			}
		case model.MopPoll:
			for _, kp := range b.H.PollsOf(&m) {
				if kp.Key != k {
					continue
				}
				for _, rd := range b.H.ReadsOf(&kp) {
					if match(rd.Msg, rd.Offset()) {
						return timelinePoint{x: x, y: float64(rd.Offset()), op: idx, proc: op.Process, msg: rd.Msg}, true
					}
				}
			}
		}
	}
	return timelinePoint{}, false
}

// TestLocateIndex asks locate for every offset and value (and neither,
// and ones no op holds) of a big send, a big poll with repeated offsets
// and values and a small poll, and requires the answer of a plain scan:
// the first match in the op's order. The big ops must go through the
// index, the small one must not.
func TestLocateIndex(t *testing.T) {
	var l testhist.Lines
	var sends, acks, reads strings.Builder
	for i := range 70 {
		fmt.Fprintf(&sends, "[:send :x %d] ", i%7)
		fmt.Fprintf(&acks, "[:send :x [%d %d]] ", 1000+i, i%7)
	}
	l.Pair(0, "send", "["+sends.String()+"]", "ok", "["+acks.String()+"]")
	for i := range 200 {
		fmt.Fprintf(&reads, "[%d %d] ", (i*37)%50, i%13)
	}
	l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:y [[0 3]] :x ["+reads.String()+"]}] [:send :x 5]]")
	l.Pair(2, "poll", "[[:poll]]", "ok", "[[:poll {:x [[3 1] [2 2] [3 2] [9 4] [2 1]]}]]")
	h, p := testhist.Read(t, strings.NewReader(string(l.Bytes())), "locate.edn")
	res := queue.Check(h, p, queue.DefaultOptions())
	b := &builder{Builder: page.NewBuilder(res, h, page.ViewOptions{}, page.Hooks{})}
	x, ok := b.Key(&analysis.Value{Atom: model.KeywordAtom(":x")})
	if !ok {
		t.Fatal("no key :x")
	}
	offs := []int64{model.NoOffset, 9999}
	for o := range int64(50) {
		offs = append(offs, o, 1000+o)
	}
	vals := []*analysis.Value{nil, {Atom: model.StringAtom("nope")}}
	for v := range int64(14) {
		vals = append(vals, &analysis.Value{Atom: model.IntAtom(v)})
	}
	found := 0
	for _, idx := range []int64{1, 3, 5} {
		for _, off := range offs {
			for _, v := range vals {
				got, gotOK := b.locate(idx, x, v, off)
				want, wantOK := scanLocate(b, idx, x, v, off)
				if got != want || gotOK != wantOK {
					t.Fatalf("op %d, offset %d, value %v: got %+v %v, want %+v %v", idx, off, v, got, gotOK, want, wantOK)
				}
				if gotOK {
					found++
				}
			}
		}
	}
	if found < 300 {
		t.Errorf("only %d queries found a place: the test asks too little", found)
	}
	for _, idx := range []int64{1, 3} {
		if b.located[idx] == nil || b.located[idx][x] == nil {
			t.Errorf("op %d was not indexed", idx)
		}
	}
	if _, ok := b.located[5]; ok {
		t.Error("the small op 5 was indexed")
	}

	// placeOffsets against a plain loop: for each offset (an instance's
	// offsets are real ones, never model.NoOffset), the first witness op
	// where a scan finds it
	witness := []int64{0, 5, 3, 1}
	offs = offs[1:]
	for _, v := range vals {
		var got, want []timelinePoint
		b.placeOffsets(v, offs, witness, x, func(_ model.KeyID, p timelinePoint) { got = append(got, p) })
		for _, off := range offs {
			for _, idx := range witness {
				if op := b.Op(idx); op != nil && op.Type != model.Invoke {
					if p, ok := scanLocate(b, idx, x, v, off); ok {
						want = append(want, p)
						break
					}
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("value %v: placeOffsets gave %v, want %v", v, got, want)
		}
	}
}

// TestLocateManyKeys: an op on many keys is indexed once for them all,
// and answers for each key as a scan does.
func TestLocateManyKeys(t *testing.T) {
	var l testhist.Lines
	var reads strings.Builder
	const n = 500
	for k := range n {
		fmt.Fprintf(&reads, "%d [[%d %d] [%d %d]] ", k, k%3, k, k%3+1, k+1)
	}
	l.Pair(0, "poll", "[[:poll]]", "ok", "[[:poll {"+reads.String()+"}]]")
	h, p := testhist.Read(t, strings.NewReader(string(l.Bytes())), "many-keys.edn")
	res := queue.Check(h, p, queue.DefaultOptions())
	b := &builder{Builder: page.NewBuilder(res, h, page.ViewOptions{}, page.Hooks{})}
	for k := range model.KeyID(n) {
		for _, off := range []int64{model.NoOffset, 0, 1, 2, 3} {
			got, gotOK := b.locate(1, k, nil, off)
			want, wantOK := scanLocate(b, 1, k, nil, off)
			if got != want || gotOK != wantOK {
				t.Fatalf("key %d, offset %d: got %+v %v, want %+v %v", k, off, got, gotOK, want, wantOK)
			}
		}
	}
	if len(b.located) != 1 || len(b.located[1]) != n {
		t.Fatalf("%d ops indexed, %d keys in op 1; want 1 and %d", len(b.located), len(b.located[1]), n)
	}
}

// TestMarkWorkLinear builds the timelines of histories made to have many
// instances in one big op, at n and 10n, and requires the micro-ops,
// polled keys and reads gone through to place their marks (builder.visited)
// to grow at most 12-fold: a scan of the op per instance grows 100-fold.
// Counting work, not time, keeps it exact on a busy machine.
func TestMarkWorkLinear(t *testing.T) {
	shapes := []struct {
		name string
		gen  func(n int) *testhist.Lines
	}{
		// one poll of n messages at descending offsets, values repeating
		// every 100: an int-nonmonotonic-poll per read and a duplicate
		// per value, all in one op
		{"one huge poll", func(n int) *testhist.Lines { return testhist.DescendingPoll(":x", n, 100) }},
		// one op sending to n keys, one poll of them all at other offsets
		// with other values: instances on every key, in two ops
		{"one op on n keys", func(n int) *testhist.Lines {
			var l testhist.Lines
			var s, a, p strings.Builder
			for k := range n {
				fmt.Fprintf(&s, "[:send %d %d] ", k, k)
				fmt.Fprintf(&a, "[:send %d [0 %d]] ", k, k)
				fmt.Fprintf(&p, "%d [[1 %d] [0 %d]] ", k, k, k+1_000_000)
			}
			l.Pair(0, "send", "["+s.String()+"]", "ok", "["+a.String()+"]")
			l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {"+p.String()+"}]]")
			return &l
		}},
		// one message polled at n offsets by n polls: one duplicate whose
		// offsets and witness both grow with n
		{"one message at n offsets", func(n int) *testhist.Lines {
			var l testhist.Lines
			l.Pair(0, "send", "[[:send :x 7]]", "ok", "[[:send :x [0 7]]]")
			for j := range n {
				l.Pair(1+j%40, "poll", "[[:poll]]", "ok", fmt.Sprintf("[[:poll {:x [[%d 7]]}]]", j))
			}
			return &l
		}},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			var work [2]int64
			for i, n := range []int{300, 3000} {
				h, p := testhist.Read(t, bytes.NewReader(sh.gen(n).Bytes()), "work.edn")
				res := queue.Check(h, p, queue.DefaultOptions())
				if res.Verdict != analysis.Invalid {
					t.Fatalf("n=%d: %v, want invalid", n, res.Verdict)
				}
				b := &builder{Builder: page.NewBuilder(res, h, page.ViewOptions{}.WithDefaults(), queueHooks())}
				b.timeline()
				work[i] = b.visited
			}
			if work[0] == 0 || work[1] > 12*work[0] {
				t.Errorf("n=300: %d entries gone through, n=3000: %d; want at most 12-fold", work[0], work[1])
			}
		})
	}
}

// queueHooks are the queue's catalogue entries as a page's hooks, which
// the registry gives a report (this package cannot import it).
func queueHooks() page.Hooks {
	entries := map[string]catalog.Entry{}
	for _, e := range queue.Catalogue() {
		entries[e.Name] = e
	}
	return page.Hooks{
		Layout: Layout{},
		Describe: func(typ string) (catalog.Entry, bool) {
			e, ok := entries[typ]
			return e, ok
		},
		Explain: func(typ string, in analysis.Instance, l catalog.OpLookup) string {
			if e, ok := entries[typ]; ok && e.Explain != nil {
				return e.Explain(in, l)
			}
			return typ
		},
	}
}

// TestTimelineKeyLabel: the key picker counts a key's anomalies with
// thousands separators, as the rest of the page does, and in the singular
// for one.
func TestTimelineKeyLabel(t *testing.T) {
	// one poll of :x read again: a nonmonotonic-poll
	var once testhist.Lines
	once.Pair(0, "send", "[[:send :x 1]]", "ok", "[[:send :x [0 1]]]")
	for range 2 {
		once.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {:x [[0 1]]}]]")
	}
	for _, c := range []struct {
		lines *testhist.Lines
		want  string
	}{
		{testhist.DescendingPoll(":x", 1500, 2000), "key :x (2,999 anomalies)"},
		{&once, "key :x (1 anomaly)"},
	} {
		h, p := testhist.Read(t, bytes.NewReader(c.lines.Bytes()), "label.edn")
		res := queue.Check(h, p, queue.DefaultOptions())
		b := &builder{Builder: page.NewBuilder(res, h, page.ViewOptions{}.WithDefaults(), queueHooks())}
		var labels []string
		for _, k := range b.timeline().Keys {
			labels = append(labels, k.Label)
		}
		if len(labels) != 1 || labels[0] != c.want {
			t.Errorf("keys %q, want one labelled %q", labels, c.want)
		}
	}
}
