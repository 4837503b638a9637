package queueview

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

// timelinePoint is one point of an offset timeline: an op's completion at
// x, at offset y.
type timelinePoint struct {
	x    float64
	y    float64
	op   int64
	proc int32
	msg  model.MsgID // -1: no value to show
}

// mark is an anomaly drawn on a timeline.
type mark struct {
	timelinePoint
	note string
}

// keyLine is everything drawn on one key's timeline.
// segment is an instance drawn as a line between two points of a key's
// timeline, with its type.
type segment struct {
	typ  string
	ends [2]mark
}

type keyLine struct {
	// the points of ok sends and consumer positions (per process: sends,
	// polls), info sends, fail sends and info/fail polls, counted in a
	// first pass over the history
	procs                     map[int32]*[2]int
	info, fail, infoFailPolls int
	plan                      *keyPlan // its series, then their points (a second pass)
	marks                     map[string][]mark
	markTotal                 map[string]int
	stalls                    []segment // instances drawn as a segment (catalog.Segment)
	anomalies                 int
}

// Kinds of point of a key's timeline, in keyLine.
const (
	ptSend = iota
	ptPoll
	ptInfo
	ptFail
	ptIfp
)

// keyPlan is the series of one key's timeline: which process has series of
// its own, each series' name, kind and size, and the points kept of each.
type keyPlan struct {
	own    []int32 // the processes with series of their own, in order
	rest   int
	series []planSeries
	// index in series of each kind of point: per own process (sends,
	// polls), then the other processes' sends and polls, info, fail,
	// info/fail polls; -1 when the series is empty
	sendOf, pollOf                 []int
	otherSend, otherPoll           int
	infoAt, failAt, infoFailPollAt int
	total, kept                    int
}

type planSeries struct {
	name, kind string // kind: send, pos, other-send, other-pos, info, fail, ifpoll
	red        reducer
}

// markOf is the timeline mark of type typ: its catalogue entry's (the
// zero Mark for a type no entry describes).
func (b *builder) markOf(typ string) catalog.Mark {
	e, _ := b.Describe(typ)
	return e.Mark
}

// timeline builds the per-key offset timelines: one pass over the ops for
// sends and polls, then the anomaly marks from the result's instances.
func (b *builder) timeline() page.Timeline {
	tl := page.Timeline{Chart: page.Chart{ID: "chart-timeline", Kind: "timeline", Title: "Offset timeline",
		Dims: []string{b.Clock.AxisName(), "offset", "op", "process", "value", "note"}}, Keys: []page.TimelineKey{}}
	if b.H == nil || len(b.H.Keys) == 0 {
		return tl
	}
	lines := make([]keyLine, len(b.H.Keys))
	for i := range lines {
		lines[i] = keyLine{marks: map[string][]mark{}, markTotal: map[string]int{}}
	}
	// First pass: count each key's points, so that the second keeps only
	// those drawn, never all of them (millions in a large history).
	untimed := b.countPoints(lines)
	if untimed > 0 {
		b.Omissions = append(b.Omissions, fmt.Sprintf("Offset timelines: %s completions without a :time are not drawn.", page.Thousands(int64(untimed))))
	}
	b.markAnomalies(lines)
	b.located = nil

	// keys with anomalies first, then by key
	order := make([]model.KeyID, len(lines))
	for i := range order {
		order[i] = model.KeyID(i)
	}
	slices.SortStableFunc(order, func(a, c model.KeyID) int {
		return b.CompareKeys(a, c, lines[a].anomalies > 0, lines[c].anomalies > 0)
	})
	if len(order) > b.O.MaxKeys {
		b.Omissions = append(b.Omissions, fmt.Sprintf("Offset timelines: %d of %s keys are drawn (keys with anomalies first).",
			b.O.MaxKeys, page.Thousands(int64(len(order)))))
		order = order[:b.O.MaxKeys]
	}
	perKey := int(float64(b.O.MaxTotalPoints)*timelineShare) / len(order)
	for _, k := range order {
		lines[k].plan = b.planKey(&lines[k], perKey)
	}
	// Second pass: each drawn key's points, downsampled as they come.
	b.placePoints(lines)
	var total, kept int
	for _, k := range order {
		tk := b.keyTimeline(k, &lines[k])
		total += lines[k].plan.total
		kept += lines[k].plan.kept
		tl.Keys = append(tl.Keys, tk)
		lines[k] = keyLine{} // free as we go
	}
	if kept < total {
		b.Omissions = append(b.Omissions, fmt.Sprintf("Offset timelines: %s send and poll points downsampled to %s (per series, the lowest and highest offset of each run are kept).",
			page.Thousands(int64(total)), page.Thousands(int64(kept))))
	}
	if len(tl.Keys) > 0 {
		tl.Series = tl.Keys[0].Series
	}
	return tl
}

