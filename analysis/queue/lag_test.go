package queue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// lagOf runs lag on a fresh checker of h and returns its result.
func lagOf(h *model.History, p model.Pairing, opts Options, ref bool) *analysis.Result {
	return lagParts(h, p, opts, ref, 0)
}

// lagParts is lagOf with the keys split into parts parts (0: one per
// core).
func lagParts(h *model.History, p model.Pairing, opts Options, ref bool, parts int) *analysis.Result {
	c := check(h, p, opts)
	opts.Cores = parts
	c2 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs, procIDs: c.procIDs}
	if ref {
		c2.refLagAndStalls()
	} else {
		c2.lagAndStalls()
	}
	return c2.res
}

// TestLagReference compares lag.go with the explicit walk that samples
// every held key at every poll (refLagAndStalls) on fuzzed histories, with
// nondecreasing times, coarse ones and times jittered back: the worst lag and the
// stalled-consumer instances must be identical, and the series the
// reference's with some samples inside runs left out, keeping each
// process and key's first and last.
func TestLagReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	defer withoutSweep()()
	for i := range 600 {
		h, p, opts := lagCase(t, rng, i)
		sameLag(t, fmt.Sprintf("history %d", i), lagOf(h, p, opts, false), lagOf(h, p, opts, true))
	}
}

// withoutSweep makes the realtime lag's sweep (lagsweep.go) give up at
// once, so that lagAndStalls runs lag.go, until the function it returns
// is called.
func withoutSweep() func() { return setSweepBudget(-1) }

// sameLag fails unless got has want's worst lag and stalled-consumer
// instances, and its series is want's with some samples inside runs left
// out, keeping each process and key's first and last (want being the
// reference's, which samples every held key at every poll).
func sameLag(t *testing.T, name string, got, want *analysis.Result) {
	t.Helper()
	sameStalls(t, name, got, want)
	var gs, ws []analysis.LagPoint
	for _, x := range got.Series.Lag.All() {
		gs = append(gs, x)
	}
	for _, x := range want.Series.Lag.All() {
		ws = append(ws, x)
	}
	type pk struct {
		proc int32
		key  model.KeyID
	}
	first, last := map[pk]int{}, map[pk]int{}
	for j, x := range ws {
		if _, ok := first[pk{x.Process, x.Key}]; !ok {
			first[pk{x.Process, x.Key}] = j
		}
		last[pk{x.Process, x.Key}] = j
	}
	kept := map[int]bool{}
	j := 0
	for _, x := range gs {
		for j < len(ws) && ws[j] != x {
			j++
		}
		if j == len(ws) {
			t.Fatalf("%s: series point %+v is not the reference's, or out of order\n got %v\nwant %v", name, x, gs, ws)
		}
		kept[j] = true
		j++
	}
	for k, f := range first {
		if !kept[f] || !kept[last[k]] {
			t.Fatalf("%s: series lacks the first or last sample of %v\n got %v\nwant %v", name, k, gs, ws)
		}
	}
	// each sample left out lies on the line between the samples kept on
	// either side of it (of its process and key): a lag that grows with
	// the time, or one that stays put
	prev := map[pk]int{} // the last kept sample of each process and key
	var dropped []int
	for j, x := range ws {
		k := pk{x.Process, x.Key}
		if !kept[j] {
			dropped = append(dropped, j)
			continue
		}
		if a, ok := prev[k]; ok {
			for _, d := range dropped {
				y := ws[d]
				if y.Process != x.Process || y.Key != x.Key {
					continue
				}
				p, q := ws[a], x
				grows := y.LagNS-p.LagNS == y.Time-p.Time && q.LagNS-p.LagNS == q.Time-p.Time
				stays := y.LagNS == p.LagNS && q.LagNS == p.LagNS
				if !grows && !stays {
					t.Fatalf("%s: the series leaves out %+v, off the line from %+v to %+v", name, y, p, q)
				}
			}
		}
		others := dropped[:0] // the left-out samples of other processes and keys
		for _, d := range dropped {
			if ws[d].Process != x.Process || ws[d].Key != x.Key {
				others = append(others, d)
			}
		}
		dropped = others
		prev[k] = j
	}
}

