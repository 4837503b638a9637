package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScanExitCodes(t *testing.T) {
	td := "../../scan/testdata"
	dir := t.TempDir()
	only := func(names ...string) string {
		d := filepath.Join(dir, strings.Join(names, "+"))
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(td, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"all valid - 0", []string{only("two-keys-all-read-valid.edn", "json-array-valid.json")}, 0, ""},
		{"an unknown - 2", []string{only("two-keys-all-read-valid.edn", "no-queue-ops-unknown.edn")}, 2, ""},
		{"an invalid - 1", []string{only("two-keys-all-read-valid.edn", "no-queue-ops-unknown.edn", "lost-write-invalid.edn")}, 1, ""},
		{"a corrupt history - 3", []string{only("lost-write-invalid.edn", "mismatched-bracket-error.edn")}, 3, ""},
		{"no histories - 3", []string{empty}, 3, "no histories found"},
		{"bad shard - 3", []string{"--shard", "4/4", empty}, 3, "need 0 <= i < n"},
		{"bad memory - 3", []string{"--memory", "lots", empty}, 3, "--memory"},
		{"bad flag - 3", []string{"--no-such-flag", empty}, 3, "unknown flag"},
		{"no arguments - 3", nil, 3, "requires at least 1 arg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"scan", "-o", filepath.Join(t.TempDir(), "out")}, c.args...)
			code, _, stderr := runCLI(t, "", args...)
			if code != c.code || !strings.Contains(stderr, c.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.stderr)
			}
		})
	}
}

func TestScanOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "", "scan", "-o", out, "--shard", "0/1", "--ipc", "-j", "2", "--memory", "256MiB", "../../scan/testdata")
	if code != 3 { // corrupt-syntax.edn
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr is not a terminal, so no progress: got %q", stderr)
	}
	for _, want := range []string{"scanned 6 histories", "VERDICT", "lost-write", "histories.parquet", "anomalies.arrow"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "", "scan", "-o", out, "--format", "json", "../../scan/testdata")
	var sum struct{ Histories, Cached, Invalid, Errors int }
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--format json: %v\n%s", err, stdout)
	}
	if code != 3 || sum.Histories != 6 || sum.Cached != 6 || sum.Invalid != 2 || sum.Errors != 1 {
		t.Errorf("rerun: exit %d, summary %+v", code, sum)
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1024", 1024, true}, {"512MiB", 512 << 20, true}, {"4GB", 4e9, true}, {"1.5GiB", 3 << 29, true},
		{"2 gib", 2 << 30, true}, {"10k", 10000, true},
		{"", 0, false}, {"-1", 0, false}, {"0", 0, false}, {"lots", 0, false}, {"5XB", 0, false},
	} {
		got, err := parseBytes(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseBytes(%q) = %d, %v", c.in, got, err)
		}
	}
}
