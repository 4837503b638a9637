package gen

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
)

func txnBase(w Workload, txns int) TxnConfig {
	return TxnConfig{Seed: 1, Workload: w, Txns: txns, Concurrency: 10, Keys: 8, InfoRate: 0.02, FailRate: 0.02}
}

var txnWorkloads = []Workload{ListAppend, RWRegister}

func generateTxn(t testing.TB, cfg TxnConfig) ([]byte, TxnStats) {
	t.Helper()
	return written(t, "WriteTxn", WriteTxn, cfg)
}

// txnRun is a generated history read back and paired.
type txnRun struct {
	cfg  TxnConfig
	b    []byte
	ops  []xop
	txns []xtxn
	st   TxnStats
	la   bool
}

// runTxn generates, reads back and pairs a history and checks the counts
// Stats report against the text.
func runTxn(t *testing.T, cfg TxnConfig) txnRun {
	t.Helper()
	b, st := generateTxn(t, cfg)
	la := cfg.Workload == ListAppend
	ops, err := parseTxnHistory(b, cfg.Format == JSON, la, cfg.OmitF)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	txns, err := pairTxns(ops, la, cfg.OmitF)
	if err != nil {
		t.Fatalf("shape: %v", err)
	}
	checkCounts(t, st.Counts, len(ops), b)
	if len(txns) != cfg.Txns || st.Txns != int64(cfg.Txns) {
		t.Fatalf("%d txns in the text, stats %d, config %d", len(txns), st.Txns, cfg.Txns)
	}
	count := map[string]int64{}
	procs := map[int64]bool{}
	var nem int64
	for _, tx := range txns {
		count[tx.typ]++
		procs[tx.process] = true
	}
	for _, op := range ops {
		if op.process < 0 && (op.f == "start-partition" || op.f == "stop-partition") {
			nem++
		}
	}
	if count["ok"] != st.OK || count["info"] != st.Info || count["fail"] != st.Fail {
		t.Fatalf("text has ok/info/fail %v, stats %d/%d/%d", count, st.OK, st.Info, st.Fail)
	}
	if int64(len(procs)) > st.Processes || nem != 2*st.Nemesis {
		t.Fatalf("%d processes (stats %d), %d nemesis lines (stats %d invocations)", len(procs), st.Processes, nem, st.Nemesis)
	}
	return txnRun{cfg: cfg, b: b, ops: ops, txns: txns, st: st, la: la}
}

func TestTxnDeterminism(t *testing.T) {
	for _, w := range txnWorkloads {
		for _, format := range []Format{EDN, JSON} {
			t.Run(w.String()+"/"+format.String(), func(t *testing.T) {
				cfg := txnBase(w, 20000)
				cfg.Format, cfg.Nemesis, cfg.ReadLag = format, true, 3
				cfg.Faults = []TxnFault{{StaleRead, 2}, {GarbageRead, 1}, {WriteCycle, 1}}
				checkDeterministic(t, WriteTxn, &cfg, &cfg.Seed)
			})
		}
	}
}

