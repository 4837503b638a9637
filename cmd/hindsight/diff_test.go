package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFixture copies a queue fixture to dst (folders made as needed).
func copyFixture(t *testing.T, name, dst string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiffScans is the acceptance case: two scans of the same folder, the
// second after an anomalous history was added and another replaced by an
// anomalous one; diff names exactly those histories and types, and exits
// 1; the reverse is not worse.
func TestDiffScans(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "archive")
	copyFixture(t, "unseen-drains-to-zero-valid.edn", filepath.Join(archive, "run1", "history.edn"))
	copyFixture(t, "unseen-drains-to-zero-valid.edn", filepath.Join(archive, "run2", "history.edn"))
	copyFixture(t, "empty-no-send-or-poll-unknown.edn", filepath.Join(archive, "run3", "history.edn"))
	old := filepath.Join(dir, "old")
	if code, _, stderr := runCLI(t, "", "scan", "-o", old, archive); code != 2 {
		t.Fatalf("scan: exit %d\n%s", code, stderr)
	}
	copyFixture(t, "g1c-wr-cycle-invalid.edn", filepath.Join(archive, "run2", "history.edn"))
	copyFixture(t, "g1c-wr-cycle-invalid.edn", filepath.Join(archive, "run4", "history.edn"))
	nw := filepath.Join(dir, "new")
	if code, _, stderr := runCLI(t, "", "scan", "-o", nw, archive); code != 1 {
		t.Fatalf("scan: exit %d\n%s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", "diff", old, nw)
	if code != 1 {
		t.Fatalf("diff: exit %d, want 1\n%s%s", code, out, stderr)
	}
	run2, run4 := filepath.Join(archive, "run2", "history.edn"), filepath.Join(archive, "run4", "history.edn")
	for _, want := range []string{
		run2 + ": valid -> invalid (worse: verdict valid -> invalid; bad type G1c appeared)\n  added: G1c (1, bad)\n",
		"turned invalid (1):\n  " + run2 + "\n",
		"anomaly types new in the archive (1):\n  G1c (bad; in " + run2 + ", " + run4 + ")\n",
		"new histories (1):\n  " + run4 + ": invalid (G1c 1)\n",
		"3 histories in both, 1 changed, 1 new, 0 missing, 0 renamed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "run1") || strings.Contains(out, "run3") {
		t.Errorf("unchanged histories named:\n%s", out)
	}
	code, js, _ := runCLI(t, "", "diff", "--format", "json", old, nw)
	var r struct {
		Worse         bool     `json:"worse"`
		TurnedInvalid []string `json:"turned_invalid"`
		NewTypes      []struct {
			Type string `json:"type"`
		} `json:"new_types"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil || code != 1 || !r.Worse || len(r.TurnedInvalid) != 1 || len(r.NewTypes) != 1 || r.NewTypes[0].Type != "G1c" {
		t.Errorf("json: exit %d, %+v (%v)\n%s", code, r, err, js)
	}
	if code, out, _ := runCLI(t, "", "diff", nw, old); code != 0 || !strings.Contains(out, "turned valid (1):\n  "+run2) || !strings.Contains(out, "missing histories (1):\n  "+run4) {
		t.Errorf("reverse: exit %d, want 0:\n%s", code, out)
	}
	// Two scans of different roots match by the path below the root.
	moved := filepath.Join(dir, "moved")
	os.Rename(archive, moved)
	nw2 := filepath.Join(dir, "new2")
	runCLI(t, "", "scan", "-o", nw2, moved)
	if code, out, _ := runCLI(t, "", "diff", nw, filepath.Join(nw2, "histories.parquet")); code != 0 || !strings.Contains(out, "4 histories in both, 0 changed") {
		t.Errorf("moved root: exit %d:\n%s", code, out)
	}
}

// TestDiffResultsAndHistories: check results and histories as inputs,
// and unreadable input (exit 3).
func TestDiffResultsAndHistories(t *testing.T) {
	dir := t.TempDir()
	valid, invalid := filepath.Join(fixtures, "unseen-drains-to-zero-valid.edn"), filepath.Join(fixtures, "g1c-wr-cycle-invalid.edn")
	_, js, _ := runCLI(t, "", "check", "--format", "json", valid)
	oldJSON := filepath.Join(dir, "old.json")
	os.WriteFile(oldJSON, []byte(js), 0o644)
	cases := []struct {
		name     string
		old, new string
		code     int
		want     string
	}{
		{"result to history - worse", oldJSON, invalid, 1, "valid -> invalid (worse: verdict valid -> invalid; bad type G1c appeared)"},
		{"history to result - better", invalid, oldJSON, 0, "invalid -> valid\n  removed: G1c (was 1, bad)"},
		{"same history - nothing", valid, valid, 0, "1 history in both, 0 changed"},
		{"missing input - 3", oldJSON, filepath.Join(dir, "nope.json"), 3, ""},
		{"folder that is neither - 3", oldJSON, dir, 3, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", "diff", c.old, c.new)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want %d; want %q in:\n%s%s", code, c.code, c.want, out, stderr)
			}
		})
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":"hindsight.check/v1","source":"x","valid":`), 0o644)
	if code, _, stderr := runCLI(t, "", "diff", oldJSON, bad); code != 3 || !strings.Contains(stderr, "bad.json") {
		t.Errorf("cut JSON: exit %d: %s", code, stderr)
	}
}
