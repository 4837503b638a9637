package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/samples"
)

// chromiumPath is Debian's chromium, installed by scripts/install-chromium.sh.
const chromiumPath = "/usr/bin/chromium"

// needBrowser skips the test when chromium or ECharts is missing, except in
// CI (CI set), where a missing prerequisite fails it.
func needBrowser(t *testing.T) {
	t.Helper()
	miss := func(msg string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set, so this fails instead of skipping)", msg)
		}
		t.Skip(msg)
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		miss(chromiumPath + " not found: run scripts/install-chromium.sh")
	}
	if err := AssetsAvailable(); err != nil {
		miss(err.Error())
	}
}

// artifactDir is where screenshots go: $HINDSIGHT_ARTIFACTS, or
// hindsight-artifacts in the temporary directory.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HINDSIGHT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "hindsight-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser starts one headless chromium for a test, with a fresh profile
// and everything that could reach the network in the background turned
// off.
func browser(t *testing.T) context.Context {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	return ctx
}

// pageEvents collects what a page did that a report must never do.
type pageEvents struct {
	mu       sync.Mutex
	requests []string
	errors   []string
	warnings []string
	dialogs  []string
}

func (pe *pageEvents) listen(ev any) {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		pe.requests = append(pe.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
		}
		msg := fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(parts, " "))
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			pe.errors = append(pe.errors, msg)
		} else if ev.Type == runtime.ConsoleAPICalledTypeWarning {
			pe.warnings = append(pe.warnings, msg)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		pe.errors = append(pe.errors, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			pe.errors = append(pe.errors, fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		} else if ev.Entry.Level == log.EntryLevelWarning {
			pe.warnings = append(pe.warnings, "log: "+ev.Entry.Text)
		}
	case *page.EventJavascriptDialogOpening:
		pe.dialogs = append(pe.dialogs, fmt.Sprintf("%s: %q", ev.Type, ev.Message))
	}
}

// chartState is what the page says about one chart container.
type chartState struct {
	ID       string `json:"id"`
	Instance bool   `json:"instance"`
	Series   int    `json:"series"`
	Canvas   bool   `json:"canvas"`
}

const chartsJS = `Array.from(document.querySelectorAll('.chart')).map(function (el) {
  var c = echarts.getInstanceByDom(el), o = c && c.getOption();
  return {id: el.id, instance: !!c, series: o && o.series ? o.series.length : 0, canvas: !!el.querySelector('canvas')};
})`

// synthetic names the big generated history of bench_test.go in the
// browser test's cases.
const synthetic = "synthetic:100000"

// writeReport checks a history and writes its report into dir.
func writeReport(t *testing.T, dir, name, path string, wwDeps bool) string {
	t.Helper()
	var (
		res *analysis.Result
		h   *model.History
	)
	if path == synthetic {
		h = synthHistory(100_000, 6, 12)
		var err error
		if res, err = check.History(h, checkOpts(wwDeps)); err != nil {
			t.Fatal(err)
		}
	} else {
		res, h = mustCheck(t, path, checkOpts(wwDeps))
	}
	out := filepath.Join(dir, name+".html")
	if err := WriteHTMLFile(out, BuildView(res, h, ViewOptions{})); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBrowser opens reports in headless chromium from file:// URLs and
// checks what a person would see: the verdict, that every chart drew, that
// the page logged no error, made no request and opened no dialog, and that
// a history full of HTML and JavaScript stays text. It saves a full-page
// screenshot of each report and logs where.
func TestBrowser(t *testing.T) {
	needBrowser(t)
	ctx := browser(t)
	dir := t.TempDir()
	shots := artifactDir(t)
	demo := samples.QueueName
	cases := []struct {
		name, path string
		wwDeps     bool
		verdict    string
		hostile    bool
	}{
		{"demo", demo, false, "INVALID", false},
		{"hostile", "testdata/hostile-invalid.edn", false, "INVALID", true},
		{"g1c-cycle", fixtures + "/g1c-wr-cycle-invalid.edn", false, "INVALID", false},
		{"realtime-lag-reassign", fixtures + "/realtime-lag-reassign-invalid.edn", false, "INVALID", false},
		{"g0-ww-deps", fixtures + "/g0-allowed-write-cycle-unseen-invalid.edn", true, "INVALID", false},
		{"valid", fixtures + "/unseen-drains-to-zero-valid.edn", false, "VALID", false},
		{"unknown", fixtures + "/empty-no-send-or-poll-unknown.edn", false, "UNKNOWN", false},
		{"large-downsampled", synthetic, false, "INVALID", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeReport(t, dir, tc.name, tc.path, tc.wwDeps)
			fileURL := (&url.URL{Scheme: "file", Path: file}).String()
			var pe pageEvents
			tab, cancel := chromedp.NewContext(ctx, chromedp.WithListener(pe.listen))
			defer cancel()
			tctx, cancelT := context.WithTimeout(tab, 60*time.Second)
			defer cancelT()
			if err := chromedp.Do(tab); err != nil { // open the tab
				t.Fatal(err)
			}
			if err := chromedp.Do(tctx, chromedp.Navigate(fileURL)); err != nil {
				t.Fatalf("opening %s: %v", fileURL, err)
			}
			// charts draw in animation frames: wait until every container has a canvas
			if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`Array.from(document.querySelectorAll('.chart')).every(function (el) { return !!el.querySelector('canvas'); })`,
				chromedp.WithPollingTimeout(20*time.Second))); err != nil {
				t.Errorf("charts did not all draw: %v", err)
			}
			verdict, err := chromedp.Run(tctx, chromedp.Text(chromedp.ID("verdict")))
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(verdict) != tc.verdict {
				t.Errorf("verdict shows %q, want %q", verdict, tc.verdict)
			}
			states, err := chromedp.Run(tctx, chromedp.Evaluate[[]chartState](chartsJS))
			if err != nil {
				t.Fatal(err)
			}
			if len(states) < 4 {
				t.Errorf("%d charts on the page, want at least 4 (timeline, unseen, two lag charts)", len(states))
			}
			for _, s := range states {
				if !s.Instance || s.Series == 0 || !s.Canvas {
					t.Errorf("chart %s did not draw: %+v", s.ID, s)
				}
			}
			if tc.hostile {
				checkHostile(t, tctx)
			}
			png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(shots, "report-"+tc.name+".png")
			if err := os.WriteFile(shot, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", shot)

			pe.mu.Lock()
			defer pe.mu.Unlock()
			if !slices.Contains(pe.requests, fileURL) {
				t.Errorf("the network listener did not see the page itself load (saw %q)", pe.requests)
			}
			for _, u := range pe.requests {
				if u != fileURL {
					t.Errorf("the page requested %s; a report must load nothing", u)
				}
			}
			for _, e := range pe.errors {
				t.Errorf("page error: %s", e)
			}
			for _, w := range pe.warnings {
				t.Logf("page warning: %s", w)
			}
			for _, d := range pe.dialogs {
				t.Errorf("a dialog opened (history text ran as script): %s", d)
			}
		})
	}
}

