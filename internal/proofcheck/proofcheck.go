// Package proofcheck checks the cycle witnesses of a result against the
// history alone, the way a reader with the history and docs/README.md's
// "the witness is the whole proof" would: it re-reads the history, and for
// every cycle instance checks that the steps chain and close, that each
// ww, wr, rw, process and realtime step holds (or that the order it
// assumes is one some read contradicts, as the step says), that the type
// fits the steps, that the proof state (proven, assumes, given) is what
// the steps show, and that the witness holds every op the proof needs.
//
// It shares nothing with the checkers: no graph, no inference, no version
// order. It uses only the history (package model) and the result's types
// (package analysis). It exists for the test suite: every fixture,
// reference history, generated history and fuzz seed is checked with it.
//
// What each step must show is docs/list-append.md's "Order sources" and
// "Contested orders", docs/rw-register.md's version-order sources and
// docs/queue.md's cycle types. Cost: O(history) to index, then per step
// O(reads of its key).
package proofcheck

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// txn is one operation of the history as the checker sees it: its
// invocation and completion (positions and op indices; an invocation that
// never completed has comp == inv) and the micro-ops of its completion.
type txn struct {
	inv, comp int
	name      int64 // the op index that names it: its completion's
	typ       model.OpType
	process   int32
	mops      []model.Mop
}

// read is one list-append read of a key, repeats dropped.
type read struct {
	op    int64
	elems []model.MsgID
}

// Checker checks the cycle instances of results of one history.
type Checker struct {
	h     *model.History
	res   *analysis.Result
	byIdx map[int64]*txn
	// list-append: the reads of each key, and the number of appends of
	// each element (by ok and info txns) and of each key
	reads      map[model.KeyID][]read
	appends    map[model.MsgID]int
	keyAppends map[model.KeyID]int
	// queue: the values observed at each (key, offset)
	observed map[keyOffset][]observation
}

type keyOffset struct {
	k   model.KeyID
	off int64
}

type observation struct {
	m  model.MsgID
	op int64
}

// New indexes h, whose checker returned res.
func New(h *model.History, res *analysis.Result) (*Checker, error) {
	p, err := model.Pair(h)
	if err != nil {
		return nil, err
	}
	c := &Checker{h: h, res: res, byIdx: map[int64]*txn{}, reads: map[model.KeyID][]read{},
		appends: map[model.MsgID]int{}, keyAppends: map[model.KeyID]int{}, observed: map[keyOffset][]observation{}}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.IsClient() {
			continue
		}
		partner := p.Partner[i]
		switch {
		case op.Type == model.Invoke && partner < 0: // never completed: info
			c.add(&txn{inv: i, comp: i, name: h.Index(i), typ: model.Info, process: op.Process, mops: h.MopsOf(op)})
		case op.Type != model.Invoke && partner >= 0:
			c.add(&txn{inv: int(partner), comp: i, name: h.Index(i), typ: op.Type, process: op.Process, mops: h.MopsOf(op)})
		}
	}
	return c, nil
}

func (c *Checker) add(t *txn) {
	c.byIdx[t.name] = t
	if t.typ == model.Fail {
		return
	}
	for i := range t.mops {
		m := &t.mops[i]
		switch m.Kind {
		case model.MopAppend:
			c.appends[m.Msg]++
			c.keyAppends[m.Key]++
		case model.MopReadList:
			c.reads[m.Key] = append(c.reads[m.Key], read{t.name, dedup(c.h.ElemsOf(m))})
		case model.MopRead:
			if !m.Done && t.typ == model.OK {
				c.reads[m.Key] = append(c.reads[m.Key], read{t.name, nil})
			}
		case model.MopSend:
			if m.Done && t.typ == model.OK && m.HasOffset() {
				ko := keyOffset{m.Key, c.h.Offset(m)}
				c.observed[ko] = append(c.observed[ko], observation{m.Msg, t.name})
			}
		case model.MopPoll:
			if t.typ != model.OK {
				continue
			}
			for _, kp := range c.h.PollsOf(m) {
				for _, rd := range c.h.ReadsOf(&kp) {
					ko := keyOffset{kp.Key, rd.Offset()}
					c.observed[ko] = append(c.observed[ko], observation{rd.Msg, t.name})
				}
			}
		}
	}
}

