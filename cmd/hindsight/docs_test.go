package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// docsCommand is the first line of an example output block in docs/: the
// command whose output the rest of the block shows.
var docsCommand = regexp.MustCompile("(?m)^```\\n\\$ (hindsight [^\\n]*)\\n((?s:.*?))^```$")

// TestDocsExamples runs the command of every example output block of the
// documentation (a fenced block whose first line is "$ hindsight ...",
// paths relative to the repository root) and checks that the block shows
// what the command prints today, so the docs cannot drift from the tool.
// go test ./cmd/hindsight -run TestDocsExamples -update rewrites the blocks.
func TestDocsExamples(t *testing.T) {
	root := testpaths.Root()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(files) == 0 {
		t.Fatal("no docs/*.md")
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	examples := 0
	for _, f := range files {
		name := filepath.Base(f)
		raw, err := os.ReadFile(filepath.Join("docs", name))
		if err != nil {
			t.Fatal(err)
		}
		doc := string(raw)
		updated := docsCommand.ReplaceAllStringFunc(doc, func(block string) string {
			m := docsCommand.FindStringSubmatch(block)
			examples++
			args := strings.Fields(m[1])[1:]
			_, out, stderr := runCLI(t, "", args...)
			got := docExample(out + stderr)
			if got != docExample(m[2]) && !*update {
				t.Errorf("docs/%s: `%s` prints\n%s\nbut the docs show\n%s", name, m[1], got, m[2])
			}
			return "```\n$ " + m[1] + "\n" + got + "```"
		})
		if *update && updated != doc {
			if err := os.WriteFile(filepath.Join("docs", name), []byte(updated), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if examples < 55 {
		t.Errorf("only %d example blocks found in docs/", examples)
	}
}

// docExample is command output as the docs show it: the run time masked.
func docExample(s string) string {
	s = stable(s)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