// timelinePoints goes through the history's completions in order and calls
// point for each point of a timeline: an ok send at its offset (ptSend),
// the position a poll left a consumer at (ptPoll, ok polls; ptIfp, info and
// fail polls), an info or fail send (ptInfo, ptFail; at offset -1 unless
// acknowledged): of the ops at positions lo to hi, and of the keys whose
// number is part modulo parts. It returns how many completions among
// those ops have no time.
func (b *builder) timelinePoints(lo, hi, part, parts int, point func(k model.KeyID, kind int, p timelinePoint)) int {
	untimed := 0
	for i := lo; i < hi; i++ {
		op := &b.H.Ops[i]
		if op.Type == model.Invoke || !op.IsClient() || op.Mops.Empty() {
			continue
		}
		idx := b.H.Index(i)
		x, ok := b.Clock.X(b.H, i)
		if !ok {
			untimed++
			continue
		}
		mops := b.H.MopsOf(op)
		for mi := range mops {
			m := &mops[mi]
			switch m.Kind {
			case model.MopSend:
				if int(m.Key)%parts != part {
					continue
				}
				p := timelinePoint{x: x, y: -1, op: idx, proc: op.Process, msg: m.Msg}
				if m.Done && m.HasOffset() {
					p.y = float64(b.H.Offset(m))
				}
				switch {
				case op.Type == model.OK && p.y >= 0:
					point(m.Key, ptSend, p)
				case op.Type == model.Fail:
					point(m.Key, ptFail, p)
				default:
					point(m.Key, ptInfo, p)
				}
			case model.MopPoll:
				for _, kp := range b.H.PollsOf(m) {
					if int(kp.Key)%parts != part {
						continue
					}
					reads := b.H.ReadsOf(&kp)
					if len(reads) == 0 {
						continue
					}
					rd := reads[len(reads)-1]
					p := timelinePoint{x: x, y: float64(rd.Offset()), op: idx, proc: op.Process, msg: rd.Msg}
					if op.Type == model.OK {
						point(kp.Key, ptPoll, p)
					} else {
						point(kp.Key, ptIfp, p)
					}
				}
			}
		}
	}
	return untimed
}

