package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/report/page"
)

// builder is page's Builder with what the queue's and the transactional
// views keep while they work.
type builder struct {
	*page.Builder
	// tclock places ops on the transaction timeline.
	tclock    txnClock
	final     *Span
	finalDone bool
}

// layoutOf is the layout of the named workload.
func layoutOf(name string) page.Layout {
	if IsTxnWorkload(name) {
		return txnLayout{}
	}
	return queueLayout{}
}

// txnLayout is the page of a transactional history.
type txnLayout struct{}

// Page fills v with the transactional view.
func (txnLayout) Page(pb *page.Builder, v *View) { (&builder{Builder: pb}).txnView(v) }

// Instance adds a transactional instance's article id, chain and reads.
func (txnLayout) Instance(pb *page.Builder, iv *InstanceView, typ string, in *analysis.Instance) {
	(&builder{Builder: pb}).txnInstance(iv, typ, in)
}

// Witness lists a witness op's micro-ops, one string each.
func (txnLayout) Witness(pb *page.Builder, row *WitnessRow, pos int) {
	row.Mops = (&builder{Builder: pb}).mopTexts(pos, witnessMops, 2*pb.O.MaxValueChars)
}

// Cycle draws a transactional cycle.
func (txnLayout) Cycle(pb *page.Builder, typ string, n int, in *analysis.Instance, steps []StepView) Chart {
	return (&builder{Builder: pb}).txnCycleChart(typ, n, in, steps)
}

// Summary is the models and the figures of a transactional history.
func (txnLayout) Summary(r *analysis.Result) string {
	var b strings.Builder
	s := r.Stats
	fmt.Fprintf(&b, "\nmodels: %s; ruled out: %s", strings.Join(r.Models, ", "), orNone(r.Not))
	if len(r.AlsoNot) > 0 {
		fmt.Fprintf(&b, " (and so %d stronger models)", len(r.AlsoNot))
	}
	if srcs := TxnSources(r); srcs != "" {
		fmt.Fprintf(&b, "\nversion orders from: %s", srcs)
	}
	fmt.Fprintf(&b, "\n%d ops, %d txns (%d ok, %d info, %d fail, %d never completed), %d keys, %d %s; "+
		"graph %d txns, %d edges, %d cyclic components (largest %d); %d ms\n",
		s.Ops, s.Txns, s.OKOps, s.InfoOps, s.FailOps, s.OpenOps, s.Keys, s.Messages, txnUnit(r.Workload),
		s.GraphVertices, s.GraphEdges, s.Components, s.LargestComponent, s.ElapsedMS)
	return b.String()
}

// queueLayout is the page of a queue history.
type queueLayout struct{}

// Page fills v with the queue's stats, offset timeline and charts.
func (queueLayout) Page(pb *page.Builder, v *View) { (&builder{Builder: pb}).queueView(v) }

// Instance adds nothing to a queue instance.
func (queueLayout) Instance(*page.Builder, *InstanceView, string, *analysis.Instance) {}

// Witness shows a witness op's micro-ops as one value.
func (queueLayout) Witness(pb *page.Builder, row *WitnessRow, pos int) {
	row.Value = page.Elide(pb.OpValue(pos), pb.O.MaxValueChars)
}

// Cycle draws a cycle of ops.
func (queueLayout) Cycle(pb *page.Builder, typ string, n int, in *analysis.Instance, steps []StepView) Chart {
	return pb.CycleChart(typ, n, in, steps)
}

// Summary is the figures of a queue history.
func (queueLayout) Summary(r *analysis.Result) string {
	s := r.Stats
	return fmt.Sprintf("\n%d ops (%d client: %d ok, %d info, %d fail, %d never completed), %d keys, %d messages; "+
		"graph %d ops, %d edges, %d cyclic components; worst realtime lag %s; %d ms\n",
		s.Ops, s.ClientOps, s.OKOps, s.InfoOps, s.FailOps, s.OpenOps, s.Keys, s.Messages,
		s.GraphVertices, s.GraphEdges, s.Components, time.Duration(s.WorstLagS*1e9).Round(time.Microsecond), s.ElapsedMS)
}

// queueView fills v with a queue history's view: its stats and options,
// the offset timeline, the unseen and lag charts and the cycle drawings.
func (b *builder) queueView(v *View) {
	v.Stats, v.Options = statFacts(b.Res), optionFacts(b.Res)
	// The charts of the series are built on a goroutine of their own while
	// the timelines are: each reads millions of points of a large history.
	// They add omissions to a builder of their own, put after the
	// timelines', in the order a sequential build gives them.
	v.FinalReads = b.finalReadsCached()
	pb := *b.Builder
	pb.Omissions = nil
	cb := *b
	cb.Builder = &pb
	var series []Chart
	done := make(chan struct{})
	go func() {
		defer close(done)
		series = []Chart{cb.unseenChart(v.FinalReads), cb.lagChart(true, v.FinalReads), cb.lagChart(false, v.FinalReads)}
	}()
	v.Timeline = b.timeline()
	keyIndex := map[string]int{}
	for i, k := range v.Timeline.Keys {
		keyIndex[k.Key] = i
	}
	for si := range v.Sections {
		for ii := range v.Sections[si].Instances {
			in := &v.Sections[si].Instances[ii]
			in.TimelineKey = -1
			if i, ok := keyIndex[in.Key]; ok && in.Key != "" {
				in.TimelineKey = i
			}
		}
	}
	<-done
	b.Omissions = append(b.Omissions, pb.Omissions...)
	v.Charts = append(v.Charts, series...)
	v.Charts = append(v.Charts, b.CycleCharts...)
	v.Omissions = append(v.Omissions, b.Omissions...)
}
