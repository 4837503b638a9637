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
		"rss":       {on: true, rss: true},
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
	Note("off")
	if buf.Len() != 0 {
		t.Fatalf("off, Note printed %q", buf.String())
	}
	cfg = parse("time")
	Note("huge pages: on")
	if buf.String() != "note: huge pages: on\n" {
		t.Fatalf("Note: got %q", buf.String())
	}
	buf.Reset()
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

// TestMarkRSS checks the rss line: both figures from a status file, in
// MiB, and what it says when the file is missing or lacks them.
func TestMarkRSS(t *testing.T) {
	defer func(c config, p string) { cfg, out, procStatus = c, os.Stderr, p }(cfg, procStatus)
	var buf bytes.Buffer
	out = &buf
	cfg = parse("rss")
	dir := t.TempDir()
	status := filepath.Join(dir, "status")
	if err := os.WriteFile(status, []byte("Name:\thindsight\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	procStatus = status
	Mark("read")
	if want := regexp.MustCompile(`^phase read +at .* ms  rss +100\.0 MiB  peak +200\.0 MiB\n$`); !want.Match(buf.Bytes()) {
		t.Fatalf("rss: got %q", buf.String())
	}
	for name, file := range map[string]string{"missing": filepath.Join(dir, "none"), "empty": status + "2"} {
		buf.Reset()
		_ = os.WriteFile(status+"2", nil, 0o644)
		procStatus = file
		Mark(name)
		want := map[string]string{"missing": `rss unknown \(.*\)`, "empty": `rss +\? MiB  peak +\? MiB`}[name]
		if !regexp.MustCompile(want + `\n$`).Match(buf.Bytes()) {
			t.Fatalf("%s status file: got %q", name, buf.String())
		}
	}
}