// planKey lays out the series of a key's timeline from its counts: one
// series per process for the busiest (sends and positions), one for the
// rest, and the info sends, fail sends and info/fail polls; and shares the
// budget of points among them (allocate).
func (b *builder) planKey(line *keyLine, budget int) *keyPlan {
	// processes by how much they did on this key; the busiest get series
	// each process with its work, so that the sort compares numbers
	// rather than looking both up at every comparison
	type procWork struct {
		p    int32
		work int
	}
	byWork := make([]procWork, 0, len(line.procs))
	for p, c := range line.procs {
		byWork = append(byWork, procWork{p, c[ptSend] + c[ptPoll]})
	}
	slices.SortFunc(byWork, func(a, c procWork) int {
		if d := cmp.Compare(c.work, a.work); d != 0 {
			return d
		}
		return cmp.Compare(a.p, c.p)
	})
	ranked := make([]int32, len(byWork))
	for i, pw := range byWork {
		ranked[i] = pw.p
	}
	plan := &keyPlan{own: ranked, otherSend: -1, otherPoll: -1, infoAt: -1, failAt: -1, infoFailPollAt: -1}
	if len(ranked) > b.O.MaxSeries+1 {
		plan.own = ranked[:b.O.MaxSeries]
	}
	slices.Sort(plan.own)
	plan.rest = len(ranked) - len(plan.own)
	var sizes []int
	add := func(name, kind string, n int) int {
		if n == 0 {
			return -1
		}
		plan.series = append(plan.series, planSeries{name: name, kind: kind})
		sizes = append(sizes, n)
		return len(plan.series) - 1
	}
	var otherSends, otherPolls int
	for p, c := range line.procs {
		if plan.slot(p) == 0 {
			otherSends += c[ptSend]
			otherPolls += c[ptPoll]
		}
	}
	plan.sendOf, plan.pollOf = make([]int, len(plan.own)), make([]int, len(plan.own))
	for i, p := range plan.own {
		plan.sendOf[i] = add("sends · process "+strconv.Itoa(int(p)), "send", line.procs[p][ptSend])
	}
	for i, p := range plan.own {
		plan.pollOf[i] = add("position · process "+strconv.Itoa(int(p)), "pos", line.procs[p][ptPoll])
	}
	plan.otherSend = add(fmt.Sprintf("sends · %d other processes", plan.rest), "other-send", otherSends)
	plan.otherPoll = add(fmt.Sprintf("positions · %d other processes", plan.rest), "other-pos", otherPolls)
	plan.infoAt = add("info sends", "info", line.info)
	plan.failAt = add("fail sends", "fail", line.fail)
	plan.infoFailPollAt = add("info/fail polls", "ifpoll", line.infoFailPolls)
	quota := allocate(sizes, budget, b.O.MaxPoints, 50)
	for i := range plan.series {
		plan.series[i].red = newReducer(sizes[i], quota[i])
		plan.total += sizes[i]
	}
	return plan
}

// slot is process p's series of its own, 1-based; 0 when it has none
// (own is sorted, and at most MaxSeries+1 long).
func (plan *keyPlan) slot(p int32) int {
	if i, ok := slices.BinarySearch(plan.own, p); ok {
		return i + 1
	}
	return 0
}

// add takes one point of the key, in history order.
func (plan *keyPlan) add(kind int, p timelinePoint) {
	at := -1
	switch kind {
	case ptSend, ptPoll:
		i := plan.slot(p.proc)
		switch {
		case i > 0 && kind == ptSend:
			at = plan.sendOf[i-1]
		case i > 0:
			at = plan.pollOf[i-1]
		case kind == ptSend:
			at = plan.otherSend
		default:
			at = plan.otherPoll
		}
	case ptInfo:
		at = plan.infoAt
	case ptFail:
		at = plan.failAt
	case ptIfp:
		at = plan.infoFailPollAt
	}
	plan.series[at].red.add(p)
}

// reducer is minMax over a series of known length n, fed one point at a
// time: it keeps only the points minMax keeps, so memory follows the budget
// of points, not the history.
type reducer struct {
	n, budget   int
	i           int             // points seen
	all         []timelinePoint // every point, when n <= budget
	first, last timelinePoint
	buckets     int
	bk          []bucketPick
}

// bucketPick is the lowest and highest point of one run of the series (the
// first of equal ones), with their positions in it.
type bucketPick struct {
	lo, hi   timelinePoint
	loI, hiI int
	set      bool
}

func newReducer(n, budget int) reducer {
	r := reducer{n: n, budget: budget}
	if n > budget && budget >= 4 {
		r.buckets = (budget - 2) / 2
		r.bk = make([]bucketPick, r.buckets)
	}
	return r
}

func (r *reducer) add(p timelinePoint) {
	i := r.i
	r.i++
	if i == 0 {
		r.first = p
	}
	if i == r.n-1 {
		r.last = p
	}
	switch {
	case r.n <= r.budget:
		r.all = append(r.all, p)
	case r.budget < 4 || i == 0 || i == r.n-1:
	default:
		// the run of inner point j: minMax's runs are [bi*L/B, (bi+1)*L/B)
		j, L, B := i-1, r.n-2, r.buckets
		bi := ((j+1)*B+L-1)/L - 1
		bp := &r.bk[bi]
		if !bp.set {
			*bp = bucketPick{lo: p, hi: p, loI: j, hiI: j, set: true}
			return
		}
		if p.y < bp.lo.y {
			bp.lo, bp.loI = p, j
		}
		if p.y > bp.hi.y {
			bp.hi, bp.hiI = p, j
		}
	}
}

