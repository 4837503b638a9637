package queueview

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

// The two realtime lag charts, by key and by process, draw the same
// samples (res.Series.Lag: millions in a large history), grouped two ways.
// They are drawn together in two passes over the samples: the first finds
// what both need (the x range, the largest lag, each group's peak and
// count), the second puts each sample in its bucket of both charts. Groups
// are numbered densely (a key is its KeyID, a process its order of first
// sample, through model.ByProcess), so that a sample costs slice lookups:
// drawn one after the other in three passes each, with a map lookup per
// sample, the two took 1.1 s of CPU on the crash-heavy history of
// bench/bench.sh.

// lagGroup is what the lag charts need of one group of samples (a key, or
// a process): its worst lag and its number of samples.
type lagGroup struct {
	peak  int64
	count int
}

// lagSummary is what the first pass over the lag samples finds.
type lagSummary struct {
	lo, hi float64 // the samples' x range; 0, 0 with no samples
	maxLag int64
	keys   []lagGroup // by KeyID; count 0: the key has no samples
	procs  []lagGroup // by dense process number
	procID []int32    // the process of each dense number
	procOf model.ByProcess[int32]
}

// procNum is the dense number of process p, given one if it has none.
func (s *lagSummary) procNum(p int32) int32 {
	n, isNew := s.procOf.Ref(p)
	if isNew {
		*n = int32(len(s.procID))
		s.procID = append(s.procID, p)
		s.procs = append(s.procs, lagGroup{})
	}
	return *n
}

// summarizeLag is the first pass over the lag samples. Cost: O(samples).
func (b *builder) summarizeLag() *lagSummary {
	s := &lagSummary{lo: math.Inf(1), hi: math.Inf(-1)}
	add := func(g *lagGroup, lag int64) {
		if g.count == 0 || lag > g.peak {
			g.peak = lag
		}
		g.count++
	}
	for _, p := range b.Res.Series.Lag.All() {
		x := b.pointX(p.OpIndex, p.Time)
		s.lo, s.hi = min(s.lo, x), max(s.hi, x)
		s.maxLag = max(s.maxLag, p.LagNS)
		if k := int(p.Key); k >= len(s.keys) {
			s.keys = append(s.keys, make([]lagGroup, k+1-len(s.keys))...)
		}
		add(&s.keys[p.Key], p.LagNS)
		add(&s.procs[s.procNum(p.Process)], p.LagNS)
	}
	if b.Res.Series.Lag.Len() == 0 {
		s.lo, s.hi = 0, 0
	}
	return s
}

// lagCell is the worst sample of one series in one time bucket.
type lagCell struct {
	bucket float64
	at     int   // sample index of the worst lag
	lag    int64 // its lag
}

// lagPlan is one lag chart as planned from the summary: its series, and
// the cells the second pass fills.
type lagPlan struct {
	byKey    bool
	ch       page.Chart
	names    []string
	seriesOf []int // the series of each group (key or dense process)
	grid     int
	bucketed bool
	lo, hi   float64
	cells    [][]lagCell
}

// bucketOf is the bucket of a sample at x: x itself when not bucketed.
func (p *lagPlan) bucketOf(x float64) float64 {
	if !p.bucketed || p.hi <= p.lo {
		return x
	}
	return float64(min(p.grid-1, int(float64(p.grid)*(x-p.lo)/(p.hi-p.lo))))
}

// add offers sample i, at x in group g with lag lag, to its series' last
// cell, or starts a cell.
func (p *lagPlan) add(i int, x float64, g int, lag int64) {
	s := p.seriesOf[g]
	bk := p.bucketOf(x)
	cs := p.cells[s]
	if n := len(cs); n > 0 && cs[n-1].bucket == bk {
		if lag > cs[n-1].lag {
			cs[n-1].at, cs[n-1].lag = i, lag
		}
		return
	}
	p.cells[s] = append(cs, lagCell{bk, i, lag})
}

// lagCharts draws res.Series.Lag: the realtime lag of consumers by key and
// by process, each point the worst sample of its series in its time
// bucket (every sample when they fit).
func (b *builder) lagCharts(fr *page.Span) (byKey, byProcess page.Chart) {
	sum := b.summarizeLag()
	kp, pp := b.planLag(true, sum), b.planLag(false, sum)
	for i, p := range b.Res.Series.Lag.All() {
		x := b.pointX(p.OpIndex, p.Time)
		kp.add(i, x, int(p.Key), p.LagNS)
		pp.add(i, x, int(sum.procNum(p.Process)), p.LagNS)
	}
	return b.drawLag(kp, sum, fr), b.drawLag(pp, sum, fr)
}

