// Package txnview is the transactional workloads' part of the HTML report
// (list-append, rw-register): the models checked and ruled out, a
// transaction timeline with the transactions of each anomaly marked,
// every anomaly instance with its micro-ops, cycles drawn with labelled
// edges, and each key's version order. Its Layout is what the workloads'
// registry entries (package workload) hold for the report.
package txnview

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

// Statuses of a transaction on the timeline (the fourth number of a bar's
// data), and their fills.
const (
	StatusOK = iota
	StatusInfo
	StatusFail
	StatusOpen
)

// StatusNames name the statuses in the timeline's legend.
var StatusNames = []string{"ok", "info", "fail", "never completed (info)"}
var txnColors = []string{"#4a90c2", "#e6a700", "#a9b0b7", "#f3d27a"}

// Size bounds of the transactional parts of the page.
const (
	// nodeMops is how many micro-ops a cycle node's label lists.
	nodeMops = 4
	// witnessMops is how many micro-ops a witness row lists.
	witnessMops = 12
	// barTextChars is where a timeline bar's tooltip text is elided.
	barTextChars = 90
	// readsContext is how many elements a ReadsView shows on each side
	// of the first difference.
	readsContext = 6
)

// txnView fills v with the transactional view of b.res.
func (b *builder) txnView(v *page.View) {
	v.Stats, v.Options = b.l.statFacts(b.Res), optionFacts(b.Res)
	tv := &page.TxnView{Models: page.NonNil(b.Res.Models), Not: page.NonNil(b.Res.Not), AlsoNot: page.NonNil(b.Res.AlsoNot),
		List: b.l.List}
	tv.Timeline = b.txnTimeline(v)
	tv.Orders, tv.OrdersTotal = b.orders()
	if len(tv.Orders) < tv.OrdersTotal {
		v.Omissions = append(v.Omissions, fmt.Sprintf("Version orders: %d of %s keys are listed (keys with anomalies first).",
			len(tv.Orders), page.Thousands(int64(tv.OrdersTotal))))
	}
	v.Txn = tv
	v.TimeUnit = b.tclock.unit
	v.Charts = append(v.Charts, tv.Timeline.Chart)
	v.Charts = append(v.Charts, b.CycleCharts...)
	v.Omissions = append(v.Omissions, b.Omissions...)
	v.Parts = page.Parts{
		Head:   []page.Part{{Template: "txn-models", Data: tv}},
		Nav:    []page.Link{{Anchor: "txn-timeline", Text: "transaction timeline"}, {Anchor: "orders", Text: "version orders"}},
		Body:   []page.Part{{Template: "txn-timeline", Data: tv}, {Template: "txn-anomalies", Data: v}, {Template: "txn-orders", Data: tv}},
		Script: &script{ID: tv.Timeline.ID, Axis: tv.Timeline.Axis, Lanes: tv.Timeline.Lanes, Colors: tv.Timeline.Colors, Marks: tv.Timeline.Marks},
	}
}

// script is what the page script needs to draw, explain and filter the
// transaction timeline (whose option is among the charts).
type script struct {
	ID     string         `json:"id"`
	Axis   string         `json:"axis"`
	Lanes  []string       `json:"lanes"`
	Colors []string       `json:"colors"`
	Marks  []page.TxnMark `json:"marks"`
}

func (l Layout) statFacts(res *analysis.Result) []page.Fact {
	s := res.Stats
	o := analysis.OwnOf[txn.Stats](s)
	n := func(x int64) string { return page.Thousands(x) }
	return []page.Fact{
		{Label: "ops", Value: n(s.Ops)},
		{Label: "transactions", Value: fmt.Sprintf("%s: %s ok, %s info, %s fail, %s never completed", n(o.Txns), n(s.OKOps), n(s.InfoOps), n(s.FailOps), n(s.OpenOps))},
		{Label: "keys", Value: n(s.Keys)},
		{Label: l.Unit + " (distinct, written or read)", Value: n(o.Messages)},
		{Label: "dependency graph", Value: fmt.Sprintf("%s %s, %s %s, %s", n(s.GraphVertices), catalog.Plural(s.GraphVertices, "transaction", "transactions"),
			n(s.GraphEdges), catalog.Plural(s.GraphEdges, "edge", "edges"), page.Cyclic(s.Components, s.LargestComponent, n, "transaction", "transactions"))},
		page.CheckTime(s.ElapsedMS),
	}
}

