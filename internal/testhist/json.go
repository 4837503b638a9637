package testhist

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// JSONLine is v's JSON as report.JSON's encoder writes it: no HTML
// escaping, a newline at the end.
func JSONLine(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Plain is v through JSON and back into maps, slices, strings, float64s,
// bools and nils: what a reader of the JSON sees, whatever v's Go types.
func Plain(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// AllPositions lists every op of h by position, 0 to len(h.Ops)-1: the
// selection that keeps a whole history (shrink.WriteEDN's positions).
func AllPositions(h *model.History) []int32 {
	ps := make([]int32, len(h.Ops))
	for i := range ps {
		ps[i] = int32(i)
	}
	return ps
}
