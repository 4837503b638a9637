package report

import (
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// TestRWRegisterOrders: an rw-register page lists each key's version order
// as the pairs its sources established, each with its source and ops.
func TestRWRegisterOrders(t *testing.T) {
	opts := check.DefaultOptions()
	opts.Analysis.Series, opts.Analysis.WFRKeys = true, true
	res, h := mustCheck(t, testpaths.Testdata("rw-register", "g-single-writes-follow-reads-invalid.edn"), opts)
	v := BuildView(res, h, ViewOptions{})
	if v.Txn == nil || len(v.Txn.Orders) == 0 {
		t.Fatalf("no version orders on the page: %+v", v.Txn)
	}
	sawWFR := false
	for _, o := range v.Txn.Orders {
		if !o.Partial || o.From != -1 || !strings.Contains(o.Order, " < ") {
			t.Errorf("order %+v", o)
		}
		if strings.Contains(o.Order, "(wfr-keys: op ") {
			sawWFR = true
		}
	}
	if !sawWFR {
		t.Errorf("no order names its wfr-keys source and op: %+v", v.Txn.Orders)
	}
}
