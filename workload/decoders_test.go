package workload

import (
	"testing"

	"github.com/hindsight-dev/hindsight/ingest"
)

type testDecoder struct{}

func (testDecoder) Name() string                                                  { return "list-append" }
func (testDecoder) Claim(field, f string, s ingest.Shape) bool                    { return false }
func (testDecoder) Decode(string, string, *ingest.Value, *ingest.ExtWriter) error { return nil }

// TestDecoders: the decoders of the registry's workloads, in its order;
// none while no workload has one.
func TestDecoders(t *testing.T) {
	if ds := Decoders(); len(ds) != 0 {
		t.Fatalf("Decoders() = %v; no workload has one yet", ds)
	}
	registerDecoder("list-append", testDecoder{})
	defer delete(decoders, "list-append")
	ds := Decoders()
	if len(ds) != 1 || ds[0].Name() != "list-append" {
		t.Fatalf("Decoders() = %v", ds)
	}
	if _, ok := MustLookup("list-append").Decoder(); !ok {
		t.Error("list-append has no decoder")
	}
	if _, ok := MustLookup("queue").Decoder(); ok {
		t.Error("queue has a decoder")
	}
}
