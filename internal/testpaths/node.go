package testpaths

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NodeScript runs `node scripts/NAME ARGS...` (a script of the repository,
// which reads Parquet back with DuckDB's npm package) in dir and returns
// its standard output. It skips the test when node or
// node_modules/@duckdb/node-api is missing, and fails it instead when the
// environment variable CI is set (CI installs both); it fails the test when
// the script fails.
func NodeScript(t testing.TB, dir, name string, args ...string) []byte {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing; CI must have it (npm ci at the repository root)", what)
		}
		t.Skipf("%s is missing: run npm ci at the repository root to read the tables back with DuckDB", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node")
	}
	if _, err := os.Stat(filepath.Join(Root(), "node_modules", "@duckdb", "node-api")); err != nil {
		missing("node_modules/@duckdb/node-api")
	}
	script, err := filepath.Abs(filepath.Join(Root(), "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Dir = dir
	out, err := Output(cmd)
	if err != nil {
		t.Fatalf("node scripts/%s: %v", name, err)
	}
	return out
}

// Output runs cmd and returns its standard output; when it fails, the
// error is followed, on the next line, by what it wrote to standard error.
// It calls no testing.T method, so a test's goroutines may use it.
func Output(cmd *exec.Cmd) ([]byte, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	return out, nil
}
