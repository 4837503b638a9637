package page

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/model"
)

// Layout is a workload's part of the page: what its registry entry
// (package workload) holds for the report besides its catalogue. The
// Builder calls Instance, Witness and Cycle for every instance it shows;
// package report calls Page once the type table and the sections are
// built, and Summary for the text summary.
type Layout interface {
	// Page fills the rest of v: its stats and options, the workload's
	// charts, the cycle drawings the sections made (b.CycleCharts), the
	// omissions (b.Omissions), in the order the page shows them, and the
	// parts of the page that lay them out (v.Parts).
	Page(b *Builder, v *View)
	// Templates is the text of the html/template definitions the parts
	// of the workload's page name (Parts), parsed with the page's own
	// (report/assets/report.html.tmpl): those define "anomalies" (the
	// sections of the anomaly types, for a workload that shows its
	// instances the common way), "docs" and "chart" (one series chart
	// below its section's header), and the functions upper, inc,
	// thousands and relClass.
	Templates() string
	// Instance adds what an instance of typ shows beyond what every
	// workload's does, before its witness table is built.
	Instance(b *Builder, iv *InstanceView, typ string, in analysis.Instance)
	// Witness fills the value of a witness row, the op at position pos
	// of the history.
	Witness(b *Builder, row *WitnessRow, pos int)
	// Cycle draws the cycle of instance n of typ.
	Cycle(b *Builder, typ string, n int, in analysis.Instance, steps []StepView) Chart
	// Head is what the text summary of r says first, after its verdict
	// and reasons ("" for nothing): the abort workload's count table.
	Head(r *analysis.Result) string
	// Summary is the closing lines of the text summary of r: its
	// figures, and what the workload adds to them.
	Summary(r *analysis.Result) string
}

// Hooks are what the Builder asks of the checked workload's registry
// entry, which package page cannot import: its layout, how an instance
// and a cycle's step are worded, and a type's catalogue entry.
type Hooks struct {
	Layout      Layout
	Explain     func(typ string, in analysis.Instance, lookup catalog.OpLookup) string
	ExplainStep func(st analysis.Step, lookup catalog.OpLookup) string
	Describe    func(typ string) (catalog.Entry, bool)
}

// Builder holds what a view's build needs while it works: the result, the
// history and the options, the op lookup and the clock, and what the
// sections add to the page (their cycle drawings and omissions).
type Builder struct {
	Res    *analysis.Result
	H      *model.History
	O      ViewOptions
	Lookup catalog.OpLookup
	Clock  Clock
	// CycleCharts are the cycle drawings of the instances shown, in
	// order; Omissions what the build left out beyond the sections' caps.
	CycleCharts []Chart
	Omissions   []string
	hooks       Hooks
	// index finds ops by :index.
	index *model.IndexMap
	// keyOf maps a key's plain text to its id (keys are interned by text).
	keyOf   map[string]model.KeyID
	pairing *model.Pairing
}

// NewBuilder starts the view of res, a check of h (nil: no history, so no
// witness tables), bounded by o (defaults already applied), for the
// workload that hooks describe.
func NewBuilder(res *analysis.Result, h *model.History, o ViewOptions, hooks Hooks) *Builder {
	b := &Builder{Res: res, H: h, O: o, hooks: hooks}
	if h == nil {
		b.Clock = Clock{Unit: "op", Scale: 1}
		return b
	}
	b.index = model.NewIndexMap(h)
	b.Lookup = IndexLookup(h, b.index)
	b.keyOf = make(map[string]model.KeyID, len(h.Keys))
	for i, k := range h.Keys {
		b.keyOf[k.PlainText()] = model.KeyID(i)
	}
	b.Clock = newClock(h)
	return b
}

// IndexLookup returns an OpLookup over h through an IndexMap already built.
func IndexLookup(h *model.History, idx *model.IndexMap) catalog.OpLookup {
	return func(index int64) (catalog.OpInfo, bool) {
		i := idx.Pos(index)
		if i < 0 {
			return catalog.OpInfo{}, false
		}
		op := &h.Ops[i]
		f := op.F.String()
		if op.F == model.FOther {
			f = h.FNameOf(i)
		}
		return catalog.OpInfo{Process: op.Process, Type: op.Type, F: f}, true
	}
}

// Explain words one instance of typ in plain words, as the checked
// workload's catalogue does.
func (b *Builder) Explain(typ string, in analysis.Instance) string {
	return b.hooks.Explain(typ, in, b.Lookup)
}

// Describe finds the catalogue entry of the anomaly type typ in the
// checked workload.
func (b *Builder) Describe(typ string) (catalog.Entry, bool) { return b.hooks.Describe(typ) }

// Op returns the op with :index idx, or nil.
func (b *Builder) Op(idx int64) *model.Op {
	if i := b.Pos(idx); i >= 0 {
		return &b.H.Ops[i]
	}
	return nil
}

