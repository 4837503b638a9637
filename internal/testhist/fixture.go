package testhist

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"
)

// FixtureOptions are the options a fixture's expectation file gives
// (testdata/<workload>/NAME.expected.json, or NAME.expect.json beside a
// hand-made history): each workload's tests read the ones it has, and
// internal/testfixture turns them all into the registry's options.
type FixtureOptions struct {
	// WWDeps and SubVia are the queue's --ww-deps and --sub-via.
	WWDeps bool    `json:"ww_deps"`
	SubVia *string `json:"sub_via"`
	// StallThreshold is --stall-threshold in seconds; nil: the default.
	StallThreshold *float64 `json:"stall_threshold_s"`
	// Models, when present, are the consistency models of a list-append
	// or rw-register case (a -process form needs a strong-session- model
	// to be searched for); absent, the default.
	Models    *[]string `json:"consistency_models"`
	Anomalies []string  `json:"anomalies"`
	// WFRKeys, SequentialKeys, LinearizableKeys and TransactionOrder are
	// rw-register's version-order sources; TransactionOrder's keys are
	// completion op indices, written as strings.
	WFRKeys          bool             `json:"wfr_keys"`
	SequentialKeys   bool             `json:"sequential_keys"`
	LinearizableKeys bool             `json:"linearizable_keys"`
	TransactionOrder map[string]int64 `json:"transaction_order"`
	// AbortContract is an abort case's --abort-contract.
	AbortContract string `json:"abort_contract"`
	// CycleBudgetS is --cycle-budget in seconds; nil: the default. The
	// budget counts search steps (25M a second), so a tiny one runs out at
	// the same step on every machine.
	CycleBudgetS *float64 `json:"cycle_budget_s"`
}

// ModelList is Models: nil when absent, else a non-nil slice (empty
// means no model, only Anomalies).
func (o *FixtureOptions) ModelList() []string {
	if o.Models == nil {
		return nil
	}
	if *o.Models == nil {
		return []string{}
	}
	return *o.Models
}

// Stall is StallThreshold as a duration, and whether the file gives one.
func (o *FixtureOptions) Stall() (time.Duration, bool) {
	if o.StallThreshold == nil {
		return 0, false
	}
	return time.Duration(*o.StallThreshold * float64(time.Second)), true
}

// Order is TransactionOrder keyed by op index (nil when the file gives
// none); a key that is not an integer fails tb.
func (o *FixtureOptions) Order(tb testing.TB) map[int64]int64 {
	tb.Helper()
	if o.TransactionOrder == nil {
		return nil
	}
	order := make(map[int64]int64, len(o.TransactionOrder))
	for k, v := range o.TransactionOrder {
		i, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			tb.Fatalf("transaction_order key %q: %v", k, err)
		}
		order[i] = v
	}
	return order
}

// ReadJSON decodes the JSON file at path into v, failing the test (with
// the path) when it cannot be read or decoded.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
