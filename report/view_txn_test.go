package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/report/txnview"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/model"
)

// txnOption is the part of a transaction timeline's option the tests
// read.
type txnOption struct {
	XAxis []struct {
		Name string `json:"name"`
	} `json:"xAxis"`
	YAxis []struct {
		Type string   `json:"type"`
		Data []string `json:"data"`
	} `json:"yAxis"`
	Series []struct {
		Name string    `json:"name"`
		Type string    `json:"type"`
		Data []barJSON `json:"data"`
	} `json:"series"`
	DataZoom []json.RawMessage `json:"dataZoom"`
}

// barJSON is a bar as the page script reads it: its numbers, its
// tooltip text and the marks it is in.
type barJSON struct {
	Value []any  `json:"value"`
	Text  string `json:"t"`
	Marks []int  `json:"m,omitempty"`
}

// bar is a decoded bar of the timeline: [start, end, lane, status,
// invocation, completion].
type bar struct {
	x0, x1       float64
	lane, status int
	inv, comp    int64
	series       string
	marks        []int
}

func timelineBars(t *testing.T, tl page.TxnTimeline) (txnOption, []bar) {
	t.Helper()
	var o txnOption
	if err := json.Unmarshal(tl.Option, &o); err != nil {
		t.Fatalf("timeline option: %v", err)
	}
	var bars []bar
	for _, s := range o.Series {
		if s.Type != "custom" {
			t.Errorf("series %q is %q, want custom", s.Name, s.Type)
		}
		for _, it := range s.Data {
			f := func(i int) float64 {
				switch x := it.Value[i].(type) {
				case float64:
					return x
				case string: // json.Number through any
					var v float64
					fmt.Sscan(x, &v)
					return v
				}
				t.Fatalf("bar value %d is %T", i, it.Value[i])
				return 0
			}
			bars = append(bars, bar{f(0), f(1), int(f(2)), int(f(3)), int64(f(4)), int64(f(5)), s.Name, it.Marks})
		}
	}
	return o, bars
}

// graphOf decodes the nodes and links of v's chart id, a cycle drawing;
// it fails the test when v has no such chart.
func graphOf(t *testing.T, v *View, id string) ([]page.GraphNode, []page.GraphLink) {
	t.Helper()
	var g struct {
		Series []struct {
			Data  []page.GraphNode `json:"data"`
			Links []page.GraphLink `json:"links"`
		} `json:"series"`
	}
	for _, c := range v.Charts {
		if c.ID == id {
			if err := json.Unmarshal(c.Option, &g); err != nil {
				t.Fatal(err)
			}
			return g.Series[0].Data, g.Series[0].Links
		}
	}
	t.Fatalf("no chart %s", id)
	return nil, nil
}

// TestTxnViewFixtures checks, on every list-append history of
// testdata/list-append, what any transactional page must hold: the txn
// view and no queue charts, the verdict of the file's name, each instance
// explained as ExplainIn says (a cycle's chain of orders line by line),
// witness rows with micro-ops, a drawing per cycle with one node per txn
// and one labelled, coloured edge per step, and each instance's
// transactions marked on the timeline.
func TestTxnViewFixtures(t *testing.T) {
	files, _ := filepath.Glob(txnFixtures + "/*.edn")
	if len(files) < 6 {
		t.Fatalf("%d fixtures in %s", len(files), txnFixtures)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			res, h := mustCheck(t, file, checkOpts(false))
			v := BuildView(res, h, ViewOptions{})
			checkTxnView(t, res, h, v)
			verdict := strings.TrimSuffix(filepath.Base(file), ".edn")
			verdict = verdict[strings.LastIndexByte(verdict, '-')+1:]
			if v.Verdict != verdict {
				t.Errorf("verdict %q, the file's name says %q", v.Verdict, verdict)
			}
		})
	}
}