func dedup(es []model.MsgID) []model.MsgID {
	var out []model.MsgID
	for _, e := range es {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// Check checks every cycle instance of the result and returns what is
// wrong with each, "TYPE #n: ..." (nil when every one is a proof or says
// what it assumes).
func (c *Checker) Check() []error {
	var errs []error
	types := make([]string, 0, len(c.res.Anomalies))
	for typ := range c.res.Anomalies {
		types = append(types, typ)
	}
	slices.Sort(types)
	proven := map[string]int64{}
	for _, typ := range types {
		for i := range c.res.Anomalies[typ] {
			ai := c.res.Anomalies[typ][i]
			in := ai.InstanceCycle()
			if in == nil || len(in.Steps) == 0 && len(in.Cycle) == 0 {
				if in != nil && in.Proof != "" {
					errs = append(errs, fmt.Errorf("%s #%d: a proof state on an instance with no cycle", typ, i+1))
				}
				continue
			}
			if err := c.Instance(typ, ai); err != nil {
				errs = append(errs, fmt.Errorf("%s #%d (cycle %v): %w", typ, i+1, in.Cycle, err))
			}
			if in.Proof == analysis.Proven {
				proven[typ]++
			} else if _, ok := proven[typ]; !ok {
				proven[typ] = 0
			}
		}
	}
	for typ, n := range proven {
		if got, ok := c.res.ProvenCycles[typ]; !ok || got != n {
			errs = append(errs, fmt.Errorf("proven_cycles[%s] = %d (present %v), but %d instances are proven", typ, got, ok, n))
		}
	}
	for typ := range c.res.ProvenCycles {
		if _, ok := proven[typ]; !ok {
			errs = append(errs, fmt.Errorf("proven_cycles[%s] counts a type with no cycle instances", typ))
		}
	}
	return errs
}

// Instance checks one cycle instance of type typ.
func (c *Checker) Instance(typ string, ai analysis.Instance) error {
	in := ai.InstanceCycle()
	if in == nil {
		return errors.New("not a cycle instance")
	}
	n := len(in.Steps)
	if n < 2 || len(in.Cycle) != n {
		return fmt.Errorf("%d steps for a cycle of %d ops", n, len(in.Cycle))
	}
	for i, st := range in.Steps {
		if st.From != in.Cycle[i] || st.To != in.Cycle[(i+1)%n] {
			return fmt.Errorf("step %d (%d → %d) does not chain the cycle %v", i, st.From, st.To, in.Cycle)
		}
	}
	for i := range in.Cycle {
		if slices.Contains(in.Cycle[:i], in.Cycle[i]) {
			return fmt.Errorf("op %d twice in the cycle", in.Cycle[i])
		}
	}
	var need []int64 // the ops the proof needs
	contested := map[string][]int64{}
	var given []string
	for i, st := range in.Steps {
		ops, err := c.step(st)
		if err != nil {
			return fmt.Errorf("step %d (%s %d → %d): %w", i, st.Rel, st.From, st.To, err)
		}
		need = append(need, st.From, st.To)
		need = append(need, ops...)
		need = append(need, st.ContradictedBy...)
		if st.Contested {
			k := keyText(st.Key)
			contested[k] = append(contested[k], st.ContradictedBy...)
		}
		if slices.Contains([]string{"wfr-keys", "sequential-keys", "linearizable-keys", "transaction-order"}, st.OrderBy) &&
			!slices.Contains(given, st.OrderBy) {
			given = append(given, st.OrderBy)
		}
	}
	if err := c.fits(typ, in, ai.InstanceEvidence().Allowed); err != nil {
		return err
	}
	if err := proofState(in, contested, given); err != nil {
		return err
	}
	for _, a := range in.Assumes { // the read whose order an assumption takes is evidence too
		if a.OrderOp != nil {
			need = append(need, *a.OrderOp)
		}
	}
	for _, op := range need {
		t := c.byIdx[op]
		if t == nil {
			return fmt.Errorf("op %d is no operation of the history", op)
		}
		for _, pos := range []int{t.inv, t.comp} {
			if idx := c.h.Index(int(pos)); !slices.Contains(ai.InstanceEvidence().Witness, idx) {
				return fmt.Errorf("the witness lacks op %d (of op %d), which the proof needs", idx, op)
			}
		}
	}
	return nil
}

func keyText(v *analysis.Value) string {
	if v == nil {
		return ""
	}
	return v.String()
}

// proofState checks in.Proof, Assumes and Given against what the steps
// show: contested keys (with their contradicting ops) and given sources.
func proofState(in *analysis.CycleFields, contested map[string][]int64, given []string) error {
	want := analysis.Proven
	switch {
	case len(contested) > 0:
		want = analysis.Assumes
	case len(given) > 0:
		want = analysis.Given
	}
	if in.Proof != want {
		return fmt.Errorf("proof %q, but the steps make it %q", in.Proof, want)
	}
	if len(in.Assumes) != len(contested) {
		return fmt.Errorf("%d assumptions for %d contested keys", len(in.Assumes), len(contested))
	}
	for _, a := range in.Assumes {
		ops, ok := contested[keyText(a.Key)]
		if !ok {
			return fmt.Errorf("assumes the order of key %s, which no step contests", keyText(a.Key))
		}
		for _, op := range ops {
			if !slices.Contains(a.ContradictedBy, op) {
				return fmt.Errorf("the assumption on key %s lacks op %d", keyText(a.Key), op)
			}
		}
	}
	slices.Sort(given)
	if !slices.Equal(in.Given, given) {
		return fmt.Errorf("given %v, but the steps rest on %v", in.Given, given)
	}
	return nil
}

// fits checks that typ names the cycle its steps make (docs/list-append.md
// and docs/queue.md: counted rw steps, adjacency around the cycle, wr, and
// the -process and -realtime forms).
func (c *Checker) fits(typ string, in *analysis.CycleFields, allowed bool) error {
	var rw, wr, ww, process, realtime int
	adjacent := false
	rels := make([]string, len(in.Steps))
	for i, st := range in.Steps {
		rels[i] = st.Rel
	}
	for i, r := range rels {
		for _, part := range strings.Split(r, "+") {
			switch part {
			case "rw":
				rw++
				if strings.Contains(rels[(i+1)%len(rels)], "rw") {
					adjacent = true
				}
			case "wr":
				wr++
			case "ww":
				ww++
			case "process":
				process++
			case "realtime":
				realtime++
			default:
				return fmt.Errorf("unknown relation %q", r)
			}
		}
	}
	if strings.HasSuffix(typ, "-cycle-exists") {
		return nil // any cycle of the projection: the chain is the proof
	}
	base, form := typ, ""
	for _, sfx := range []string{"-process", "-realtime"} {
		if strings.HasSuffix(typ, sfx) {
			base, form = strings.TrimSuffix(typ, sfx), sfx
		}
	}
	switch form {
	case "":
		if process+realtime > 0 {
			return fmt.Errorf("a %s has no process or realtime step", typ)
		}
	case "-process":
		if process == 0 || realtime > 0 {
			return fmt.Errorf("a %s needs a process step and no realtime one", typ)
		}
	case "-realtime":
		if realtime == 0 {
			return fmt.Errorf("a %s needs a realtime step", typ)
		}
	}
	ok := false
	switch base {
	case "G0":
		ok = rw == 0 && wr == 0 && ww > 0
	case "G1c":
		ok = rw == 0 && wr > 0 && (ww == 0 || c.res.Workload != "queue" || allowed)
	case "G-single-item":
		ok = rw == 1
	case "G2-item":
		ok = rw > 1 && adjacent
	case "G-nonadjacent-item":
		ok = rw > 1 && !adjacent
	default:
		return fmt.Errorf("%s is no cycle type", typ)
	}
	if !ok {
		return fmt.Errorf("steps %v do not make a %s", rels, typ)
	}
	return nil
}

// step checks one step and returns the ops beyond its two ends that its
// proof names (order_op, order_ops).
func (c *Checker) step(st analysis.Step) ([]int64, error) {
	from, to := c.byIdx[st.From], c.byIdx[st.To]
	if from == nil || to == nil {
		return nil, fmt.Errorf("no such ops")
	}
	// a failed txn takes no part in a transactional dependency (its
	// effects never happened); the queue's failed polls still read what
	// they read (docs/queue.md)
	if c.res.Workload != "queue" && (from.typ == model.Fail || to.typ == model.Fail) {
		return nil, fmt.Errorf("a failed op takes no part in a dependency")
	}
	var ops []int64
	if st.OrderOp != nil {
		ops = append(ops, *st.OrderOp)
	}
	ops = append(ops, st.OrderOps...)
	if st.Contested && len(st.ContradictedBy) == 0 {
		return nil, fmt.Errorf("contested, but names no contradicting read")
	}
	if !st.Contested && len(st.ContradictedBy) > 0 {
		return nil, fmt.Errorf("names contradicting reads but is not contested")
	}
	switch st.Rel {
	case "process":
		if from.typ != model.OK && c.res.Workload != "queue" || from.process != to.process || from.comp >= to.inv {
			return nil, fmt.Errorf("op %d is not an earlier ok op of op %d's process", st.From, st.To)
		}
		return ops, nil
	case "realtime":
		if from.typ != model.OK || from.comp >= to.inv {
			return nil, fmt.Errorf("op %d did not complete (ok) before op %d was invoked", st.From, st.To)
		}
		return ops, nil
	}
	switch c.res.Workload {
	case "list-append", "rw-register":
		if c.res.Workload == "rw-register" && st.Contested {
			return nil, fmt.Errorf("an rw-register step is never contested")
		}
		mf, mt, err := c.stepMops(st, from, to)
		if err != nil {
			return nil, err
		}
		list := c.res.Workload == "list-append"
		if st.Rel != "wr" && st.Rel != "ww" && st.Rel != "rw" {
			cycle := "an rw-register"
			if list {
				cycle = "a list-append"
			}
			return nil, fmt.Errorf("relation %q in %s cycle", st.Rel, cycle)
		}
		if list {
			return ops, c.listStep(st, from, to, mf, mt)
		}
		return ops, c.registerStep(st, from, to, mf, mt)
	case "queue":
		return ops, c.queueStep(st, from, to)
	}
	return nil, fmt.Errorf("workload %q", c.res.Workload)
}

// mop returns micro-op i of t, or nil.
func mop(t *txn, i int) *model.Mop {
	if i < 0 || i >= len(t.mops) {
		return nil
	}
	return &t.mops[i]
}

// external reports whether micro-op i of t comes before t's first write
// or append of its key.
func external(t *txn, i int) bool {
	for j := range i {
		if (t.mops[j].Kind == model.MopAppend || t.mops[j].Kind == model.MopWrite) && t.mops[j].Key == t.mops[i].Key {
			return false
		}
	}
	return true
}

// keyIs reports whether micro-op m is on the key v names.
func (c *Checker) keyIs(m *model.Mop, v *analysis.Value) bool {
	return v != nil && !v.IsList() && c.h.Keys[m.Key] == v.Atom
}

// valueIs reports whether message e's value is v.
func (c *Checker) valueIs(e model.MsgID, v analysis.Value) bool {
	return e >= 0 && !v.IsList() && c.h.MsgValue(e) == v.Atom
}

// stepMops returns the two micro-ops a data step names, the first of
// from and the second of to, once it has checked that both exist and
// are on the step's key.
func (c *Checker) stepMops(st analysis.Step, from, to *txn) (mf, mt *model.Mop, err error) {
	if len(st.Mops) != 2 {
		return nil, nil, fmt.Errorf("no micro-ops named")
	}
	mf, mt = mop(from, st.Mops[0]), mop(to, st.Mops[1])
	if mf == nil || mt == nil || !c.keyIs(mf, st.Key) || !c.keyIs(mt, st.Key) {
		return nil, nil, fmt.Errorf("the micro-ops named are not on key %s", keyText(st.Key))
	}
	return mf, mt, nil
}

// listStep checks a list-append data step (wr, ww or rw) whose micro-ops
// stepMops returned: mf of from, mt of to.
func (c *Checker) listStep(st analysis.Step, from, to *txn, mf, mt *model.Mop) error {
	if st.Rel == "wr" {
		if st.Value == nil || mf.Kind != model.MopAppend || !c.valueIs(mf.Msg, *st.Value) {
			return fmt.Errorf("op %d did not append %s", st.From, keyText(st.Value))
		}
		es := c.h.ElemsOf(mt)
		if mt.Kind != model.MopReadList || !external(to, st.Mops[1]) || len(es) == 0 || es[len(es)-1] != mf.Msg {
			return fmt.Errorf("op %d's read of key %s does not end in %s", st.To, keyText(st.Key), keyText(st.Value))
		}
		if c.appends[mf.Msg] != 1 {
			return fmt.Errorf("%s was appended %d times", keyText(st.Value), c.appends[mf.Msg])
		}
		return nil
	}
	if len(st.Values) != 2 || mt.Kind != model.MopAppend || !c.valueIs(mt.Msg, st.Values[1]) {
		return fmt.Errorf("op %d did not append %v", st.To, st.Values)
	}
	b := mt.Msg
	a := model.NoMsg
	if st.Rel == "ww" {
		if mf.Kind != model.MopAppend || !c.valueIs(mf.Msg, st.Values[0]) {
			return fmt.Errorf("op %d did not append %s", st.From, st.Values[0].String())
		}
		a = mf.Msg
	} else {
		if (mf.Kind != model.MopReadList && mf.Kind != model.MopRead) || !external(from, st.Mops[0]) {
			return fmt.Errorf("op %d's micro-op is no external read", st.From)
		}
		es := c.h.ElemsOf(mf)
		if mf.Kind == model.MopRead && (mf.Done || from.typ != model.OK) {
			return fmt.Errorf("op %d's read of key %s is unknown", st.From, keyText(st.Key))
		}
		switch {
		case st.Values[0].Kind == model.KNil && !st.Values[0].IsList():
			if len(es) != 0 {
				return fmt.Errorf("op %d did not read key %s empty", st.From, keyText(st.Key))
			}
		case len(es) == 0 || !c.valueIs(es[len(es)-1], st.Values[0]):
			return fmt.Errorf("op %d's read of key %s does not end in %s", st.From, keyText(st.Key), st.Values[0].String())
		default:
			a = es[len(es)-1]
		}
	}
	if c.appends[b] != 1 || a >= 0 && c.appends[a] != 1 {
		return fmt.Errorf("an element of the pair was appended more than once")
	}
	return c.orderPair(st, mf.Key, a, b)
}

// orderPair checks the claim of a ww or rw list-append step that b came
// right after a (model.NoMsg: the empty list) in key k's order
// (docs/list-append.md, "Contested orders"): a read contradicts the pair
// when it shows b right after something else (or first, when a is an
// element) or a right before something else; a read supports it when it
// shows a right before b.
func (c *Checker) orderPair(st analysis.Step, k model.KeyID, a, b model.MsgID) error {
	var contra []int64
	readB := false
	for _, r := range c.reads[k] {
		i := slices.Index(r.elems, b)
		if i >= 0 {
			readB = true
			if i == 0 && a != model.NoMsg || i > 0 && r.elems[i-1] != a {
				contra = append(contra, r.op)
				continue
			}
		}
		switch j := slices.Index(r.elems, a); {
		case a == model.NoMsg && len(r.elems) > 0 && r.elems[0] != b:
			contra = append(contra, r.op)
		case a != model.NoMsg && j >= 0 && j+1 < len(r.elems) && r.elems[j+1] != b:
			contra = append(contra, r.op)
		}
	}
	if st.Contested != (len(contra) > 0) {
		return fmt.Errorf("contested is %v, but %d reads contradict %s right before %s (ops %v)",
			st.Contested, len(contra), st.Values[0].String(), st.Values[1].String(), first(contra))
	}
	for _, op := range st.ContradictedBy {
		if !slices.Contains(contra, op) {
			return fmt.Errorf("op %d's read does not contradict the order", op)
		}
	}
	if st.Unread && readB {
		return fmt.Errorf("calls %s never read, but a read shows it", st.Values[1].String())
	}
	if st.Placed && (!readB || !st.Contested) {
		return fmt.Errorf("placed, but %s is not read or the step is not contested", st.Values[1].String())
	}
	if st.OrderOp == nil {
		if st.Unread || st.Placed {
			return nil // no read at all gave an order: nothing claimed beyond the unread element
		}
		if a == model.NoMsg && c.keyAppends[k] == 1 {
			return nil // the key's only append is first
		}
		return fmt.Errorf("names no read for its order")
	}
	var shown []read
	for _, r := range c.reads[k] {
		if r.op == *st.OrderOp {
			shown = append(shown, r)
		}
	}
	if len(shown) == 0 {
		return fmt.Errorf("order_op %d did not read key %s", *st.OrderOp, keyText(st.Key))
	}
	for _, r := range shown {
		i := slices.Index(r.elems, b)
		last := len(r.elems) == 0 && a == model.NoMsg || len(r.elems) > 0 && r.elems[len(r.elems)-1] == a
		switch {
		case st.Unread || st.Placed:
			if i < 0 && last {
				return nil
			}
		case i == 0 && a == model.NoMsg, i > 0 && r.elems[i-1] == a:
			return nil
		}
	}
	if st.Unread || st.Placed {
		return fmt.Errorf("op %d's read of key %s does not end in %s", *st.OrderOp, keyText(st.Key), st.Values[0].String())
	}
	return fmt.Errorf("op %d's read of key %s does not show %s right before %s", *st.OrderOp, keyText(st.Key),
		st.Values[0].String(), st.Values[1].String())
}

func first(ops []int64) []int64 { return ops[:min(len(ops), 5)] }

// registerStep checks an rw-register data step (wr, ww or rw;
// docs/rw-register.md) whose micro-ops stepMops returned: mf of from, mt of to. The caller
// has refused a contested one.
func (c *Checker) registerStep(st analysis.Step, from, to *txn, mf, mt *model.Mop) error {
	if st.Rel == "wr" {
		if st.Value == nil || mf.Kind != model.MopWrite || !c.valueIs(mf.Msg, *st.Value) {
			return fmt.Errorf("op %d did not write %s", st.From, keyText(st.Value))
		}
		if mt.Kind != model.MopRead || !mt.Done || mt.Msg != mf.Msg || !external(to, st.Mops[1]) {
			return fmt.Errorf("op %d did not read %s externally", st.To, keyText(st.Value))
		}
		return nil
	}
	k := mf.Key
	if len(st.Values) != 2 || mt.Kind != model.MopWrite || !c.valueIs(mt.Msg, st.Values[1]) {
		return fmt.Errorf("op %d did not write %v", st.To, st.Values)
	}
	nilA := st.Values[0].Kind == model.KNil && !st.Values[0].IsList()
	if st.Rel == "ww" {
		if mf.Kind != model.MopWrite || !c.valueIs(mf.Msg, st.Values[0]) {
			return fmt.Errorf("op %d did not write %s", st.From, st.Values[0].String())
		}
	} else {
		if mf.Kind != model.MopRead || !external(from, st.Mops[0]) || from.typ != model.OK && !mf.Done {
			return fmt.Errorf("op %d's micro-op is no external read", st.From)
		}
		if nilA != !mf.Done || !nilA && !c.valueIs(mf.Msg, st.Values[0]) {
			return fmt.Errorf("op %d did not read %s", st.From, st.Values[0].String())
		}
	}
	opts := c.res.Options
	valueOf := func(t *txn, last bool) (model.Mop, bool) {
		var found model.Mop
		ok := false
		for _, m := range t.mops {
			if m.Key == k && (m.Kind == model.MopWrite || m.Kind == model.MopRead) {
				found, ok = m, true
				if !last {
					break
				}
			}
		}
		return found, ok
	}
	is := func(m model.Mop, v analysis.Value) bool {
		if v.Kind == model.KNil && !v.IsList() {
			return m.Kind == model.MopRead && !m.Done
		}
		if m.Kind == model.MopRead {
			return m.Done && c.valueIs(m.Msg, v)
		}
		return c.valueIs(m.Msg, v)
	}
	switch st.OrderBy {
	case "initial-state":
		if !nilA {
			return fmt.Errorf("the initial state orders only nil first")
		}
	case "wfr-keys":
		if opts.WFRKeys == nil || !*opts.WFRKeys || st.OrderOp == nil {
			return fmt.Errorf("wfr-keys without the option or the op")
		}
		t := c.byIdx[*st.OrderOp]
		if t == nil {
			return fmt.Errorf("no op %d", *st.OrderOp)
		}
		readAt, wroteAt := -1, -1
		for i, m := range t.mops {
			if m.Key != k {
				continue
			}
			if m.Kind == model.MopRead && readAt < 0 && (nilA && !m.Done || m.Done && c.valueIs(m.Msg, st.Values[0])) {
				readAt = i
			}
			if m.Kind == model.MopWrite && c.valueIs(m.Msg, st.Values[1]) {
				wroteAt = i
			}
		}
		if readAt < 0 || wroteAt < readAt {
			return fmt.Errorf("op %d did not read %s and then write %s", *st.OrderOp, st.Values[0].String(), st.Values[1].String())
		}
	case "sequential-keys", "linearizable-keys", "transaction-order":
		on := map[string]bool{"sequential-keys": opts.SequentialKeys != nil && *opts.SequentialKeys,
			"linearizable-keys": opts.LinearizableKeys != nil && *opts.LinearizableKeys,
			"transaction-order": opts.TransactionOrder != nil}[st.OrderBy]
		if !on || len(st.OrderOps) != 2 {
			return fmt.Errorf("%s without the option or its two ops", st.OrderBy)
		}
		x, y := c.byIdx[st.OrderOps[0]], c.byIdx[st.OrderOps[1]]
		if x == nil || y == nil {
			return fmt.Errorf("no ops %v", st.OrderOps)
		}
		if st.OrderBy == "transaction-order" {
			break // the commit order is the option's file, not the history
		}
		if x.comp >= y.inv || st.OrderBy == "sequential-keys" && x.process != y.process {
			return fmt.Errorf("op %d does not precede op %d as %s needs", st.OrderOps[0], st.OrderOps[1], st.OrderBy)
		}
		lx, ok1 := valueOf(x, true)
		fy, ok2 := valueOf(y, false)
		if !ok1 || !ok2 || !is(lx, st.Values[0]) || !is(fy, st.Values[1]) {
			return fmt.Errorf("ops %v do not end and begin with %v", st.OrderOps, st.Values)
		}
	default:
		return fmt.Errorf("unknown order source %q", st.OrderBy)
	}
	return nil
}

// queueStep checks a queue data step (docs/queue.md): a wr step's poll
// read the value the other op sent; a ww step's values sit at the two
// offsets, the first lower, and the step is contested exactly when an op
// observed another value at either offset.
func (c *Checker) queueStep(st analysis.Step, from, to *txn) error {
	sent := func(t *txn, v analysis.Value) (model.MsgID, bool) {
		for _, m := range t.mops {
			if m.Kind == model.MopSend && c.keyIs(&m, st.Key) && c.valueIs(m.Msg, v) {
				return m.Msg, true
			}
		}
		return 0, false
	}
	if strings.Contains(st.Rel, "wr") && st.Value != nil {
		m, ok := sent(from, *st.Value)
		if !ok || len(st.Offsets) != 1 {
			return fmt.Errorf("op %d did not send %s", st.From, keyText(st.Value))
		}
		for _, pm := range to.mops {
			for _, kp := range c.h.PollsOf(&pm) {
				for _, rd := range c.h.ReadsOf(&kp) {
					if pm.Kind == model.MopPoll && rd.Msg == m && rd.Offset() == st.Offsets[0] {
						return nil
					}
				}
			}
		}
		return fmt.Errorf("op %d did not poll %s at offset %d", st.To, keyText(st.Value), st.Offsets[0])
	}
	if !strings.Contains(st.Rel, "ww") || len(st.Values) != 2 || len(st.Offsets) != 2 || st.Offsets[0] >= st.Offsets[1] {
		return fmt.Errorf("no values and offsets for a ww step")
	}
	a, ok1 := sent(from, st.Values[0])
	b, ok2 := sent(to, st.Values[1])
	if !ok1 || !ok2 {
		return fmt.Errorf("ops %d, %d did not send %v", st.From, st.To, st.Values)
	}
	var contra []int64
	for i, m := range []model.MsgID{a, b} {
		seen := false
		for _, o := range c.observed[keyOffset{c.h.MsgKey(m), st.Offsets[i]}] {
			if o.m == m {
				seen = true
			} else if !slices.Contains(contra, o.op) {
				contra = append(contra, o.op)
			}
		}
		if !seen {
			return fmt.Errorf("no op observed %s at offset %d", c.h.MsgValue(m), st.Offsets[i])
		}
	}
	if st.Contested != (len(contra) > 0) {
		return fmt.Errorf("contested is %v, but ops %v observed other values at these offsets", st.Contested, contra)
	}
	for _, op := range st.ContradictedBy {
		if !slices.Contains(contra, op) {
			return fmt.Errorf("op %d observed no other value at these offsets", op)
		}
	}
	return nil
}
