package gen

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func base(ops int) Config {
	return Config{Seed: 1, Ops: ops, Concurrency: 10, Keys: 8, TxnFraction: 0.2, InfoRate: 0.01, FailRate: 0.01}
}

func generate(t testing.TB, cfg Config) ([]byte, Stats) {
	t.Helper()
	return written(t, "Write", Write, cfg)
}

// written returns the history that write (named name) generates for cfg,
// and its stats.
func written[C, S any](t testing.TB, name string, write func(io.Writer, C) (S, error), cfg C) ([]byte, S) {
	t.Helper()
	var buf bytes.Buffer
	st, err := write(&buf, cfg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return buf.Bytes(), st
}

func generateParsed(t *testing.T, cfg Config) ([]tOp, []int, Stats) {
	t.Helper()
	b, st := generate(t, cfg)
	ops, err := parseHistory(b, cfg.Format == JSON)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	partner, err := checkShape(ops)
	if err != nil {
		t.Fatalf("shape: %v", err)
	}
	checkCounts(t, st.Counts, len(ops), b)
	return ops, partner, st
}

// checkCounts fails unless c counts the lines and bytes of b, which holds
// lines lines.
func checkCounts(t testing.TB, c Counts, lines int, b []byte) {
	t.Helper()
	if c.Lines != int64(lines) || c.Bytes != int64(len(b)) {
		t.Fatalf("stats say %d lines / %d bytes, output has %d / %d", c.Lines, c.Bytes, lines, len(b))
	}
}

// checkClean fails, listing the first ten, if the independent checker
// finds anything in ops, a fault-free history.
func checkClean(t *testing.T, ops []tOp, partner []int) {
	t.Helper()
	if fs := checkLog(ops, partner); len(fs) > 0 {
		for _, f := range fs[:min(len(fs), 10)] {
			t.Error(f)
		}
		t.Fatalf("%d findings in a fault-free history", len(fs))
	}
}

func TestDeterminism(t *testing.T) {
	for _, format := range []Format{EDN, JSON} {
		t.Run(format.String(), func(t *testing.T) {
			cfg := base(20000)
			cfg.Format = format
			cfg.Faults = []Fault{{LostWrite, 1}, {Duplicate, 1}, {PollSkip, 1}, {Garbage, 1}}
			checkDeterministic(t, Write, &cfg, &cfg.Seed)
		})
	}
}

// checkDeterministic checks that write gives the same bytes twice for
// *cfg, and other bytes once its seed (*seed, in *cfg) is moved from 1 to 2.
func checkDeterministic[C, S any](t *testing.T, write func(io.Writer, C) (S, error), cfg *C, seed *int64) {
	t.Helper()
	gen := func() []byte { b, _ := written(t, "write", write, *cfg); return b }
	a, b := gen(), gen()
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Fatal("same config gave different bytes")
	}
	*seed = 2
	if sha256.Sum256(a) == sha256.Sum256(gen()) {
		t.Fatal("seeds 1 and 2 gave the same bytes")
	}
}

// TestValidHistories checks fault-free histories of many shapes: well
// formed, exactly the requested length, and free of every violation the
// independent checker knows.
func TestValidHistories(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
	}{
		{"default", func(*Config) {}},
		{"no txns", func(c *Config) { c.TxnFraction = 0 }},
		{"mostly txns", func(c *Config) { c.TxnFraction = 0.9 }},
		{"subscribe", func(c *Config) { c.Subscribe = true }},
		{"many info and fail", func(c *Config) { c.InfoRate, c.FailRate = 0.15, 0.15 }},
		{"one key one worker", func(c *Config) { c.Keys, c.Concurrency = 1, 1 }},
		{"many keys", func(c *Config) { c.Keys, c.Concurrency = 40, 25 }},
		{"json", func(c *Config) { c.Format = JSON }},
		{"odd ops", func(c *Config) { c.Ops = 30001 }},
		{"tiny", func(c *Config) { c.Ops = 200 }},
	}
	for seed := int64(1); seed <= 3; seed++ {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s seed %d", tc.name, seed), func(t *testing.T) {
				cfg := base(30000)
				cfg.Seed = seed
				tc.edit(&cfg)
				ops, partner, st := generateParsed(t, cfg)
				want := int64(cfg.Ops + cfg.Ops%2)
				if st.Lines != want {
					t.Errorf("%d lines, want %d", st.Lines, want)
				}
				checkClean(t, ops, partner)
				if len(st.Injections) != 0 {
					t.Errorf("injections without faults: %v", st.Injections)
				}
				var sends, polled int
				for _, op := range ops {
					for _, m := range op.mops {
						if m.send && m.done {
							sends++
						}
						for _, r := range m.reads {
							polled += len(r.pairs)
						}
					}
				}
				if cfg.Ops >= 10000 && (sends < cfg.Ops/20 || polled < sends) {
					t.Errorf("thin history: %d acked sends, %d messages polled", sends, polled)
				}
			})
		}
	}
}

