package abortview

import (
	"encoding/json"
	"fmt"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/abort"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

// Bounds of the poll charts: a page stays small on a history of millions
// of polls; what is cut is said in the chart's note.
const (
	maxTopicCharts = 16   // topics drawn, in order of first poll
	maxChartPolls  = 3000 // polls drawn per topic, the first in history order
	maxChartPairs  = 300  // pair arrows drawn per topic
)

// outcomeColor is the fill of a poll of each outcome (abort.Outcomes).
var outcomeColor = map[string]string{abort.Committed: "#2ca02c", abort.Aborted: "#d62728", abort.Unknown: "#ff7f0e"}

// topicPolls is one topic's chart in the making.
type topicPolls struct {
	topic  model.KeyID
	polls  []abort.Poll
	cut    int // polls left out
	x      map[int64]int
	arrows []any // the pairs drawn (pairArrows)
	pcut   int   // pairs left out
}

// pollCharts draws one chart per topic: its polls as offset ranges by
// outcome, rebalances marked, the pairs of the result's instances as
// arrows labelled by class.
func pollCharts(b *page.Builder) []page.Chart {
	var topics []*topicPolls
	byTopic := map[model.KeyID]*topicPolls{}
	for p := range abort.Polls(b.H, *b.Pairing()) {
		if !p.HasTopic {
			continue
		}
		t := byTopic[p.Topic]
		if t == nil {
			t = &topicPolls{topic: p.Topic, x: map[int64]int{}}
			byTopic[p.Topic] = t
			topics = append(topics, t)
		}
		if len(t.polls) == maxChartPolls {
			t.cut++
			continue
		}
		t.x[p.Op] = len(t.polls)
		t.polls = append(t.polls, p)
	}
	if len(topics) > maxTopicCharts {
		b.Omissions = append(b.Omissions, fmt.Sprintf("Polls: charts of the first %d of %d topics.", maxTopicCharts, len(topics)))
		topics = topics[:maxTopicCharts]
	}
	pairArrows(b.Res, topics)
	var charts []page.Chart
	for i, t := range topics {
		charts = append(charts, t.chart(b, i))
	}
	return charts
}

// chart is topic t's chart, the i-th.
func (t *topicPolls) chart(b *page.Builder, i int) page.Chart {
	n := len(t.polls)
	cats := make([]string, n)
	base := make([]any, n)
	bars := map[string][]any{}
	for _, o := range abort.Outcomes {
		bars[o] = make([]any, n)
	}
	var rebalances [][2]int64
	for j, p := range t.polls {
		cats[j] = fmt.Sprintf("op %d", p.Op)
		base[j] = "-"
		for _, o := range abort.Outcomes {
			bars[o][j] = "-"
		}
		var lo int64
		if len(p.Offsets) > 0 {
			var hi int64
			lo, hi = minMax(p.Offsets)
			base[j] = lo
			bars[p.Outcome][j] = map[string]any{"value": hi - lo + 1, "tip": []string{
				fmt.Sprintf("op %d · process %d · %s", p.Op, p.Process, p.Outcome),
				fmt.Sprintf("offsets %d to %d (%d read)", lo, hi, len(p.Offsets)),
			}}
		}
		if p.Rebalance {
			rebalances = append(rebalances, [2]int64{int64(j), lo})
		}
	}
	series := []any{map[string]any{"name": "base", "type": "bar", "stack": "polls", "data": base, "silent": true,
		"itemStyle": map[string]any{"color": "transparent"}, "tooltip": map[string]any{"show": false}}}
	for _, o := range abort.Outcomes {
		series = append(series, map[string]any{"name": o, "type": "bar", "stack": "polls", "data": bars[o],
			"itemStyle": map[string]any{"color": outcomeColor[o]}, "barMinHeight": 2})
	}
	reb := make([]any, len(rebalances))
	for j, r := range rebalances {
		reb[j] = map[string]any{"value": []int64{r[0], r[1]}, "tip": []string{"a rebalance was logged with " + cats[r[0]]}}
	}
	series = append(series, map[string]any{"name": "rebalance", "type": "scatter", "symbol": "triangle", "symbolSize": 11,
		"data": reb, "itemStyle": map[string]any{"color": "#1f77b4"}})
	arrows, cut := t.arrows, t.pcut
	series = append(series, map[string]any{"name": "pairs", "type": "line", "data": []any{},
		"markLine": map[string]any{"symbol": []string{"none", "arrow"}, "data": arrows,
			"lineStyle": map[string]any{"color": "#555", "type": "solid"}, "label": map[string]any{"show": true}}})
	opt := map[string]any{
		"animation": false,
		"legend":    map[string]any{"top": 0, "data": append(append([]string{}, abort.Outcomes...), "rebalance", "pairs")},
		"grid":      map[string]any{"left": 60, "right": 24, "top": 36, "bottom": 72},
		"tooltip":   map[string]any{"trigger": "item"},
		"xAxis":     map[string]any{"type": "category", "data": cats, "name": "polls in history order", "nameLocation": "middle", "nameGap": 28},
		"yAxis":     map[string]any{"type": "value", "name": "offset", "scale": true},
		"dataZoom":  []any{map[string]any{"type": "inside"}, map[string]any{"type": "slider", "bottom": 8}},
		"series":    series,
	}
	raw, err := json.Marshal(opt)
	if err != nil {
		raw = json.RawMessage(`{}`)
	}
	c := page.Chart{ID: fmt.Sprintf("chart-polls-%d", i), Kind: "polls", Title: "topic " + b.KeyName(t.topic),
		Option: raw, Series: len(series)}
	var notes []string
	if t.cut > 0 {
		notes = append(notes, fmt.Sprintf("the first %d of %d polls", n, n+t.cut))
	}
	if cut > 0 {
		notes = append(notes, fmt.Sprintf("the first %d of %d pairs named by anomalies", maxChartPairs, maxChartPairs+cut))
	}
	if len(notes) > 0 {
		c.Note = "Showing " + notes[0]
		if len(notes) > 1 {
			c.Note += " and " + notes[1]
		}
		c.Note += "."
	}
	return c
}

// pairArrows gives each topic's chart the pairs of res's instances drawn
// on it (both P's and N's completions among its polls), each an arrow from
// P's last offset to N's first, labelled by its class: the first
// maxChartPairs in type and instance order, the rest counted. One pass
// over the instances, whatever the number of topics.
func pairArrows(res *analysis.Result, topics []*topicPolls) {
	type place struct{ t, x int }
	at := map[int64]place{} // a drawn poll's completion: its chart and place
	for ti, t := range topics {
		for op, x := range t.x {
			at[op] = place{ti, x}
		}
	}
	for _, typ := range res.AnomalyTypes {
		for _, in := range res.Anomalies[typ] {
			pOp, nOp, pLast, nFirst, class, ok := abort.PairEnds(in)
			if !ok {
				continue
			}
			p, okP := at[pOp]
			n, okN := at[nOp]
			if !okP || !okN || p.t != n.t {
				continue
			}
			t := topics[p.t]
			if len(t.arrows) == maxChartPairs {
				t.pcut++
				continue
			}
			t.arrows = append(t.arrows, []any{
				map[string]any{"coord": []any{p.x, pLast}, "name": typ},
				map[string]any{"coord": []any{n.x, nFirst}, "label": map[string]any{"formatter": class}},
			})
		}
	}
}

// minMax returns the smallest and largest of offs (not empty).
func minMax(offs []int64) (lo, hi int64) {
	lo, hi = offs[0], offs[0]
	for _, o := range offs[1:] {
		lo, hi = min(lo, o), max(hi, o)
	}
	return lo, hi
}
