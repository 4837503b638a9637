package txn

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/consistency"
	"github.com/hindsight-dev/hindsight/analysis/graph"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/model"
)

// Options tune a transactional check.
type Options struct {
	// Models are the consistency models the history must satisfy (Elle's
	// names or aliases). Nil means consistency.DefaultModels; an empty
	// non-nil slice means none (only Anomalies are looked for).
	Models []string
	// Anomalies are further anomaly types the history must not show
	// (Elle's :anomalies; G1 stands for G1a, G1b and G1c, and so on).
	Anomalies []string
	// CycleBudget bounds the cycle search in each strongly connected
	// component; zero means no bound.
	CycleBudget time.Duration
	// Series keeps the version order of every key in the result
	// (Result.Series.Orders, or Versions for rw-register) for the HTML
	// report.
	Series bool
	// Version-order sources of rw-register (docs/rw-register.md#version-orders),
	// each an assumption about the system: within a txn, a write follows the
	// read of the same key (WFRKeys); each key is sequentially consistent, so
	// process order orders its versions (SequentialKeys); each key is
	// linearizable, so real-time order does (LinearizableKeys). List-append
	// ignores them.
	WFRKeys, SequentialKeys, LinearizableKeys bool
	// TransactionOrder is an externally known commit order for rw-register
	// (Elle's :transaction-order): the completion op index of a txn to its
	// position; the writes of each key are ordered by their txns'
	// positions. Nil: none.
	TransactionOrder map[int64]int64
}

// DefaultOptions are the defaults of the command line.
func DefaultOptions() Options { return Options{CycleBudget: 10 * time.Second} }

// Validate checks the model and anomaly names of o.
func (o Options) Validate() error {
	_, err := consistency.Prohibited(o.models(), o.Anomalies)
	return err
}

func (o Options) models() []string {
	if o.Models == nil {
		return consistency.DefaultModels
	}
	return o.Models
}

// rec is one transaction: a completion with its invocation, or an
// invocation that never completed (taken as info).
type rec struct {
	inv, comp int32 // positions in h.Ops; comp == inv for an open invocation
	vertex    int32 // graph vertex (ok and info txns), or -1 (failed)
}

// typOf is rec rc's type: fail when it is no vertex, info for an open
// invocation, else its completion's. The rec does not keep it, so that it
// takes 12 bytes, not 16: the recs live through every peak of the check.
func (c *checker) typOf(rc *rec) model.OpType {
	switch {
	case rc.vertex < 0:
		return model.Fail
	case rc.inv == rc.comp:
		return model.Info
	}
	return c.h.Ops[rc.comp].Type
}

// inference is what a workload's analysis gives the shared machinery: the
// data edges of the dependency graph and why each exists.
type inference interface {
	// edges generates every data edge (ww, wr, rw) between vertices,
	// deterministically: the graph builder goes through them twice, its
	// ranges on every core (graph.Edges).
	edges() graph.Edges
	// explain says why the data edge from rec u to rec v with relation rel
	// exists.
	explain(u, v int32, rel graph.Rel) analysis.Step
	// orderOp returns the op whose read gave the version order of the key
	// a contested step named, or nil (analysis.CycleFields.SetProof).
	orderOp(key *analysis.Value) *int64
	// built is told that the graph is built: it drops what only edges
	// needed (the readers of each state), before the cycle search, where
	// the check's memory peaks.
	built()
}

// checker holds what every transactional analysis shares.
type checker struct {
	h    *model.History
	opts Options
	res  *analysis.Result

	recs []rec
	vrec []int32 // vertex -> rec
	// recAt maps a position in h.Ops to its rec, or -1 (recAtPos): built
	// when first needed, dropped before the graph's arrays are filled
	// (building the graph and the cycle search are the peaks of the
	// check's memory; recOfIndex finds a completion's rec without it)
	recAt []int32
	// orderRel is the relation added for process or realtime order
	// (consistency.OrderRel): 0, graph.Process or graph.Realtime.
	orderRel graph.Rel
	// prec picks the relation an edge stands for in a cycle: the order in
	// which the workload's Elle explainers justify edges.
	prec  *graph.Precedence
	inf   inference
	index *model.IndexMap // op index -> position, built when first needed
	// rt is the realtime order's windows, which startRealtime computes on a
	// goroutine of its own (rtGroup) while the workload infers its edges
	rt      *graph.Windows
	rtGroup par.Group
}

