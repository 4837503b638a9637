package scan

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/report"
)

func TestReportName(t *testing.T) {
	a := reportName("store/queue/20240101T000000.000Z/history.edn")
	b := reportName("store/queue/20240102T000000.000Z/history.edn")
	if a == b {
		t.Errorf("two histories share the report name %s", a)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9._-]+\.html$`).MatchString(a) || !strings.Contains(a, "20240101T000000.000Z_history.edn") {
		t.Errorf("report name %q", a)
	}
	if n := reportName("../<script>alert(1)</script>/x y.edn"); strings.ContainsAny(n, "<>/ ") {
		t.Errorf("unsafe report name %q", n)
	}
}

// TestHTMLReports scans the archive with --html-dir: every invalid and
// unknown history gets a report, index.html links each with a relative
// link, lists the unreadable ones, escapes paths, and fetches nothing.
func TestHTMLReports(t *testing.T) {
	if err := report.AssetsAvailable(); err != nil {
		t.Skipf("HTML reports unavailable in this build: %v", err)
	}
	root, want := buildArchive(t)
	evil := filepath.Join(root, "loose", "<b>evil</b>.edn")
	testpack.WriteFile(t, evil, readTestdata(t, "lost-write-invalid.edn"))
	want["loose/<b>evil</b>.edn"] = archiveCase{verdict: VerdictInvalid}
	opts := testOptions(t)
	opts.HTMLDir = filepath.Join(t.TempDir(), "html")
	sum := mustRun(t, []string{root}, opts)
	idx, err := os.ReadFile(filepath.Join(opts.HTMLDir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(idx)
	links := regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1)
	reports := 0
	for r, c := range want {
		path := filepath.Join(root, filepath.FromSlash(r))
		switch c.verdict {
		case VerdictInvalid, VerdictUnknown:
			reports++
			name := reportName(path)
			if _, err := os.Stat(filepath.Join(opts.HTMLDir, name)); err != nil {
				t.Errorf("%s: no report: %v", r, err)
			}
			if !strings.Contains(page, `href="`+name+`"`) {
				t.Errorf("%s: index does not link %s", r, name)
			}
		case VerdictError:
			if !strings.Contains(page, filepath.Base(path)) {
				t.Errorf("%s: unreadable history not listed", r)
			}
		}
	}
	if len(links) != reports || sum.Reports != reports {
		t.Errorf("%d links, %d reports counted, want %d", len(links), sum.Reports, reports)
	}
	for _, l := range links {
		if strings.Contains(l[1], "/") || strings.Contains(l[1], ":") {
			t.Errorf("link %q is not a relative link to a sibling file", l[1])
		}
	}
	if strings.Contains(page, "<b>evil") || !strings.Contains(page, "&lt;b&gt;evil&lt;/b&gt;") {
		t.Errorf("the path with markup is not escaped in the index")
	}
	for _, bad := range []string{"http://", "https://", "<script", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("index.html contains %q: it must be self-contained", bad)
		}
	}
	noTemps(t, opts.HTMLDir)
	// a report's header names the check --html command that makes it
	rep, err := os.ReadFile(filepath.Join(opts.HTMLDir, reportName(evil)))
	if err != nil {
		t.Fatal(err)
	}
	cmd := report.ShellJoin([]string{"hindsight", "check", "--html", reportName(evil), "--workload", "queue", evil})
	if !strings.Contains(html.UnescapeString(string(rep)), cmd) {
		t.Errorf("the report of %s does not name the command %s", evil, cmd)
	}

	// A rerun takes everything from the cache and keeps the reports; a
	// deleted report is written again.
	name := reportName(filepath.Join(root, "loose", "a.edn"))
	if err := os.Remove(filepath.Join(opts.HTMLDir, name)); err != nil {
		t.Fatal(err)
	}
	sum2 := mustRun(t, []string{root}, opts)
	// Not cached: the history whose report was deleted, and the two
	// that could not be opened (a directory, a dangling symlink).
	if sum2.Cached != sum2.Done-3 || sum2.Reports != reports {
		t.Errorf("rerun: %d of %d cached, %d reports; want all but 3 cached and %d reports", sum2.Cached, sum2.Done, sum2.Reports, reports)
	}
	if _, err := os.Stat(filepath.Join(opts.HTMLDir, name)); err != nil {
		t.Errorf("deleted report not written again: %v", err)
	}
}