// points returns what minMax would return for the whole series.
func (r *reducer) points() []timelinePoint {
	switch {
	case r.n <= r.budget:
		return r.all
	case r.budget < 4:
		return []timelinePoint{r.first, r.last}
	}
	out := make([]timelinePoint, 0, r.budget)
	out = append(out, r.first)
	for _, bp := range r.bk {
		switch {
		case !bp.set:
		case bp.loI == bp.hiI:
			out = append(out, bp.lo)
		case bp.loI < bp.hiI:
			out = append(out, bp.lo, bp.hi)
		default:
			out = append(out, bp.hi, bp.lo)
		}
	}
	return append(out, r.last)
}

// markAnomalies places every instance of the result on the timelines of
// its keys, at most MaxMarks per type and key. A mark sits at the op the
// instance names (writer, reader, later poll ...) and the offset where the
// instance's value is; the op's micro-ops are read only to find that
// offset and value.
func (b *builder) markAnomalies(lines []keyLine) {
	touched := map[model.KeyID]bool{}
	for _, typ := range b.Res.AnomalyTypes {
		ins := b.Res.Anomalies[typ]
		for i := range ins {
			// placed by its sketch, explained by the full instance
			in, ok := queue.Sketch(ins[i]).(*queue.Instance)
			if !ok {
				continue
			}
			// the note is written only for an instance that gets a mark:
			// past MaxMarks an instance is only counted
			note := ""
			noteOf := func() string {
				if note == "" {
					note = fmt.Sprintf("#%d: %s", i+1, page.Elide(b.Explain(typ, analysis.Full(ins[i])), 300))
				}
				return note
			}
			clear(touched)
			add := func(k model.KeyID, p timelinePoint) {
				touched[k] = true
				line := &lines[k]
				line.markTotal[typ]++
				if len(line.marks[typ]) < b.O.MaxMarks {
					line.marks[typ] = append(line.marks[typ], mark{p, noteOf()})
				}
			}
			b.placeInstance(b.markOf(typ).Place, in, add, func(k model.KeyID, from, to timelinePoint) {
				touched[k] = true
				line := &lines[k]
				line.markTotal[typ]++
				if len(line.stalls) < b.O.MaxMarks {
					n := noteOf()
					line.stalls = append(line.stalls, segment{typ, [2]mark{{from, n}, {to, n}}})
				}
			})
			if k, ok := b.Key(in.Key); ok {
				touched[k] = true
			}
			if in.CycleFields != nil {
				for _, st := range in.Steps {
					if k, ok := b.Key(st.Key); ok {
						touched[k] = true
					}
				}
			}
			for k := range touched {
				lines[k].anomalies++
			}
		}
	}
	for k := range lines {
		types := make([]string, 0, len(lines[k].markTotal))
		for typ := range lines[k].markTotal {
			types = append(types, typ)
		}
		slices.Sort(types)
		for _, typ := range types {
			if n := lines[k].markTotal[typ]; n > b.O.MaxMarks {
				b.Omissions = append(b.Omissions, fmt.Sprintf("Timeline of key %s: %d of %s %s marks drawn.",
					b.KeyName(model.KeyID(k)), b.O.MaxMarks, page.Thousands(int64(n)), typ))
			}
		}
	}
}

// at places a mark at op idx, offset off, without looking into the op.
func (b *builder) at(idx int64, off int64) (timelinePoint, bool) {
	op, x, ok := b.placed(idx)
	if !ok {
		return timelinePoint{}, false
	}
	return timelinePoint{x: x, y: float64(off), op: idx, proc: op.Process, msg: -1}, true
}

// placed finds op idx and its place on the time axis; false when there is
// no such op or it has no place.
func (b *builder) placed(idx int64) (*model.Op, float64, bool) {
	pos := b.Pos(idx)
	if pos < 0 {
		return nil, 0, false
	}
	x, ok := b.Clock.X(b.H, pos)
	return &b.H.Ops[pos], x, ok
}