func newChecker(h *model.History, p model.Pairing, opts Options, workload string) *checker {
	c := &checker{h: h, opts: opts, res: &analysis.Result{
		Schema: analysis.Schema, Source: h.Source, Workload: workload,
		Options:  analysis.Options{CycleBudgetS: opts.CycleBudget.Seconds(), Anomalies: opts.Anomalies},
		Warnings: h.Warnings,
	}}
	c.res.Models = append([]string{}, opts.models()...) // as requested
	c.prec = &graph.DefaultPrecedence
	c.orderRel, _ = consistency.OrderRel(opts.models(), opts.Anomalies)
	c.records(p)
	c.startRealtime()
	return c
}

// startRealtime starts computing the realtime order's windows, when the
// models need realtime order, on a goroutine of its own: they depend on
// the records only, and the inference leaves a core idle for part of its
// time (its phases that run on every core spend 1.4 to 1.9 cores, by
// HINDSIGHT_PHASES), so the windows fill that time instead of a phase of
// their own on one core between the inference and the graph (34 to 57 ms
// on histgen's 1M-txn histories). graph waits for them. They hold about
// 8 bytes a vertex meanwhile; their working space (a position's rec, 4
// bytes an op, and the frontier) is garbage before the inference's peak.
func (c *checker) startRealtime() {
	if c.orderRel != graph.Realtime {
		return
	}
	c.rtGroup.Go(func() { c.rt = c.realtimeWindows() })
}

// records collects the transactions: every client completion, and every
// client invocation never completed, whose micro-ops are transactional.
// The checker does not keep p: the records hold each transaction's
// invocation and completion, and the pairing (4 bytes an op) is garbage
// once they are built, before the heap's peak.
func (c *checker) records(p model.Pairing) {
	h := c.h
	st := &c.res.Stats
	st.Ops = int64(len(h.Ops))
	// a txn is at least one op: sized once, not grown (a copy per doubling)
	c.recs = make([]rec, 0, len(h.Ops)/2+1)
	c.vrec = make([]int32, 0, len(h.Ops)/2+1)
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.IsClient() {
			continue
		}
		st.ClientOps++
		var r rec
		var typ model.OpType
		switch {
		case op.Type != model.Invoke && p.Partner[i] >= 0:
			r, typ = rec{inv: p.Partner[i], comp: int32(i)}, op.Type
		case op.Type == model.Invoke && p.Partner[i] < 0:
			r, typ = rec{inv: int32(i), comp: int32(i)}, model.Info
		default:
			continue
		}
		if !isTxn(h.MopsOf(op)) && !(r.inv != r.comp && isTxn(h.MopsOf(&h.Ops[r.inv]))) {
			continue
		}
		switch {
		case r.inv == r.comp:
			st.OpenOps++
		case typ == model.OK:
			st.OKOps++
		case typ == model.Info:
			st.InfoOps++
		case typ == model.Fail:
			st.FailOps++
		}
		r.vertex = -1
		if typ != model.Fail {
			r.vertex = int32(len(c.vrec))
			c.vrec = append(c.vrec, int32(len(c.recs)))
		}
		c.recs = append(c.recs, r)
	}
	analysis.OwnStats[Stats](c.res).Txns = int64(len(c.recs))
	st.Keys = int64(len(h.Keys))
}

// recAtPos returns recAt, building it when it was dropped. O(ops).
func (c *checker) recAtPos() []int32 {
	if c.recAt == nil {
		c.recAt = c.recPositions()
	}
	return c.recAt
}

// recPositions maps each position in h.Ops to its rec, or -1, afresh.
func (c *checker) recPositions() []int32 {
	at := filledInt32(len(c.h.Ops), -1)
	for r := range c.recs {
		rc := &c.recs[r]
		at[rc.inv], at[rc.comp] = int32(r), int32(r)
	}
	return at
}

func isTxn(mops []model.Mop) bool {
	for i := range mops {
		switch mops[i].Kind {
		case model.MopAppend, model.MopWrite, model.MopRead, model.MopReadList:
			return true
		}
	}
	return false
}

// mops returns the micro-ops of rec r as executed: its completion's, or its
// invocation's when the completion carries none (a fail that repeats
// nothing, an open invocation).
func (c *checker) mops(r int32) []model.Mop {
	rc := &c.recs[r]
	if m := c.h.MopsOf(&c.h.Ops[rc.comp]); len(m) > 0 || rc.inv == rc.comp {
		return m
	}
	return c.h.MopsOf(&c.h.Ops[rc.inv])
}

// idx is the op index that names rec r: its completion's.
func (c *checker) idx(r int32) int64 { return c.h.Index(int(c.recs[r].comp)) }

