package queueview

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

// Shares of ViewOptions.MaxTotalPoints each chart family may use.
const (
	timelineShare = 0.6
	unseenShare   = 0.15
	lagShare      = 0.125 // each of the two lag charts
)

// minMax reduces the points of one series, in order, to at most n: the
// first and the last, and from each of (n-2)/2 equal runs of the rest, the
// point with the lowest and the one with the highest y, in their original
// order. Extremes survive, so spikes, gaps and drops stay visible. y gives
// a point's value. Cost: O(len(pts)).
func minMax[T any](pts []T, n int, y func(*T) float64) []T {
	if len(pts) <= n || n < 4 {
		if len(pts) > n {
			return append(pts[:0:0], pts[0], pts[len(pts)-1])
		}
		return pts
	}
	out := make([]T, 0, n)
	out = append(out, pts[0])
	inner := pts[1 : len(pts)-1]
	buckets := (n - 2) / 2
	for bi := range buckets {
		lo, hi := bi*len(inner)/buckets, (bi+1)*len(inner)/buckets
		if lo >= hi {
			continue
		}
		mi, ma := lo, lo
		for i := lo + 1; i < hi; i++ {
			v := y(&inner[i])
			if v < y(&inner[mi]) {
				mi = i
			}
			if v > y(&inner[ma]) {
				ma = i
			}
		}
		switch {
		case mi == ma:
			out = append(out, inner[mi])
		case mi < ma:
			out = append(out, inner[mi], inner[ma])
		default:
			out = append(out, inner[ma], inner[mi])
		}
	}
	return append(out, pts[len(pts)-1])
}

// allocate shares budget points among series of the given sizes, at most
// maxPer each and at least min(size, floor) each: small series keep all
// their points and what they leave goes to the larger ones (water
// filling). Cost: O(s log s) for s series.
func allocate(sizes []int, budget, maxPer, floor int) []int {
	out := make([]int, len(sizes))
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[a], sizes[b]) })
	left := budget
	for j, i := range order {
		fair := left / max(1, len(order)-j)
		n := min(sizes[i], maxPer, max(fair, floor))
		out[i] = n
		left -= n
	}
	return out
}

// seriesRank says which groups (keys or processes) of a chart get a series
// of their own: the MaxSeries groups with the highest peaks (ties by
// group), or every group when only one would be left over; the others
// share one last series.
type seriesRank[G cmp.Ordered] struct {
	groups []G       // every group, highest peak first
	of     map[G]int // a group's series
	own    int       // how many groups have a series of their own
	n      int       // how many series: own, and one for the others if any
}

// rankSeries ranks the groups of peak for a chart of at most maxSeries
// series of their own. Cost: O(g log g) for g groups.
func rankSeries[G, P cmp.Ordered](peak map[G]P, maxSeries int) seriesRank[G] {
	groups := make([]G, 0, len(peak))
	for g := range peak {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, c G) int {
		if d := cmp.Compare(peak[c], peak[a]); d != 0 {
			return d
		}
		return cmp.Compare(a, c)
	})
	own := min(len(groups), maxSeries)
	if len(groups) == maxSeries+1 {
		own = len(groups)
	}
	of := make(map[G]int, len(groups))
	for i, g := range groups {
		of[g] = min(i, own)
	}
	n := own
	if len(groups) > own {
		n++
	}
	return seriesRank[G]{groups: groups, of: of, own: own, n: n}
}

// others is how many groups share the last series.
func (p *seriesRank[G]) others() int { return len(p.groups) - p.own }

// pointX is the x of a series point taken at op opIndex, invoked at time t.
func (b *builder) pointX(opIndex, t int64) float64 {
	if b.Clock.Unit == "op" {
		return float64(opIndex)
	}
	return b.Clock.NS(t)
}

// baseRect sets what every chart on a time axis shares: axes, zoom and
// pan, tooltip, a scrolling legend.
// integral y axes (offsets, counts) get no fractional ticks.
// An offset timeline (offsets set) fits both axes to its key's data;
// the other charts' time axes start at the start of the test.
func (b *builder) baseRect(c *charts.RectChart, yName string, trigger string, offsets bool) {
	y := opts.YAxis{Type: "value", Name: yName}
	x := opts.XAxis{Type: "value", Name: b.Clock.AxisName(), NameLocation: "middle", NameGap: 28, Min: 0}
	if offsets { // keyTimeline sets the ranges
		y.MinInterval = 1
	}
	c.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithXAxisOpts(x),
		charts.WithYAxisOpts(y),
		charts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: []int{0}, FilterMode: "none"},
			opts.DataZoom{Type: "slider", XAxisIndex: []int{0}, FilterMode: "none"},
			opts.DataZoom{Type: "slider", YAxisIndex: []int{0}, FilterMode: "none"},
		),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "0"}),
		charts.WithGridOpts(opts.Grid{Left: "60", Right: "50", Top: "48", Bottom: "70", ContainLabel: opts.Bool(true)}),
	)
}

