package scan

import (
	"bytes"
	"testing"

	"github.com/hindsight-dev/hindsight/ingest"
)

// FuzzNotHistory checks the sniffer never panics, and never skips a text
// that reads as a history with ops: whatever it skips, the parser either
// rejects or finds empty.
func FuzzNotHistory(f *testing.F) {
	for _, s := range []string{
		`{:index 0, :type :invoke, :process 0, :f :send, :value [[:send 1 2]]}`,
		`[{"type": "invoke", "f": "poll", "process": 1}]`,
		`{"valid?": true}`, `{:nodes ["n1"]}`, `[1 2 3]`, `#inst "x"`, `; c` + "\n" + `{:f :poll}`,
		`#jepsen.history.Op{:index 0}`, `{:a #{1 2} :b \c :type :ok}`, `{"a": "\"", "f": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !notHistory(b) {
			return
		}
		h, err := ingest.Read(bytes.NewReader(b), "fuzz.edn", ingest.Options{})
		if err == nil && len(h.Ops) > 0 {
			t.Fatalf("skipped as not a history, but it reads as %d ops: %q", len(h.Ops), b)
		}
	})
}
