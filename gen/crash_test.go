package gen

import (
	"fmt"
	"slices"
	"testing"
)

// crashHeavy is, at test size, the shape of issue 21's crash-heavy run: 20
// workers, 16 keys, clients that crash often, and polls that list every
// key. No faults, so the history is valid.
func crashHeavy(ops int) Config {
	cfg := base(ops)
	cfg.Concurrency, cfg.Keys = 20, 16
	cfg.TxnFraction, cfg.InfoRate = 0.25, 0
	cfg.CrashRate, cfg.PollAllKeys = 0.02, true
	return cfg
}

// TestCrashRateAndPollAllKeys checks histories with Config.CrashRate and
// Config.PollAllKeys: well formed and free of findings, every :info a
// crashed client (InfoRate is zero) or a :crash op, each followed by a new
// process id, and every assign and every ok poll listing every key, some
// with an empty list.
func TestCrashRateAndPollAllKeys(t *testing.T) {
	for _, format := range []Format{EDN, JSON} {
		for seed := int64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s seed %d", format, seed), func(t *testing.T) {
				cfg := crashHeavy(40000)
				cfg.Seed, cfg.Format = seed, format
				ops, partner, st := generateParsed(t, cfg)
				if st.Lines != int64(cfg.Ops) {
					t.Errorf("%d lines, want %d", st.Lines, cfg.Ops)
				}
				checkClean(t, ops, partner)
				all := make([]int64, cfg.Keys)
				for k := range all {
					all[k] = int64(k)
				}
				pids := map[int64]bool{}
				var crashed, crashOps, polls, lists, empty int
				for i, op := range ops {
					if op.process < 0 {
						continue
					}
					pids[op.process] = true
					switch {
					case op.typ == "info" && op.f == "crash":
						crashOps++
					case op.typ == "info" && op.err == crashError:
						crashed++
					case op.typ == "info":
						t.Fatalf("op %d: info %s with error %q", i, op.f, op.err)
					}
					if op.f == "assign" && !slices.Equal(op.keys, all) {
						t.Fatalf("op %d: assigns %v, want every key", i, op.keys)
					}
					if op.typ != "ok" {
						continue
					}
					for _, m := range op.mops {
						if m.send {
							continue
						}
						polls++
						for j, r := range m.reads {
							if j >= len(all) || r.key != all[j] {
								t.Fatalf("op %d: poll lists keys %v, want every key", i, m.reads)
							}
							lists++
							if len(r.pairs) == 0 {
								empty++
							}
						}
						if len(m.reads) != len(all) {
							t.Fatalf("op %d: poll lists %d keys, want %d", i, len(m.reads), len(all))
						}
					}
				}
				if int64(crashed) != st.ClientCrashes || crashed < 100 {
					t.Errorf("%d crashed clients, stats say %d", crashed, st.ClientCrashes)
				}
				if want := cfg.Concurrency + crashed + crashOps; len(pids) != want || st.Processes != int64(want) {
					t.Errorf("%d process ids (stats %d), want %d workers + %d crashed clients + %d crash ops",
						len(pids), st.Processes, cfg.Concurrency, crashed, crashOps)
				}
				if polls < 1000 || empty < lists/10 || empty == lists {
					t.Errorf("%d ok polls listing %d keys, %d of them empty", polls, lists, empty)
				}
			})
		}
	}
}

func TestCrashRateAndPollAllKeysDeterminism(t *testing.T) {
	cfg := crashHeavy(20000)
	checkDeterministic(t, Write, &cfg, &cfg.Seed)
}
