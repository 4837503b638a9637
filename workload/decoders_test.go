package workload

import (
	"testing"

	"github.com/hindsight-dev/hindsight/ingest"
)

type testDecoder struct{}

func (testDecoder) Name() string                                                  { return "list-append" }
func (testDecoder) Claim(field, f string, s ingest.Shape) bool                    { return false }
func (testDecoder) Decode(string, string, *ingest.Value, *ingest.ExtWriter) error { return nil }

// TestDecoders: the decoders of the registry's workloads, in its order:
// abort's alone, and a decoder registered for list-append before it.
func TestDecoders(t *testing.T) {
	if ds := Decoders(); len(ds) != 1 || ds[0].Name() != "abort" {
		t.Fatalf("Decoders() = %v; want abort's", ds)
	}
	registerDecoder("list-append", testDecoder{})
	defer delete(decoders, "list-append")
	ds := Decoders()
	if len(ds) != 2 || ds[0].Name() != "list-append" || ds[1].Name() != "abort" {
		t.Fatalf("Decoders() = %v", ds)
	}
	if _, ok := MustLookup("list-append").Decoder(); !ok {
		t.Error("list-append has no decoder")
	}
	if _, ok := MustLookup("queue").Decoder(); ok {
		t.Error("queue has a decoder")
	}
}