// TestTxnIngest reads generated histories with the project's reader: the
// ops, their pairing, the micro-op counts, and that every micro-op is one
// of the workload's own kinds.
func TestTxnIngest(t *testing.T) {
	dir := t.TempDir()
	for _, w := range txnWorkloads {
		for _, v := range []struct {
			name string
			edit func(*TxnConfig)
		}{
			{"edn", func(*TxnConfig) {}},
			{"json", func(c *TxnConfig) { c.Format = JSON }},
			{"no-f", func(c *TxnConfig) { c.OmitF = true }},
			{"json-no-f-nemesis-faults", func(c *TxnConfig) {
				c.Format, c.OmitF, c.Nemesis = JSON, true, true
				for _, k := range TxnFaultKinds() {
					if k.AppliesTo(w) {
						c.Faults = append(c.Faults, TxnFault{k, 1})
					}
				}
			}},
		} {
			t.Run(w.String()+"/"+v.name, func(t *testing.T) {
				cfg := txnBase(w, 5000)
				v.edit(&cfg)
				r := runTxn(t, cfg)
				path := filepath.Join(dir, w.String()+"-"+v.name+".txt")
				if err := os.WriteFile(path, r.b, 0o644); err != nil {
					t.Fatal(err)
				}
				h, err := ingest.ReadFile(path, ingest.Options{})
				if err != nil {
					t.Fatalf("ingest: %v", err)
				}
				if len(h.Ops) != len(r.ops) || h.Truncated || len(h.Warnings) > 0 {
					t.Fatalf("ingest read %d ops (truncated %v, warnings %v), the file has %d", len(h.Ops), h.Truncated, h.Warnings, len(r.ops))
				}
				p, err := model.Pair(h)
				if err != nil {
					t.Fatalf("pairing: %v", err)
				}
				var invokes, mops, wantMops int
				for i := range h.Ops {
					op := &h.Ops[i]
					if !op.IsClient() {
						if r.ops[i].process >= 0 {
							t.Fatalf("op %d: ingest has no process", i)
						}
						continue
					}
					if op.F != model.FTxn {
						t.Fatalf("op %d: ingest read :f as %s", i, op.F)
					}
					if op.Type == model.Invoke {
						invokes++
						if p.Partner[i] < 0 {
							t.Fatalf("op %d: invocation never completed, says ingest", i)
						}
						continue
					}
					if op.Type.String() != r.ops[i].typ {
						t.Fatalf("op %d: ingest type %s, text %s", i, op.Type, r.ops[i].typ)
					}
					for _, m := range h.MopsOf(op) {
						want := map[model.MopKind]bool{model.MopAppend: true, model.MopRead: true, model.MopReadList: true}
						if w == RWRegister {
							want = map[model.MopKind]bool{model.MopWrite: true, model.MopRead: true}
						}
						if !want[m.Kind] {
							t.Fatalf("op %d: a %s micro-op in a %s history", i, m.Kind, w)
						}
						mops++
					}
					wantMops += len(r.ops[i].mops)
				}
				if invokes != cfg.Txns || mops != wantMops {
					t.Fatalf("ingest: %d invocations, %d completion micro-ops; want %d, %d", invokes, mops, cfg.Txns, wantMops)
				}
			})
		}
	}
}

// checkKeys checks that values are unique per key, that no key gets more
// than max writes (except the keys in skip) and returns the writes per key.
func checkKeys(t *testing.T, r txnRun, skip map[int64]bool) map[int64]int {
	t.Helper()
	if _, err := writersOf(r.txns); err != nil {
		t.Fatal(err)
	}
	n := map[int64]int{}
	for _, tx := range r.txns {
		for _, m := range tx.invMops {
			if m.kind != "r" {
				n[m.key]++
			}
		}
	}
	max := r.cfg.MaxWritesPerKey
	if max == 0 {
		max = DefaultMaxWritesPerKey
	}
	for k, c := range n {
		if c > max && !skip[k] {
			t.Fatalf("key %d written %d times, max %d", k, c, max)
		}
	}
	return n
}

// checkPrefixes checks that every ok list read is a prefix of its key's
// final list.
func checkPrefixes(t *testing.T, r txnRun, final map[int64][]int64, skip map[int64]bool) {
	t.Helper()
	for _, tx := range r.txns {
		for _, m := range tx.mops {
			if tx.typ != "ok" || m.kind != "r" || skip[m.key] {
				continue
			}
			if f := final[m.key]; len(m.list) > len(f) || !slices.Equal(m.list, f[:len(m.list)]) {
				t.Fatalf("op %d: read %d = %v is not a prefix of the final %v", tx.comp, m.key, m.list, f)
			}
		}
	}
}

