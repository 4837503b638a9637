package workload

import (
	"github.com/hindsight-dev/hindsight/ingest"
)

// decoders maps a workload's name to the decoder of its own op values
// (ingest.ValueDecoder): the values ingest does not decode itself, such as
// the abort workload's poll maps. A workload without one has none here.
var decoders = map[string]ingest.ValueDecoder{}

// registerDecoder installs d as the value decoder of the workload named
// name; a workload registers it beside its entry (register).
func registerDecoder(name string, d ingest.ValueDecoder) { decoders[name] = d }

// Decoder returns w's value decoder, if it has one.
func (w *Workload) Decoder() (ingest.ValueDecoder, bool) {
	d, ok := decoders[w.Name]
	return d, ok
}

// Decoders returns the value decoders of every workload that has one, in
// the registry's order: what package check installs when it reads a
// history (ingest.Options.Decoders), before the workload is known. Ingest
// offers each value it does not decode itself to them in this order (see
// package ingest, "Workload values"); the records they write
// (model.ExtRec) name their decoder, so detection can tell whose they are
// (model.History.ExtOwnerOf with the workload's name). Nil when no
// workload has one.
func Decoders() []ingest.ValueDecoder {
	var ds []ingest.ValueDecoder
	for _, w := range registry {
		if d, ok := decoders[w.Name]; ok {
			ds = append(ds, d)
		}
	}
	return ds
}