// finalReads tells the final-read phase: from the last ok send to the last
// ok poll completed after it. Nil when no ok poll follows the last ok send.
func (b *builder) finalReads() *page.Span {
	if b.H == nil {
		return nil
	}
	lastSend, lastPoll := -1, -1 // positions
	for i := range b.H.Ops {
		op := &b.H.Ops[i]
		if op.Type != model.OK || !op.IsClient() {
			continue
		}
		if _, ok := b.Clock.X(b.H, i); !ok {
			continue
		}
		for _, m := range b.H.MopsOf(op) {
			if m.Kind == model.MopSend && m.Done {
				lastSend = i
			}
			if m.Kind == model.MopPoll && m.Done {
				lastPoll = i
			}
		}
	}
	if lastSend < 0 || lastPoll < 0 {
		return nil
	}
	sendIdx, pollIdx := b.H.Index(lastSend), b.H.Index(lastPoll)
	from, _ := b.Clock.X(b.H, lastSend)
	to, _ := b.Clock.X(b.H, lastPoll)
	if to <= from {
		return nil
	}
	return &page.Span{From: from, To: to, Label: fmt.Sprintf("final reads: after the last ok send (op %d) to the last ok poll (op %d)", sendIdx, pollIdx)}
}

// finalSeries adds an empty series carrying the final-read phase as a mark
// area, so the legend can hide it.
func (b *builder) finalSeries(c *charts.RectChart, fr *page.Span) {
	if fr == nil {
		return
	}
	d := b.Clock.Decimals
	// The band goes under the series; the line at its start, labelled,
	// stays visible over stacked areas.
	c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{
		Name: "final-read phase", Type: "line", Data: []any{},
		ItemStyle: &opts.ItemStyle{Color: "#888888"},
		MarkAreas: &opts.MarkAreas{
			Data: []interface{}{[]opts.MarkAreaData{{Name: "final reads", XAxis: page.Num(fr.From, d)}, {XAxis: page.Num(fr.To, d)}}},
			MarkAreaStyle: opts.MarkAreaStyle{
				ItemStyle: &opts.ItemStyle{Color: "rgba(120,120,120,0.12)"},
				Label:     &opts.Label{Show: opts.Bool(false)},
			},
		},
		MarkLines: &opts.MarkLines{
			Data: []interface{}{opts.MarkLineNameXAxisItem{Name: "final reads →", XAxis: page.Num(fr.From, d)}},
			MarkLineStyle: opts.MarkLineStyle{
				Symbol:    []string{"none", "none"},
				Label:     &opts.Label{Show: opts.Bool(true), Position: "insideEndTop", Formatter: "final reads →", Color: "#555555"},
				LineStyle: &opts.LineStyle{Color: "#777777", Type: "dashed", Width: 1.5},
			},
		},
	})
}

// seriesCharts are the queue's three charts of its series, each drawn in
// its own place of the "queue-series" template: the unseen chart in its
// section, the two realtime lag charts, by key and by process, in theirs.
type seriesCharts struct {
	Unseen, LagKey, LagProcess page.Chart
}

// unseenKind is the unseen chart's kind, the id of its section and the
// name of its count axis (names the page script and the page's navigation
// know).
const unseenKind = "unseen"