// placeInstance calls add for each point where an instance shows on a
// timeline, and seg for a stalled consumer's stretch.
func (b *builder) placeInstance(place catalog.Place, in *queue.Instance, add func(model.KeyID, timelinePoint), seg func(model.KeyID, timelinePoint, timelinePoint)) {
	k, hasKey := b.Key(in.Key)
	find := func(idx int64, v *analysis.Value, off int64) {
		if hasKey {
			if p, ok := b.locate(idx, k, v, off); ok {
				add(k, p)
			}
		}
	}
	second := func() *analysis.Value {
		if len(in.Values) > 1 {
			return &in.Values[1]
		}
		return nil
	}
	switch place {
	case catalog.AtWriter:
		if in.Writer != nil && in.Offset != nil && hasKey {
			if p, ok := b.at(*in.Writer, *in.Offset); ok {
				if q, ok := b.locate(*in.Writer, k, in.Value, *in.Offset); ok {
					p = q
				}
				add(k, p)
			}
		}
	case catalog.AtOpsOffset:
		if in.Offset != nil {
			for _, idx := range in.Ops {
				find(idx, nil, *in.Offset)
			}
		}
	case catalog.AtOffsets:
		if hasKey {
			b.placeOffsets(in.Value, in.Offsets, in.Witness, k, add)
		}
	case catalog.AtReader:
		if in.Reader != nil && in.Offset != nil {
			find(*in.Reader, in.Value, *in.Offset)
		}
	case catalog.AtOp:
		if in.Op != nil {
			find(*in.Op, in.Value, model.NoOffset)
		}
	case catalog.AtUnseenSends:
		if hasKey {
			b.placeUnseenSends(in, k, add)
		}
	case catalog.AtLaterOp:
		if len(in.Ops) == 2 {
			find(in.Ops[1], second(), model.NoOffset)
		}
	case catalog.AtOpSecond:
		if in.Op != nil {
			find(*in.Op, second(), model.NoOffset)
		}
	case catalog.AtMissing:
		b.placeMissing(in, add)
	case catalog.Segment:
		if in.From == nil || in.To == nil || !hasKey {
			return
		}
		off := int64(-1)
		if in.StuckOffset != nil {
			off = *in.StuckOffset
		}
		from, ok1 := b.at(*in.From, off)
		to, ok2 := b.at(*in.To, off)
		if ok1 && ok2 {
			seg(k, from, to)
		}
	default: // catalog.AtStepReads: mark each read along the cycle
		b.placeStepReads(in, add)
	}
}

// placeUnseenSends calls add for each ok send to key k, in the witness ops
// of in, of one of in's values.
func (b *builder) placeUnseenSends(in *queue.Instance, k model.KeyID, add func(model.KeyID, timelinePoint)) {
	want := map[model.Atom]bool{}
	for _, v := range in.Values {
		want[v.Atom] = true
	}
	for _, idx := range in.Witness {
		pos := b.Pos(idx)
		if pos < 0 || b.H.Ops[pos].Type == model.Invoke {
			continue
		}
		op := &b.H.Ops[pos]
		x, ok := b.Clock.X(b.H, pos)
		if !ok {
			continue
		}
		for _, m := range b.H.MopsOf(op) {
			if m.Key == k && m.Done && m.HasOffset() && want[b.H.MsgValue(m.Msg)] {
				add(k, timelinePoint{x: x, y: float64(b.H.Offset(&m)), op: idx, proc: op.Process, msg: m.Msg})
			}
		}
	}
}

// placeMissing calls add for each (key, value) of in.Missing that in's op
// read.
func (b *builder) placeMissing(in *queue.Instance, add func(model.KeyID, timelinePoint)) {
	if in.Op == nil {
		return
	}
	for _, pr := range in.Missing {
		if mk, ok := b.Key(&pr[0]); ok {
			if p, ok := b.locate(*in.Op, mk, &pr[1], model.NoOffset); ok {
				add(mk, p)
			}
		}
	}
}

