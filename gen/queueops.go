package gen

// invokeMain starts a main-phase op on worker wi.
func (s *sim) invokeMain(wi int) {
	w := &s.workers[wi]
	op := &w.op
	*op = pendingOp{mops: op.mops[:0], keys: op.keys[:0]}
	if w.crashNext {
		w.crashNext = false
		op.f = fCrash
		s.invoke(wi)
		return
	}
	stalled := w.stallKey >= 0
	if !s.open && !stalled && len(s.queue) > 0 {
		incKey := int32(-1)
		other, k1, k2 := -1, int32(-1), int32(-1)
		k, ok := s.takeQueued(func(k FaultKind) bool {
			switch k {
			case LostWrite, Duplicate, G1a, TornTxn:
				return true
			case InconsistentOffset:
				incKey = s.findKey(s.keys, func(k int32) bool { return s.staleEntry(w, k) >= 0 })
				return incKey >= 0
			case G1c:
				other, k1, k2 = s.g1cPartner(w)
				return other >= 0
			}
			return false
		})
		if ok && k == G1c {
			s.invokeG1c(wi, other, k1, k2)
			return
		}
		if ok {
			s.makeFaultOp(w, k, incKey)
			s.invoke(wi)
			return
		}
	}
	r := s.rng.Float64()
	switch {
	case !stalled && (r < assignRate || (len(w.assigned) == 0 && (r < noAssignRate || s.cfg.PollAllKeys))):
		op.f = fAssign
		if s.cfg.Subscribe {
			op.f = fSubscribe
		}
		if s.cfg.PollAllKeys {
			op.keys = append(op.keys, s.keys...)
			break
		}
		n := 1 + s.rng.IntN(s.cfg.Keys)
		for _, k := range s.rng.Perm(s.cfg.Keys)[:n] {
			op.keys = append(op.keys, int32(k))
		}
	case !stalled && r < assignRate+crashRate:
		op.f = fCrash
	case s.rng.Float64() < s.cfg.TxnFraction:
		op.f = fTxn
		n := 1 + s.rng.IntN(4)
		for range n {
			if s.rng.IntN(2) == 0 {
				op.mops = append(op.mops, s.newSend(w, int32(s.rng.IntN(s.cfg.Keys))))
			} else {
				op.mops = append(op.mops, mop{})
			}
		}
	case s.rng.IntN(2) == 0:
		op.f = fSend
		n := 1 + s.rng.IntN(3)
		for range n {
			op.mops = append(op.mops, s.newSend(w, int32(s.rng.IntN(s.cfg.Keys))))
		}
	default:
		op.f = fPoll
		op.mops = append(op.mops, mop{})
	}
	s.invoke(wi)
}

// invokeFinal starts the next step of worker wi's final reads: crash (so a
// fresh process with no positions takes over), assign or subscribe every
// key, then poll until it has read everything.
func (s *sim) invokeFinal(wi int) {
	w := &s.workers[wi]
	op := &w.op
	*op = pendingOp{mops: op.mops[:0], keys: op.keys[:0], forced: tOK}
	switch w.script {
	case 0:
		op.f, op.forced = fCrash, tInfo
	case 1:
		op.f = fAssign
		if s.cfg.Subscribe {
			op.f = fSubscribe
		}
		for k := range s.cfg.Keys {
			op.keys = append(op.keys, int32(k))
		}
	default:
		op.f = fPoll
		op.mops = append(op.mops, mop{})
	}
	s.invoke(wi)
}

// invokePoll starts a final, always-ok poll (padding after the final reads).
func (s *sim) invokePoll(wi int) {
	op := &s.workers[wi].op
	*op = pendingOp{mops: append(op.mops[:0], mop{}), keys: op.keys[:0], f: fPoll, forced: tOK}
	s.invoke(wi)
}

// invoke writes the invocation line of worker wi's op.
func (s *sim) invoke(wi int) {
	w := &s.workers[wi]
	op := &w.op
	w.busy = true
	s.inflight = append(s.inflight, int32(wi))
	s.stats.Invocations++
	switch op.f {
	case fSend:
		s.stats.Sends++
	case fPoll:
		s.stats.Polls++
	case fTxn:
		s.stats.Txns++
	case fAssign:
		s.stats.Assigns++
	case fSubscribe:
		s.stats.Subscribes++
	case fCrash:
		s.stats.Crashes++
	}
	s.ln = line{typ: tInvoke, pid: w.pid, f: op.f, mops: op.mops, keys: op.keys}
	s.emit(s.tick())
}

// completeRandom completes a random op in flight.
func (s *sim) completeRandom() { s.completeSlot(s.complete) }

// crashError is the :error of an op whose client crashed (Config.CrashRate),
// in the form Jepsen's interpreter gives it: "indeterminate: " and the
// exception's message.
const crashError = "indeterminate: client crashed"

var failErrors = [...]string{"not-leader-or-follower", "unknown-topic-or-partition", "request-rejected"}

// outcome decides the completion type of worker w's op.
func (s *sim) outcome(w *worker) opType {
	op := &w.op
	if op.forced != tInvoke {
		return op.forced
	}
	switch op.f {
	case fAssign, fSubscribe:
		return tOK
	case fCrash:
		return tInfo
	}
	if w.stallKey >= 0 || s.phase >= phaseFinal {
		return tOK
	}
	if s.cfg.CrashRate > 0 && s.rng.Float64() < s.cfg.CrashRate {
		op.crashed = true
		return tInfo
	}
	r := s.rng.Float64()
	switch {
	case r < s.cfg.InfoRate:
		return tInfo
	case r < s.cfg.InfoRate+s.cfg.FailRate:
		return tFail
	}
	return tOK
}