// witness lists the invocations and completions of the given recs.
func (c *checker) witness(recs ...int32) []int64 {
	w := make([]int64, 0, 2*len(recs))
	for _, r := range recs {
		rc := &c.recs[r]
		w = append(w, c.h.Index(int(rc.inv)))
		if rc.comp != rc.inv {
			w = append(w, c.h.Index(int(rc.comp)))
		}
	}
	return w
}

func (c *checker) keyVal(k model.KeyID) *analysis.Value { return analysis.AtomValuePtr(c.h.Keys[k]) }

func (c *checker) msgVal(m model.MsgID) analysis.Value { return analysis.AtomValue(c.h.MsgValue(m)) }

// listVal is the list value of the given elements.
func (c *checker) listVal(ms []model.MsgID) analysis.Value {
	return analysis.AtomsValue(len(ms), func(i int) model.Atom { return c.h.MsgValue(ms[i]) })
}

// stateVal renders a state for an instance: a list (list-append; nil
// when read as nil), or a register's value (nil for none).
func (c *checker) stateVal(list bool, es []model.MsgID, isNil bool) analysis.Value {
	switch {
	case list && isNil, !list && len(es) == 0:
		return analysis.AtomValue(model.NilAtom)
	case list:
		return c.listVal(es)
	}
	return c.msgVal(es[0])
}

// mopVal renders micro-op m of a txn for JSON: its name as the EDN keyword
// it is (":r", ":append", ":w"), its key and its value.
func (c *checker) mopVal(m *model.Mop) *analysis.Mop {
	out := &analysis.Mop{F: ":" + m.Kind.String(), Key: analysis.AtomValue(c.h.Keys[m.Key]), Value: analysis.AtomValue(model.NilAtom)}
	switch m.Kind {
	case model.MopReadList:
		out.Value = c.listVal(c.h.ElemsOf(m))
	case model.MopAppend, model.MopWrite:
		out.Value = c.msgVal(m.Msg)
	case model.MopRead:
		if m.Done {
			out.Value = c.msgVal(m.Msg)
		}
	}
	return out
}

// add records an instance of typ.
func (c *checker) add(typ string, in analysis.Instance) { c.res.Add(typ, in) }

// graph builds the dependency graph on the vertices (ok and info txns):
// the workload's data edges plus process or realtime order.
// Realtime order goes through hubs where many txns run at once
// (graph.Windows).
func (c *checker) graph() *graph.Graph {
	n := int32(len(c.vrec))
	var rt graph.Windows
	if c.orderRel == graph.Realtime {
		c.rtGroup.Wait() // startRealtime
		rt, c.rt = *c.rt, nil
		phase.Mark("txn realtime windows")
	}
	if c.orderRel != graph.Process {
		// 4 bytes an op, not needed to fill the graph: dropped before
		// its arrays are made (recAtPos rebuilds it if asked)
		c.recAt = nil
	}
	hubs, viaHubs := rt.Number(n)
	e := c.inf.edges()
	data := e.Serial
	e.Serial = func(add graph.AddFunc) {
		if data != nil {
			data(add)
		}
		rt.Emit(add)
		if c.orderRel == graph.Process {
			c.emitProcess(add)
		}
	}
	g := graph.BuildHubs(int(n), hubs, viaHubs, e)
	c.inf.built()
	// the windows and what the build needed only while filling are
	// garbage now: collected here, they are not where the cycle search's
	// arrays go, and a soft memory limit that follows the live heap
	// (cmd/hindsight) drops with them
	rt = graph.Windows{}
	c.collect()
	phase.Mark("txn graph")
	return g
}

// collect runs a garbage collection in a large check, between two passes
// of the analysis where the first leaves large indexes it no longer needs:
// the next pass's arrays then go where those were, instead of into fresh
// memory, which costs a page fault a page here (bench/README.md). For
// list-append after the indexes and after the non-cycle checks (1M txns,
// bench/ab.sh, eight rounds: peak RSS 206 -> 197 MiB, wall 1.65 -> 1.60
// s, within the noise), and for both workloads after the graph.
func (c *checker) collect() {
	if len(c.vrec) >= collectAbove {
		runtime.GC()
	}
}

// collectAbove is the fewest vertices for which collect collects: a
// collection costs about a millisecond, nothing beside a check of this
// size (0.3 s and more).
const collectAbove = 1 << 18