func optionFacts(res *analysis.Result) []page.Fact {
	facts := []page.Fact{}
	for _, m := range res.Models {
		facts = append(facts, page.Fact{Label: "--model", Value: m})
	}
	if len(res.Options.Anomalies) > 0 {
		facts = append(facts, page.Fact{Label: "--anomalies", Value: strings.Join(res.Options.Anomalies, ", ")})
	}
	return append(facts, page.Fact{Label: "--cycle-budget", Value: time.Duration(res.Options.CycleBudgetS * 1e9).String()})
}

// txnInstance adds to iv what a transactional instance shows beyond a
// queue's: its article's id, a cycle's explanation split into its first
// line and the chain of orders that follows, and the two reads of an
// incompatible order side by side.
func (b *builder) txnInstance(iv *page.InstanceView, typ string, ai analysis.Instance) {
	iv.ID = fmt.Sprintf("%s-%d", page.Anchor(typ), iv.N)
	in, ok := analysis.Full(ai).(*txn.Instance)
	if !ok {
		return
	}
	if in.CycleFields != nil && len(in.Steps) > 0 {
		lines := strings.Split(iv.Explanation, "\n")
		iv.Explanation = strings.TrimSpace(lines[0])
		for _, l := range lines[1:] {
			iv.Chain = append(iv.Chain, strings.TrimSpace(l))
		}
	}
	if e, ok := b.Describe(typ); ok && e.SideBySide && len(in.Values) == 2 && len(in.Ops) == 2 {
		iv.Reads = sideBySide(in.Ops, in.Values)
	}
}

// sideBySide sets two reads of a key side by side around the first
// element where they differ.
func sideBySide(ops []int64, lists []analysis.Value) *page.ReadsView {
	d := catalog.FirstDifference(lists[0], lists[1])
	longest := max(lists[0].Len(), lists[1].Len())
	lo, hi := max(0, d-readsContext), min(longest, d+readsContext+1)
	rv := &page.ReadsView{Diff: d}
	for i := lo; i < hi; i++ {
		rv.Indices = append(rv.Indices, i+1)
	}
	for r := range 2 {
		list := lists[r]
		n := list.Len()
		row := page.ReadsRow{Op: ops[r], Len: n, Before: min(lo, n), After: max(0, n-hi)}
		for i := lo; i < hi; i++ {
			c := page.ReadsCell{Diff: i == d}
			if i < n {
				c.Text = page.Elide(list.At(i).String(), 40)
			}
			row.Cells = append(row.Cells, c)
		}
		rv.Rows[r] = row
	}
	return rv
}

// mopTexts renders the micro-ops of the op at position pos, one string
// each (long reads shortened, each elided past chars), at most maxMops of
// them and then a count of the rest.
func (b *builder) mopTexts(pos, maxMops, chars int) []string {
	mops := b.Mops(pos)
	out := make([]string, 0, min(len(mops), maxMops+1))
	for i := range mops {
		if i == maxMops {
			out = append(out, fmt.Sprintf("… %d more micro-ops", len(mops)-maxMops))
			break
		}
		var sb strings.Builder
		b.WriteMop(&sb, &mops[i], chars*2)
		out = append(out, page.Elide(sb.String(), chars))
	}
	return out
}

