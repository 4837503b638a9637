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

	"github.com/hindsight-dev/hindsight/internal/testpaths"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/model"
	reportpage "github.com/hindsight-dev/hindsight/report/page"
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
// browser test's cases, syntheticTxn the big list-append history of
// txn_helpers_test.go.
const (
	synthetic    = "synthetic:100000"
	syntheticTxn = "synthetic-list-append:100000"
)

// writeReport checks a history and writes its report into dir.
func writeReport(t *testing.T, dir, name, path string, wwDeps bool) string {
	t.Helper()
	var (
		res *analysis.Result
		h   *model.History
	)
	switch path {
	case synthetic:
		h = synthHistory(100_000, 6, 12)
		var err error
		if res, err = check.History(h, checkOpts(wwDeps)); err != nil {
			t.Fatal(err)
		}
	case syntheticTxn:
		res, h = checkText(t, syntheticTxn, synthListAppend(100_000, 10, 1))
	default:
		res, h = mustCheck(t, path, checkOpts(wwDeps))
	}
	out := filepath.Join(dir, name+".html")
	if err := WriteHTMLFile(out, BuildView(res, h, ViewOptions{Command: testCommand, Made: testMade})); err != nil {
		t.Fatal(err)
	}
	return out
}

// abortFixtures holds the abort workload's fixtures.
var abortFixtures = filepath.Join(testpaths.Root(), "testdata", "abort")