// Pos returns the position in h.Ops of the op with :index idx, or -1.
func (b *Builder) Pos(idx int64) int {
	if b.H == nil {
		return -1
	}
	return b.index.Pos(idx)
}

// Mops returns the micro-ops of the op at position i; an invocation whose
// micro-ops ingest dropped gets the invocation form of its completion's
// (model.History.InvocationMops, with the pairing computed once, when
// first needed).
func (b *Builder) Mops(i int) []model.Mop {
	op := &b.H.Ops[i]
	if op.Type != model.Invoke || !op.Mops.Empty() {
		return b.H.MopsOf(op)
	}
	return b.H.InvocationMops(i, *b.Pairing())
}

// Pairing is the history's pairing of invocations and completions,
// computed once, when first needed. A history that reached a report was
// paired without problems already; on problems Pair still pairs what it
// can.
func (b *Builder) Pairing() *model.Pairing {
	if b.pairing == nil {
		p, _ := model.Pair(b.H)
		b.pairing = &p
	}
	return b.pairing
}

// Key returns the id of an instance's key.
func (b *Builder) Key(v *analysis.Value) (model.KeyID, bool) {
	if v == nil || b.keyOf == nil {
		return 0, false
	}
	k, ok := b.keyOf[v.PlainText()]
	return k, ok
}

// Clock turns op times into chart x values: a unit chosen so the numbers
// stay readable, and a number of decimals that resolves about a millionth
// of the history's duration.
type Clock struct {
	Unit     string  // "s", "ms", "µs", "ns", or "op" (by :index: no op has a :time, or all the same)
	Scale    float64 // nanoseconds per unit
	Decimals int
	End      float64 // the last op's x
}

func newClock(h *model.History) Clock {
	minT, maxT, timed := int64(math.MaxInt64), int64(0), 0
	for i := range h.Ops {
		if t := h.Time(i); t != model.NoTime {
			timed++
			minT, maxT = min(minT, t), max(maxT, t)
		}
	}
	// no :time, or one :time for all (as in hand-written histories): a
	// time axis would put every point at one place
	if timed == 0 || timed > 1 && minT == maxT {
		c := Clock{Unit: "op", Scale: 1}
		if n := len(h.Ops); n > 0 {
			c.End = float64(h.Index(n - 1))
		}
		return c
	}
	u, scale := UnitFor(maxT)
	c := Clock{Unit: u, Scale: scale}
	c.End = float64(maxT) / c.Scale
	c.Decimals = DecimalsFor(c.End)
	return c
}

// UnitFor picks the unit in which a duration of up to ns nanoseconds
// reads best: s, ms, µs or ns, and the nanoseconds in it.
func UnitFor(ns int64) (string, float64) {
	switch {
	case ns >= 10e9:
		return "s", 1e9
	case ns >= 10e6:
		return "ms", 1e6
	case ns >= 10e3:
		return "µs", 1e3
	}
	return "ns", 1
}

// X returns the place on the time axis of the op at position pos of h,
// and false when it has none.
func (c Clock) X(h *model.History, pos int) (float64, bool) {
	if c.Unit == "op" {
		return float64(h.Index(pos)), true
	}
	t := h.Time(pos)
	if t == model.NoTime {
		return 0, false
	}
	return float64(t) / c.Scale, true
}

// NS converts nanoseconds to axis units (for the "op" unit, nothing can be
// converted and 0 is returned).
func (c Clock) NS(t int64) float64 {
	if c.Unit == "op" {
		return 0
	}
	return float64(t) / c.Scale
}

// AxisName names the time axis.
func (c Clock) AxisName() string {
	if c.Unit == "op" {
		return "op index"
	}
	return "time (" + c.Unit + ")"
}

// Instances builds the views of the instances of typ the page lists:
// the first MaxInstances.
func (b *Builder) Instances(typ string) []InstanceView {
	ins := b.Res.Anomalies[typ]
	out := []InstanceView{}
	for i := range ins {
		if i == b.O.MaxInstances {
			break
		}
		out = append(out, b.instance(typ, i+1, ins[i]))
	}
	return out
}

