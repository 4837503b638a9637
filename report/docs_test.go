package report

import (
	"bytes"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// testMade and testCommand are the fixed time and command line of the
// pages these tests render.
var testMade = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const testCommand = "hindsight report 'a b.edn' -o -"

var tagRE = regexp.MustCompile(`<[^>]*>`)

// pageText is the text of a piece of the page, tags removed and entities
// decoded, spaces collapsed.
func pageText(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(s, " "))), " ")
}

// firstParagraph is the first paragraph of a section's Markdown body, as
// text: its lines up to the first blank one, markup left out.
func firstParagraph(body string) string {
	var lines []string
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" {
			if len(lines) > 0 {
				break
			}
			continue
		}
		lines = append(lines, line)
	}
	var buf bytes.Buffer
	if err := docMarkdown.Convert([]byte(strings.Join(lines, "\n")), &buf); err != nil {
		return ""
	}
	return pageText(buf.String())
}

// TestDocsSectionsInPage: for every fixture history (testdata/queue,
// list-append, rw-register, types), every anomaly type found gets its
// documentation section (heading and first paragraph) on the page, folded
// in a <details> under the type, with no link in it; and the header holds
// the build, file name, size, sha256, command and time.
func TestDocsSectionsInPage(t *testing.T) {
	if err := AssetsAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	seen := map[string]bool{}
	for _, dir := range []string{"queue", "list-append", "rw-register", "types"} {
		paths, err := filepath.Glob(filepath.Join(testpaths.Testdata(dir), "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			base := filepath.Base(path)
			if !strings.HasSuffix(base, ".edn") && !(strings.HasSuffix(base, ".json") && !strings.Contains(base, ".expect")) {
				continue
			}
			res, h, err := check.File(path, checkOpts(false))
			if err != nil {
				continue // a history the checker rejects has no page
			}
			v := BuildView(res, h, ViewOptions{Command: testCommand, Made: testMade})
			var buf bytes.Buffer
			if err := WriteHTML(&buf, v); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			name := dir + "/" + base
			header := page[strings.Index(page, `id="provenance"`):]
			header = pageText(header[:strings.Index(header, "</table>")])
			for _, want := range []string{v.Build, res.Source,
				thousands(res.Bytes) + " bytes", res.SHA256, testCommand, "2026-01-02T03:04:05Z"} {
				if res.SHA256 == "" || v.Build == "" || !strings.Contains(header, want) {
					t.Errorf("%s: the header %q lacks %q", name, header, want)
				}
			}
			for _, sec := range v.Sections {
				seen[sec.Type] = true
				if sec.Docs == nil {
					t.Errorf("%s: no documentation section for %s (%s)", name, sec.Type, sec.DocPath)
					continue
				}
				docPage, anchor, _ := strings.Cut(sec.DocPath, "#")
				src, err := fs.ReadFile(docFS, filepath.Base(docPage))
				if err != nil {
					t.Fatal(err)
				}
				heading, body, _ := findSection(string(src), anchor)
				part := sectionHTML(t, page, sec.Anchor)
				details := part[strings.Index(part, `<details class="docs">`)+1:]
				details = details[:strings.Index(details, "</details>")]
				text := pageText(details)
				if !strings.Contains(text, "What "+heading+" means") || !strings.Contains(text, firstParagraph(body)) {
					t.Errorf("%s: the folded docs of %s lack its heading or first paragraph:\n%s", name, sec.Type, text)
				}
				if strings.Contains(details, "<a ") || strings.Contains(details, "<img") {
					t.Errorf("%s: the docs of %s keep a link or image", name, sec.Type)
				}
			}
		}
	}
	if len(seen) < 20 {
		t.Errorf("only %d anomaly types seen in the fixtures", len(seen))
	}
}

// sectionHTML is the part of page that is the section of the anomaly type
// with this anchor, up to the next type's section; it fails the test when
// the page has no such section or it holds no folded docs.
func sectionHTML(t *testing.T, page, anchor string) string {
	t.Helper()
	start := strings.Index(page, fmt.Sprintf(`<section class="anomaly-type" id="%s">`, anchor))
	if start < 0 {
		t.Fatalf("no section %s", anchor)
	}
	part := page[start+1:]
	if end := strings.Index(part, `<section class="anomaly-type"`); end >= 0 {
		part = part[:end]
	}
	if !strings.Contains(part, `<details class="docs">`) {
		t.Fatalf("the section %s has no folded docs", anchor)
	}
	return part
}

func TestShellJoinAndCheckCommand(t *testing.T) {
	if got, want := ShellJoin([]string{"hindsight", "check", "a b.edn", "it's", ""}), `hindsight check 'a b.edn' 'it'\''s' ''`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
	res, _ := mustCheck(t, filepath.Join(fixtures, "duplicate-in-failed-poll-invalid.edn"), checkOpts(true))
	got := CheckCommand(res, "runs/1/history.edn", "r.html")
	if want := "hindsight check --html r.html --workload queue --ww-deps runs/1/history.edn"; got != want {
		t.Errorf("CheckCommand = %s, want %s", got, want)
	}
}
