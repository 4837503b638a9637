package scan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

func TestIsHistoryName(t *testing.T) {
	cases := []struct {
		name string
		want bool
	}{
		{"history.edn", true}, {"history.edn.gz", true}, {"history.edn.zst", true},
		{"run.json", true}, {"run.jsonl", true}, {"run.jsonl.zst", true}, {"run.json.gz", true},
		{"results.edn", false}, {"results.edn.gz", false}, {"test.edn", false},
		{"a.expect.json", false}, {"a.expected.json", false}, {"a.expected.json.gz", false},
		{".hidden.edn", false}, {".edn", false}, {"history.txt", false}, {"history.edn.bz2", false},
		{"edn", false}, {"jepsen.log", false}, {"history.gz", false},
	}
	for _, c := range cases {
		if got := IsHistoryName(c.name); got != c.want {
			t.Errorf("IsHistoryName(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestDiscover(t *testing.T) {
	root, want := buildArchive(t)
	got := Discover([]string{root})
	var names []string
	for _, in := range got {
		r := rel(t, root, in.Path)
		names = append(names, r)
		c, ok := want[r]
		switch {
		case !ok:
			t.Errorf("unexpected input %s (err %v)", r, in.Err)
		case (in.Err != nil) != (c.verdict == VerdictError && c.errHas != "mismatched bracket" && c.errHas != "garbled.edn.gz" && c.errHas != "binary.edn:1:1"):
			t.Errorf("%s: Err = %v; the walk should flag only what cannot be opened", r, in.Err)
		case in.Err == nil && in.Size <= 0 && r != "loose/empty.edn":
			t.Errorf("%s: size %d", r, in.Size)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("inputs not sorted: %v", names)
	}
	for r := range want {
		if !slices.Contains(names, r) {
			t.Errorf("missing input %s", r)
		}
	}
}

func TestDiscoverArguments(t *testing.T) {
	root, _ := buildArchive(t)
	odd := filepath.Join(t.TempDir(), "history.txt")
	testpack.WriteFile(t, odd, readTestdata(t, "two-keys-all-read-valid.edn"))
	missing := filepath.Join(root, "does-not-exist")
	a := filepath.Join(root, "loose", "a.edn")
	got := Discover([]string{a, filepath.Join(root, "loose"), odd, missing, root + "/loose/../loose"})
	var plain []string
	var failed []string
	for _, in := range got {
		if in.Err != nil {
			failed = append(failed, in.Path)
		} else {
			plain = append(plain, in.Path)
		}
	}
	// a.edn is named twice (and linked once) but reported once, under
	// the path given first; an explicit file is an input whatever its name.
	if n := strings.Count(strings.Join(plain, "\n"), "a.edn"); n != 1 {
		t.Errorf("a.edn reported %d times: %v", n, plain)
	}
	if !slices.Contains(plain, odd) {
		t.Errorf("explicit file %s not an input: %v", odd, plain)
	}
	if !slices.Contains(failed, missing) {
		t.Errorf("missing argument %s not reported: %v", missing, failed)
	}
}

func TestDiscoverSymlinkLoopOnly(t *testing.T) {
	dir := t.TempDir()
	// a -> b -> a, and a self loop: nothing to find, and the walk ends.
	testpack.Symlink(t, filepath.Join(dir, "b"), filepath.Join(dir, "a"))
	testpack.Symlink(t, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	testpack.Symlink(t, ".", filepath.Join(dir, "d", "self"))
	testpack.Symlink(t, "..", filepath.Join(dir, "d", "up"))
	if got := Discover([]string{dir}); len(got) != 0 {
		t.Errorf("Discover = %v, want nothing", got)
	}
}

func TestDiscoverRealPathPreferred(t *testing.T) {
	dir := t.TempDir()
	// "a-link" sorts before "z-real": the history is still reported under
	// its real path.
	testpack.WriteFile(t, filepath.Join(dir, "z-real", "history.edn"), readTestdata(t, "two-keys-all-read-valid.edn"))
	testpack.Symlink(t, "z-real", filepath.Join(dir, "a-link"))
	got := Discover([]string{dir})
	if len(got) != 1 || got[0].Path != filepath.Join(dir, "z-real", "history.edn") {
		t.Errorf("Discover = %+v, want only z-real/history.edn", got)
	}
}