// serialFindings checks r against a serial execution in completion order
// (checkSerial, reads saying whether every ok read must match it too) and,
// for list-append, that every ok read is a prefix of its key's final list;
// it returns what the detectors find in r.
func serialFindings(t *testing.T, r txnRun, reads bool) []txnFinding {
	t.Helper()
	final, err := checkSerial(r.txns, r.la, reads, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.la {
		checkPrefixes(t, r, final, nil)
	}
	fs, err := detect(r.txns, r.la)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestTxnClean checks fault-free histories of many shapes: well formed,
// exactly the requested txns, unique values, key rotation, every ok read
// what a serial execution in completion order gives, no anomaly the
// detectors know, and an acyclic dependency graph.
func TestTxnClean(t *testing.T) {
	cases := []struct {
		name string
		edit func(*TxnConfig)
	}{
		{"default", func(*TxnConfig) {}},
		{"many info and fail", func(c *TxnConfig) { c.InfoRate, c.FailRate = 0.15, 0.15 }},
		{"one key one worker", func(c *TxnConfig) { c.Keys, c.Concurrency = 1, 1 }},
		{"hot keys, rotation", func(c *TxnConfig) { c.Keys, c.Concurrency, c.MaxWritesPerKey = 2, 20, 5 }},
		{"many keys", func(c *TxnConfig) { c.Keys, c.Concurrency = 200, 30 }},
		{"long txns", func(c *TxnConfig) { c.MaxTxnLen = 12 }},
		{"json no-f nemesis", func(c *TxnConfig) { c.Format, c.OmitF, c.Nemesis = JSON, true, true }},
	}
	for _, w := range txnWorkloads {
		for _, tc := range cases {
			t.Run(w.String()+"/"+tc.name, func(t *testing.T) {
				cfg := txnBase(w, 8000)
				tc.edit(&cfg)
				r := runTxn(t, cfg)
				writes := checkKeys(t, r, nil)
				max := cfg.MaxWritesPerKey
				if max == 0 {
					max = DefaultMaxWritesPerKey
				}
				if r.st.Writes > int64(cfg.Keys*max) && len(writes) <= cfg.Keys {
					t.Fatalf("%d writes to %d keys: no key was retired", r.st.Writes, len(writes))
				}
				if r.st.Keys < int64(len(writes)) {
					t.Fatalf("stats count %d keys, %d were written", r.st.Keys, len(writes))
				}
				fs := serialFindings(t, r, true)
				if len(fs) > 0 {
					t.Fatalf("%d findings in a clean history, first %+v", len(fs), fs[0])
				}
				if c := sccs(depGraph(r.txns, r.la, len(r.ops), true), len(r.txns)); len(c) > 0 {
					t.Fatalf("%d cycles in a clean history; one has ops %v", len(c), opsOf(r, c[0]))
				}
				if cfg.Nemesis && r.st.Nemesis == 0 {
					t.Fatal("no nemesis op")
				}
				if cfg.InfoRate > 0.1 && (r.st.InfoLanded == 0 || r.st.InfoLanded == r.st.Info) {
					t.Fatalf("%d of %d info txns landed", r.st.InfoLanded, r.st.Info)
				}
			})
		}
	}
}

// TestTxnReadLag checks the stale-read store: lists stay consistent (every
// read a prefix of the key's final list), and the only anomalies are stale
// reads, plenty of them.
func TestTxnReadLag(t *testing.T) {
	for _, w := range txnWorkloads {
		t.Run(w.String(), func(t *testing.T) {
			cfg := txnBase(w, 8000)
			cfg.ReadLag = 6
			r := runTxn(t, cfg)
			checkKeys(t, r, nil)
			if _, err := checkSerial(r.txns, r.la, true, nil); err == nil {
				t.Fatal("every read is serial despite the read lag")
			}
			fs := serialFindings(t, r, false)
			if got := kinds(fs); !slices.Equal(got, []string{kStale}) || len(fs) < 100 {
				t.Fatalf("found %v (%d)", got, len(fs))
			}
		})
	}
}

// TestHugeSCC checks the huge-SCC preset: many failed and crashed txns, and
// one strongly connected component holding nearly every ok txn and every
// info txn whose writes were observed (the others have no outgoing edges).
// Its anomalies are stale reads only, and they make cycles of data edges
// alone too (G-single-item, G2-item), not just with realtime edges.
func TestHugeSCC(t *testing.T) {
	for _, seed := range []int64{1, 2} {
		r := runTxn(t, HugeSCCConfig(seed))
		if r.st.Fail < int64(r.cfg.Txns)/7 || r.st.Info < int64(r.cfg.Txns)/40 {
			t.Fatalf("seed %d: %d fail, %d info of %d txns", seed, r.st.Fail, r.st.Info, r.cfg.Txns)
		}
		seen := readValues(r.txns)
		var eligible int
		for _, tx := range r.txns {
			switch tx.typ {
			case "ok":
				eligible++
			case "info":
				if slices.ContainsFunc(tx.invMops, func(m xmop) bool { return m.kind != "r" && seen[kv{m.key, m.val}] }) {
					eligible++
				}
			}
		}
		cs := sccs(depGraph(r.txns, true, len(r.ops), true), len(r.txns))
		biggest := 0
		for _, c := range cs {
			biggest = max(biggest, len(c))
		}
		t.Logf("seed %d: largest SCC %d of %d ok and observed info txns (%d fail, %d info)", seed, biggest, eligible, r.st.Fail, r.st.Info)
		if biggest < eligible*95/100 {
			t.Fatalf("seed %d: largest SCC %d of %d ok and observed info txns", seed, biggest, eligible)
		}
		fs, err := detect(r.txns, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := kinds(fs); !slices.Equal(got, []string{kStale}) {
			t.Fatalf("seed %d: found %v", seed, got)
		}
		if data := sccs(depGraph(r.txns, true, len(r.ops), false), len(r.txns)); len(data) == 0 {
			t.Fatalf("seed %d: no cycle of data edges alone", seed)
		}
	}
}

func TestTxnConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*TxnConfig)
		want string
	}{
		{"queue", func(c *TxnConfig) { c.Workload = Queue }, "workload"},
		{"txns", func(c *TxnConfig) { c.Txns = -1 }, "txns"},
		{"concurrency", func(c *TxnConfig) { c.Concurrency = 0 }, "concurrency"},
		{"keys", func(c *TxnConfig) { c.Keys = 0 }, "keys"},
		{"max txn len", func(c *TxnConfig) { c.MaxTxnLen = -1 }, "max txn length"},
		{"max writes", func(c *TxnConfig) { c.MaxWritesPerKey = -2 }, "max writes per key"},
		{"rates", func(c *TxnConfig) { c.InfoRate, c.FailRate = 0.6, 0.6 }, "info rate + fail rate"},
		{"rate", func(c *TxnConfig) { c.FailRate = -0.1 }, "fail rate"},
		{"lag", func(c *TxnConfig) { c.ReadLag = -1 }, "read lag"},
		{"fault workload", func(c *TxnConfig) {
			c.Workload = RWRegister
			c.Faults = []TxnFault{{DirtyUpdate, 1}}
		}, "does not apply"},
		{"fault count", func(c *TxnConfig) { c.Faults = []TxnFault{{StaleRead, -1}} }, "negative count"},
		{"fault concurrency", func(c *TxnConfig) {
			c.Concurrency = 2
			c.Faults = []TxnFault{{StaleRead, 1}}
		}, "concurrency >= 3"},
		{"format", func(c *TxnConfig) { c.Format = 9 }, "format"},
	} {
		cfg := txnBase(ListAppend, 10)
		c.edit(&cfg)
		if _, err := WriteTxn(io.Discard, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	cfg := txnBase(ListAppend, 10)
	cfg.Concurrency = 2
	cfg.Faults = []TxnFault{{StaleRead, 0}}
	if _, err := WriteTxn(io.Discard, cfg); err != nil {
		t.Errorf("zero faults with concurrency 2: %v", err)
	}
}

func TestParseTxnFault(t *testing.T) {
	for _, k := range TxnFaultKinds() {
		f, err := ParseTxnFault(k.String() + "=4")
		if err != nil || f != (TxnFault{k, 4}) || f.String() != k.String()+"=4" {
			t.Errorf("%s: %v %v", k, f, err)
		}
		if f, err := ParseTxnFault(k.String()); err != nil || f.Count != 1 {
			t.Errorf("%s alone: %v %v", k, f, err)
		}
		types, _ := k.Anomalies(ListAppend)
		if len(types) == 0 {
			t.Errorf("%s: no documented anomaly for list-append", k)
		}
	}
	for _, bad := range []string{"lost-write", "stale-read=x", "stale-read=-1", ""} {
		if _, err := ParseTxnFault(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	for _, w := range []Workload{Queue, ListAppend, RWRegister} {
		if got, err := ParseWorkload(w.String()); err != nil || got != w {
			t.Errorf("%s: %v %v", w, got, err)
		}
	}
	if _, err := ParseWorkload("la"); err == nil {
		t.Error("la parsed")
	}
}

// TestTxnSmall checks tiny histories: exactly Txns txns even when the
// faults asked for do not fit (those are dropped), and nothing for zero.
func TestTxnSmall(t *testing.T) {
	for _, n := range []int{0, 1, 5, 13} {
		for _, w := range txnWorkloads {
			cfg := txnBase(w, n)
			cfg.Concurrency = 3
			for _, k := range TxnFaultKinds() {
				if k.AppliesTo(w) {
					cfg.Faults = append(cfg.Faults, TxnFault{k, 2})
				}
			}
			r := runTxn(t, cfg)
			if n == 0 && len(r.b) != 0 {
				t.Fatalf("%d bytes for zero txns", len(r.b))
			}
			if n > 0 && len(r.st.Injections) == 0 && n > 4 {
				t.Fatalf("%s, %d txns: no script fits", w, n)
			}
			for _, in := range r.st.Injections {
				checkInjection(t, r, in)
			}
		}
	}
}

// BenchmarkWriteTxn generates a 1,000,000-txn list-append history (the
// size benchmarks use) to io.Discard.
func BenchmarkWriteTxn(b *testing.B) {
	for _, w := range txnWorkloads {
		b.Run(w.String(), func(b *testing.B) {
			cfg := txnBase(w, 1_000_000)
			cfg.InfoRate, cfg.FailRate = 0.01, 0.01
			benchWrite(b, func() (int64, error) { st, err := WriteTxn(io.Discard, cfg); return st.Bytes, err })
			b.ReportMetric(float64(cfg.Txns)*float64(b.N)/b.Elapsed().Seconds(), "txns/s")
		})
	}
}
