package testpaths

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	r := Root()
	if r != filepath.Join("..", "..") {
		t.Errorf("root %q from internal/testpaths, want ../..", r)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Error(err)
	}
}

// TestTestdata checks that the three specification fixture sets are in the
// repository and not empty.
func TestTestdata(t *testing.T) {
	for _, w := range []string{"queue", "list-append", "rw-register"} {
		dir := Testdata(w)
		for _, pattern := range []string{"README.md", "*.edn", "*.expected.json"} {
			if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) == 0 {
				t.Errorf("%s: no %s", dir, pattern)
			}
		}
	}
}

// TestLook checks the lookup beside a root: found when the folder is there,
// not found when it is missing or a plain file.
func TestLook(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	for _, d := range []string{repo, filepath.Join(tmp, "shared", "corpus")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "shared", "reference"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir, ok := look(repo, "corpus"); !ok || dir != filepath.Join(tmp, "shared", "corpus") {
		t.Errorf("corpus: %q %v", dir, ok)
	}
	if _, ok := look(repo, "reference"); ok {
		t.Error("reference is a file, found as a folder")
	}
	if _, ok := look(repo, "nothing"); ok {
		t.Error("a missing folder was found")
	}
}

func TestSkipMessage(t *testing.T) {
	want := "../shared/corpus not found beside the repository: corpus tests skipped (see README)"
	if got := SkipMessage("corpus"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