// instance builds the view of one instance: its explanation, why each
// edge of its cycle exists, its witness ops and its cycle's drawing, and
// what the workload's layout adds (Layout.Instance).
func (b *Builder) instance(typ string, n int, in analysis.Instance) InstanceView {
	ev, cyc := in.InstanceEvidence(), in.InstanceCycle()
	iv := InstanceView{N: n, Allowed: ev.Allowed, Explanation: b.explanation(typ, n, in),
		Witness: []WitnessRow{}, WitnessTotal: len(ev.Witness), ProofNote: ProofNote(in)}
	if key := in.InstanceKey(); key != nil {
		iv.Key = key.String()
	}
	var steps []analysis.Step
	if cyc != nil {
		iv.Proof, steps = cyc.Proof, cyc.Steps
	}
	draw := len(steps) > 0
	if len(steps) > MaxCycleSteps {
		b.Omissions = append(b.Omissions, fmt.Sprintf("%s #%d: its cycle has %s steps, too many to draw; the page lists the first %s, the JSON report holds them all.",
			typ, n, Thousands(int64(len(steps))), Thousands(MaxCycleSteps)))
		steps, draw = steps[:MaxCycleSteps], false
	}
	for _, st := range steps {
		iv.Steps = append(iv.Steps, StepView{From: st.From, To: st.To, Rel: st.Rel, Why: b.hooks.ExplainStep(st, b.Lookup), Contested: st.Contested})
	}
	b.hooks.Layout.Instance(b, &iv, typ, in)
	b.witness(&iv, typ, ev.Witness)
	if draw {
		c := b.hooks.Layout.Cycle(b, typ, n, in, iv.Steps)
		iv.Graph = c.ID
		b.CycleCharts = append(b.CycleCharts, c)
	}
	return iv
}

// MaxCycleSteps caps the steps of a cycle that the page lists and draws.
// Cycles are mostly a handful of steps; a hostile history made one of
// 80,000 (every op sending to one key and polling the next op's message),
// whose drawing and step list made a 76 MB page. A longer cycle lists its
// first MaxCycleSteps steps, is not drawn (a part of a cycle drawn as a
// circle would misstate it), and the JSON keeps it whole.
const MaxCycleSteps = 200

// MaxExplanationChars caps an instance's explanation on the page. An
// explanation quotes the reads it rests on, and a read may hold millions
// of elements (a hostile history of one 3M-element read wrote a 24 MB
// page, each of its two explanations 11.7 MB of numbers nobody reads);
// the JSON keeps the whole instance.
const MaxExplanationChars = 2000

// explanation is instance n's explanation, cut at MaxExplanationChars
// with an omission that says so.
func (b *Builder) explanation(typ string, n int, in analysis.Instance) string {
	cut, total := Cut(b.Explain(typ, in), MaxExplanationChars)
	if total > 0 {
		b.Omissions = append(b.Omissions, fmt.Sprintf("%s #%d: its explanation is cut at %s characters (of %s); the JSON report holds the whole instance.",
			typ, n, Thousands(MaxExplanationChars), Thousands(int64(total))))
	}
	return cut
}

// Cut returns s elided at n characters (Elide) and, when it was longer,
// its length in characters; total is 0 when s is returned whole. The
// page's and the text output's caps on an explanation both use it.
func Cut(s string, n int) (cut string, total int) {
	if len(s) <= n {
		return s, 0
	}
	if total = utf8.RuneCountInString(s); total <= n {
		return s, 0
	}
	return Elide(s, n), total
}

// witness fills the witness table of iv, at most MaxWitnessOps rows.
func (b *Builder) witness(iv *InstanceView, typ string, witness []int64) {
	for i, idx := range witness {
		if i == b.O.MaxWitnessOps {
			b.Omissions = append(b.Omissions, fmt.Sprintf("%s #%d: the witness table shows %d of %s ops.",
				typ, iv.N, b.O.MaxWitnessOps, Thousands(int64(len(witness)))))
			break
		}
		iv.Witness = append(iv.Witness, b.witnessRow(idx))
	}
}

// witnessRow is the row of the op with :index idx, its value as the
// workload's layout renders it (Layout.Witness).
func (b *Builder) witnessRow(idx int64) WitnessRow {
	pos := b.Pos(idx)
	if pos < 0 {
		return WitnessRow{Index: idx, Missing: true, Value: "(no op with this index in the history)"}
	}
	op := &b.H.Ops[pos]
	row := WitnessRow{Index: idx, Type: op.Type.String(), F: b.FName(pos), Error: Elide(b.H.ErrorOf(pos), b.O.MaxValueChars)}
	b.hooks.Layout.Witness(b, &row, pos)
	if t := b.H.Time(pos); t != model.NoTime {
		row.Time = time.Duration(t).String()
	}
	if op.Process == model.NoProcess {
		row.Process = "-"
	} else {
		row.Process = strconv.Itoa(int(op.Process))
	}
	return row
}

// FName is the name of the :f of the op at position pos, as the history
// wrote it.
func (b *Builder) FName(pos int) string {
	if op := &b.H.Ops[pos]; op.F != model.FOther {
		return op.F.String()
	}
	return b.H.FNameOf(pos)
}