// unseenChart draws res.Series.Unseen: per key, how many acknowledged
// values no ok poll had read yet, stacked.
func (b *builder) unseenChart(fr *page.Span) page.Chart {
	ch := page.Chart{ID: "chart-unseen", Kind: unseenKind, Title: "Unseen acknowledged values over time, per key (stacked)",
		Dims: []string{b.Clock.AxisName(), "stacked", unseenKind}}
	// series: the keys with the highest peaks, the rest summed
	peak := map[model.KeyID]int32{}
	for _, p := range b.Res.Series.Unseen.All() {
		peak[p.Key] = max(peak[p.Key], p.Count)
	}
	rank := rankSeries(peak, b.O.MaxSeries)
	nSeries := rank.n
	names := make([]string, nSeries)
	for i := range rank.own {
		names[i] = "key " + b.KeyName(rank.groups[i])
	}
	if nSeries > rank.own {
		names[rank.own] = fmt.Sprintf("%d other keys", rank.others())
		b.Omissions = append(b.Omissions, fmt.Sprintf("Unseen chart: %d keys with lower peaks are summed into one series.", rank.others()))
	}
	data := b.unseenData(&ch, &rank)
	c := charts.NewLine()
	b.baseRect(&c.RectChart, "unseen values", "axis", false)
	// The top of the stack first: each area fills down to zero, and the
	// series below paint over it. The legend lists keys bottom up.
	legend := make([]string, nSeries)
	for s := nSeries - 1; s >= 0; s-- {
		legend[s] = names[s]
		color := palette[s%len(palette)]
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{
			Name: names[s], Type: "line", Step: "end", Data: data[s], ShowSymbol: opts.Bool(false),
			ItemStyle: &opts.ItemStyle{Color: color},
			AreaStyle: &opts.AreaStyle{Color: color, Opacity: opts.Float(0.8)},
			LineStyle: &opts.LineStyle{Width: 1, Color: color},
		})
	}
	if nSeries == 0 {
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{Name: "no unseen values", Type: "line", Data: []any{}})
		ch.Note = "No ok send went unread at any time, or the history has no ok sends."
	}
	b.finalSeries(&c.RectChart, fr)
	if nSeries > 0 && fr != nil {
		legend = append(legend, "final-read phase")
	}
	if nSeries > 0 {
		c.Legend.Data = legend
	}
	ch.Option = page.JSONOption(c)
	ch.Series = len(c.MultiSeries)
	return ch
}

// unseenData is the points of each series of the unseen chart, stacked:
// exact, one point per time a count changed, or with too many changes one
// point per time bucket (the largest count in it), which ch's note then
// says. Cost: O(points + series × points drawn).
func (b *builder) unseenData(ch *page.Chart, rank *seriesRank[model.KeyID]) [][]any {
	pts := &b.Res.Series.Unseen
	nSeries := rank.n
	xs := make([]float64, pts.Len())
	for i, p := range pts.All() {
		xs[i] = b.pointX(p.OpIndex, p.Time)
	}
	distinct := 0
	for i := range xs {
		if i == 0 || xs[i] != xs[i-1] {
			distinct++
		}
	}
	grid := min(b.O.MaxPoints, int(float64(b.O.MaxTotalPoints)*unseenShare)/max(1, nSeries))
	bucketed := distinct+1 > grid
	var lo, hi float64
	if len(xs) > 0 {
		lo, hi = slices.Min(xs), slices.Max(xs)
	}
	bucketOf := func(x float64) int {
		if hi <= lo {
			return 0
		}
		return min(grid-2, int(float64(grid-1)*(x-lo)/(hi-lo)))
	}
	data := make([][]any, nSeries)
	cur := make([]int64, nSeries)
	bmax := make([]int64, nSeries)
	last := map[model.KeyID]int32{}
	d := b.Clock.Decimals
	// Series are stacked here, not by ECharts (whose stacking on a value
	// axis pairs points by x and breaks steps): a point is [x, the sum of
	// this series and those below it, this series' own count].
	emit := func(x float64, vs []int64) {
		sum := int64(0)
		for s := range nSeries {
			sum += vs[s]
			data[s] = append(data[s], []any{page.Num(x, d), sum, vs[s]})
		}
	}
	n := pts.Len()
	for i, p := range pts.All() {
		s := rank.of[p.Key]
		cur[s] += int64(p.Count - last[p.Key])
		last[p.Key] = p.Count
		bmax[s] = max(bmax[s], cur[s])
		if !bucketed {
			if i+1 == n || xs[i+1] != xs[i] {
				emit(xs[i], cur)
			}
			continue
		}
		if i+1 == n || bucketOf(xs[i+1]) != bucketOf(xs[i]) {
			bx := xs[i]
			if hi > lo {
				bx = lo + (hi-lo)*float64(bucketOf(xs[i])+1)/float64(grid-1)
			}
			emit(bx, bmax)
			copy(bmax, cur)
		}
	}
	if n > 0 && b.Clock.End > xs[len(xs)-1] {
		emit(b.Clock.End, cur) // the counts stay until the history ends
	}
	if bucketed {
		w := (hi - lo) / float64(grid)
		ch.Note = fmt.Sprintf("Downsampled from %s changes to %d points per key: each point is the largest count within %s %s.",
			page.Thousands(int64(n)), grid, page.Num(w, d), b.Clock.Unit)
		b.Omissions = append(b.Omissions, "Unseen chart: "+ch.Note)
	}
	return data
}

// palette colours the series of the unseen chart, bottom up (ECharts'
// default palette).
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}
