package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestPlainSize(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "h.edn")
	os.WriteFile(plain, []byte("{:index 0}\n"), 0o644)
	gz := filepath.Join(dir, "h.edn.gz")
	f, _ := os.Create(gz)
	zw := gzip.NewWriter(f)
	zw.Write([]byte("{:index 0}\n"))
	zw.Close()
	f.Close()
	store := filepath.Join(dir, "store")
	os.Mkdir(store, 0o755)
	os.WriteFile(filepath.Join(store, "history.edn"), []byte("{:index 0}\n{:index 1}\n"), 0o644)
	cases := []struct {
		name string
		path string
		size int64
		ok   bool
	}{
		{"plain file - its size", plain, 11, true},
		{"gzip - unknown", gz, 0, false},
		{"store folder - its history.edn", store, 22, true},
		{"missing - unknown", filepath.Join(dir, "nope"), 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			size, ok := plainSize(tc.path)
			if size != tc.size || ok != tc.ok {
				t.Errorf("plainSize = %d, %v; want %d, %v", size, ok, tc.size, tc.ok)
			}
		})
	}
}

func TestMemoryBudgetLeavesSmallFilesAlone(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	restore, after := memoryBudget("../../testdata/incidents/timeout-retry-duplicate-invalid.edn")
	if after != nil || debug.SetMemoryLimit(-1) != before {
		t.Error("a small history changed the memory limit")
	}
	restore()
}