// sameStalls fails unless got has want's statistics (the worst lag among
// them) and anomalies (the stalled-consumer instances).
func sameStalls(t *testing.T, name string, got, want *analysis.Result) {
	t.Helper()
	if !reflect.DeepEqual(got.Stats, want.Stats) {
		t.Fatalf("%s: stats %+v, want %+v", name, got.Stats, want.Stats)
	}
	gj, _ := json.Marshal(got.Anomalies)
	wj, _ := json.Marshal(want.Anomalies)
	if string(gj) != string(wj) {
		t.Fatalf("%s: stalls\n got %.2000s\nwant %.2000s", name, gj, wj)
	}
}

// TestLagParts checks that the keys' split into parts (lagparts.go) does
// not change the result: on the cases of TestLagReference (other seeds),
// the stats, stalled-consumer instances and series are the same, to the
// byte, with the keys in 2, 3 or 7 parts as in one.
func TestLagParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	defer withoutSweep()()
	for i := range 300 {
		h, p, opts := lagCase(t, rng, i)
		want := lagJSON(t, lagParts(h, p, opts, false, 1))
		for _, parts := range []int{2, 3, 7} {
			if got := lagJSON(t, lagParts(h, p, opts, false, parts)); got != want {
				t.Fatalf("history %d, %d parts:\n got %s\nwant %s", i, parts, got, want)
			}
		}
	}
}

// TestCoresOption: Options.Cores sets the lag's parts (one per core, at
// most one per key), and a whole check gives the same result whatever it
// is (scan gives each history it checks at once its share of the cores).
func TestCoresOption(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 60 {
		h, p, opts := lagCase(t, rng, i)
		want := ""
		for _, cores := range []int{0, 1, 3} {
			opts.Cores = cores
			parts := cores
			if cores == 0 {
				parts = runtime.GOMAXPROCS(0)
			}
			if got, want := (&checker{h: h, opts: opts}).lagPartCount(), max(1, min(parts, len(h.Keys))); got != want {
				t.Fatalf("history %d of %d keys, Cores %d: %d lag parts, want %d", i, len(h.Keys), cores, got, want)
			}
			res := Check(h, p, opts)
			res.Stats.ElapsedMS = 0
			if got := lagJSON(t, res); want == "" {
				want = got
			} else if got != want {
				t.Fatalf("history %d, Cores %d:\n got %s\nwant %s", i, cores, got, want)
			}
		}
	}
}

