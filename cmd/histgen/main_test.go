package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
)

// histgen runs the command with args, writing to a file in a temporary
// directory, and returns the file's bytes.
func histgen(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "h.edn")
	cmd := newRootCmd()
	cmd.SetArgs(append(args, "-q", "-o", out))
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

func TestWorkloads(t *testing.T) {
	got, err := histgen(t, "--ops", "2000", "--seed", "4", "--txn", "0.3", "--fault", "garbage=1")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	qc := gen.Config{Seed: 4, Ops: 2000, Concurrency: 10, Keys: 8, TxnFraction: 0.3, InfoRate: 0.01, FailRate: 0.01,
		StallDuration: gen.DefaultStallDuration, Faults: []gen.Fault{{Kind: gen.Garbage, Count: 1}}}
	if _, err := gen.Write(&want, qc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("queue: histgen and gen.Write differ")
	}

	got, err = histgen(t, "--ops", "2000", "--seed", "4", "--crash-rate", "0.05", "--poll-all-keys", "--info", "0")
	if err != nil {
		t.Fatal(err)
	}
	want.Reset()
	qc = gen.Config{Seed: 4, Ops: 2000, Concurrency: 10, Keys: 8, FailRate: 0.01, CrashRate: 0.05, PollAllKeys: true,
		StallDuration: gen.DefaultStallDuration}
	if _, err := gen.Write(&want, qc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) || !bytes.Contains(got, []byte(`:error "indeterminate: `)) {
		t.Error("queue --crash-rate --poll-all-keys: histgen and gen.Write differ")
	}

	got, err = histgen(t, "--workload", "rw-register", "--txns", "300", "--seed", "4", "--no-f", "--read-lag", "2",
		"--keys", "3", "--fault", "stale-read=2")
	if err != nil {
		t.Fatal(err)
	}
	want.Reset()
	tc := gen.TxnConfig{Seed: 4, Workload: gen.RWRegister, Txns: 300, Concurrency: 10, Keys: 3, MaxTxnLen: 4,
		MaxWritesPerKey: 32, InfoRate: 0.01, FailRate: 0.01, ReadLag: 2, OmitF: true,
		Faults: []gen.TxnFault{{Kind: gen.StaleRead, Count: 2}}}
	if _, err := gen.WriteTxn(&want, tc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) || bytes.Contains(got, []byte(":f ")) {
		t.Error("rw-register: histgen and gen.WriteTxn differ")
	}

	got, err = histgen(t, "--huge-scc", "--txns", "500")
	if err != nil {
		t.Fatal(err)
	}
	want.Reset()
	hc := gen.HugeSCCConfig(1)
	hc.Txns = 500
	if _, err := gen.WriteTxn(&want, hc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("--huge-scc --txns 500: histgen and gen.WriteTxn differ")
	}
}

func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "list-append", "--ops", "10"}, "--ops does not apply"},
		{[]string{"--txns", "10"}, "--txns does not apply"},
		{[]string{"--workload", "list-append", "--crash-rate", "0.1"}, "--crash-rate does not apply"},
		{[]string{"--workload", "rw-register", "--poll-all-keys"}, "--poll-all-keys does not apply"},
		{[]string{"--crash-rate", "2"}, "crash rate must be in [0, 1]"},
		{[]string{"--workload", "abort", "--rebalance", "2"}, "rebalance rate must be in [0, 1], got 2"},
		{[]string{"--workload", "rw-register", "--huge-scc"}, "--huge-scc needs"},
		{[]string{"--workload", "bank"}, "unknown workload"},
		{[]string{"--workload", "list-append", "--fault", "lost-write"}, "unknown transactional fault"},
		{[]string{"--workload", "rw-register", "--fault", "future-read"}, "does not apply"},
		{[]string{"--fault", "stale-read"}, "unknown fault"},
	} {
		if _, err := histgen(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}