// txnCycleChart draws a transactional cycle: each transaction a node
// showing its micro-ops, each step an arrow coloured by its relation and
// labelled with it, its key and values; tooltips say why each edge exists.
func (b *builder) txnCycleChart(typ string, n int, in analysis.Instance, steps []page.StepView) page.Chart {
	ch := page.Chart{ID: page.CycleID(typ, n), Kind: "cycle",
		Title: fmt.Sprintf("%s #%d: the cycle", typ, n)}
	name := func(idx int64) string { return fmt.Sprintf("op %d", idx) }
	var nodes []page.GraphNode
	addNode := func(idx int64) {
		head := name(idx)
		tip := []string{head}
		var mops []string
		if pos := b.Pos(idx); pos >= 0 {
			op := &b.H.Ops[pos]
			if op.Process >= 0 {
				head += fmt.Sprintf(" · process %d", op.Process)
			}
			tip[0] = head
			tip = append(tip, op.Type.String()+" "+b.FName(pos))
			if t := b.H.Time(pos); t != model.NoTime {
				tip = append(tip, "time "+time.Duration(t).String())
			}
			tip = append(tip, b.mopTexts(pos, witnessMops, 160)...)
			mops = b.mopTexts(pos, nodeMops, 30)
		}
		lines := append([]string{head}, mops...)
		width := 0
		for _, l := range lines {
			width = max(width, len([]rune(l)))
		}
		size := []int{min(max(width*7+18, 90), 260), len(lines)*15 + 14}
		nodes = append(nodes, page.GraphNode{Name: name(idx), Tip: tip, Symbol: "roundRect", SymbolSize: size,
			ItemStyle: &opts.ItemStyle{Color: "#fdf6e3", BorderColor: "#444444", BorderWidth: 1.5},
			Label: &opts.Label{Show: opts.Bool(true), Formatter: strings.Join(lines, "\n"), FontSize: 11, LineHeight: 15,
				Color: "#222222", FontFamily: "monospace"}})
	}
	for _, idx := range page.CycleOps(in) {
		addNode(idx)
	}
	var links []page.GraphLink
	for i, st := range steps {
		src := in.InstanceCycle().Steps[i]
		tip := []string{fmt.Sprintf("%s: op %d → op %d", st.Rel, st.From, st.To)}
		if len(src.Mops) == 2 {
			tip = append(tip, b.stepMop(st.From, src.Mops[0])+" → "+b.stepMop(st.To, src.Mops[1]))
		}
		tip = append(tip, st.Why)
		links = append(links, page.MarkContested(page.RelLink(name(st.From), name(st.To), st.Rel, edgeLabel(src, b.l.List), 12, tip), st.Contested))
	}
	ch.Option = page.GraphOption(typ, nodes, links)
	ch.Series = 1
	return ch
}

// stepMop renders micro-op i of the op with :index idx, or "?".
func (b *builder) stepMop(idx int64, i int) string {
	pos := b.Pos(idx)
	if pos < 0 {
		return "?"
	}
	mops := b.Mops(pos)
	if i < 0 || i >= len(mops) {
		return "?"
	}
	var sb strings.Builder
	b.WriteMop(&sb, &mops[i], 400)
	return page.Elide(sb.String(), 160)
}

// edgeLabel is a cycle edge's label: its relation, key and values
// ("ww :x 1→2", "wr :y 1", "rw :x []→3"); the initial state is [] in a
// list-append history (the empty list), nil in an rw-register one.
func edgeLabel(st analysis.Step, list bool) string {
	parts := []string{st.Rel}
	if st.Key != nil {
		parts = append(parts, page.Elide(st.Key.String(), 10))
	}
	short := func(v analysis.Value) string {
		if v.Kind == model.KNil && !v.IsList() {
			if list {
				return "[]"
			}
			return "nil"
		}
		return page.Elide(v.String(), 8)
	}
	switch {
	case len(st.Values) == 2:
		parts = append(parts, short(st.Values[0])+"→"+short(st.Values[1]))
	case st.Value != nil:
		parts = append(parts, short(*st.Value))
	case st.Process != nil:
		parts = append(parts, strconv.FormatInt(*st.Process, 10))
	}
	return strings.Join(parts, " ")
}

// txnClock places ops on the transaction timeline: by :time, measured from
// the first op, when every op has one, they never go backwards and not all
// are the same; by :index otherwise.
type txnClock struct {
	byIndex  bool
	t0       int64
	unit     string
	scale    float64
	decimals int
	axis     string
	end      float64
}

