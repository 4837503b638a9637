// Package testhist reads histories for tests, parsed and paired, failing
// the test on any error: the first steps of most tests of the analyses.
package testhist

import (
	"io"
	"testing"

	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
)

// File reads and pairs the history at path.
func File(t testing.TB, path string) (*model.History, model.Pairing) {
	t.Helper()
	h, err := ingest.ReadFile(path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return pair(t, h)
}

// Read reads and pairs the history in r, named name in errors.
func Read(t testing.TB, r io.Reader, name string) (*model.History, model.Pairing) {
	t.Helper()
	h, err := ingest.Read(r, name, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return pair(t, h)
}

func pair(t testing.TB, h *model.History) (*model.History, model.Pairing) {
	t.Helper()
	p, err := model.Pair(h)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}