// OpValue renders an op's :value in EDN-like text: micro-ops as
// [:send k v] / [:send k [offset v]] and [:poll] / [:poll {k [[offset v]
// ...]}], the keys of an assign or subscribe as a vector. It stops early
// once the text is far past what Elide keeps.
func (b *Builder) OpValue(pos int) string {
	op := &b.H.Ops[pos]
	mops := b.Mops(pos)
	limit := b.O.MaxValueChars * 4
	var sb strings.Builder
	switch {
	case len(mops) > 0:
		sb.WriteByte('[')
		for i, m := range mops {
			if sb.Len() > limit {
				break
			}
			if i > 0 {
				sb.WriteByte(' ')
			}
			b.WriteMop(&sb, &m, limit)
		}
		sb.WriteByte(']')
	case op.F == model.FAssign || op.F == model.FSubscribe:
		sb.WriteByte('[')
		for i, k := range b.H.KeysOf(pos) {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(b.H.Keys[k].String())
			if sb.Len() > limit {
				break
			}
		}
		sb.WriteByte(']')
	}
	return sb.String()
}

// WriteMop writes micro-op m in EDN-like text ([:send k [offset v]],
// [:append k v], [:r k [...]]), stopping early once sb is past limit
// bytes.
func (b *Builder) WriteMop(sb *strings.Builder, m *model.Mop, limit int) {
	h := b.H
	switch m.Kind {
	case model.MopSend:
		sb.WriteString("[:send ")
		sb.WriteString(h.Keys[m.Key].String())
		sb.WriteByte(' ')
		if m.Done {
			sb.WriteByte('[')
			if off := h.Offset(m); off == model.NoOffset {
				sb.WriteString("nil")
			} else {
				sb.WriteString(strconv.FormatInt(off, 10))
			}
			sb.WriteByte(' ')
			sb.WriteString(h.MsgValue(m.Msg).String())
			sb.WriteByte(']')
		} else {
			sb.WriteString(h.MsgValue(m.Msg).String())
		}
		sb.WriteByte(']')
	case model.MopPoll:
		if !m.Done {
			sb.WriteString("[:poll]")
			return
		}
		sb.WriteString("[:poll {")
		for i, kp := range b.H.PollsOf(m) {
			if sb.Len() > limit {
				break
			}
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(h.Keys[kp.Key].String())
			sb.WriteString(" [")
			for j, rd := range b.H.ReadsOf(&kp) {
				if sb.Len() > limit {
					break
				}
				if j > 0 {
					sb.WriteByte(' ')
				}
				fmt.Fprintf(sb, "[%d %s]", rd.Offset(), h.MsgValue(rd.Msg).String())
			}
			sb.WriteByte(']')
		}
		sb.WriteString("}]")
	case model.MopAppend, model.MopWrite:
		fmt.Fprintf(sb, "[:%s %s %s]", m.Kind, h.Keys[m.Key].String(), h.MsgValue(m.Msg).String())
	case model.MopRead:
		v := "nil"
		if m.Done && m.Msg != model.NoMsg {
			v = h.MsgValue(m.Msg).String()
		}
		fmt.Fprintf(sb, "[:r %s %s]", h.Keys[m.Key].String(), v)
	case model.MopReadList:
		elems := h.ElemsOf(m)
		sb.WriteString("[:r ")
		sb.WriteString(h.Keys[m.Key].String())
		sb.WriteByte(' ')
		WriteList(sb, len(elems), listHead, listTail, limit, func(i int) string { return h.MsgValue(elems[i]).String() })
		sb.WriteByte(']')
	default:
		sb.WriteString("[…]")
	}
}

// How many elements a long list keeps at its start and its end when it is
// shortened for the page (WriteList).
const (
	listHead = 6
	listTail = 4
)

// WriteList writes a list of n elements as [a b c], at(i) giving element
// i's text. A list longer than head+tail+1 keeps its first head and last
// tail elements around "… k more …"; writing stops early once sb is past
// limit bytes.
func WriteList(sb *strings.Builder, n, head, tail, limit int, at func(int) string) {
	WriteListSep(sb, " ", n, head, tail, limit, at)
}

// WriteListSep is WriteList with items separated by sep.
func WriteListSep(sb *strings.Builder, sep string, n, head, tail, limit int, at func(int) string) {
	sb.WriteByte('[')
	for i := 0; i < n; i++ {
		if sb.Len() > limit {
			sb.WriteString(" …")
			break
		}
		if i > 0 {
			sb.WriteString(sep)
		}
		if i == head && n > head+tail+1 {
			fmt.Fprintf(sb, "… %s more …", Thousands(int64(n-head-tail)))
			i = n - tail - 1
			continue
		}
		sb.WriteString(at(i))
	}
	sb.WriteByte(']')
}

// Elide cuts s to at most n characters (runes), ending it with "…" when
// cut.
func Elide(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, c := 0, 0
	for i = range s {
		if c == n-1 {
			break
		}
		c++
	}
	return s[:i] + "…"
}