// run finishes a check once the workload's inference and non-cycle checks
// are done: the graph, the cycle search, and the verdict.
func (c *checker) run(start time.Time) *analysis.Result {
	g := c.graph()
	st := &c.res.Stats
	if g == nil {
		c.res.UnknownReasons = append(c.res.UnknownReasons, graph.TooLarge(len(c.vrec)))
		c.finish()
		st.ElapsedMS = time.Since(start).Milliseconds()
		return c.res
	}
	st.GraphVertices, st.GraphEdges = int64(g.Real()), g.Edges()
	if g.E() == 0 && !c.realtimeToFailed() {
		c.add(EmptyTransactionGraph, &Instance{Evidence: analysis.Evidence{Witness: []int64{}}})
		c.res.UnknownReasons = append(c.res.UnknownReasons, EmptyTransactionGraph+
			": no transaction depends on another (no read saw another's write, and no order links them), so nothing can be judged")
	}
	c.recAt = nil
	c.cycles(g)
	phase.Mark("txn cycles")
	if c.h.Truncated {
		c.res.UnknownReasons = append(c.res.UnknownReasons,
			"the input was cut off in the middle of an op; only the complete ops before it were analysed")
	}
	c.finish()
	st.ElapsedMS = time.Since(start).Milliseconds()
	return c.res
}

// realtimeToFailed reports whether Elle's realtime graph would hold an
// edge that hindsight's graph leaves out: Elle links every ok txn to each
// txn invoked after it completed, failed ones included (they are no
// vertices here, having no effect, so no cycle goes through them). Such an
// edge keeps Elle from calling the graph empty; so it does here, when
// realtime order is in use.
func (c *checker) realtimeToFailed() bool {
	if c.orderRel != graph.Realtime {
		return false
	}
	okDone := false
	for i, r := range c.recAtPos() {
		if r < 0 {
			continue
		}
		rc := &c.recs[r]
		switch {
		case int32(i) == rc.inv && rc.vertex < 0 && okDone:
			return true
		case int32(i) == rc.comp && c.typOf(rc) == model.OK:
			okDone = true
		}
	}
	return false
}

// ours are the types hindsight adds to Elle's: always reported;
// garbage-read is bad under every model, duplicate-appends and
// duplicate-writes make the verdict unknown.
var ours = map[string]bool{GarbageRead: true, DuplicateAppends: true, DuplicateWrites: true}

// finish applies Elle's result map (elle.txn result-map): only types the
// models make reportable are kept, cycle-exists types that other anomalies
// make redundant are dropped, the verdict is invalid when a prohibited type
// remains, and `not`/`also_not` are the boundary of every type found.
func (c *checker) finish() {
	models := c.opts.models()
	reportable, err := consistency.Reportable(models, c.opts.Anomalies)
	if err != nil {
		c.res.UnknownReasons = append(c.res.UnknownReasons, err.Error())
		reportable = consistency.Set{}
	}
	prohibited, _ := consistency.Prohibited(models, c.opts.Anomalies)
	var found []string
	for t := range c.res.Anomalies {
		found = append(found, boundaryType(t))
	}
	slices.Sort(found)
	var keep []string
	for t := range c.res.Anomalies {
		if reportable.Has(t) || ours[t] {
			keep = append(keep, t)
		}
	}
	slices.Sort(keep)
	keep = consistency.RemoveRedundantCycleExists(keep)
	for t := range c.res.Anomalies {
		if !slices.Contains(keep, t) {
			delete(c.res.Anomalies, t)
		}
	}
	c.res.Not, c.res.AlsoNot = []string{}, []string{}
	if len(keep) > 0 {
		c.res.Not, c.res.AlsoNot = consistency.Boundary(found)
		if c.res.Not == nil {
			c.res.Not = []string{}
		}
		if c.res.AlsoNot == nil {
			c.res.AlsoNot = []string{}
		}
	}
	c.res.Finish(func(typ string, _ analysis.Instance) bool {
		return typ == GarbageRead || prohibited.Has(typ)
	})
}

// boundaryType is the type Boundary should count for typ: garbage-read is
// outside Elle's lattice; it rules out what an aborted read does (Elle's own
// treatment of incompatible orders, where garbage shows up there).
func boundaryType(t string) string {
	if t == GarbageRead {
		return G1a
	}
	return t
}

// unknownReason records why the verdict can be no better than unknown.
func (c *checker) unknownReason(format string, args ...any) {
	c.res.UnknownReasons = append(c.res.UnknownReasons, fmt.Sprintf(format, args...))
}

// opList renders op indices for messages: "ops 3, 5 and 9".
func opList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	if len(s) == 1 {
		return "op " + s[0]
	}
	return "ops " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