// hostileStrings are texts of testdata/hostile-invalid.edn that must show
// on the page as they are.
var hostileStrings = []string{
	`<script>alert(1)</script>`,
	`</script><script>alert(2)</script>`,
	`<img src=x onerror=alert(1)>`,
	`\"quoted\" 'single' & <b>bold</b>`,   // a value, shown as EDN
	`"quoted" javascript:alert(5) ошибка`, // an error, shown raw
	`javascript:alert(1)`,
	`ключ 🔑`,
	`значение 🔑`,
	`<svg onload=alert(4)>`,
	`<script>alert('err')</script>`,
}

// checkHostile checks that the hostile history's strings are text: no
// element was made from them, they read as written, and tooltips showing
// them build no markup either.
func checkHostile(t *testing.T, ctx context.Context) {
	t.Helper()
	type domState struct {
		Imgs, Svgs, Bolds, Scripts, Iframes int
		Text, Title                         string
	}
	st, err := chromedp.Run(ctx, chromedp.Evaluate[domState](`({
		imgs: document.querySelectorAll('img').length,
		svgs: document.querySelectorAll('svg').length,
		bolds: document.querySelectorAll('b').length,
		scripts: document.querySelectorAll('script').length,
		iframes: document.querySelectorAll('iframe, object, embed').length,
		text: document.body.innerText,
		title: document.title,
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if st.Imgs+st.Svgs+st.Bolds+st.Iframes != 0 {
		t.Errorf("elements made from history text: %d img, %d svg, %d b, %d iframe/object/embed", st.Imgs, st.Svgs, st.Bolds, st.Iframes)
	}
	if st.Scripts != 3 {
		t.Errorf("%d script elements, want 3 (data, ECharts, page script)", st.Scripts)
	}
	for _, s := range hostileStrings {
		if !strings.Contains(st.Text, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
	if !strings.Contains(st.Title, "hostile-invalid.edn") {
		t.Errorf("title %q", st.Title)
	}
	// Tooltips: show the tip of a timeline point whose value has markup, and
	// of a cycle node, and check they are text.
	for _, probe := range []struct{ chart, find, want string }{
		{"chart-timeline", `function (d) { return Array.isArray(d) && String(d[4]).indexOf('<') >= 0; }`, "<"},
		{"", `function (d) { return d && Array.isArray(d.tip) && d.tip.join(' ').indexOf('значение') >= 0; }`, "значение 🔑"},
	} {
		js := fmt.Sprintf(`(function () {
			var els = %q ? [document.getElementById(%q)] : Array.from(document.querySelectorAll('.chart.cycle'));
			var find = %s;
			for (var e = 0; e < els.length; e++) {
				var c = echarts.getInstanceByDom(els[e]), o = c.getOption();
				for (var si = 0; si < o.series.length; si++) {
					var data = o.series[si].data || [];
					for (var di = 0; di < data.length; di++) {
						if (find(data[di])) {
							c.dispatchAction({type: 'showTip', seriesIndex: si, dataIndex: di});
							return els[e].id;
						}
					}
				}
			}
			return '';
		})()`, probe.chart, probe.chart, probe.find)
		id, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil || id == "" {
			t.Errorf("no point to probe the tooltip with (%q): %v", probe.want, err)
			continue
		}
		tip, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(`(function () {
			var t = document.getElementById(%q).querySelector('.hs-tip'); return t ? t.textContent : '';
		})()`, id), chromedp.WithPollingTimeout(5*time.Second)))
		if err != nil {
			t.Errorf("tooltip of %s did not show: %v", id, err)
			continue
		}
		if !strings.Contains(tip, probe.want) {
			t.Errorf("tooltip of %s reads %q, want it to contain %q", id, tip, probe.want)
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('img, svg, b').length`))
		if err != nil || n != 0 {
			t.Errorf("after the tooltip of %s: %d elements made from history text (%v)", id, n, err)
		}
	}
}
