package report

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/internal/version"
	"github.com/hindsight-dev/hindsight/workload"
)

// writePage renders the report of a history to a string.
func writePage(t *testing.T, path string) string {
	t.Helper()
	_, page := viewAndPage(t, path)
	return page
}

// viewAndPage checks a history once and returns its view and the page
// rendered from that view.
func viewAndPage(t *testing.T, path string) (*View, string) {
	t.Helper()
	if err := AssetsAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	res, h := mustCheck(t, path, checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	var buf bytes.Buffer
	if err := WriteHTML(&buf, v); err != nil {
		t.Fatal(err)
	}
	return v, buf.String()
}

// TestPageSelfContained: a few anchored patterns on the page itself; the
// browser test checks what a person sees.
func TestPageSelfContained(t *testing.T) {
	page := writePage(t, "testdata/hostile-invalid.edn")
	// nothing is loaded: no src or href to anywhere, a policy forbidding it
	if m := regexp.MustCompile(`(?i)<[a-z]+[^>]*\s(src|href|srcset|action|data)\s*=\s*["']?[a-z]+:`).FindString(page); m != "" {
		t.Errorf("the page refers to a resource: %s", m)
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-`) {
		t.Error("no Content-Security-Policy with script hashes")
	}
	if strings.Contains(page, "@font-face") || strings.Contains(page, "@import") {
		t.Error("the style loads fonts or sheets")
	}
	// exactly our three script elements, and no element made from history
	// text (ECharts itself has "<img" in a string: leave it out)
	echarts, err := fs.ReadFile(assetFS, EChartsAsset)
	if err != nil {
		t.Fatal(err)
	}
	ours := strings.Replace(page, string(echarts), "", 1)
	if len(ours) == len(page) {
		t.Fatal("ECharts is not in the page verbatim")
	}
	for tag, want := range map[string]int{"<script": 3, "</script": 3, "<img": 0, "<svg": 0, "<b>": 0, "<iframe": 0} {
		if n := strings.Count(strings.ToLower(ours), tag); n != want {
			t.Errorf("%d %q in the page, want %d", n, tag, want)
		}
	}
	for _, s := range []string{`&lt;script&gt;alert(1)&lt;/script&gt;`, `&lt;img src=x onerror=alert(1)&gt;`, `ключ 🔑`} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks the escaped text %q", s)
		}
	}
	if !strings.Contains(page, `<span class="verdict" id="verdict">INVALID</span>`) {
		t.Error("no verdict")
	}
	if !regexp.MustCompile(`<a href="#anomaly-lost-write">lost-write</a>`).MatchString(page) {
		t.Error("the type table does not link to its section")
	}
}

func TestWriteHTMLFile(t *testing.T) {
	if err := AssetsAvailable(); err != nil {
		t.Skip(err)
	}
	res, h := mustCheck(t, fixtures+"/g1c-wr-cycle-invalid.edn", checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLFile(out, v); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil || st.Mode().Perm() != 0o644 || st.Size() < 1e6 {
		t.Errorf("report file: %v, %v", st, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := WriteHTMLFile(filepath.Join(dir, "no", "such", "dir", "r.html"), v); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// TestNoAssets: a build without ECharts says what to run, and writes
// nothing.
func TestNoAssets(t *testing.T) {
	saved := assetFS
	t.Cleanup(func() { assetFS = saved })
	assetFS = fstest.MapFS{"assets/README.md": {Data: []byte("x")}}
	res, h := mustCheck(t, fixtures+"/g1c-wr-cycle-invalid.edn", checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	if err := AssetsAvailable(); !errors.Is(err, ErrNoAssets) || !strings.Contains(err.Error(), "scripts/assets.sh") {
		t.Errorf("AssetsAvailable = %v", err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, v); !errors.Is(err, ErrNoAssets) || buf.Len() != 0 {
		t.Errorf("WriteHTML = %v, %d bytes", err, buf.Len())
	}
	dir := t.TempDir()
	if err := WriteHTMLFile(filepath.Join(dir, "r.html"), v); !errors.Is(err, ErrNoAssets) {
		t.Errorf("WriteHTMLFile = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

// TestTxnPageSelfContained: the page of the hostile list-append history
// loads nothing, runs only its own scripts, shows history text escaped,
// and has the transactional parts instead of the queue's.
func TestTxnPageSelfContained(t *testing.T) {
	page := writePage(t, txnFixtures+"/hostile-list-append-invalid.edn")
	if m := regexp.MustCompile(`(?i)<[a-z]+[^>]*\s(src|href|srcset|action|data)\s*=\s*["']?[a-z]+:`).FindString(page); m != "" {
		t.Errorf("the page refers to a resource: %s", m)
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-`) {
		t.Error("no Content-Security-Policy with script hashes")
	}
	echarts, err := fs.ReadFile(assetFS, EChartsAsset)
	if err != nil {
		t.Fatal(err)
	}
	ours := strings.Replace(page, string(echarts), "", 1)
	for tag, want := range map[string]int{"<script": 3, "</script": 3, "<img": 0, "<svg": 0, "<b>": 0, "<iframe": 0} {
		if n := strings.Count(strings.ToLower(ours), tag); n != want {
			t.Errorf("%d %q in the page, want %d", n, tag, want)
		}
	}
	for _, s := range []string{
		`&lt;script&gt;alert(1)&lt;/script&gt;`, `&lt;img src=x onerror=alert(1)&gt;`, `ключ 🔑`,
		`<span class="mop">[:append &#34;javascript:alert(1)&#34; &#34;\&#34;quoted\&#34; &#39;single&#39; &amp; &lt;b&gt;bold&lt;/b&gt;&#34;]</span>`,
		`<td class="elem diff">&#34;&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;&#34;</td>`,
		`<span class="model not">read-committed</span>`,
		`<div class="chart tall" id="chart-txn-timeline" data-kind="txn-timeline"></div>`,
		`<article class="instance" id="anomaly-G1c-1">`,
		`<button type="button" class="show-txns" data-target="anomaly-G1c-1">show on timeline</button>`,
		`<option value="2">G1c #1 (5 transactions)</option>`,
		`<span class="badge proof proof-assumes">assumes a contested order</span>`,
		`<p class="proof-note">not proven: assumes the order of`,
		`<li class="contested">op 1 &lt; op 3, because`,
		`<span class="count">1 instance, 0 of 1 proven</span>`,
		`<a href="#txn-timeline">transaction timeline</a>`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	for _, s := range []string{`id="chart-timeline"`, `id="unseen"`, `id="lag"`, `<a href="#timeline">`} {
		if strings.Contains(page, s) {
			t.Errorf("a list-append page has the queue's %q", s)
		}
	}
	// the data: history strings only as JSON escapes in the data element
	data := page[strings.Index(page, `<script type="application/json" id="hindsight-data">`):]
	data = data[:strings.Index(data, "</script>")]
	if strings.ContainsAny(strings.TrimPrefix(data, `<script type="application/json" id="hindsight-data">`), "<>") {
		t.Error("the data element holds a raw < or >")
	}
	if !strings.Contains(data, `\u003cscript\u003ealert(1)\u003c/script\u003e`) {
		t.Error("the data element lacks the escaped <script> key")
	}
}

// TestPageNamesItsBuild: the page says which hindsight build (and which
// ECharts) wrote it, for a page attached to a ticket months later.
func TestPageNamesItsBuild(t *testing.T) {
	page := writePage(t, "testdata/hostile-invalid.edn")
	want := "Written by " + html.EscapeString(version.Current().String()) + "; ECharts " + EChartsVersion() + " from "
	if !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
}

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
	if err := docMarkdown().Convert([]byte(strings.Join(lines, "\n")), &buf); err != nil {
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

// TestAbortPollsLink: the abort page links its polls section when it has
// charts of polls, and has neither the link nor the section when the
// history has no poll of a topic to draw.
func TestAbortPollsLink(t *testing.T) {
	const link = `<a href="#polls">`
	v, page := viewAndPage(t, testpaths.Testdata("abort", "abort-other-invalid.edn"))
	if len(v.Parts.Nav) != 1 || !strings.Contains(page, link) || !strings.Contains(page, `id="polls"`) {
		t.Errorf("a page with polls: links %+v; link to #polls %v, section %v", v.Parts.Nav,
			strings.Contains(page, link), strings.Contains(page, `id="polls"`))
	}
	path := filepath.Join(t.TempDir(), "no-polls.edn")
	noPolls := `{:index 0 :time 0 :type :invoke :process 0 :f :create :value {:topic "t1" :count 64}}
{:index 1 :time 1000000 :type :ok :process 0 :f :create :value {:topic "t1" :count 64}}
`
	if err := os.WriteFile(path, []byte(noPolls), 0o644); err != nil {
		t.Fatal(err)
	}
	v, page = viewAndPage(t, path)
	if v.Workload != "abort" {
		t.Fatalf("the history without polls is checked as %s, not abort", v.Workload)
	}
	if len(v.Parts.Nav) != 0 || strings.Contains(page, link) || strings.Contains(page, `id="polls"`) {
		t.Errorf("a page without polls: links %+v; link to #polls %v, section %v", v.Parts.Nav,
			strings.Contains(page, link), strings.Contains(page, `id="polls"`))
	}
}

// TestNavLinksLand: on the page of each registered workload, every link
// its layout adds to the navigation bar (page.Parts.Nav) leads to an
// element of the page.
func TestNavLinksLand(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range []string{"testdata/hostile-invalid.edn", txnFixtures + "/dirty-update-direct-invalid.edn",
		testpaths.Testdata("rw-register", "cyclic-versions-bug-regression-valid.edn"), testpaths.Testdata("abort", "abort-other-invalid.edn")} {
		v, page := viewAndPage(t, path)
		seen[v.Workload] = true
		if len(v.Parts.Nav) == 0 || len(v.Parts.Body) == 0 {
			t.Errorf("%s: the %s layout adds %d links and %d parts to the page", path, v.Workload, len(v.Parts.Nav), len(v.Parts.Body))
		}
		for _, l := range v.Parts.Nav {
			if !strings.Contains(page, `id="`+l.Anchor+`"`) {
				t.Errorf("%s: the link to #%s leads nowhere on the page", path, l.Anchor)
			}
		}
	}
	for _, w := range workload.All() {
		if !seen[w.Name] {
			t.Errorf("no page of the %s workload checked here: add one of its fixtures", w.Name)
		}
	}
}