// planLag lays out one lag chart: the groups with the highest peaks get a
// series each (rankSeries), the rest share one of their worst lag; each
// series gets a grid of buckets when it has more samples than fit. It adds
// to b.Omissions what the chart leaves out.
func (b *builder) planLag(byKey bool, sum *lagSummary) *lagPlan {
	p := &lagPlan{byKey: byKey, lo: sum.lo, hi: sum.hi,
		ch: page.Chart{ID: "chart-lag-process", Kind: "lag-process", Title: "Realtime lag per process (worst over its keys)",
			Dims: []string{b.Clock.AxisName(), "lag", "op", "key"}}}
	what, groups := "processes", sum.procs
	if byKey {
		p.ch = page.Chart{ID: "chart-lag-key", Kind: "lag-key", Title: "Realtime lag per key (worst over consumers)",
			Dims: []string{b.Clock.AxisName(), "lag", "op", "process"}}
		what, groups = "keys", sum.keys
	}
	group := func(g int) int64 { // a group's key or process
		if byKey {
			return int64(g)
		}
		return int64(sum.procID[g])
	}
	peak := map[int64]int64{}
	for g, lg := range groups {
		if lg.count > 0 {
			peak[group(g)] = lg.peak
		}
	}
	rank := rankSeries(peak, b.O.MaxSeries)
	nSeries := rank.n
	p.names = make([]string, nSeries)
	for i, g := range rank.groups[:rank.own] {
		if byKey {
			p.names[i] = "key " + b.KeyName(model.KeyID(g))
		} else {
			p.names[i] = "process " + strconv.FormatInt(g, 10)
		}
	}
	if nSeries > rank.own {
		p.names[rank.own] = fmt.Sprintf("%d other %s (worst)", rank.others(), what)
		b.Omissions = append(b.Omissions, fmt.Sprintf("%s: %d %s with lower peaks are merged into one series (their worst lag).", p.ch.Title, rank.others(), what))
	}
	p.seriesOf = make([]int, len(groups))
	perSeries := make([]int, nSeries)
	for g, lg := range groups {
		if lg.count > 0 {
			s := rank.of[group(g)]
			p.seriesOf[g] = s
			perSeries[s] += lg.count
		}
	}
	p.grid = min(b.O.MaxPoints, int(float64(b.O.MaxTotalPoints)*lagShare)/max(1, nSeries))
	p.bucketed = slices.Max(append(perSeries, 0)) > p.grid
	p.cells = make([][]lagCell, nSeries)
	if p.bucketed {
		p.ch.Note = fmt.Sprintf("Downsampled from %s samples: each point is the worst lag within %s %s.",
			page.Thousands(int64(b.Res.Series.Lag.Len())), page.Num((sum.hi-sum.lo)/float64(p.grid), b.Clock.Decimals), b.Clock.Unit)
		b.Omissions = append(b.Omissions, p.ch.Title+": "+p.ch.Note)
	}
	return p
}

// drawLag turns a filled plan into its chart: one line per series, a point
// per cell.
func (b *builder) drawLag(p *lagPlan, sum *lagSummary, fr *page.Span) page.Chart {
	samples := &b.Res.Series.Lag
	ch := p.ch
	lagUnit, lagScale := page.UnitFor(sum.maxLag)
	ch.Dims[1] = "lag (" + lagUnit + ")"
	d, ld := b.Clock.Decimals, page.DecimalsFor(float64(sum.maxLag)/lagScale)
	c := charts.NewLine()
	b.baseRect(&c.RectChart, ch.Dims[1], "item", false)
	for s, name := range p.names {
		data := make([]any, 0, len(p.cells[s]))
		for _, cl := range p.cells[s] {
			smp := samples.At(cl.at)
			var extra any = int64(smp.Process)
			if !p.byKey {
				extra = page.Elide(b.KeyName(smp.Key), 40)
			}
			data = append(data, []any{page.Num(b.pointX(smp.OpIndex, smp.Time), d), page.Num(float64(smp.LagNS)/lagScale, ld), smp.OpIndex, extra})
		}
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{
			Name: name, Type: "line", Data: data, ShowSymbol: opts.Bool(true), SymbolSize: 3,
			LineStyle: &opts.LineStyle{Width: 1.2},
		})
	}
	if len(p.names) == 0 {
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{Name: "no lag samples", Type: "line", Data: []any{}})
		ch.Note = "No ok poll was sampled: the history has no ok polls with times."
	}
	b.finalSeries(&c.RectChart, fr)
	ch.Option = page.JSONOption(c)
	ch.Series = len(c.MultiSeries)
	return ch
}
