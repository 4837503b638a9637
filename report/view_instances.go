package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// builder holds what BuildView needs while it works.
type builder struct {
	res    *analysis.Result
	h      *model.History
	o      ViewOptions
	lookup OpLookup
	clock  clock
	// index finds ops by :index.
	index *model.IndexMap
	// keyOf maps a key's plain text to its id (keys are interned by text).
	keyOf map[string]model.KeyID
	// txn is set for a transactional workload; tclock places its ops on
	// the transaction timeline.
	txn         bool
	tclock      txnClock
	cycleCharts []Chart
	omissions   []string
	final       *Span
	finalDone   bool
	pairing     *model.Pairing
}

func newBuilder(res *analysis.Result, h *model.History, o ViewOptions) *builder {
	b := &builder{res: res, h: h, o: o, txn: IsTxnWorkload(res.Workload)}
	if h == nil {
		b.clock = clock{unit: "op", scale: 1}
		return b
	}
	b.index = model.NewIndexMap(h)
	b.lookup = IndexLookup(h, b.index)
	b.keyOf = make(map[string]model.KeyID, len(h.Keys))
	for i, k := range h.Keys {
		b.keyOf[k.PlainText()] = model.KeyID(i)
	}
	b.clock = newClock(h)
	return b
}

// op returns the op with :index idx, or nil.
func (b *builder) op(idx int64) *model.Op {
	if i := b.pos(idx); i >= 0 {
		return &b.h.Ops[i]
	}
	return nil
}

// pos returns the position in h.Ops of the op with :index idx, or -1.
func (b *builder) pos(idx int64) int {
	if b.h == nil {
		return -1
	}
	return b.index.Pos(idx)
}

// mops returns the micro-ops of the op at position i; an invocation whose
// micro-ops ingest dropped gets the invocation form of its completion's
// (model.History.InvocationMops, with the pairing computed once, when
// first needed).
func (b *builder) mops(i int) []model.Mop {
	op := &b.h.Ops[i]
	if op.Type != model.Invoke || op.Mops.N > 0 {
		return b.h.MopsOf(op)
	}
	if b.pairing == nil {
		// A history that reached a report was paired without problems
		// already; on problems Pair still pairs what it can.
		p, _ := model.Pair(b.h)
		b.pairing = &p
	}
	return b.h.InvocationMops(i, *b.pairing)
}

// key returns the id of an instance's key.
func (b *builder) key(v *analysis.Value) (model.KeyID, bool) {
	if v == nil || b.keyOf == nil {
		return 0, false
	}
	k, ok := b.keyOf[v.PlainText()]
	return k, ok
}

// clock turns op times into chart x values: a unit chosen so the numbers
// stay readable, and a number of decimals that resolves about a millionth
// of the history's duration.
type clock struct {
	unit     string  // "s", "ms", "µs", "ns" or "op"
	scale    float64 // nanoseconds per unit
	decimals int
	end      float64 // the last op's x
}

func newClock(h *model.History) clock {
	maxT, timed := int64(0), false
	for i := range h.Ops {
		if t := h.Ops[i].Time; t != model.NoTime {
			timed = true
			maxT = max(maxT, t)
		}
	}
	if !timed {
		c := clock{unit: "op", scale: 1}
		if n := len(h.Ops); n > 0 {
			c.end = float64(h.Ops[n-1].Index)
		}
		return c
	}
	u, scale := unitFor(maxT)
	c := clock{unit: u, scale: scale}
	c.end = float64(maxT) / c.scale
	c.decimals = decimalsFor(c.end)
	return c
}