func newTxnClock(h *model.History) txnClock {
	byIndex := func(why string) txnClock {
		c := txnClock{byIndex: true, unit: "op", scale: 1, axis: "op index (" + why + ")"}
		for i := range h.Ops {
			c.end = max(c.end, float64(h.Index(i)))
		}
		return c
	}
	if h == nil || len(h.Ops) == 0 {
		return txnClock{byIndex: true, unit: "op", scale: 1, axis: "op index"}
	}
	t0, last := h.Time(0), int64(math.MinInt64)
	for i := range h.Ops {
		t := h.Time(i)
		switch {
		case t == model.NoTime:
			return byIndex(fmt.Sprintf("op %d has no :time", h.Index(i)))
		case t < last:
			return byIndex(fmt.Sprintf(":time goes backwards at op %d", h.Index(i)))
		}
		last = t
	}
	if last == t0 && len(h.Ops) > 1 {
		// a history written with one :time for all (elle's hand-made
		// ones have :time 0): a time axis would stack every bar at 0
		return byIndex(fmt.Sprintf("every op has :time %d", t0))
	}
	unit, scale := page.UnitFor(last - t0)
	c := txnClock{t0: t0, unit: unit, scale: scale, axis: "time (" + unit + ")"}
	if t0 != 0 {
		c.axis = "time (" + unit + " since op " + strconv.FormatInt(h.Index(0), 10) + ")"
	}
	c.end = float64(last-t0) / scale
	c.decimals = page.DecimalsFor(c.end)
	return c
}

// x is the place on the axis of the op at position pos of h.
func (c txnClock) x(h *model.History, pos int) float64 {
	if c.byIndex {
		return float64(h.Index(pos))
	}
	return float64(h.Time(pos)-c.t0) / c.scale
}

// txnBar is one transaction of the timeline.
type txnBar struct {
	inv, comp int32 // positions in h.Ops; comp is -1 for a txn never completed
	lane      int32
	status    int32
}

// barItem is a bar as the chart gets it: its numbers, its micro-ops as
// text for the tooltip, and the marks it is in.
type barItem struct {
	Value []any  `json:"value"`
	Text  string `json:"t"`
	Marks []int  `json:"m,omitempty"`
}

// txnTimeline builds the transaction timeline of the history, marking the
// transactions of every instance v shows (and setting those instances'
// Mark). Transactions past MaxTxns are sampled, evenly in history order,
// keeping every marked one. Cost: O(ops + witness ops of the shown
// instances).
func (b *builder) txnTimeline(v *page.View) page.TxnTimeline {
	b.tclock = newTxnClock(b.H)
	c := b.tclock
	tl := page.TxnTimeline{Chart: page.Chart{ID: "chart-txn-timeline", Kind: "txn-timeline", Title: "Transaction timeline",
		Dims: []string{c.axis}}, Axis: c.axis, Lanes: []string{}, Colors: txnColors, Marks: []page.TxnMark{}}
	if b.H == nil {
		tl.Option = page.JSONOption(charts.NewCustom())
		return tl
	}
	bars, barOf, procs := b.txnBars()
	for _, p := range procs {
		if p == model.AnonProcess {
			tl.Lanes = append(tl.Lanes, "no :process")
		} else {
			tl.Lanes = append(tl.Lanes, "process "+strconv.Itoa(int(p)))
		}
	}
	b.markTxns(v, &tl, bars, barOf)
	for _, sec := range v.Sections {
		if sec.Shown < sec.Count {
			b.Omissions = append(b.Omissions, "Transaction timeline: only the transactions of the anomaly instances shown in detail are marked.")
			break
		}
	}
	marked, keep := b.drawnTxns(&tl, bars, len(procs))
	tl.Txns, tl.Marked, tl.Drawn = len(bars), len(marked), len(marked)+len(keep)
	ch := b.txnChart(tl.Lanes, bars, marked, keep)
	tl.Option = page.JSONOption(ch)
	tl.Series = len(ch.MultiSeries)
	return tl
}

