package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// TestAbortContractFlag: --abort-contract reaches the abort checker and
// its result, the Bufstream finding is valid under kafka and invalid
// under rewind, and an unknown contract is a usage error.
func TestAbortContractFlag(t *testing.T) {
	f := filepath.Join(testpaths.Root(), "testdata", "abort", "bufstream-advance-without-rebalance-valid.edn")
	for _, tc := range []struct {
		args     []string
		code     int
		contract string
	}{
		{nil, exitValid, "kafka"},
		{[]string{"--abort-contract", "kafka"}, exitValid, "kafka"},
		{[]string{"--abort-contract", "rewind"}, exitInvalid, "rewind"},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"check", "--format", "json", f}, tc.args...)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
		var res struct {
			Workload string `json:"workload"`
			Bad      []string
			Options  struct {
				AbortContract string `json:"abort_contract"`
			} `json:"options"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if res.Workload != "abort" || res.Options.AbortContract != tc.contract {
			t.Errorf("%v: workload %q, contract %q", tc.args, res.Workload, res.Options.AbortContract)
		}
	}
	runExpect(t, exitInput, "--abort-contract must be kafka or rewind", "check", "--abort-contract", "none", f)
}

// TestAbortInputError: a poll value that is not a map is an input error
// with the file, line and column.
func TestAbortInputError(t *testing.T) {
	src := `{:index 0 :type :ok :process 0 :f :poll :value {:topic "t1" :offsets [1]}}
{:index 1 :type :ok :process 0 :f :poll :value "t1"}
`
	code, _, stderr := runCLI(t, src, "check", "-")
	if code != exitInput || !strings.Contains(stderr, ":2:48: the value of a poll must be a map") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
