package gen

// Fault scripts of the transactional generator. A script is a few stages of
// txns on keys of its own. All txns of a stage are invoked before any of
// them may complete (so they overlap in real time), and a stage starts only
// once the previous one has completed (so every txn of a stage follows every
// txn of the previous one in real time), on workers that did not run the
// previous stage (so no process edge joins them). No other txn starts
// while a stage is being invoked, so none lies in real time between the
// end of one stage and the start of the next, where it could join a cycle
// of the script. The completion of each txn is fixed when the script is
// built: it does not depend on anything else in the history, which is
// what keeps the anomalies to those TxnFaultKind.Anomalies lists.

// carrier is one txn of a fault script.
type carrier struct {
	inv, comp []tmop // invocation and ok completion forms
	typ       opType // tOK or tFail
	idx       int    // position in the script, and in TxnInjection.Ops
}

// episode is a fault script being carried out.
type episode struct {
	stages [][]carrier
	stage  int     // the stage under way
	next   int     // next carrier of the stage to invoke
	done   int     // carriers of the stage completed
	held   []int32 // workers whose carrier may not complete yet
	prev   []int32 // workers of the previous stage
	cur    []int32 // workers of this stage
	inj    TxnInjection
}

// script builds the stages of a fault of kind k, taking fresh keys from
// key and using garbage as the garbage value. It returns the stages, the
// values of note and the keys. The package doc describes each script.
func (s *tsim) script(k TxnFaultKind, key func() int64, garbage int64) ([][]carrier, []int64, []int64) {
	la := s.la
	wr := func(k, v int64) tmop { return tmop{kind: s.writeKind, key: k, val: v} }
	rd := func(k int64) tmop { return tmop{kind: s.readKind, key: k} }
	// rv is a completed read: the list vs (list-append) or the register
	// value vs[0], nil when vs is empty (rw-register).
	rv := func(k int64, vs ...int64) tmop {
		m := tmop{kind: s.readKind, key: k, done: true}
		switch {
		case la:
			m.list = append([]int64{}, vs...)
		case len(vs) == 0:
			m.isNil = true
		default:
			m.val = vs[0]
		}
		return m
	}
	ms := func(m ...tmop) []tmop { return m }
	ok := func(inv, comp []tmop) carrier { return carrier{inv: inv, comp: comp, typ: tOK} }
	okw := func(m ...tmop) carrier { return carrier{inv: m, comp: m, typ: tOK} }
	fail := func(m ...tmop) carrier { return carrier{inv: m, typ: tFail} }
	stages := func(st ...[]carrier) [][]carrier { return st }
	x := key()
	switch k {
	case AbortedRead:
		return stages(
			[]carrier{fail(wr(x, 1))},
			[]carrier{ok(ms(rd(x)), ms(rv(x, 1)))},
		), []int64{1}, []int64{x}
	case IntermediateRead:
		return stages(
			[]carrier{okw(wr(x, 1), wr(x, 2)), ok(ms(rd(x)), ms(rv(x, 1)))},
		), []int64{1}, []int64{x}
	case LostUpdate:
		st := stages(
			[]carrier{okw(wr(x, 1))},
			[]carrier{
				ok(ms(rd(x), wr(x, 2)), ms(rv(x, 1), wr(x, 2))),
				ok(ms(rd(x), wr(x, 3)), ms(rv(x, 1), wr(x, 3))),
			},
		)
		if la {
			st = append(st, []carrier{ok(ms(rd(x)), ms(rv(x, 1, 2, 3)))})
		}
		return st, nil, []int64{x}
	case StaleRead:
		return stages(
			[]carrier{okw(wr(x, 1))},
			[]carrier{ok(ms(rd(x)), ms(rv(x)))},
		), nil, []int64{x}
	case WriteCycle:
		y := key()
		if la {
			return stages(
				[]carrier{okw(wr(x, 1), wr(y, 2)), okw(wr(x, 2), wr(y, 1))},
				[]carrier{ok(ms(rd(x), rd(y)), ms(rv(x, 1, 2), rv(y, 1, 2)))},
			), nil, []int64{x, y}
		}
		return stages(
			[]carrier{
				ok(ms(wr(x, 1), rd(y), wr(y, 2)), ms(wr(x, 1), rv(y, 1), wr(y, 2))),
				ok(ms(rd(x), wr(x, 2), wr(y, 1)), ms(rv(x, 1), wr(x, 2), wr(y, 1))),
			},
		), nil, []int64{x, y}
	case IncompatibleOrder:
		return stages(
			[]carrier{okw(wr(x, 1), wr(x, 2))},
			[]carrier{okw(wr(x, 3))},
			[]carrier{ok(ms(rd(x)), ms(rv(x, 1, 2, 3))), ok(ms(rd(x)), ms(rv(x, 2, 1, 3)))},
		), nil, []int64{x}
	case DuplicateElement:
		return stages(
			[]carrier{okw(wr(x, 1))},
			[]carrier{ok(ms(rd(x)), ms(rv(x, 1, 1)))},
		), []int64{1}, []int64{x}
	case GarbageRead:
		read := rv(x, garbage)
		if la {
			read = rv(x, 1, garbage)
		}
		return stages(
			[]carrier{okw(wr(x, 1))},
			[]carrier{ok(ms(rd(x)), ms(read))},
		), []int64{garbage}, []int64{x}
	case InternalRead:
		return stages(
			[]carrier{ok(ms(wr(x, 1), rd(x)), ms(wr(x, 1), rv(x)))},
		), nil, []int64{x}
	case FutureRead:
		return stages(
			[]carrier{ok(ms(rd(x), wr(x, 1)), ms(rv(x, 1), wr(x, 1)))},
		), nil, []int64{x}
	case DirtyUpdate:
		return stages(
			[]carrier{fail(wr(x, 1))},
			[]carrier{okw(wr(x, 2))},
			[]carrier{ok(ms(rd(x)), ms(rv(x, 1, 2)))},
		), []int64{1}, []int64{x}
	}
	panic("gen: no script for " + k.String())
}

