// Package testfixture turns the options of a fixture's expectation file
// (testhist.FixtureOptions) into the registry's options, for the tests
// that check fixtures of every workload through the registry (workload,
// check).
package testfixture

import (
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/workload"
)

// Options are the command line's defaults with what o sets: the options a
// fixture is checked under. A bad transaction_order key fails tb.
func Options(tb testing.TB, o *testhist.FixtureOptions) workload.Options {
	tb.Helper()
	w := workload.DefaultOptions()
	w.WWDeps = o.WWDeps
	if o.SubVia != nil {
		w.SubVia = *o.SubVia
	}
	if d, ok := o.Stall(); ok {
		w.StallThreshold = d
	}
	if o.Models != nil {
		w.Models = o.ModelList()
	}
	w.Anomalies = o.Anomalies
	w.WFRKeys, w.SequentialKeys, w.LinearizableKeys = o.WFRKeys, o.SequentialKeys, o.LinearizableKeys
	w.TransactionOrder = o.Order(tb)
	w.AbortContract = o.AbortContract
	if o.CycleBudgetS != nil {
		w.CycleBudget = time.Duration(*o.CycleBudgetS * float64(time.Second))
	}
	return w
}