// txnBars lists the transactions of the history in order, each in the lane
// of its process, and the bar of each op (-1 for an op of none), and the
// processes in lane order. Cost: O(ops + p log p) for p processes.
func (b *builder) txnBars() (bars []txnBar, barOf []int32, procs []int32) {
	partner := b.Pairing().Partner // problems were reported when the history was checked
	barOf = make([]int32, len(b.H.Ops))
	// sized once: a million bars grown by append were copied about five
	// times over, each copy a move the collector had to wait for
	n := 0
	for i := range b.H.Ops {
		if op := &b.H.Ops[i]; op.Type == model.Invoke && op.IsClient() {
			n++
		}
	}
	bars = make([]txnBar, 0, n)
	var seen model.ByProcess[struct{}]
	for i := range b.H.Ops {
		barOf[i] = -1
		op := &b.H.Ops[i]
		if op.Type != model.Invoke || !op.IsClient() {
			continue
		}
		tb := txnBar{inv: int32(i), comp: int32(partner[i]), status: StatusOpen}
		if tb.comp >= 0 {
			switch b.H.Ops[tb.comp].Type {
			case model.OK:
				tb.status = StatusOK
			case model.Fail:
				tb.status = StatusFail
			default:
				tb.status = StatusInfo
			}
			barOf[tb.comp] = int32(len(bars))
		}
		barOf[i] = int32(len(bars))
		bars = append(bars, tb)
		if _, isNew := seen.Ref(op.Process); isNew {
			procs = append(procs, op.Process)
		}
	}
	slices.Sort(procs)
	for i := range bars {
		lane, _ := slices.BinarySearch(procs, b.H.Ops[bars[i].inv].Process)
		bars[i].lane = int32(lane)
	}
	return bars, barOf, procs
}

// barXs is where bar tb starts and ends on the timeline's axis; a
// transaction never completed lasts to the end.
func (b *builder) barXs(tb *txnBar) (float64, float64) {
	c := b.tclock
	x0 := c.x(b.H, int(tb.inv))
	if tb.comp < 0 {
		return x0, max(x0, c.end)
	}
	return x0, max(x0, c.x(b.H, int(tb.comp)))
}

// markTxns adds to tl a mark for each instance v shows, over the bars of
// its witness ops, and sets the instance's OnTimeline.
func (b *builder) markTxns(v *page.View, tl *page.TxnTimeline, bars []txnBar, barOf []int32) {
	b.barMarks = map[int][]int{}
	for si := range v.Sections {
		sec := &v.Sections[si]
		for ii := range sec.Instances {
			iv := &sec.Instances[ii]
			src := b.Res.Anomalies[sec.Type][iv.N-1]
			var ids []int
			for _, idx := range src.InstanceEvidence().Witness {
				if pos := b.Pos(idx); pos >= 0 && barOf[pos] >= 0 {
					ids = append(ids, int(barOf[pos]))
				}
			}
			slices.Sort(ids)
			ids = slices.Compact(ids)
			if len(ids) == 0 {
				continue
			}
			m := page.TxnMark{Label: fmt.Sprintf("%s #%d", sec.Type, iv.N), Target: iv.ID, Txns: len(ids),
				From: math.Inf(1), To: math.Inf(-1)}
			for _, id := range ids {
				x0, x1 := b.barXs(&bars[id])
				m.From, m.To = min(m.From, x0), max(m.To, x1)
				b.barMarks[id] = append(b.barMarks[id], len(tl.Marks))
			}
			iv.OnTimeline = true
			tl.Marks = append(tl.Marks, m)
		}
	}
}

// drawnTxns says which bars are drawn: every marked one, and of the others
// at most what MaxTxns leaves, sampled evenly over the lanes (which tl's
// note and the omissions then say).
func (b *builder) drawnTxns(tl *page.TxnTimeline, bars []txnBar, lanes int) (marked, keep []int) {
	for id := range b.barMarks {
		marked = append(marked, id)
	}
	slices.Sort(marked)
	others := make([]int, 0, len(bars)-len(marked))
	for i, m := 0, 0; i < len(bars); i++ {
		if m < len(marked) && marked[m] == i {
			m++
			continue
		}
		others = append(others, i)
	}
	keep = others
	if room := max(0, b.O.MaxTxns-len(marked)); len(others) > room {
		keep = sampleLanes(others, room, lanes, func(i int) int { return int(bars[i].lane) })
		how := fmt.Sprintf("%s of %s", page.Thousands(int64(len(keep))), page.Thousands(int64(len(others))))
		if len(marked) > 0 {
			how = fmt.Sprintf("all %s that take part in the anomalies shown, and %s of the other %s",
				page.Thousands(int64(len(marked))), page.Thousands(int64(len(keep))), page.Thousands(int64(len(others))))
		}
		b.Omissions = append(b.Omissions, fmt.Sprintf("Transaction timeline: %s of %s transactions are drawn: %s, spread evenly over each process's transactions (zoomed in, the gaps are the transactions left out).",
			page.Thousands(int64(len(marked)+len(keep))), page.Thousands(int64(len(bars))), how))
		tl.Note = fmt.Sprintf("Sampled: %s of %s transactions drawn; every transaction in an anomaly shown is drawn.",
			page.Thousands(int64(len(marked)+len(keep))), page.Thousands(int64(len(bars))))
	}
	return marked, keep
}

