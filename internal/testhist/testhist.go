// Package testhist reads histories for tests, parsed and paired, failing
// the test on any error: the first steps of most tests of the analyses.
package testhist

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/atomicfile"
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
	return h, Pair(t, h)
}

// Pair pairs h, built in memory, failing the test when it does not pair.
func Pair(t testing.TB, h *model.History) model.Pairing {
	t.Helper()
	p, err := model.Pair(h)
	if err != nil {
		t.Fatalf("history does not pair: %v", err)
	}
	return p
}

// Fixtures runs fn, in a subtest named NAME, for every fixture NAME.edn in
// dir, with the history read and paired and NAME.expected.json decoded
// into e. It fails the test when dir holds no fixture.
func Fixtures[E any](t *testing.T, dir string, fn func(t *testing.T, name string, e *E, h *model.History, p model.Pairing)) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.edn"))
	if len(files) == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".edn")
		t.Run(name, func(t *testing.T) {
			var e E
			ReadJSON(t, strings.TrimSuffix(f, ".edn")+".expected.json", &e)
			h, p := File(t, f)
			fn(t, name, &e, h, p)
		})
	}
}

// Queue generates the queue history of cfg (package gen) and reads and
// pairs it.
func Queue(t testing.TB, cfg gen.Config) (*model.History, model.Pairing) {
	t.Helper()
	return generated(t, func(w io.Writer) error { _, err := gen.Write(w, cfg); return err })
}

// Txn generates the list-append or rw-register history of cfg (package
// gen) and reads and pairs it.
func Txn(t testing.TB, cfg gen.TxnConfig) (*model.History, model.Pairing) {
	t.Helper()
	return generated(t, func(w io.Writer) error { _, err := gen.WriteTxn(w, cfg); return err })
}

// generated reads and pairs the history that write writes.
func generated(t testing.TB, write func(io.Writer) error) (*model.History, model.Pairing) {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	return Read(t, &buf, "generated.edn")
}

// WriteFile writes the history that write writes to path, through a
// buffer, failing the test on any error: for tests that read a large
// generated history from a file, as the command does.
func WriteFile(t testing.TB, path string, write func(io.Writer) error) {
	t.Helper()
	if err := atomicfile.Write(path, atomicfile.Options{}, write); err != nil {
		t.Fatal(err)
	}
}
