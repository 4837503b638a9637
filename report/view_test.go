package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/samples"
	"github.com/hindsight-dev/hindsight/workload"
)

// checkOpts are the command line's defaults, with the series the report
// draws.
func checkOpts(wwDeps bool) check.Options {
	o := check.DefaultOptions()
	o.Analysis.Series = true
	o.Analysis.WWDeps = wwDeps
	return o
}

// option is the part of an ECharts option the tests look at.
type option struct {
	Series []struct {
		Name  string            `json:"name"`
		Type  string            `json:"type"`
		Data  []json.RawMessage `json:"data"`
		Links []json.RawMessage `json:"links"`
	} `json:"series"`
	DataZoom []json.RawMessage `json:"dataZoom"`
	Tooltip  map[string]any    `json:"tooltip"`
}

func parseOption(t *testing.T, raw json.RawMessage) option {
	t.Helper()
	var o option
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatalf("chart option is not JSON: %v", err)
	}
	return o
}

func TestViewDemo(t *testing.T) {
	res, h := mustCheck(t, samples.QueueName, checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	if v.Verdict != "invalid" || !strings.Contains(v.Title, "INVALID") || v.Source != samples.QueueName {
		t.Errorf("verdict %q, title %q, source %q", v.Verdict, v.Title, v.Source)
	}
	// the type table: TypeRows, with anchors to sections in the same order
	rows := TypeRows(res)
	if len(v.Types) != len(rows) || len(v.Sections) != len(rows) {
		t.Fatalf("%d types, %d sections, want %d", len(v.Types), len(v.Sections), len(rows))
	}
	for i, row := range rows {
		tv := v.Types[i]
		if tv.Type != row.Type || tv.Count != row.Count || tv.Status != row.Status || tv.Anchor != "anomaly-"+row.Type {
			t.Errorf("type row %d = %+v, want %+v", i, tv, row)
		}
		if tv.Bad != slices.Contains(res.BadTypes, row.Type) {
			t.Errorf("%s: bad = %v", row.Type, tv.Bad)
		}
		sec := v.Sections[i]
		if sec.Anchor != tv.Anchor || sec.Doc == "" || sec.Shown != row.Count || len(sec.Instances) != row.Count {
			t.Errorf("section %s: anchor %q, doc %q, shown %d of %d", sec.Type, sec.Anchor, sec.Doc, sec.Shown, sec.Count)
		}
		lookup := HistoryLookup(h)
		for j, in := range sec.Instances {
			src := res.Anomalies[row.Type][j]
			if want := ExplainIn(res.Workload, row.Type, src, lookup); in.Explanation != want {
				t.Errorf("%s #%d explanation %q, want ExplainIn's %q", row.Type, j+1, in.Explanation, want)
			}
			witness := src.InstanceEvidence().Witness
			if len(in.Witness) != len(witness) || in.WitnessTotal != len(witness) {
				t.Errorf("%s #%d: %d witness rows, want %d", row.Type, j+1, len(in.Witness), len(witness))
			}
			for k, w := range in.Witness {
				if w.Index != witness[k] || w.Missing || w.Type == "" || w.F == "" || w.Process == "" || w.Time == "" ||
					(w.F != "assign" && !strings.HasPrefix(w.Value, "[[:")) {
					t.Errorf("%s #%d witness row %d = %+v", row.Type, j+1, k, w)
				}
			}
			if key := src.InstanceKey(); key != nil && (in.TimelineKey < 0 || v.Timeline.Keys[in.TimelineKey].Key != key.String()) {
				t.Errorf("%s #%d: timeline key %d", row.Type, j+1, in.TimelineKey)
			}
		}
	}
	if len(v.Omissions) != 0 {
		t.Errorf("the demo needs no caps, but the view leaves out %q", v.Omissions)
	}
	if v.FinalReads == nil || v.FinalReads.From >= v.FinalReads.To {
		t.Errorf("final reads %+v", v.FinalReads)
	}
	if v.TimeUnit != "s" {
		t.Errorf("time unit %q", v.TimeUnit)
	}
	// the stats and options the page shows
	facts := map[string]string{}
	for _, f := range append(slices.Clone(v.Stats), v.Options...) {
		facts[f.Label] = f.Value
	}
	for label, want := range map[string]string{"ops": "110", "keys": "8", "--ww-deps": "false", "--stall-threshold": "10s"} {
		if facts[label] != want {
			t.Errorf("fact %q = %q, want %q", label, facts[label], want)
		}
	}
}

func TestViewTimeline(t *testing.T) {
	res, h := mustCheck(t, samples.QueueName, checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	tl := v.Timeline
	if tl.ID == "" || len(tl.Keys) != len(h.Keys) {
		t.Fatalf("timeline %q has %d keys, want %d", tl.ID, len(tl.Keys), len(h.Keys))
	}
	// keys with anomalies first
	seenClean := false
	for _, k := range tl.Keys {
		if k.Anomalies == 0 {
			seenClean = true
		} else if seenClean {
			t.Errorf("key %s (%d anomalies) comes after a key without any", k.Key, k.Anomalies)
		}
	}
	if tl.Keys[0].Key != "1" || !strings.Contains(tl.Keys[0].Label, "anomal") {
		t.Errorf("first key %+v", tl.Keys[0])
	}
	// the marks: every type the demo has on a key shows on that key's chart
	marked := map[string]map[string]bool{} // key -> series names
	for _, k := range tl.Keys {
		o := parseOption(t, k.Option)
		if len(o.Series) == 0 || k.Series != len(o.Series) || len(o.DataZoom) == 0 {
			t.Errorf("key %s: %d series (says %d), %d data zooms", k.Key, len(o.Series), k.Series, len(o.DataZoom))
		}
		marked[k.Key] = map[string]bool{}
		for _, s := range o.Series {
			marked[k.Key][s.Name] = true
		}
	}
	for _, want := range []struct{ key, series string }{
		{"2", "lost-write"}, {"1", "inconsistent-offsets"}, {"1", "duplicate"}, {"2", "poll-skip"},
		{"2", "unseen"}, {"20", "stalled-consumer"}, {"3", "G1a"}, {"30", "duplicate"},
		{"2", "sends · process 0"}, {"2", "position · process 2"}, {"1", "final-read phase"},
	} {
		if !marked[want.key][want.series] {
			t.Errorf("key %s's timeline has no %q series (has %v)", want.key, want.series, marked[want.key])
		}
	}
	// a lost-write mark names value, op and process, and carries the explanation
	o := parseOption(t, tl.Keys[slices.IndexFunc(tl.Keys, func(k page.TimelineKey) bool { return k.Key == "2" })].Option)
	for _, s := range o.Series {
		if s.Name != "lost-write" {
			continue
		}
		var pt []any
		if err := json.Unmarshal(s.Data[0], &pt); err != nil {
			t.Fatal(err)
		}
		// [time, offset, op, process, value, note]
		if len(pt) != 6 || pt[1] != 1.0 || pt[2] != 10.0 || pt[3] != 0.0 || pt[4] != 22.0 || !strings.Contains(pt[5].(string), "value 22") {
			t.Errorf("lost-write mark %v", pt)
		}
	}
	if !slices.Equal(tl.Dims, []string{"time (s)", "offset", "op", "process", "value", "note"}) {
		t.Errorf("dims %q", tl.Dims)
	}
}

func TestViewCharts(t *testing.T) {
	res, h := mustCheck(t, fixtures+"/g1c-wr-cycle-invalid.edn", checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	kinds := map[string]int{}
	ids := map[string]bool{}
	for _, c := range v.Charts {
		kinds[c.Kind]++
		if ids[c.ID] {
			t.Errorf("chart id %s twice", c.ID)
		}
		ids[c.ID] = true
		o := parseOption(t, c.Option)
		if len(o.Series) == 0 || len(o.Series) != c.Series || c.Title == "" {
			t.Errorf("chart %s: %d series (says %d), title %q", c.ID, len(o.Series), c.Series, c.Title)
		}
		if o.Tooltip["show"] != true {
			t.Errorf("chart %s has no tooltip", c.ID)
		}
	}
	if kinds["unseen"] != 1 || kinds["lag-key"] != 1 || kinds["lag-process"] != 1 || kinds["cycle"] != 1 {
		t.Errorf("chart kinds %v", kinds)
	}
	// the cycle: its drawing, and why each edge exists
	in := v.Sections[0].Instances[0]
	if !ids[in.Graph] || len(in.Steps) != 2 {
		t.Fatalf("G1c instance: graph %q, %d steps", in.Graph, len(in.Steps))
	}
	for _, st := range in.Steps {
		if st.Rel != "wr" || !strings.Contains(st.Why, "read value") {
			t.Errorf("step %+v", st)
		}
	}
	nodes, links := graphOf(t, v, in.Graph)
	if len(nodes) != 2 || len(links) != 2 {
		t.Fatalf("cycle drawing: %d nodes, %d links", len(nodes), len(links))
	}
	for i, l := range links {
		if l.Label == nil || l.Label.Formatter != "wr" || len(l.Tip) != 2 || l.Tip[1] != in.Steps[i].Why {
			t.Errorf("link %d: %+v", i, l)
		}
	}
}

// TestViewCaps: instance lists, witness tables and marks are capped, all
// counted, and the page says what it left out.
func TestViewCaps(t *testing.T) {
	res, h := mustCheck(t, samples.QueueName, checkOpts(false))
	v := BuildView(res, h, ViewOptions{MaxInstances: 1, MaxWitnessOps: 2, MaxMarks: 1})
	for _, sec := range v.Sections {
		if sec.Shown != min(1, sec.Count) || len(sec.Instances) != sec.Shown {
			t.Errorf("%s: shown %d of %d", sec.Type, sec.Shown, sec.Count)
		}
		for _, in := range sec.Instances {
			if len(in.Witness) != min(2, in.WitnessTotal) {
				t.Errorf("%s #%d: %d witness rows of %d", sec.Type, in.N, len(in.Witness), in.WitnessTotal)
			}
		}
	}
	all := strings.Join(v.Omissions, "\n")
	for _, want := range []string{
		"lost-write: showing 1 of 4 instances",
		"inconsistent-offsets: showing 1 of 3 instances",
		"lost-write #1: the witness table shows 2 of 4 ops.",
		"Timeline of key 10: 1 of 4 inconsistent-offsets marks drawn.",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("omissions lack %q:\n%s", want, all)
		}
	}
}

// TestViewDownsampling: a big history's page stays within the bounds, and
// says it was downsampled.
func TestViewDownsampling(t *testing.T) {
	h := synthHistory(200_000, 4, 12)
	res, err := check.History(h, checkOpts(false))
	if err != nil {
		t.Fatal(err)
	}
	vo := ViewOptions{MaxPoints: 300, MaxTotalPoints: 20_000}
	v := BuildView(res, h, vo)
	total := 0
	count := func(name string, o option, marks bool) {
		for _, s := range o.Series {
			if !marks && (slices.Contains(workload.MustLookup("queue").TypeNames(), s.Name)) {
				continue
			}
			if len(s.Data) > vo.MaxPoints && !slices.Contains(workload.MustLookup("queue").TypeNames(), s.Name) {
				t.Errorf("%s: series %q has %d points, more than %d", name, s.Name, len(s.Data), vo.MaxPoints)
			}
			total += len(s.Data)
		}
	}
	for _, k := range v.Timeline.Keys {
		count("timeline "+k.Key, parseOption(t, k.Option), false)
		if !strings.Contains(k.Note, "downsampled from") {
			t.Errorf("key %s: note %q", k.Key, k.Note)
		}
	}
	for _, c := range v.Charts {
		count(c.ID, parseOption(t, c.Option), true)
	}
	// the unseen chart may add a closing point per series
	if total > vo.MaxTotalPoints+100 {
		t.Errorf("%d points in all, more than %d", total, vo.MaxTotalPoints)
	}
	all := strings.Join(v.Omissions, "\n")
	for _, want := range []string{"Offset timelines: ", "Unseen chart: Downsampled from", "Realtime lag per key (worst over consumers): Downsampled from"} {
		if !strings.Contains(all, want) {
			t.Errorf("omissions lack %q:\n%s", want, all)
		}
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, v); err != nil {
		if err == ErrNoAssets {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Logf("page of %d ops: %d bytes, %d points", len(h.Ops), buf.Len(), total)
}

// TestViewHostile: history strings reach the view verbatim; escaping is
// the template's job (html_test.go, browser_test.go).
func TestViewHostile(t *testing.T) {
	res, h := mustCheck(t, "testdata/hostile-invalid.edn", checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var plain any // decode again so JSON escapes are undone
	if err := json.Unmarshal(b, &plain); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprint(plain)
	for _, s := range []string{
		`"<script>alert(1)</script>"`, `"<img src=x onerror=alert(1)>"`, `"ключ 🔑"`, `"javascript:alert(3)"`,
		`<script>alert('err')</script> "quoted" javascript:alert(5) ошибка`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the view lost %q", s)
		}
	}
	if v.Timeline.Keys[0].Key != `"<script>alert(1)</script>"` {
		t.Errorf("first timeline key %q", v.Timeline.Keys[0].Key)
	}
	var g1a *page.Section
	for i := range v.Sections {
		if v.Sections[i].Type == "G1a" {
			g1a = &v.Sections[i]
		}
	}
	if g1a == nil || g1a.Instances[0].Witness[1].Error != `<script>alert('err')</script> "quoted" javascript:alert(5) ошибка` {
		t.Fatalf("G1a witness error not verbatim: %+v", g1a)
	}
	// an invocation shows its micro-ops in invocation form, a completion its results
	if w := g1a.Instances[0].Witness; w[0].Value != `[[:send "ключ 🔑" "<svg onload=alert(4)>"]]` ||
		w[3].Value != `[[:poll {"ключ 🔑" [[0 "значение 🔑"] [1 "<svg onload=alert(4)>"]]}]]` {
		t.Errorf("witness values %q, %q", w[0].Value, w[3].Value)
	}
}

// TestViewDeterministic: the same inputs give the same view and page.
func TestViewDeterministic(t *testing.T) {
	res, h := mustCheck(t, samples.QueueName, checkOpts(false))
	sameEveryTime(t, 5, func() *View { return BuildView(res, h, ViewOptions{MaxMarks: 1, MaxInstances: 2}) })
}

// sameEveryTime builds a view n times and fails unless every view and its
// page are the same bytes.
func sameEveryTime(t *testing.T, n int, build func() *View) {
	t.Helper()
	var first []byte
	var firstPage []byte
	for i := range n {
		v := build()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var page bytes.Buffer
		if err := WriteHTML(&page, v); err != nil && err != ErrNoAssets {
			t.Fatal(err)
		}
		if i == 0 {
			first, firstPage = b, page.Bytes()
			continue
		}
		if !bytes.Equal(b, first) || !bytes.Equal(page.Bytes(), firstPage) {
			t.Fatal("two views of one result differ")
		}
	}
}

func TestViewWithoutHistory(t *testing.T) {
	res, _ := mustCheck(t, samples.QueueName, checkOpts(false))
	v := BuildView(res, nil, ViewOptions{})
	if v.Verdict != "invalid" || len(v.Sections) == 0 || len(v.Timeline.Keys) != 0 || v.TimeUnit != "op" {
		t.Errorf("view without history: verdict %q, %d sections, %d keys, unit %q", v.Verdict, len(v.Sections), len(v.Timeline.Keys), v.TimeUnit)
	}
	for _, sec := range v.Sections {
		for _, in := range sec.Instances {
			for _, w := range in.Witness {
				if !w.Missing {
					t.Fatalf("witness row %+v found without a history", w)
				}
			}
		}
	}
}

func TestValidAndUnknown(t *testing.T) {
	for _, tc := range []struct{ file, verdict string }{
		{"unseen-drains-to-zero-valid.edn", "valid"},
		{"empty-no-send-or-poll-unknown.edn", "unknown"},
	} {
		res, h := mustCheck(t, fixtures+"/"+tc.file, checkOpts(false))
		v := BuildView(res, h, ViewOptions{})
		if v.Verdict != tc.verdict || len(v.Types) != 0 || len(v.Charts) != 3 {
			t.Errorf("%s: verdict %q, %d types, %d charts", tc.file, v.Verdict, len(v.Types), len(v.Charts))
		}
		if tc.verdict == "unknown" && len(v.UnknownReasons) == 0 {
			t.Errorf("%s: no reason", tc.file)
		}
	}
}

// TestLongCycleListedNotDrawn: a cycle of more than page.MaxCycleSteps
// steps lists its first MaxCycleSteps, is not drawn, and the omissions
// say so; a shorter one is listed whole and drawn.
func TestLongCycleListedNotDrawn(t *testing.T) {
	for _, n := range []int{40, page.MaxCycleSteps + 50} {
		res, h := checkLines(t, testhist.Ring(n, 7))
		v := BuildView(res, h, ViewOptions{})
		var ring *page.InstanceView
		for _, s := range v.Sections {
			for i := range s.Instances {
				if in := &s.Instances[i]; len(in.Steps) > 0 && (ring == nil || len(in.Steps) > len(ring.Steps)) {
					ring = in
				}
			}
		}
		if ring == nil {
			t.Fatalf("n=%d: no cycle instance among %v", n, res.AnomalyTypes)
		}
		cut := slices.ContainsFunc(v.Omissions, func(s string) bool {
			return strings.Contains(s, fmt.Sprintf("its cycle has %d steps, too many to draw", n))
		})
		if n <= page.MaxCycleSteps {
			if len(ring.Steps) != n || ring.Graph == "" || cut {
				t.Errorf("n=%d: %d steps listed, graph %q, omission %v; want all, drawn, none", n, len(ring.Steps), ring.Graph, cut)
			}
		} else if len(ring.Steps) != page.MaxCycleSteps || ring.Graph != "" || !cut {
			t.Errorf("n=%d: %d steps listed, graph %q, omission %v; want %d, not drawn, said", n, len(ring.Steps), ring.Graph, cut, page.MaxCycleSteps)
		}
	}
}

// TestTextCutsHugeInstances: the text output (and the JUnit report) cuts
// an explanation past MaxTextExplanationChars and a witness past
// MaxTextWitnessOps, and says so; the JSON keeps both whole.
func TestTextCutsHugeInstances(t *testing.T) {
	const n = 600 // a ring of n ops: one G1c whose explanation and witness grow with n
	res, _ := checkLines(t, testhist.Ring(n, 7))
	var text bytes.Buffer
	if err := Text(&text, res, nil, 3); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{
		"characters; --format json for all)",
		fmt.Sprintf("… and %d more (--format json for all)", 2*n-MaxTextWitnessOps),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text output lacks %q", want)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > MaxTextExplanationChars+200 {
			t.Errorf("a line of %d bytes: %.100s…", len(line), line)
		}
	}
	sum := JUnitResult(res, nil, 3)
	for _, typ := range res.AnomalyTypes {
		for _, ex := range sum.Examples(typ) {
			if len(ex) > MaxTextExplanationChars+10_000 {
				t.Errorf("a JUnit example of %s has %d bytes", typ, len(ex))
			}
		}
	}
	var js bytes.Buffer
	if err := JSON(&js, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), fmt.Sprintf(",%d,%d]", 2*n-2, 2*n-1)) {
		t.Error("the JSON witness is not whole")
	}
}

// TestQueueViewSameOnAnyCores: a queue history large enough that the
// timelines' two passes split their work among the cores
// (queueview/timelinepass.go) gets the same timelines, charts and
// omissions with one core as with four.
func TestQueueViewSameOnAnyCores(t *testing.T) {
	h := synthHistory(60_000, 8, 16)
	res, err := check.History(h, checkOpts(false))
	if err != nil {
		t.Fatal(err)
	}
	view := func(cores int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cores))
		v := BuildView(res, h, ViewOptions{MaxTotalPoints: 3000})
		b, err := json.Marshal([]any{v.Timeline, v.Charts, v.Omissions})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	one, four := view(1), view(4)
	if one != four {
		t.Errorf("the view differs: %d bytes with one core, %d with four", len(one), len(four))
	}
	if !strings.Contains(one, "downsampled") {
		t.Errorf("the timelines were not downsampled, so the test shows less than it should: %.300s", one)
	}
}

// TestQueueClockOneTime: a queue history whose ops all have one :time (as
// hand-written ones often do) is drawn by op index, not stacked at time 0;
// one with times spread over 2 s is drawn in seconds.
func TestQueueClockOneTime(t *testing.T) {
	hist := func(t1, t2 int) string {
		return fmt.Sprintf("{:index 0, :time 0, :type :invoke, :process 0, :f :send, :value [[:send :x 1]]}\n"+
			"{:index 1, :time %d, :type :ok, :process 0, :f :send, :value [[:send :x [0 1]]]}\n"+
			"{:index 2, :time %d, :type :invoke, :process 1, :f :poll, :value [[:poll]]}\n"+
			"{:index 3, :time %d, :type :ok, :process 1, :f :poll, :value [[:poll {:x [[0 1]]}]]}\n", t1, t1, t2)
	}
	for _, tc := range []struct {
		name, text, unit string
	}{
		{"one time for all", hist(0, 0), "op"},
		{"times spread", hist(1_000_000_000, 20_000_000_000), "s"},
	} {
		res, h := checkText(t, "clock.edn", tc.text)
		if v := BuildView(res, h, ViewOptions{}); v.TimeUnit != tc.unit {
			t.Errorf("%s: time unit %q, want %q", tc.name, v.TimeUnit, tc.unit)
		}
	}
}