// txnChart is the timeline's chart: the kept bars a series per status,
// the marked ones a series of their own, one lane per process.
func (b *builder) txnChart(lanes []string, bars []txnBar, marked, keep []int) *charts.Custom {
	c := b.tclock
	item := func(id int) barItem {
		tb := &bars[id]
		x0, x1 := b.barXs(tb)
		comp := int64(-1)
		pos := int(tb.inv)
		if tb.comp >= 0 {
			comp, pos = b.H.Index(int(tb.comp)), int(tb.comp)
		}
		return barItem{
			Value: []any{page.Num(x0, c.decimals), page.Num(x1, c.decimals), int(tb.lane), int(tb.status), b.H.Index(int(tb.inv)), comp},
			Text:  page.Elide(strings.Join(b.mopTexts(pos, nodeMops*2, barTextChars), " "), barTextChars),
			Marks: b.barMarks[id],
		}
	}
	ch := charts.NewCustom()
	zooms := []opts.DataZoom{
		{Type: "inside", XAxisIndex: []int{0}, FilterMode: "weakFilter"},
		{Type: "slider", XAxisIndex: []int{0}, FilterMode: "weakFilter"},
	}
	if len(lanes) > MaxLanesShown {
		zooms = append(zooms, opts.DataZoom{Type: "slider", YAxisIndex: []int{0}, FilterMode: "weakFilter",
			Start: 0, End: float32(math.Round(100 * MaxLanesShown / float64(len(lanes))))})
	}
	lo, hi := page.NiceRange(0, c.end, 0)
	ch.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: c.axis, NameLocation: "middle", NameGap: 28,
			Min: page.Num(max(lo, 0), c.decimals+1), Max: page.Num(hi, c.decimals+1)}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: lanes, Inverse: opts.Bool(true)}),
		charts.WithDataZoomOpts(zooms...),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0"}),
		charts.WithGridOpts(opts.Grid{Left: "60", Right: "50", Top: "40", Bottom: "70", ContainLabel: opts.Bool(true)}),
	)
	series := func(name, color string, ids []int) {
		data := make([]any, len(ids))
		for i, id := range ids {
			data[i] = item(id)
		}
		ch.MultiSeries = append(ch.MultiSeries, charts.SingleSeries{Name: name, Type: "custom", Data: data,
			ItemStyle: &opts.ItemStyle{Color: color}, Encode: &opts.Encode{X: []int{0, 1}, Y: 2}})
	}
	byStatus := make([][]int, len(StatusNames))
	for _, id := range keep {
		byStatus[bars[id].status] = append(byStatus[bars[id].status], id)
	}
	for s, ids := range byStatus {
		if len(ids) > 0 || s < StatusOpen {
			series(StatusNames[s], txnColors[s], ids)
		}
	}
	if len(marked) > 0 {
		series("in an anomaly", "#d62728", marked)
	}
	return ch
}

// sampleLanes picks about n of ids (in order), each lane keeping a share
// of n in proportion to its own ids, spread evenly over them. Sampling
// each lane on its own keeps the density even: one stride over all ids
// would alias with processes that take turns. lane gives an id's lane, in
// [0, lanes). The result is in the order of ids. Cost: O(len(ids)).
func sampleLanes(ids []int, n, lanes int, lane func(int) int) []int {
	// each lane's ids, counted first so that each slice is made once
	count := make([]int, lanes)
	for _, id := range ids {
		count[lane(id)]++
	}
	per := make([][]int, lanes)
	for l, n := range count {
		per[l] = make([]int, 0, n)
	}
	for _, id := range ids {
		per[lane(id)] = append(per[lane(id)], id)
	}
	out := make([]int, 0, n)
	taken := 0 // ids of the lanes before this one, for the quotas' rounding
	for li, l := range per {
		q := (taken+len(l))*n/len(ids) - taken*n/len(ids)
		taken += len(l)
		// each lane starts at its own phase, so the lanes' picks do not
		// all fall on the same stretches of time either
		phase := li * len(l) / lanes
		for j := range q {
			out = append(out, l[(j*len(l)+phase)/q])
		}
	}
	slices.Sort(out)
	return out
}

