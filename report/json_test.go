package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// TestJSONStreamsTheSameBytes compares JSON, which streams the anomalies
// instance by instance, with encoding/json's encoding of the whole result,
// on every history of each workload's fixture folder and on results with
// no anomalies and with an empty instance list.
func TestJSONStreamsTheSameBytes(t *testing.T) {
	var paths []string
	for _, dir := range []string{"queue", "list-append", "rw-register", "abort"} {
		m, err := filepath.Glob(filepath.Join(testpaths.Testdata(dir), "*.edn"))
		if err != nil || len(m) == 0 {
			t.Fatalf("no histories in testdata/%s (%v)", dir, err)
		}
		paths = append(paths, m...)
	}
	var pool []analysis.Instance // every fixture's instances
	for _, p := range paths {
		res, _, err := check.File(p, check.DefaultOptions())
		if err != nil {
			continue // the fixtures of bad input
		}
		for _, ins := range res.Anomalies {
			pool = append(pool, ins...)
		}
		sameJSON(t, filepath.Base(p), res)
	}
	if len(pool) == 0 {
		t.Fatal("no fixture had an anomaly: the streamed part went untested")
	}
	// lists of many pieces, and of one piece to the instance, beside an
	// empty and a nil list, in one result
	many := func(n int) []analysis.Instance {
		ins := make([]analysis.Instance, n)
		for i := range ins {
			ins[i] = pool[i%len(pool)]
		}
		return ins
	}
	sameJSON(t, "long lists", &analysis.Result{Schema: analysis.Schema, Anomalies: map[string][]analysis.Instance{
		"a": many(2500), "b": many(513), "c": nil, "d": {}, "e": many(512), "f": many(1)}})
	// a source with quotes and the hole's own text in it, no anomalies,
	// and a type with an empty list
	res := &analysis.Result{Schema: analysis.Schema, Source: `x "anomalies":null <&>`, Warnings: []string{`"anomalies":null`}}
	sameJSON(t, "no anomalies", res)
	res.Anomalies = map[string][]analysis.Instance{"b": {}, "a": nil}
	sameJSON(t, "empty lists", res)
}

func sameJSON(t *testing.T, name string, res *analysis.Result) {
	t.Helper()
	want := testhist.JSONLine(t, res)
	var got bytes.Buffer
	if err := JSON(&got, res); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if g := got.String(); g != want {
		i := 0
		for i < min(len(g), len(want)) && g[i] == want[i] {
			i++
		}
		t.Fatalf("%s: streamed JSON differs at byte %d:\n got %q\nwant %q", name, i,
			strings.TrimSpace(g[max(0, i-40):min(len(g), i+40)]),
			strings.TrimSpace(want[max(0, i-40):min(len(want), i+40)]))
	}
}