// lagJSON is what lag puts in a result: its stats, anomalies and lag
// series, as JSON.
func lagJSON(t *testing.T, res *analysis.Result) string {
	t.Helper()
	var series []analysis.LagPoint
	for _, x := range res.Series.Lag.All() {
		series = append(series, x)
	}
	b, err := json.Marshal([]any{res.Stats, res.Anomalies, series})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lagCase is the i-th case of the lag tests: a history (randomLagHistory),
// its pairing, and options with the series on and a random stall
// threshold of 0 to 3 ns.
func lagCase(t *testing.T, rng *rand.Rand, i int) (*model.History, model.Pairing, Options) {
	h := randomLagHistory(rng, i)
	p := testhist.Pair(t, h)
	opts := DefaultOptions()
	opts.Series = true
	opts.StallThreshold = time.Duration(rng.IntN(4)) * time.Nanosecond
	return h, p, opts
}

// randomLagHistory is the i-th history of the lag tests: fuzzed (even i)
// or a lagHistory, with times as they come (i%3 == 0), coarse ones (many
// equal, so lags of 0 that grow) or times jittered back.
func randomLagHistory(rng *rand.Rand, i int) *model.History {
	data := make([]byte, 40+rng.IntN(400))
	for j := range data {
		data[j] = byte(rng.UintN(256))
	}
	var h *model.History
	if i%2 == 0 {
		h = fuzzHistory(data)
	} else {
		h = lagHistory(rng)
	}
	var times model.Times
	for j := range h.Ops {
		t := h.Time(j)
		switch {
		case i%3 == 1:
			t /= 6
		case i%3 == 2 && rng.IntN(4) == 0:
			t -= int64(rng.IntN(12))
		}
		times.Append(t)
	}
	h.Times = times
	return h
}

// lagHistory is a random history of consumers assigned to a few of six
// keys, polling some of them, while producers send to them in order or
// not, with times that often repeat: long runs of held keys left unpolled,
// lags of 0 that grow, acknowledgements that move a held key's next offset.
func lagHistory(rng *rand.Rand) *model.History {
	b := model.NewBuilder("lag")
	keys := make([]model.KeyID, 6)
	for k := range keys {
		keys[k] = b.Key(model.IntAtom(int64(k)))
	}
	var next [6]int64 // next offset per key
	var sent [6][]int64
	t, idx := int64(0), int64(0)
	add := func(op model.Op) {
		b.Add(idx, t, op)
		idx++
		t += int64(rng.IntN(3))
	}
	val := int64(0)
	for range 20 + rng.IntN(80) {
		proc := int32(rng.IntN(5))
		switch x := rng.IntN(10); {
		case x == 0 && proc < 3: // assign a few keys
			var ks []model.KeyID
			for range 1 + rng.IntN(4) {
				ks = append(ks, keys[rng.IntN(6)])
			}
			op := model.Op{Type: model.Invoke, Process: proc, F: model.FAssign}
			b.SetKeys(b.Len(), ks)
			add(op)
			op.Type = model.OK
			b.SetKeys(b.Len(), ks)
			add(op)
		case proc >= 3: // send, at the next offset or a gap
			k := rng.IntN(6)
			off := next[k] + int64(rng.IntN(2))
			next[k] = off + 1
			if rng.IntN(4) == 0 && off > 2 {
				off -= 2 // out of order
			}
			val++
			m := model.Mop{Kind: model.MopSend, Key: keys[k], Msg: b.Msg(keys[k], b.Value(model.IntAtom(val)))}
			add(model.Op{Type: model.Invoke, Process: proc, F: model.FSend, Mops: b.StoreMops(m)})
			m.Done = true
			b.SetOffset(&m, off)
			sent[k] = append(sent[k], off)
			add(model.Op{Type: model.OK, Process: proc, F: model.FSend, Mops: b.StoreMops(m)})
		default: // poll some keys, often none
			var kps []model.KeyPoll
			for range rng.IntN(3) / 2 * (1 + rng.IntN(2)) {
				k := rng.IntN(6)
				var reads []model.Read
				if len(sent[k]) > 0 {
					off := sent[k][rng.IntN(len(sent[k]))]
					reads = append(reads, model.NewRead(off, b.Msg(keys[k], b.Value(model.IntAtom(1000+off)))))
				}
				kps = append(kps, model.KeyPoll{Key: keys[k], Reads: b.StoreReads(reads...)})
			}
			add(model.Op{Type: model.Invoke, Process: proc, F: model.FPoll, Mops: b.StoreMops(model.Mop{Kind: model.MopPoll})})
			add(model.Op{Type: model.OK, Process: proc, F: model.FPoll, Mops: b.StoreMops(b.Spanned(model.Mop{Kind: model.MopPoll, Done: true}, b.StorePolls(kps...)))})
		}
	}
	return b.History()
}

// TestLagManyUnsentKeys bounds what the realtime lag allocates for a key
// that a poll lists but nobody sent to (a garbage read, or another test's
// topic): such a key has no acknowledged offsets, so it needs no ackLog
// and no lagIndex of its own, in any part. A history of one send and one
// poll of 20,000 keys, each read with a value nobody sent, in two parts;
// what is left per key is what the polling process keeps of each key it
// holds a position on (lagKey) and the parts' per-key stamps.
func TestLagManyUnsentKeys(t *testing.T) {
	const nk = 20_000
	var l testhist.Lines
	l.Pair(0, "send", "[[:send 0 1]]", "ok", "[[:send 0 [0 1]]]")
	l.Pair(1, "poll", "[[:poll]]", "ok", "[[:poll {"+testhist.Ints(0, nk, "%d [[0 %d]]")+"}]]")
	h, p := testhist.Read(t, bytes.NewReader(l.Bytes()), "unsent.edn")
	c := check(h, p, DefaultOptions())
	if len(c.res.Anomalies["garbage-read"]) == 0 {
		t.Fatalf("no garbage-read in %v", c.res.AnomalyTypes)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	opts := c.opts
	opts.Cores = 2
	c2 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs, procIDs: c.procIDs}
	c2.lagAndStalls()
	runtime.ReadMemStats(&after)
	perKey := float64(after.TotalAlloc-before.TotalAlloc) / nk
	t.Logf("%.0f bytes allocated a key", perKey)
	// 1,069 bytes a key with an ackLog per key (copied into each part)
	// and a lagIndex per key and part; 483 without them, nearly all of
	// it the polling process's entries (lagKey), grown by doubling
	if perKey > 650 {
		t.Errorf("%.0f bytes allocated a key, want at most 650", perKey)
	}
}