// MaxLanesShown is how many lanes the timeline shows before its lane
// slider scrolls.
const MaxLanesShown = 40

// orders lists the keys' version orders, keys with anomalies first, then
// by key; at most MaxKeys, and the number of keys with an order:
// list-append's lists (Series.Orders), or rw-register's partial orders
// (Series.Versions), each edge with the source that established it.
func (b *builder) orders() ([]page.OrderView, int) {
	type keyOrder struct {
		key  model.KeyID
		view func(anomalies int) page.OrderView
	}
	var src []keyOrder
	if b.H != nil {
		for i := range b.Res.Series.Orders {
			ko := &b.Res.Series.Orders[i]
			src = append(src, keyOrder{ko.Key, func(n int) page.OrderView {
				var sb strings.Builder
				page.WriteList(&sb, len(ko.Elems), 10, 5, 4*b.O.MaxValueChars, func(j int) string {
					return page.Elide(b.H.MsgValue(ko.Elems[j]).String(), 40)
				})
				return page.OrderView{Key: b.KeyName(ko.Key), Len: len(ko.Elems), Order: sb.String(), From: ko.From, Anomalies: n}
			}})
		}
		for i := range b.Res.Series.Versions {
			kv := &b.Res.Series.Versions[i]
			src = append(src, keyOrder{kv.Key, func(n int) page.OrderView {
				var sb strings.Builder
				page.WriteListSep(&sb, "; ", len(kv.Edges), 8, 4, 4*b.O.MaxValueChars, func(j int) string {
					return b.versionEdge(&kv.Edges[j])
				})
				return page.OrderView{Key: b.KeyName(kv.Key), Len: len(kv.Edges), Order: sb.String(), From: -1, Anomalies: n, Partial: true}
			}})
		}
	}
	if len(src) == 0 {
		return []page.OrderView{}, 0
	}
	anomalies := make([]int, len(b.H.Keys))
	for _, typ := range b.Res.AnomalyTypes {
		for _, in := range b.Res.Anomalies[typ] {
			var keys []model.KeyID
			if k, ok := b.Key(in.InstanceKey()); ok {
				keys = append(keys, k)
			}
			if cyc := in.InstanceCycle(); cyc != nil {
				for _, st := range cyc.Steps {
					if k, ok := b.Key(st.Key); ok {
						keys = append(keys, k)
					}
				}
			}
			slices.Sort(keys)
			for _, k := range slices.Compact(keys) {
				anomalies[k]++
			}
		}
	}
	slices.SortStableFunc(src, func(x, y keyOrder) int {
		return b.CompareKeys(x.key, y.key, anomalies[x.key] > 0, anomalies[y.key] > 0)
	})
	total := len(src)
	if len(src) > b.O.MaxKeys {
		src = src[:b.O.MaxKeys]
	}
	out := make([]page.OrderView, 0, len(src))
	for _, ko := range src {
		out = append(out, ko.view(anomalies[ko.key]))
	}
	return out, total
}

// versionEdge renders one edge of an rw-register version order: "1 < 2
// (wfr-keys: op 12)"; nil is the initial state.
func (b *builder) versionEdge(e *analysis.VersionEdge) string {
	val := func(m model.MsgID) string {
		if m == model.NoMsg {
			return "nil"
		}
		return page.Elide(b.H.MsgValue(m).String(), 40)
	}
	why := e.By
	if len(e.Ops) > 0 {
		ops := make([]string, len(e.Ops))
		for i, o := range e.Ops {
			ops[i] = fmt.Sprint(o)
		}
		why += ": op " + strings.Join(ops, ", op ")
	}
	return val(e.From) + " < " + val(e.To) + " (" + why + ")"
}