// placeStepReads calls add for each read along in's cycle: a step with
// one key, value and offset, read by its To op.
func (b *builder) placeStepReads(in *queue.Instance, add func(model.KeyID, timelinePoint)) {
	if in.CycleFields == nil {
		return
	}
	for _, st := range in.Steps {
		sk, ok := b.Key(st.Key)
		if !ok || st.Value == nil || len(st.Offsets) != 1 {
			continue
		}
		if p, ok := b.locate(st.To, sk, st.Value, st.Offsets[0]); ok {
			add(sk, p)
		}
	}
}

// keyTimeline builds one key's chart option within budget points for its
// sends and polls (marks come on top). It returns the key's picker entry,
// and the number of send and poll points before and after downsampling.
func (b *builder) keyTimeline(k model.KeyID, line *keyLine) page.TimelineKey {
	name := b.KeyName(k)
	tk := page.TimelineKey{Key: name, Anomalies: line.anomalies, Label: "key " + name}
	if line.anomalies > 0 {
		tk.Label += fmt.Sprintf(" (%s %s)", page.Thousands(int64(line.anomalies)), catalog.Plural(int64(line.anomalies), "anomaly", "anomalies"))
	}
	plan := line.plan
	ss := make([]drawnSeries, len(plan.series))
	for i := range plan.series {
		ps := &plan.series[i]
		ss[i] = drawnSeries{ps.name, ps.kind, ps.red.points()}
		plan.kept += len(ss[i].pts)
	}
	if plan.kept < plan.total {
		tk.Note = fmt.Sprintf("Sends and polls downsampled from %s to %s points (lowest and highest offset of each run kept); anomaly marks are not downsampled.",
			page.Thousands(int64(plan.total)), page.Thousands(int64(plan.kept)))
	}

	c := charts.NewLine()
	b.baseRect(&c.RectChart, "offset", "item", true)
	b.fitAxes(c, ss, line)
	for _, s := range ss {
		data := make([]any, len(s.pts))
		for i, p := range s.pts {
			data[i] = b.pointJSON(p, "")
		}
		c.MultiSeries = append(c.MultiSeries, s.style(data))
	}
	b.markSeries(c, line)
	if len(c.MultiSeries) == 0 {
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{Name: "nothing sent or read", Type: "scatter", Data: []any{}})
	}
	b.finalSeries(&c.RectChart, b.finalReadsCached())
	tk.Option = page.JSONOption(c)
	tk.Series = len(c.MultiSeries)
	return tk
}

// drawnSeries is one series of sends or polls of a key's timeline, with
// the points kept of it.
type drawnSeries struct {
	name, kind string // kind: send, pos, other-send, other-pos, info, fail, ifpoll
	pts        []timelinePoint
}

// style is the chart series of s, drawn as its kind is, with data its
// points.
func (s *drawnSeries) style(data []any) charts.SingleSeries {
	sr := charts.SingleSeries{Name: s.name, Type: "scatter", Data: data, SymbolSize: 6}
	switch s.kind {
	case "pos":
		// the position holds from one poll to the next
		sr.Type, sr.ShowSymbol, sr.SymbolSize, sr.Step = "line", opts.Bool(true), 4, "end"
		sr.LineStyle = &opts.LineStyle{Width: 1.5}
	case "other-send", "other-pos":
		sr.ItemStyle = &opts.ItemStyle{Color: "#999999", Opacity: opts.Float(0.6)}
		sr.SymbolSize = 3
	case "info":
		sr.Symbol, sr.SymbolSize = "emptyTriangle", 7
		sr.ItemStyle = &opts.ItemStyle{Color: "#e6a700"}
	case "fail":
		sr.Symbol, sr.SymbolSize = "emptyRect", 6
		sr.ItemStyle = &opts.ItemStyle{Color: "#7f7f7f"}
	case "ifpoll":
		sr.Symbol, sr.SymbolSize = "emptyCircle", 6
		sr.ItemStyle = &opts.ItemStyle{Color: "#b8860b"}
	}
	return sr
}