// TestHistoryContent checks that a mid-sized history has everything a real
// one has: every f, every completion type, retired processes, nemesis ops,
// transactions with offsets that skip over commit markers.
func TestHistoryContent(t *testing.T) {
	cfg := base(60000)
	ops, _, st := generateParsed(t, cfg)
	seen := map[string]int{}
	var markerGaps int
	lastOff := map[int64]int64{}
	for _, op := range ops {
		seen[op.f+"/"+op.typ]++
		if op.process < 0 {
			seen["nemesis"]++
		}
		for _, m := range op.mops {
			for _, r := range m.reads {
				for _, p := range r.pairs {
					if l, ok := lastOff[r.key]; ok && p[0] == l+2 {
						markerGaps++
					}
					lastOff[r.key] = p[0]
				}
			}
		}
	}
	for _, want := range []string{"send/ok", "send/info", "send/fail", "poll/ok", "poll/info", "poll/fail",
		"txn/ok", "txn/info", "txn/fail", "assign/ok", "crash/info", "nemesis"} {
		if seen[want] == 0 {
			t.Errorf("no %s op in %v", want, seen)
		}
	}
	if markerGaps == 0 {
		t.Error("no offset gap from a transaction marker")
	}
	if st.Processes <= int64(cfg.Concurrency) || st.InfoLanded == 0 {
		t.Errorf("processes %d, info landed %d", st.Processes, st.InfoLanded)
	}
	if st.FinalPhase <= 0 || st.FinalPhase >= st.Lines {
		t.Errorf("final phase at %d of %d", st.FinalPhase, st.Lines)
	}
	if !strings.Contains(st.String(), "lines=60000") {
		t.Errorf("summary %q", st.String())
	}
}

// TestJSONMatchesEDN checks that both formats carry the same history.
func TestJSONMatchesEDN(t *testing.T) {
	cfg := base(20000)
	cfg.Faults = []Fault{{Garbage, 1}, {TornTxn, 1}}
	edn, _, _ := generateParsed(t, cfg)
	cfg.Format = JSON
	js, _, _ := generateParsed(t, cfg)
	if len(edn) != len(js) {
		t.Fatalf("%d EDN ops, %d JSON ops", len(edn), len(js))
	}
	for i := range edn {
		if !reflect.DeepEqual(edn[i], js[i]) {
			t.Fatalf("op %d differs:\nEDN  %+v\nJSON %+v", i, edn[i], js[i])
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Ops: 10, Concurrency: 0, Keys: 1},
		{Ops: 10, Concurrency: 1, Keys: 0},
		{Ops: -1, Concurrency: 1, Keys: 1},
		{Ops: 10, Concurrency: 1, Keys: 1, InfoRate: 0.7, FailRate: 0.7},
		{Ops: 10, Concurrency: 1, Keys: 1, TxnFraction: 2},
		{Ops: 10, Concurrency: 1, Keys: 1, CrashRate: -0.1},
		{Ops: 10, Concurrency: 1, Keys: 1, Faults: []Fault{{numFaultKinds, 1}}},
	} {
		if _, err := Write(io.Discard, cfg); err == nil {
			t.Errorf("no error for %+v", cfg)
		}
	}
	st, err := Write(io.Discard, Config{Concurrency: 1, Keys: 1})
	if err != nil || st.Lines != 0 {
		t.Errorf("zero ops: %v lines, %v", st.Lines, err)
	}
}

func TestParseFault(t *testing.T) {
	for _, k := range FaultKinds() {
		f, err := ParseFault(k.String() + "=3")
		if err != nil || f != (Fault{k, 3}) {
			t.Errorf("ParseFault(%s=3) = %v, %v", k, f, err)
		}
		if f, err := ParseFault(k.String()); err != nil || f.Count != 1 {
			t.Errorf("ParseFault(%s) = %v, %v", k, f, err)
		}
	}
	for _, bad := range []string{"nope", "lost-write=x", "lost-write=-1"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q): no error", bad)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	cfg := base(100000)
	benchWrite(b, func() (int64, error) { st, err := Write(io.Discard, cfg); return st.Bytes, err })
}

// benchWrite times write, which generates a history to io.Discard and
// returns its size, in bytes per second.
func benchWrite(b *testing.B, write func() (int64, error)) {
	n, err := write()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := write(); err != nil {
			b.Fatal(err)
		}
	}
}
