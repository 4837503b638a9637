package phase

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestParse(t *testing.T) {
	for v, want := range map[string]config{
		"":          {},
		"time":      {on: true},
		"1":         {on: true},
		"heap":      {on: true, heap: true},
		"heap@read": {on: true, heap: true, profile: "read"},
	} {
		if got := parse(v); got != want {
			t.Errorf("parse(%q) = %+v, want %+v", v, got, want)
		}
	}
}

// TestMark checks the lines Mark prints, off, on and with the heap, and
// the heap profile it writes at the phase named.
func TestMark(t *testing.T) {
	defer func(c config) { cfg, out = c, os.Stderr }(cfg)
	var buf bytes.Buffer
	out = &buf
	cfg = config{}
	Mark("off")
	if buf.Len() != 0 {
		t.Fatalf("off, Mark printed %q", buf.String())
	}
	cfg = parse("time")
	Mark("read")
	timed := regexp.MustCompile(`^phase read +at +[0-9.]+ ms  wall \+ *[0-9.]+ ms  cpu \+ *[0-9.]+ ms\n$`)
	if !timed.Match(buf.Bytes()) {
		t.Fatalf("time: got %q", buf.String())
	}
	t.Setenv("TMPDIR", t.TempDir())
	buf.Reset()
	cfg = parse("heap@graph")
	Mark("index")
	Mark("graph")
	lines := regexp.MustCompile(`(?m)^phase (\w+) .* live heap +[0-9.]+ MB(  profile (.*))?$`).FindAllStringSubmatch(buf.String(), -1)
	if len(lines) != 2 || lines[0][1] != "index" || lines[0][3] != "" || lines[1][1] != "graph" {
		t.Fatalf("heap@graph: got %q", buf.String())
	}
	if want := filepath.Join(os.TempDir(), "hindsight-graph.heap"); lines[1][3] != want {
		t.Fatalf("profile written to %q, want %q", lines[1][3], want)
	}
	if fi, err := os.Stat(lines[1][3]); err != nil || fi.Size() == 0 {
		t.Fatalf("profile: %v", err)
	}
}