// complete applies worker wi's op to the broker (every op takes effect at
// its completion, which is what keeps fault-free histories free of cycles)
// and writes the completion line at time t.
func (s *sim) complete(wi int, t int64) {
	w := &s.workers[wi]
	op := &w.op
	idx := s.lines
	typ := s.outcome(w)
	s.groups, s.pairs = s.groups[:0], s.pairs[:0]
	s.out = append(s.out[:0], op.mops...) // invocation form until filled in
	s.ln = line{typ: typ, pid: w.pid, f: op.f, mops: s.out, keys: op.keys}

	switch typ {
	case tOK:
		s.stats.OK++
	case tInfo:
		s.stats.Info++
	case tFail:
		s.stats.Fail++
	}
	switch {
	case op.crashed:
		s.stats.ClientCrashes++
		s.ln.err, s.ln.errText = crashError, true
	case typ == tInfo && op.f != fCrash:
		s.ln.err = "net-timeout"
	}
	if typ == tFail {
		s.ln.err = failErrors[s.rng.IntN(len(failErrors))]
	}

	switch op.f {
	case fSend:
		s.completeSend(w, typ, idx)
	case fTxn:
		s.completeTxnOp(wi, typ, idx, t)
	case fPoll:
		if typ == tOK {
			s.out[0].g0, s.out[0].g1 = s.poll(wi, idx, t, true)
			s.out[0].done = true
		}
	case fAssign, fSubscribe:
		s.applyAssign(w)
	}

	s.emit(t)

	w.busy = false
	s.idle = append(s.idle, int32(wi))
	if typ == tInfo {
		s.retire(w)
	}
	if s.phase == phaseFinal {
		switch {
		case w.script < 2:
			w.script++
		case w.script == 2 && s.caughtUp(w):
			w.script = 3
		}
	}
}

// completeSend applies worker w's send, completing as typ at line idx.
func (s *sim) completeSend(w *worker, typ opType, idx int64) {
	op := &w.op
	switch {
	case typ == tOK:
		for i := range s.out {
			s.out[i].off = s.storeSend(w, op, s.out[i], idx)
			w.lastSend[s.out[i].key] = s.out[i].off
			s.out[i].done = true
		}
	case typ == tInfo && s.rng.Float64() < landedRate:
		s.landed(op, idx)
	case typ == tFail && op.hasFault && op.fault == G1a:
		in := Injection{Fault: G1a, Process: w.pid, Key: int(op.mops[0].key), Ops: []int64{idx}}
		for _, m := range op.mops {
			off := s.store(m.key, m.val, 0, idx)
			in.Msgs = append(in.Msgs, Msg{Key: int(m.key), Value: m.val, Offset: off})
		}
		s.stats.Injections = append(s.stats.Injections, in)
		s.open = false
	}
}

// completeTxnOp applies worker wi's txn, completing as typ at line idx,
// time t.
func (s *sim) completeTxnOp(wi int, typ opType, idx, t int64) {
	op := &s.workers[wi].op
	switch {
	case typ == tOK && op.hasFault && op.fault == G1c:
		s.completeG1c(wi, idx)
	case typ == tOK:
		s.commitTxn(wi, idx, t)
	case typ == tInfo && s.rng.Float64() < landedRate:
		s.landed(op, idx)
		s.markers(op, 0)
	case typ == tFail:
		s.markers(op, 1) // aborted records and the abort marker
	}
}

// commitTxn applies worker wi's ok txn at line idx, time t: its polls
// first (a txn never sees its own writes), then its sends and markers.
func (s *sim) commitTxn(wi int, idx, t int64) {
	w := &s.workers[wi]
	op := &w.op
	for i := range s.out {
		if !s.out[i].send {
			s.out[i].g0, s.out[i].g1 = s.poll(wi, idx, t, false)
			s.out[i].done = true
		}
	}
	var kept Msg
	nsend := 0
	for i := range s.out {
		m := &s.out[i]
		if !m.send {
			continue
		}
		nsend++
		flags := fAcked
		torn := op.hasFault && op.fault == TornTxn && nsend == 2
		if torn {
			flags |= fLost
		}
		m.off = s.store(m.key, m.val, flags, idx)
		w.lastSend[m.key] = m.off
		m.done = true
		if nsend == 1 {
			kept = Msg{Key: int(m.key), Value: m.val, Offset: m.off}
		}
		if torn {
			s.stats.Injections = append(s.stats.Injections, Injection{
				Fault: TornTxn, Process: w.pid, Key: int(m.key), Ops: []int64{idx},
				Msgs: []Msg{kept, {Key: int(m.key), Value: m.val, Offset: m.off}},
			})
			s.open = false
		}
	}
	s.markers(op, 0)
}

// landed stores the messages of an :info send or txn that the broker
// applied anyway, at line idx.
func (s *sim) landed(op *pendingOp, idx int64) {
	s.stats.InfoLanded++
	for _, m := range op.mops {
		if m.send {
			s.store(m.key, m.val, 0, idx)
		}
	}
}