// activate starts the script of kind k on fresh keys.
func (s *tsim) activate(k TxnFaultKind) {
	var g int64
	if k == GarbageRead {
		s.garbageN++
		g = -s.garbageN
	}
	stages, values, keys := s.script(k, s.newKey, g)
	ep := &episode{stages: stages, inj: TxnInjection{Fault: k, Keys: keys, Values: values}}
	n := 0
	for _, st := range stages {
		for i := range st {
			st[i].idx = n
			n++
		}
	}
	ep.inj.Ops = make([]int64, n)
	s.ep = ep
}

// invokeCarrier invokes the next txn of the script's stage on worker wi.
// Once the whole stage is invoked, its txns may complete.
func (s *tsim) invokeCarrier(wi int) {
	ep := s.ep
	c := &ep.stages[ep.stage][ep.next]
	ep.next++
	w := &s.workers[wi]
	w.carrier = c
	ep.cur = append(ep.cur, int32(wi))
	s.invoked++
	s.reserved--
	s.countMops(c.inv)
	if ep.next == len(ep.stages[ep.stage]) {
		s.inflight = append(s.inflight, ep.held...)
		s.inflight = append(s.inflight, int32(wi))
		ep.held = ep.held[:0]
	} else {
		ep.held = append(ep.held, int32(wi))
	}
	s.ln = txnLine{typ: tInvoke, pid: w.pid, mops: c.inv}
	s.emit(s.tick())
}

// completeCarrier completes worker wi's script txn at time t, as scripted.
func (s *tsim) completeCarrier(wi int, t int64) {
	ep := s.ep
	w := &s.workers[wi]
	c := w.carrier
	w.carrier = nil
	s.ln = txnLine{typ: c.typ, pid: w.pid, mops: c.comp}
	if c.typ == tFail {
		s.stats.Fail++
		s.ln.mops = c.inv
		s.ln.err = txnFailErrors[0]
	} else {
		s.stats.OK++
	}
	ep.inj.Ops[c.idx] = s.lines
	s.emit(t)
	s.idle = append(s.idle, int32(wi))
	ep.done++
	if ep.done < len(ep.stages[ep.stage]) {
		return
	}
	ep.prev, ep.cur = append(ep.prev[:0], ep.cur...), ep.cur[:0]
	ep.stage++
	ep.next, ep.done = 0, 0
	if ep.stage == len(ep.stages) {
		s.stats.Injections = append(s.stats.Injections, ep.inj)
		s.ep = nil
	}
}
