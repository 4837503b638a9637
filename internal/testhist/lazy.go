package testhist

import (
	"bytes"
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
)

// LazyJSON checks that in is kept compact (analysis.Lazy), that its
// MarshalJSON writes what the full instance it stands for writes, its
// AppendJSON, when it has one, what report.JSON's encoder writes for the
// full instance, and its ListedValues, when it has its own, what the full
// instance lists (analysis.Listed); it returns the full instance's JSON.
func LazyJSON(t testing.TB, in analysis.Instance) string {
	t.Helper()
	if _, ok := in.(analysis.Lazy); !ok {
		t.Fatalf("a %T, not kept compact", in)
	}
	lazy, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	full, err := json.Marshal(analysis.Full(in))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lazy, full) {
		t.Errorf("compact %s, full %s", lazy, full)
	}
	if a, ok := in.(interface{ AppendJSON([]byte) []byte }); ok {
		want := "x" + strings.TrimSuffix(JSONLine(t, analysis.Full(in)), "\n")
		if got := string(a.AppendJSON([]byte("x"))); got != want {
			t.Errorf("AppendJSON %s, encoding/json %s", got[1:], want[1:])
		}
	}
	if l, ok := in.(analysis.Listed); ok {
		values, skipped := l.ListedValues()
		fl, ok := analysis.Full(in).(analysis.Listed)
		if !ok {
			t.Fatalf("a %T lists values, its full instance does not", in)
		}
		fullValues, fullSkipped := fl.ListedValues()
		same := func(a, b []analysis.Value) bool { return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b)) }
		if !same(values, fullValues) || !same(skipped, fullSkipped) {
			t.Errorf("a %T lists %v and %v, its full instance %v and %v", in, values, skipped, fullValues, fullSkipped)
		}
	}
	return string(full)
}

// ReportHeapPer runs check once per benchmark iteration and reports, as
// B/instance, the heap the result it returns holds (measured between two
// collections) divided by the instances check says it holds.
func ReportHeapPer(b *testing.B, check func() (result any, instances int)) {
	b.Helper()
	var per float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, n := check()
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = float64(after.HeapAlloc-before.HeapAlloc) / float64(max(n, 1))
		runtime.KeepAlive(res)
	}
	b.ReportMetric(per, "B/instance")
}