// fitAxes fits the axes of a key's chart to what is drawn (the series ss
// and line's marks and stalls), with a margin so edge points show whole.
func (b *builder) fitAxes(c *charts.Line, ss []drawnSeries, line *keyLine) {
	d := b.Clock.Decimals
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	extend := func(p timelinePoint) {
		xlo, xhi, ylo, yhi = min(xlo, p.x), max(xhi, p.x), min(ylo, p.y), max(yhi, p.y)
	}
	for _, s := range ss {
		for _, p := range s.pts {
			extend(p)
		}
	}
	for _, ms := range line.marks {
		for _, m := range ms {
			extend(m.timelinePoint)
		}
	}
	for _, st := range line.stalls {
		extend(st.ends[0].timelinePoint)
		extend(st.ends[1].timelinePoint)
	}
	if xlo > xhi {
		return
	}
	lo, hi := page.NiceRange(xlo, xhi, 0)
	if xlo >= 0 {
		lo = max(lo, 0)
	}
	c.XAxisList[0].Min, c.XAxisList[0].Max = page.Num(lo, d+1), page.Num(hi, d+1)
	lo, hi = page.NiceRange(ylo, yhi, 1) // offsets are integers
	c.YAxisList[0].Min, c.YAxisList[0].Max = page.Num(lo, 0), page.Num(hi, 0)
	// the margins' ends get no labels (they would crowd the round ones)
	c.XAxisList[0].AxisLabel = &opts.AxisLabel{ShowMinLabel: opts.Bool(false), ShowMaxLabel: opts.Bool(false)}
	c.YAxisList[0].AxisLabel = &opts.AxisLabel{ShowMinLabel: opts.Bool(false), ShowMaxLabel: opts.Bool(false)}
}

// pointJSON is a timeline point as the chart gets it: x, offset, op,
// process, the value (nil when the point has no message), and note if
// any.
func (b *builder) pointJSON(p timelinePoint, note string) []any {
	var v any
	if p.msg >= 0 {
		v = b.atomJSON(b.H.MsgValue(p.msg))
	}
	row := []any{page.Num(p.x, b.Clock.Decimals), int64(p.y), p.op, p.proc, v}
	if note != "" {
		row = append(row, note)
	}
	return row
}

// markSeries adds the anomaly marks of a key's timeline to c, a series per
// type in the order of the type table, then a series per stalled stretch.
func (b *builder) markSeries(c *charts.Line, line *keyLine) {
	for _, typ := range b.types {
		ms := line.marks[typ]
		if len(ms) == 0 {
			continue
		}
		data := make([]any, len(ms))
		for i, m := range ms {
			data[i] = b.pointJSON(m.timelinePoint, m.note)
		}
		symbol, color := "diamond", "#000000"
		if mk := b.markOf(typ); mk.Symbol != "" {
			symbol, color = mk.Symbol, mk.Color
		}
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{
			Name: typ, Type: "scatter", Data: data, Symbol: symbol, SymbolSize: 14,
			ItemStyle: &opts.ItemStyle{Color: color, BorderColor: "#000000", BorderWidth: 1},
		})
	}
	for _, s := range line.stalls {
		color := b.markOf(s.typ).Color
		c.MultiSeries = append(c.MultiSeries, charts.SingleSeries{
			Name: s.typ, Type: "line", Data: []any{b.pointJSON(s.ends[0].timelinePoint, s.ends[0].note), b.pointJSON(s.ends[1].timelinePoint, s.ends[1].note)},
			ShowSymbol: opts.Bool(true), Symbol: "circle", SymbolSize: 8,
			ItemStyle: &opts.ItemStyle{Color: color},
			LineStyle: &opts.LineStyle{Width: 4, Type: "dashed", Color: color},
		})
	}
}

// finalReadsCached computes finalReads once per view.
func (b *builder) finalReadsCached() *page.Span {
	if !b.finalDone {
		b.final, b.finalDone = b.finalReads(), true
	}
	return b.final
}

// atomJSON is a value as a chart point carries it: integers as numbers,
// anything else as its display text, elided.
func (b *builder) atomJSON(a model.Atom) any {
	if a.Kind == model.KInt {
		return a.Int
	}
	return page.Elide(a.String(), 40)
}