// checkPollCharts checks an abort page: one polls chart per topic and no
// other chart, and witness rows that show what a poll read.
func checkPollCharts(t *testing.T, ctx context.Context, states []chartState, topics int) {
	t.Helper()
	n := 0
	for _, s := range states {
		if strings.HasPrefix(s.ID, "chart-polls-") {
			n++
		} else {
			t.Errorf("chart %s on an abort page, which has polls charts only", s.ID)
		}
	}
	if n != topics {
		t.Errorf("%d polls charts, want %d (one per topic)", n, topics)
	}
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('table.witness td.value')).map(function (td) { return td.textContent; })`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cells, func(c string) bool { return strings.Contains(c, ":offsets [") }) {
		t.Errorf("no witness row shows a poll's offsets: %q", cells)
	}
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
	tidb := "" // a real TiDB run of the corpus, when it is beside the repository
	if corpus, ok := testpaths.FindCorpus(); ok {
		tidb = filepath.Join(corpus, "tipocket-tidb-list-append", "history.edn")
	}
	cases := []struct {
		name, path string
		wwDeps     bool
		verdict    string
		hostile    bool
		// txn: a list-append page, with a transaction timeline and this
		// many cycle drawings
		txn    bool
		cycles int
		// polls: an abort page, with this many topic charts
		polls int
	}{
		{"demo", demo, false, "INVALID", false, false, 0, 0},
		{"hostile", "testdata/hostile-invalid.edn", false, "INVALID", true, false, 0, 0},
		{"g1c-cycle", fixtures + "/g1c-wr-cycle-invalid.edn", false, "INVALID", false, false, 0, 0},
		{"realtime-lag-reassign", fixtures + "/realtime-lag-reassign-invalid.edn", false, "INVALID", false, false, 0, 0},
		{"g0-ww-deps", fixtures + "/g0-allowed-write-cycle-unseen-invalid.edn", true, "INVALID", false, false, 0, 0},
		{"valid", fixtures + "/unseen-drains-to-zero-valid.edn", false, "VALID", false, false, 0, 0},
		{"unknown", fixtures + "/empty-no-send-or-poll-unknown.edn", false, "UNKNOWN", false, false, 0, 0},
		{"large-downsampled", synthetic, false, "INVALID", false, false, 0, 0},
		{"rw-register-g-single", filepath.Join(testpaths.Root(), "testdata", "rw-register", "g-single-initial-state-invalid.edn"), false, "INVALID", false, true, 1, 0},
		{"list-append-hostile", txnFixtures + "/hostile-list-append-invalid.edn", false, "INVALID", true, true, 1, 0},
		{"list-append-g1c-incompatible", txnFixtures + "/g1c-with-incompatible-read-orders-invalid.edn", false, "INVALID", false, true, 1, 0},
		{"list-append-g-nonadjacent-realtime", txnFixtures + "/g-nonadjacent-process-invalid.edn", false, "INVALID", false, true, 2, 0},
		{"list-append-tidb", tidb, false, "INVALID", false, true, 5, 0},
		{"list-append-large-sampled", syntheticTxn, false, "INVALID", false, true, 14, 0},
		{"abort-bufstream", abortFixtures + "/bufstream-advance-without-rebalance-valid.edn", false, "VALID", false, false, 0, 2},
		{"abort-other", abortFixtures + "/abort-other-invalid.edn", false, "INVALID", false, false, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path == "" {
				t.Skip("../shared/corpus not found beside the repository: corpus page skipped")
			}
			file := writeReport(t, dir, tc.name, tc.path, tc.wwDeps)
			tctx, pe, fileURL := openReport(t, ctx, file, tc.verdict)
			defer pe.check(t, fileURL)
			states, err := chromedp.Run(tctx, chromedp.Evaluate[[]chartState](chartsJS))
			if err != nil {
				t.Fatal(err)
			}
			if tc.polls > 0 {
				checkPollCharts(t, tctx, states, tc.polls)
			} else if tc.txn {
				checkTxnCharts(t, states, tc.cycles)
			} else if len(states) < 4 {
				t.Errorf("%d charts on the page, want at least 4 (timeline, unseen, two lag charts)", len(states))
			}
			for _, s := range states {
				if !s.Instance || s.Series == 0 || !s.Canvas {
					t.Errorf("chart %s did not draw: %+v", s.ID, s)
				}
			}
			switch {
			case tc.hostile && tc.txn:
				checkHostile(t, tctx, hostileTxnStrings, hostileTxnProbes)
				checkTxnFocus(t, tctx)
			case tc.hostile:
				checkHostile(t, tctx, hostileStrings, hostileProbes)
			}
			checkDocs(t, tctx, tc.verdict == "INVALID")
			screenshot(t, tctx, shots, tc.name)
		})
	}
}

// openReport opens a report file in a new tab of the browser, waits until
// every chart has drawn and checks the verdict the page shows. The tab
// closes at the end of the test; pe.check, deferred by the caller, checks
// what the page did.
func openReport(t *testing.T, ctx context.Context, file, verdict string) (context.Context, *pageEvents, string) {
	t.Helper()
	fileURL := (&url.URL{Scheme: "file", Path: file}).String()
	pe := new(pageEvents)
	tab, cancel := chromedp.NewContext(ctx, chromedp.WithListener(pe.listen))
	t.Cleanup(cancel)
	tctx, cancelT := context.WithTimeout(tab, 60*time.Second)
	t.Cleanup(cancelT)
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
	shown, err := chromedp.Run(tctx, chromedp.Text(chromedp.ID("verdict")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(shown) != verdict {
		t.Errorf("verdict shows %q, want %q", shown, verdict)
	}
	return tctx, pe, fileURL
}

// check fails the test when the page at fileURL loaded anything but
// itself, logged an error or opened a dialog.
func (pe *pageEvents) check(t *testing.T, fileURL string) {
	t.Helper()
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
}

// screenshot saves a full-page screenshot of the tab as report-NAME.png
// in dir and logs where.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report-"+name+".png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
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

// hostileProbes are the tooltips checkHostile shows on the queue's
// hostile page: a timeline point whose value has markup, and a cycle node.
var hostileProbes = []tipProbe{
	{"chart-timeline", `function (d) { return Array.isArray(d) && String(d[4]).indexOf('<') >= 0; }`, "<"},
	{"", `function (d) { return d && Array.isArray(d.tip) && d.tip.join(' ').indexOf('значение') >= 0; }`, "значение 🔑"},
}

// hostileTxnStrings are texts of testdata/list-append/hostile-list-append-invalid.edn
// that must show on its page as they are.
var hostileTxnStrings = []string{
	`"<script>alert(1)</script>"`,
	`"</script><script>alert(2)</script>"`,
	`"<img src=x onerror=alert(1)>"`,
	`"\"quoted\" 'single' & <b>bold</b>"`,
	`<script>alert('err')</script> "quoted" javascript:alert(5) ошибка`,
	`"javascript:alert(1)"`,
	`"ключ 🔑"`,
	`"значение 🔑"`,
}

// hostileTxnProbes: the tooltip of a timeline bar whose micro-ops have
// markup, and of a cycle node with non-ASCII text.
var hostileTxnProbes = []tipProbe{
	{"chart-txn-timeline", `function (d) { return d && typeof d.t === 'string' && d.t.indexOf('<img') >= 0; }`, `"<img src=x onerror=alert(1)>"`},
	{"", `function (d) { return d && Array.isArray(d.tip) && d.tip.join(' ').indexOf('значение') >= 0; }`, "значение 🔑"},
}

// tipProbe says which tooltip to show: of the chart with this id (or of
// any cycle drawing when empty), the first data item find accepts; want
// is text the tooltip must hold.
type tipProbe struct{ chart, find, want string }

// checkTxnCharts checks a list-append page's charts: one transaction
// timeline and the cycle drawings, nothing of the queue's.
func checkTxnCharts(t *testing.T, states []chartState, cycles int) {
	t.Helper()
	n := 0
	for _, s := range states {
		switch {
		case s.ID == "chart-txn-timeline":
		case strings.HasPrefix(s.ID, "chart-cycle-"):
			n++
		default:
			t.Errorf("chart %s on a list-append page", s.ID)
		}
	}
	if n != cycles || len(states) != cycles+1 {
		t.Errorf("%d charts, %d cycle drawings; want the timeline and %d cycles", len(states), n, cycles)
	}
}

// checkTxnFocus picks an anomaly in the timeline's picker and checks the
// timeline zooms to its transactions; then a "show on timeline" button
// picks its anomaly.
func checkTxnFocus(t *testing.T, ctx context.Context) {
	t.Helper()
	type zoom struct {
		Start, End float64
		Marks      []reportpage.TxnMark
	}
	z, err := chromedp.Run(ctx, chromedp.Evaluate[zoom](`(function () {
		var p = document.getElementById('txn-focus');
		p.value = '0';
		p.dispatchEvent(new Event('change'));
		var dz = echarts.getInstanceByDom(document.getElementById('chart-txn-timeline')).getOption().dataZoom[0];
		return {start: dz.startValue, end: dz.endValue, marks: JSON.parse(document.getElementById('hindsight-data').textContent).layout.marks};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(z.Marks) == 0 {
		t.Fatal("no marks on the timeline")
	}
	m := z.Marks[0]
	if z.Start > m.From || z.End < m.To || z.End-z.Start > 4*(m.To-m.From)+1 {
		t.Errorf("picking %s zoomed the timeline to [%v, %v]; its txns span [%v, %v]", m.Label, z.Start, z.End, m.From, m.To)
	}
	last := z.Marks[len(z.Marks)-1]
	picked, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(function () {
		document.querySelector('button.show-txns[data-target=%q]').click();
		return document.getElementById('txn-focus').value;
	})()`, last.Target)))
	if err != nil || picked != fmt.Sprint(len(z.Marks)-1) {
		t.Errorf("the button of %s picked %q (%v)", last.Target, picked, err)
	}
}

// checkHostile checks that a hostile history's strings are text: no
// element was made from them, they read as written, and tooltips showing
// them build no markup either.
func checkHostile(t *testing.T, ctx context.Context, hostile []string, probes []tipProbe) {
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
	for _, s := range hostile {
		if !strings.Contains(st.Text, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
	if !strings.Contains(st.Title, "hostile-") {
		t.Errorf("title %q", st.Title)
	}
	// Tooltips: show the tip of a timeline point whose value has markup, and
	// of a cycle node, and check they are text.
	for _, probe := range probes {
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

// docsState is what checkDocs reads of the page.
type docsState struct {
	Folded, Open int
	Visible      bool
	Text, Header string
}

// checkDocs checks that the page's header block shows, and on a page with
// anomalies (docs true) that each type's documentation is folded, and that
// a click on the first one's summary opens it and shows its text. The
// caller's request check then proves the click fetched nothing.
func checkDocs(t *testing.T, ctx context.Context, docs bool) {
	t.Helper()
	const read = `(function () {
  var d = document.querySelector('details.docs'), p = document.getElementById('provenance');
  var body = d ? d.querySelector('.docs-body') : null;
  return {Folded: document.querySelectorAll('details.docs:not([open])').length,
    Open: document.querySelectorAll('details.docs[open]').length,
    Visible: body ? body.checkVisibility() : false,
    Text: body ? body.innerText : '', Header: p ? p.innerText : ''};
})()`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[docsState](read))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before.Header, testCommand) || !strings.Contains(before.Header, "2026-01-02T03:04:05Z") {
		t.Errorf("the header block shows %q", before.Header)
	}
	if !docs {
		return
	}
	if before.Folded == 0 || before.Open != 0 || before.Visible || before.Text != "" {
		t.Fatalf("the docs sections are not all folded: %+v", before)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("details.docs summary"))); err != nil {
		t.Fatal(err)
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[docsState](read))
	if err != nil {
		t.Fatal(err)
	}
	if after.Open != 1 || !after.Visible || len(strings.TrimSpace(after.Text)) < 40 {
		t.Errorf("a click did not open the docs section: %+v", after)
	}
}
