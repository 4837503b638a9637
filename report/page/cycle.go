package page

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// GraphNode is a node of a cycle drawing; Tip holds the lines of its
// tooltip, which the page sets as text.
type GraphNode struct {
	Name       string          `json:"name"`
	X          float64         `json:"x"`
	Y          float64         `json:"y"`
	Tip        []string        `json:"tip"`
	Symbol     string          `json:"symbol"`
	SymbolSize []int           `json:"symbolSize"`
	ItemStyle  *opts.ItemStyle `json:"itemStyle,omitempty"`
	Label      *opts.Label     `json:"label,omitempty"`
}

// GraphLink is an edge of a cycle drawing, labelled with its relation.
type GraphLink struct {
	Source    string          `json:"source"`
	Target    string          `json:"target"`
	Tip       []string        `json:"tip"`
	Label     *opts.EdgeLabel `json:"label"`
	LineStyle *opts.LineStyle `json:"lineStyle"`
}

var relColor = map[string]string{
	"wr": "#1f77b4", "ww": "#ff7f0e", "rw": "#d62728", "process": "#2ca02c", "realtime": "#9467bd",
}

// CycleChart draws one cycle: its ops as nodes around a circle, its steps
// as arrows labelled wr, ww, process or realtime, each with the sentence
// that says why the edge exists as its tooltip.
func (b *Builder) CycleChart(typ string, n int, in analysis.Instance, steps []StepView) Chart {
	ch := Chart{ID: CycleID(typ, n), Kind: "cycle",
		Title: fmt.Sprintf("%s #%d: the cycle", typ, n)}
	name := func(idx int64) string {
		if op := b.Op(idx); op != nil && op.Process != model.NoProcess {
			return fmt.Sprintf("op %d · p%d", idx, op.Process)
		}
		return fmt.Sprintf("op %d", idx)
	}
	var nodes []GraphNode
	addNode := func(idx int64) {
		tip := []string{fmt.Sprintf("op %d", idx)}
		if pos := b.Pos(idx); pos >= 0 {
			op := &b.H.Ops[pos]
			tip = append(tip, fmt.Sprintf("process %d · %s %s", op.Process, op.Type, b.FName(pos)))
			if t := b.H.Time(pos); t != model.NoTime {
				tip = append(tip, "time "+time.Duration(t).String())
			}
			tip = append(tip, "value "+Elide(b.OpValue(pos), 160))
		}
		label := fmt.Sprintf("op %d", idx)
		if op := b.Op(idx); op != nil && op.Process != model.NoProcess {
			label += fmt.Sprintf("\nprocess %d", op.Process)
		}
		nodes = append(nodes, GraphNode{Name: name(idx), Tip: tip, Symbol: "roundRect", SymbolSize: []int{84, 44},
			ItemStyle: &opts.ItemStyle{Color: "#fdf6e3", BorderColor: "#444444", BorderWidth: 1.5},
			Label:     &opts.Label{Show: opts.Bool(true), Formatter: label, FontSize: 12, LineHeight: 16, Color: "#222222"}})
	}
	for _, idx := range CycleOps(in) {
		addNode(idx)
	}
	var links []GraphLink
	for _, st := range steps {
		links = append(links, MarkContested(RelLink(name(st.From), name(st.To), st.Rel, st.Rel, 14,
			[]string{fmt.Sprintf("%s: op %d → op %d", st.Rel, st.From, st.To), st.Why}), st.Contested))
	}
	ch.Option = GraphOption(typ, nodes, links)
	ch.Series = 1
	return ch
}

// CycleOps are the ops a cycle drawing shows, once each: the cycle's, then
// any other its steps name, in order.
func CycleOps(ai analysis.Instance) []int64 {
	in := ai.InstanceCycle()
	if in == nil {
		return nil
	}
	var ops []int64
	seen := map[int64]bool{}
	add := func(idx int64) {
		if !seen[idx] {
			seen[idx] = true
			ops = append(ops, idx)
		}
	}
	for _, idx := range in.Cycle {
		add(idx)
	}
	for _, st := range in.Steps {
		add(st.From)
		add(st.To)
	}
	return ops
}

// RelColor is the colour of the edges of a relation (wr, ww, rw,
// process, realtime; the first of a combined "a+b").
func RelColor(rel string) string {
	if c := relColor[strings.Split(rel, "+")[0]]; c != "" {
		return c
	}
	return "#444444"
}

// RelLink is an edge of a cycle drawing from source to target, coloured
// by its relation (wr, ww, rw, process, realtime; the first of a combined
// "a+b"), labelled label in fontSize points, tip as its tooltip.
func RelLink(source, target, rel, label string, fontSize float32, tip []string) GraphLink {
	color := RelColor(rel)
	return GraphLink{
		Source: source, Target: target, Tip: tip,
		Label:     &opts.EdgeLabel{Show: opts.Bool(true), Formatter: label, FontSize: fontSize, FontWeight: "bold", Color: color},
		LineStyle: &opts.LineStyle{Color: color, Width: 2.5, Curveness: 0.3, Opacity: opts.Float(0.9)},
	}
}

// MarkContested draws the edge of a contested step dashed, its label
// followed by "(assumed)", and says so first in its tooltip.
func MarkContested(l GraphLink, contested bool) GraphLink {
	if !contested {
		return l
	}
	l.LineStyle.Type = "dashed"
	l.Label.Formatter += " (assumed)"
	l.Tip = append([]string{"assumed: a read contradicts this order"}, l.Tip...)
	return l
}

// GraphOption lays a cycle's nodes out and returns the ECharts option of
// its drawing: the nodes around a circle, the first on the left, in cycle
// order clockwise, and the links as curved arrows. Positions are fixed
// (layout "none"): ECharts' circular layout bends edges towards the
// centre, which draws the two edges of a two-op cycle on top of each
// other.
func GraphOption(typ string, nodes []GraphNode, links []GraphLink) json.RawMessage {
	for i := range nodes {
		a := math.Pi + 2*math.Pi*float64(i)/float64(len(nodes))
		nodes[i].X = math.Round(100 + 100*math.Cos(a))
		nodes[i].Y = math.Round(100 + 100*math.Sin(a))
	}
	g := charts.NewGraph()
	g.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{BackgroundColor: "#ffffff"}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
	)
	g.AddSeries(typ, nil, nil, charts.WithGraphChartOpts(opts.GraphChart{
		Layout: "none", Roam: opts.Bool(true),
		EdgeSymbol: []string{"none", "arrow"}, EdgeSymbolSize: 12,
	}), charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Color: "#222222"}))
	g.MultiSeries[0].Data = nodes
	g.MultiSeries[0].Links = links
	g.MultiSeries[0].LineStyle = &opts.LineStyle{Curveness: 0.3}
	return JSONOption(g)
}