// checkTxnView asserts what every transactional view must hold.
func checkTxnView(t *testing.T, res *analysis.Result, h *model.History, v *View) {
	t.Helper()
	if v.Txn == nil || !isTxn(v.Workload) || v.Workload != res.Workload {
		t.Fatalf("workload %q, txn view %v", v.Workload, v.Txn)
	}
	if len(v.Timeline.Keys) != 0 || v.FinalReads != nil {
		t.Errorf("a transactional view has an offset timeline (%d keys) or final reads", len(v.Timeline.Keys))
	}
	if !slices.Equal(v.Txn.Models, res.Models) || !slices.Equal(v.Txn.Not, page.NonNil(res.Not)) || !slices.Equal(v.Txn.AlsoNot, page.NonNil(res.AlsoNot)) {
		t.Errorf("models %v / %v / %v, result %v / %v / %v", v.Txn.Models, v.Txn.Not, v.Txn.AlsoNot, res.Models, res.Not, res.AlsoNot)
	}
	kinds := map[string]int{}
	for _, c := range v.Charts {
		kinds[c.Kind]++
	}
	cycles := 0
	lookup := HistoryLookup(h)
	for _, sec := range v.Sections {
		for _, in := range sec.Instances {
			src := res.Anomalies[sec.Type][in.N-1]
			cyc := src.InstanceCycle()
			if cyc == nil {
				cyc = &analysis.CycleFields{}
			}
			want := ExplainIn(res.Workload, sec.Type, src, lookup)
			got := strings.Join(append([]string{in.Explanation}, in.Chain...), "\n")
			if len(cyc.Steps) > 0 {
				cycles++
				lines := strings.Split(want, "\n")
				for i := range lines {
					lines[i] = strings.TrimSpace(lines[i])
				}
				want = strings.Join(lines, "\n")
				if len(in.Chain) != len(cyc.Steps) {
					t.Errorf("%s #%d: %d chain lines for %d steps", sec.Type, in.N, len(in.Chain), len(cyc.Steps))
				}
			}
			if got != want {
				t.Errorf("%s #%d explanation\n%q\nwant\n%q", sec.Type, in.N, got, want)
			}
			if in.ID != fmt.Sprintf("%s-%d", sec.Anchor, in.N) {
				t.Errorf("%s #%d: id %q", sec.Type, in.N, in.ID)
			}
			for _, w := range in.Witness {
				if !w.Missing && (len(w.Mops) == 0 || w.Value != "") {
					t.Errorf("%s #%d: witness row %+v: a txn row has micro-ops, not a value", sec.Type, in.N, w)
				}
			}
			if in.OnTimeline != (len(src.InstanceEvidence().Witness) > 0) {
				t.Errorf("%s #%d: on timeline %v with %d witness ops", sec.Type, in.N, in.OnTimeline, len(src.InstanceEvidence().Witness))
			}
			if len(cyc.Steps) == 0 {
				if in.Graph != "" {
					t.Errorf("%s #%d: a drawing without a cycle", sec.Type, in.N)
				}
				continue
			}
			nodes, links := graphOf(t, v, in.Graph)
			if len(nodes) != len(cyc.Cycle) || len(links) != len(cyc.Steps) {
				t.Errorf("%s #%d: %d nodes, %d links for a cycle of %d with %d steps", sec.Type, in.N, len(nodes), len(links), len(cyc.Cycle), len(cyc.Steps))
			}
			for i, l := range links {
				st := cyc.Steps[i]
				if l.Label == nil || !strings.HasPrefix(l.Label.Formatter, st.Rel) || l.LineStyle.Color != page.RelColor(st.Rel) ||
					l.Source != fmt.Sprintf("op %d", st.From) || l.Target != fmt.Sprintf("op %d", st.To) ||
					l.Tip[len(l.Tip)-1] != in.Steps[i].Why {
					t.Errorf("%s #%d link %d: %+v (label %+v)", sec.Type, in.N, i, l, l.Label)
				}
			}
			for _, n := range nodes {
				if !strings.Contains(n.Label.Formatter, "[:") {
					t.Errorf("%s #%d node %s shows no micro-op: %q", sec.Type, in.N, n.Name, n.Label.Formatter)
				}
			}
		}
	}
	if kinds["txn-timeline"] != 1 || kinds["cycle"] != cycles || len(v.Charts) != 1+cycles {
		t.Errorf("chart kinds %v, want one txn-timeline and %d cycles", kinds, cycles)
	}
	// the timeline: one bar per transaction drawn (all, or a sample that
	// the note tells), lanes per process, every mark's transactions marked
	tl := v.Txn.Timeline
	o, bars := timelineBars(t, tl)
	// (the timeline also draws txns with no micro-ops, [], which the
	// checker does not count)
	if tl.Txns < int(analysis.OwnOf[txn.Stats](res.Stats).Txns) || tl.Drawn > tl.Txns || (tl.Drawn < tl.Txns && tl.Note == "") || len(bars) != tl.Drawn || tl.Series != len(o.Series) {
		t.Errorf("timeline: %d txns, %d drawn, %d bars, %d series (says %d); the result has %d txns",
			tl.Txns, tl.Drawn, len(bars), len(o.Series), tl.Series, analysis.OwnOf[txn.Stats](res.Stats).Txns)
	}
	if o.XAxis[0].Name != tl.Axis || o.YAxis[0].Type != "category" || !slices.Equal(o.YAxis[0].Data, tl.Lanes) || len(o.DataZoom) < 2 {
		t.Errorf("axes %+v %+v, %d zooms", o.XAxis, o.YAxis, len(o.DataZoom))
	}
	marked := 0
	perMark := make([]int, len(tl.Marks))
	for _, b := range bars {
		if b.x1 < b.x0 || b.lane < 0 || b.lane >= len(tl.Lanes) {
			t.Errorf("bar %+v", b)
		}
		if (len(b.marks) > 0) != (b.series == "in an anomaly") {
			t.Errorf("bar %+v is in series %q", b, b.series)
		}
		if len(b.marks) > 0 {
			marked++
		}
		for _, m := range b.marks {
			perMark[m]++
		}
	}
	if marked != tl.Marked {
		t.Errorf("%d marked bars, timeline says %d", marked, tl.Marked)
	}
	for i, m := range tl.Marks {
		if perMark[i] != m.Txns || m.From > m.To {
			t.Errorf("mark %+v: %d bars", m, perMark[i])
		}
	}
}