// unitFor picks the unit in which a duration of up to ns nanoseconds
// reads best: s, ms, µs or ns, and the nanoseconds in it.
func unitFor(ns int64) (string, float64) {
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

// x returns an op's place on the time axis, and false when it has none.
func (c clock) x(op *model.Op) (float64, bool) {
	if c.unit == "op" {
		return float64(op.Index), true
	}
	if op.Time == model.NoTime {
		return 0, false
	}
	return float64(op.Time) / c.scale, true
}

// ns converts nanoseconds to axis units (for the "op" unit, nothing can be
// converted and 0 is returned).
func (c clock) ns(t int64) float64 {
	if c.unit == "op" {
		return 0
	}
	return float64(t) / c.scale
}

// axisName names the time axis.
func (c clock) axisName() string {
	if c.unit == "op" {
		return "op index"
	}
	return "time (" + c.unit + ")"
}

// section builds the part of the page of one anomaly type.
func (b *builder) section(tv TypeView) Section {
	ins := b.res.Anomalies[tv.Type]
	sec := Section{TypeView: tv, Instances: []InstanceView{}}
	if t, ok := workload.Describe(b.res.Workload, tv.Type); ok {
		sec.Doc, sec.DocPath = t.Meaning, t.Doc
		sec.Docs = docSection(t.Doc)
	}
	if sec.Doc == "" {
		sec.Doc = "An anomaly type this report has no description for; see the explanation of each instance."
	}
	for i := range ins {
		if i == b.o.MaxInstances {
			break
		}
		sec.Instances = append(sec.Instances, b.instance(tv.Type, i+1, &ins[i]))
	}
	sec.Shown = len(sec.Instances)
	return sec
}

// instance builds the view of one instance: its explanation, why each
// edge of its cycle exists, its witness ops and its cycle's drawing. A
// transactional instance also gets its article's id, a cycle's
// explanation as a chain of orders (Chain, after the first line), and an
// incompatible order's two reads side by side.
func (b *builder) instance(typ string, n int, in *analysis.Instance) InstanceView {
	wl := b.res.Workload
	iv := InstanceView{N: n, Allowed: in.Allowed, Explanation: ExplainIn(wl, typ, in, b.lookup),
		Witness: []WitnessRow{}, WitnessTotal: len(in.Witness), Proof: in.Proof, ProofNote: ProofNote(in)}
	if in.Key != nil {
		iv.Key = in.Key.String()
	}
	for _, st := range in.Steps {
		iv.Steps = append(iv.Steps, StepView{From: st.From, To: st.To, Rel: st.Rel, Why: ExplainStepIn(wl, st, b.lookup), Contested: st.Contested})
	}
	if b.txn {
		b.txnInstance(&iv, typ, in)
	}
	b.witness(&iv, typ, in)
	if len(in.Steps) > 0 {
		var c Chart
		if b.txn {
			c = b.txnCycleChart(typ, n, in, iv.Steps)
		} else {
			c = b.cycleChart(typ, n, in, iv.Steps)
		}
		iv.Graph = c.ID
		b.cycleCharts = append(b.cycleCharts, c)
	}
	return iv
}

// witness fills the witness table of iv, at most MaxWitnessOps rows.
func (b *builder) witness(iv *InstanceView, typ string, in *analysis.Instance) {
	for i, idx := range in.Witness {
		if i == b.o.MaxWitnessOps {
			b.omissions = append(b.omissions, fmt.Sprintf("%s #%d: the witness table shows %d of %s ops.",
				typ, iv.N, b.o.MaxWitnessOps, thousands(int64(len(in.Witness)))))
			break
		}
		iv.Witness = append(iv.Witness, b.witnessRow(idx))
	}
}

// witnessRow is the row of the op with :index idx: its micro-ops as one
// value (queue), or one string per micro-op (transactional workloads).
func (b *builder) witnessRow(idx int64) WitnessRow {
	pos := b.pos(idx)
	if pos < 0 {
		return WitnessRow{Index: idx, Missing: true, Value: "(no op with this index in the history)"}
	}
	op := &b.h.Ops[pos]
	row := WitnessRow{Index: idx, Type: op.Type.String(), F: b.fname(op), Error: elide(b.h.ErrorOf(op), b.o.MaxValueChars)}
	if b.txn {
		row.Mops = b.mopTexts(pos, witnessMops, 2*b.o.MaxValueChars)
	} else {
		row.Value = elide(b.opValue(pos), b.o.MaxValueChars)
	}
	if op.Time != model.NoTime {
		row.Time = time.Duration(op.Time).String()
	}
	if op.Process == model.NoProcess {
		row.Process = "-"
	} else {
		row.Process = strconv.Itoa(int(op.Process))
	}
	return row
}

func (b *builder) fname(op *model.Op) string {
	if op.F == model.FOther {
		return b.h.FNameOf(op)
	}
	return op.F.String()
}

// opValue renders an op's :value in EDN-like text: micro-ops as
// [:send k v] / [:send k [offset v]] and [:poll] / [:poll {k [[offset v]
// ...]}], the keys of an assign or subscribe as a vector. It stops early
// once the text is far past what elide keeps.
func (b *builder) opValue(pos int) string {
	op := &b.h.Ops[pos]
	mops := b.mops(pos)
	limit := b.o.MaxValueChars * 4
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
			b.writeMop(&sb, &m, limit)
		}
		sb.WriteByte(']')
	case op.F == model.FAssign || op.F == model.FSubscribe:
		sb.WriteByte('[')
		for i, k := range b.h.KeysOf(op) {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(b.h.Keys[k].String())
			if sb.Len() > limit {
				break
			}
		}
		sb.WriteByte(']')
	}
	return sb.String()
}

func (b *builder) writeMop(sb *strings.Builder, m *model.Mop, limit int) {
	h := b.h
	switch m.Kind {
	case model.MopSend:
		sb.WriteString("[:send ")
		sb.WriteString(h.Keys[m.Key].String())
		sb.WriteByte(' ')
		if m.Done {
			sb.WriteByte('[')
			if m.Offset == model.NoOffset {
				sb.WriteString("nil")
			} else {
				sb.WriteString(strconv.FormatInt(m.Offset, 10))
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
		for i, kp := range b.h.PollsOf(m) {
			if sb.Len() > limit {
				break
			}
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(h.Keys[kp.Key].String())
			sb.WriteString(" [")
			for j, rd := range b.h.ReadsOf(&kp) {
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
		writeList(sb, len(elems), listHead, listTail, limit, func(i int) string { return h.MsgValue(elems[i]).String() })
		sb.WriteByte(']')
	default:
		sb.WriteString("[…]")
	}
}

// How many elements a long list keeps at its start and its end when it is
// shortened for the page (writeList).
const (
	listHead = 6
	listTail = 4
)

// writeList writes a list of n elements as [a b c], at(i) giving element
// i's text. A list longer than head+tail+1 keeps its first head and last
// tail elements around "… k more …"; writing stops early once sb is past
// limit bytes.
func writeList(sb *strings.Builder, n, head, tail, limit int, at func(int) string) {
	writeListSep(sb, " ", n, head, tail, limit, at)
}

// writeListSep is writeList with items separated by sep.
func writeListSep(sb *strings.Builder, sep string, n, head, tail, limit int, at func(int) string) {
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
			fmt.Fprintf(sb, "… %s more …", thousands(int64(n-head-tail)))
			i = n - tail - 1
			continue
		}
		sb.WriteString(at(i))
	}
	sb.WriteByte(']')
}

// elide cuts s to at most n characters (runes), ending it with "…" when
// cut.
func elide(s string, n int) string {
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