// TestTxnViewIncompatibleOrder pins the page of Elle's G1c with
// incompatible read orders: the reads side by side, the cycle's drawing,
// the version orders, the timeline's bars.
func TestTxnViewIncompatibleOrder(t *testing.T) {
	res, h := mustCheck(t, txnFixtures+"/g1c-with-incompatible-read-orders-invalid.edn", checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	if len(v.Sections) != 2 || v.Sections[0].Type != "incompatible-order" || v.Sections[1].Type != "G1c" {
		t.Fatalf("sections %+v", v.Types)
	}
	io := v.Sections[0].Instances[0]
	if io.Key != ":x" || io.Reads == nil {
		t.Fatalf("incompatible-order #1: key %q, reads %v", io.Key, io.Reads)
	}
	r := io.Reads
	cells := func(row page.ReadsRow) (out []string) {
		for _, c := range row.Cells {
			s := c.Text
			if c.Diff {
				s = "*" + s
			}
			out = append(out, s)
		}
		return out
	}
	if r.Diff != 1 || !slices.Equal(r.Indices, []int{1, 2, 3}) ||
		r.Rows[0].Op != 7 || r.Rows[0].Len != 2 || !slices.Equal(cells(r.Rows[0]), []string{"1", "*3", ""}) ||
		r.Rows[1].Op != 9 || r.Rows[1].Len != 3 || !slices.Equal(cells(r.Rows[1]), []string{"1", "*2", "3"}) {
		t.Errorf("reads side by side: %+v: %q / %q", r, cells(r.Rows[0]), cells(r.Rows[1]))
	}
	if w := io.Witness; len(w) != 4 || !slices.Equal(w[0].Mops, []string{"[:r :x nil]"}) || !slices.Equal(w[1].Mops, []string{"[:r :x [1 3]]"}) ||
		w[1].Type != "ok" || w[1].Process != "0" || w[1].Time != "7ns" {
		t.Errorf("witness %+v", w)
	}
	g1c := v.Sections[1].Instances[0]
	nodes, links := graphOf(t, v, g1c.Graph)
	var labels []string
	for _, l := range links {
		labels = append(labels, l.Label.Formatter)
	}
	// op 7's read [1 3] contradicts both ww steps' orders (1 right before
	// 2, 2 right before 3): they are drawn as assumed, dashed
	if !slices.Equal(labels, []string{"ww :x 1→2 (assumed)", "ww :x 2→3 (assumed)", "wr :y 1"}) {
		t.Errorf("edge labels %q", labels)
	}
	if links[0].LineStyle.Type != "dashed" || links[2].LineStyle.Type == "dashed" {
		t.Errorf("line styles %q, %q", links[0].LineStyle.Type, links[2].LineStyle.Type)
	}
	if links[0].Tip[0] != "assumed: a read contradicts this order" || !strings.Contains(links[0].Tip[2], "[:append :x 1] → [:append :x 2]") {
		t.Errorf("ww edge tip %q", links[0].Tip)
	}
	if g1c.Proof != "assumes" || g1c.ProofNote != "not proven: assumes the order of key :x (from op 9's read), which op 7 contradicts" ||
		!g1c.Steps[0].Contested || !g1c.Steps[1].Contested || g1c.Steps[2].Contested {
		t.Errorf("proof %q, note %q, steps %+v", g1c.Proof, g1c.ProofNote, g1c.Steps)
	}
	if tv := v.Types[1]; tv.Type != "G1c" || tv.Proven != "0 of 1 proven" {
		t.Errorf("type row %+v", tv)
	}
	if nodes[0].Name != "op 1" || nodes[0].Label.Formatter != "op 1 · process 0\n[:append :x 1]\n[:r :y [1]]" {
		t.Errorf("first node %s: %q", nodes[0].Name, nodes[0].Label.Formatter)
	}
	if !slices.Equal(g1c.Chain[:1], []string{"op 1 < op 3, because op 3 appended 2 to key :x right after op 1's 1, as op 9's read shows (ww), " +
		"assuming the order of key :x, which op 7 contradicts;"}) {
		t.Errorf("chain %q", g1c.Chain)
	}
	// version orders: both keys, in key order (both are in anomalies)
	got := fmt.Sprint(v.Txn.Orders)
	if want := "[{:x 3 [1 2 3] 9 2 false} {:y 1 [1] -1 1 false}]"; got != want || v.Txn.OrdersTotal != 2 {
		t.Errorf("orders %s (of %d), want %s", got, v.Txn.OrdersTotal, want)
	}
	// the timeline: five ok txns of process 0, all marked, by :time
	tl := v.Txn.Timeline
	_, bars := timelineBars(t, tl)
	if tl.Axis != "time (ns)" || v.TimeUnit != "ns" || !slices.Equal(tl.Lanes, []string{"process 0"}) || len(bars) != 5 {
		t.Fatalf("axis %q, unit %q, lanes %q, %d bars", tl.Axis, v.TimeUnit, tl.Lanes, len(bars))
	}
	if b := bars[0]; b.x0 != 0 || b.x1 != 1 || b.inv != 0 || b.comp != 1 || b.status != txnview.StatusOK || !slices.Equal(b.marks, []int{1}) {
		t.Errorf("first bar %+v", b)
	}
	if want := []page.TxnMark{{Label: "incompatible-order #1", Target: "anomaly-incompatible-order-1", Txns: 2, From: 6, To: 9}, {Label: "G1c #1", Target: "anomaly-G1c-1", Txns: 5, From: 0, To: 9}}; !slices.Equal(tl.Marks, want) {
		t.Errorf("marks %+v, want %+v", tl.Marks, want)
	}
	if v.Omissions == nil || len(v.Omissions) != 0 {
		t.Errorf("omissions %q", v.Omissions)
	}
	facts := map[string]string{}
	for _, f := range append(slices.Clone(v.Stats), v.Options...) {
		facts[f.Label] = f.Value
	}
	for label, want := range map[string]string{"transactions": "5: 5 ok, 0 info, 0 fail, 0 never completed", "elements (distinct, written or read)": "4",
		"--model": "strict-serializable", "--cycle-budget": "10s"} {
		if facts[label] != want {
			t.Errorf("fact %q = %q, want %q", label, facts[label], want)
		}
	}
}

// TestTxnTimelineOutcomes: fail, info and never-completed transactions get
// their status, and one that never completed runs to the end.
func TestTxnTimelineOutcomes(t *testing.T) {
	res, h := mustCheck(t, txnFixtures+"/hostile-list-append-invalid.edn", checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	_, bars := timelineBars(t, v.Txn.Timeline)
	status := map[int64]int{}
	var open bar
	for _, b := range bars {
		status[b.inv] = b.status
		if b.comp < 0 {
			open = b
		}
	}
	if status[10] != txnview.StatusFail || status[14] != txnview.StatusInfo || status[16] != txnview.StatusOpen || status[0] != txnview.StatusOK {
		t.Errorf("statuses %v", status)
	}
	if open.inv != 16 || open.x0 != 160 || open.x1 != 160 || open.series != txnview.StatusNames[txnview.StatusOpen] {
		t.Errorf("the open txn %+v", open)
	}
	if !slices.Equal(v.Txn.Timeline.Lanes, []string{"process 0", "process 1", "process 2", "process 3", "process 4", "process 5", "process 6"}) {
		t.Errorf("lanes %q", v.Txn.Timeline.Lanes)
	}
}

// TestTxnClock: the timeline is by :time only when every op has one, they
// never go backwards and not all are the same, and the axis says why when
// it is not.
func TestTxnClock(t *testing.T) {
	line := func(i int, typ, tm string) string {
		return fmt.Sprintf("{:index %d, %s:type :%s, :process 0, :value [[:append :x %d]]}\n", i, tm, typ, i)
	}
	for _, tc := range []struct {
		name, text, axis string
		end              float64
	}{
		{"times in ms - time", line(0, "invoke", ":time 0, ") + line(1, "ok", ":time 20000000, "), "time (ms)", 20},
		{"times from an epoch - measured from the first op", line(0, "invoke", ":time 1000000000000, ") + line(1, "ok", ":time 1000000005000, "), "time (ns since op 0)", 5000},
		{"no time - op index", line(0, "invoke", "") + line(1, "ok", ""), "op index (op 0 has no :time)", 1},
		{"a time missing - op index", line(0, "invoke", ":time 0, ") + line(1, "ok", ""), "op index (op 1 has no :time)", 1},
		{"time backwards - op index", line(0, "invoke", ":time 50, ") + line(1, "ok", ":time 40, "), "op index (:time goes backwards at op 1)", 1},
		{"one time for all - op index", line(0, "invoke", ":time 0, ") + line(1, "ok", ":time 0, "), "op index (every op has :time 0)", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, h := checkText(t, "clock.edn", tc.text)
			v := BuildView(res, h, ViewOptions{})
			_, bars := timelineBars(t, v.Txn.Timeline)
			if v.Txn.Timeline.Axis != tc.axis || len(bars) != 1 || bars[0].x0 != 0 || bars[0].x1 != tc.end {
				t.Errorf("axis %q, bars %+v", v.Txn.Timeline.Axis, bars)
			}
		})
	}
}

// TestTxnTimelineSampling: a big history's timeline keeps every
// transaction of the anomalies shown, samples the others evenly, and says
// so.
func TestTxnTimelineSampling(t *testing.T) {
	res, h := checkText(t, "synthetic-list-append", synthListAppend(20_000, 10, 1))
	if res.Verdict.String() != "invalid" {
		t.Fatalf("the synthetic history is %s; its stale reads should make it invalid", res.Verdict)
	}
	v := BuildView(res, h, ViewOptions{MaxTxns: 1000})
	checkTxnView(t, res, h, v)
	tl := v.Txn.Timeline
	_, bars := timelineBars(t, tl)
	if tl.Txns != 20_000 || tl.Marked == 0 || tl.Drawn != 1000 || len(bars) != 1000 {
		t.Fatalf("%d txns, %d marked, %d drawn, %d bars", tl.Txns, tl.Marked, tl.Drawn, len(bars))
	}
	// the unmarked bars spread over the whole history, and over every
	// process in proportion to its transactions (the processes take turns:
	// one stride over all transactions would draw some lanes only): no gap
	// between two drawn ones is much wider than the sampling step
	var invs []int64
	perLane := make([]int, len(tl.Lanes))
	for _, b := range bars {
		if len(b.marks) == 0 {
			invs = append(invs, b.inv)
			perLane[b.lane]++
		}
	}
	for l, n := range perLane {
		if share := len(invs) / len(tl.Lanes); n < share-10 || n > share+10 {
			t.Errorf("lane %d has %d sampled bars, want about %d", l, n, share)
		}
	}
	slices.Sort(invs)
	step := float64(len(h.Ops)) / float64(len(invs))
	for i := 1; i < len(invs); i++ {
		if gap := float64(invs[i] - invs[i-1]); gap > 4*step {
			t.Errorf("a gap of %v ops between drawn txns %d and %d (step %.0f)", gap, invs[i-1], invs[i], step)
			break
		}
	}
	if invs[0] > int64(2*step) || invs[len(invs)-1] < int64(len(h.Ops))-int64(3*step) {
		t.Errorf("drawn txns span ops %d to %d of %d", invs[0], invs[len(invs)-1], len(h.Ops))
	}
	all := strings.Join(v.Omissions, "\n")
	want := fmt.Sprintf("Transaction timeline: 1,000 of 20,000 transactions are drawn: all %d that take part in the anomalies shown, and %s of the other %s",
		tl.Marked, page.Thousands(int64(1000-tl.Marked)), page.Thousands(int64(20_000-tl.Marked)))
	want += ", spread evenly over each process's transactions"
	if !strings.Contains(all, want) || !strings.Contains(tl.Note, "Sampled: 1,000 of 20,000") {
		t.Errorf("omissions lack %q:\n%s\nnote %q", want, all, tl.Note)
	}
}

// TestTxnPageSize: the page of a 100,000-transaction history stays within
// a few MB (it logs the size it measured).
func TestTxnPageSize(t *testing.T) {
	if err := AssetsAvailable(); err != nil {
		t.Skip(err)
	}
	res, h := checkText(t, "synthetic-list-append-100000", synthListAppend(100_000, 10, 1))
	var page bytes.Buffer
	if err := WriteHTML(&page, BuildView(res, h, ViewOptions{})); err != nil {
		t.Fatal(err)
	}
	echarts, err := os.ReadFile(filepath.Join("assets", "echarts.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("page of a %d-txn list-append history: %d bytes (%d without ECharts)", analysis.OwnOf[txn.Stats](res.Stats).Txns, page.Len(), page.Len()-len(echarts))
	if page.Len()-len(echarts) > 3<<20 {
		t.Errorf("the page holds %d bytes besides ECharts, more than 3 MiB", page.Len()-len(echarts))
	}
}

// TestTxnViewDeterministic: the same list-append result gives the same
// view and page.
func TestTxnViewDeterministic(t *testing.T) {
	res, h := checkText(t, "synthetic-list-append", synthListAppend(3000, 6, 2))
	sameEveryTime(t, 4, func() *View { return BuildView(res, h, ViewOptions{MaxTxns: 500, MaxInstances: 3}) })
}

// TestTxnViewHostile: the hostile list-append history's strings reach the
// view verbatim (escaping is the template's job).
func TestTxnViewHostile(t *testing.T) {
	res, h := mustCheck(t, txnFixtures+"/hostile-list-append-invalid.edn", checkOpts(false))
	v := BuildView(res, h, ViewOptions{})
	text := fmt.Sprint(testhist.Plain(t, v))
	for _, s := range []string{
		`"<script>alert(1)</script>"`, `"</script><script>alert(2)</script>"`, `"<img src=x onerror=alert(1)>"`,
		`"ключ 🔑"`, `"значение 🔑"`, `"javascript:alert(1)"`, `<script>alert('err')</script> "quoted" javascript:alert(5) ошибка`,
		`[:append "<svg onload=alert(4)>" 1]`, `"\"quoted\" 'single' & <b>bold</b>"`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the view lost %q", s)
		}
	}
	if v.Txn.Orders[0].Key != `"<script>alert(1)</script>"` {
		t.Errorf("first order %+v", v.Txn.Orders[0])
	}
}

// TestTxnFixturePages builds the page of every list-append and
// rw-register specification fixture (testdata/<workload>/).
func TestTxnFixturePages(t *testing.T) {
	files, _ := filepath.Glob(testpaths.Testdata("list-append", "*.edn"))
	rw, _ := filepath.Glob(testpaths.Testdata("rw-register", "*.edn"))
	files = append(files, rw...)
	if len(files) < 80 {
		t.Fatalf("only %d fixtures in testdata/list-append and testdata/rw-register", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			res, h := mustCheck(t, file, checkOpts(false))
			if res.Workload == "queue" {
				t.Skipf("detected as a queue history (no transactional micro-op)")
			}
			v := BuildView(res, h, ViewOptions{})
			checkTxnView(t, res, h, v)
			if err := WriteHTML(&bytes.Buffer{}, v); err != nil && err != ErrNoAssets {
				t.Fatal(err)
			}
		})
	}
}

// TestTxnViewWithoutHistory: without the history, the page still has the
// verdict, the models and every instance, with witness rows marked missing
// and an empty timeline.
func TestTxnViewWithoutHistory(t *testing.T) {
	res, _ := mustCheck(t, txnFixtures+"/g1c-with-incompatible-read-orders-invalid.edn", checkOpts(false))
	v := BuildView(res, nil, ViewOptions{})
	if v.Txn == nil || v.Verdict != "invalid" || len(v.Sections) != 2 || v.Txn.Timeline.Txns != 0 || len(v.Txn.Orders) != 0 ||
		!slices.Equal(v.Txn.Not, []string{"read-committed"}) {
		t.Fatalf("view without history: %+v", v)
	}
	for _, sec := range v.Sections {
		for _, in := range sec.Instances {
			for _, w := range in.Witness {
				if !w.Missing {
					t.Errorf("witness row %+v found without a history", w)
				}
			}
		}
	}
	if err := WriteHTML(&bytes.Buffer{}, v); err != nil && err != ErrNoAssets {
		t.Fatal(err)
	}
}

// TestTxnTimelineManyLanes: past txnview.MaxLanesShown processes the lanes get a
// slider.
func TestTxnTimelineManyLanes(t *testing.T) {
	res, h := checkText(t, "synthetic-list-append", synthListAppend(2000, txnview.MaxLanesShown+10, 4))
	v := BuildView(res, h, ViewOptions{MaxTxns: 500})
	o, _ := timelineBars(t, v.Txn.Timeline)
	if len(v.Txn.Timeline.Lanes) != txnview.MaxLanesShown+10 || len(o.DataZoom) != 3 {
		t.Errorf("%d lanes, %d data zooms", len(v.Txn.Timeline.Lanes), len(o.DataZoom))
	}
	want := "Transaction timeline: 500 of 2,000 transactions are drawn: 500 of 2,000, spread"
	if m := v.Txn.Timeline.Marked; m > 0 {
		want = fmt.Sprintf("Transaction timeline: 500 of 2,000 transactions are drawn: all %d that take part", m)
	}
	if !strings.Contains(strings.Join(v.Omissions, "\n"), want) {
		t.Errorf("omissions lack %q: %q", want, v.Omissions)
	}
}

// TestTxnTimelineCappedInstances: when instance lists are capped, the page
// says the timeline marks only the instances shown.
func TestTxnTimelineCappedInstances(t *testing.T) {
	res, h := checkText(t, "synthetic-list-append", synthListAppend(20_000, 10, 1))
	v := BuildView(res, h, ViewOptions{MaxInstances: 1})
	capped := slices.ContainsFunc(v.Sections, func(s page.Section) bool { return s.Shown < s.Count })
	noted := slices.Contains(v.Omissions, "Transaction timeline: only the transactions of the anomaly instances shown in detail are marked.")
	if !capped || !noted || len(v.Txn.Timeline.Marks) != len(v.Sections) {
		t.Errorf("capped %v, noted %v, %d marks for %d sections: %q", capped, noted, len(v.Txn.Timeline.Marks), len(v.Sections), v.Omissions)
	}
}
