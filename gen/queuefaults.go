package gen

import "time"

// g1cPair is the state of a G1c injection: the two workers, their
// sends' keys, and once the first transaction completed (done 1), the
// offsets both messages were stored at and its op index.
type g1cPair struct {
	w     [2]int32
	key   [2]int32
	val   [2]int64
	off   [2]int64
	done  int
	first int64 // op index of the first completion
	pid   int64 // its process
	fj    int   // which of the two completed first
}

// g1cPartner finds, for a G1c injection started by worker w, an idle
// worker to run the other transaction, and the keys the two send to: each
// reads the other's key, so neither may have read that key since it was
// assigned (a read far ahead of its position would also be a skip). It
// returns the partner's index in s.idle, or -1.
func (s *sim) g1cPartner(w *worker) (int, int32, int32) {
	for i, oi := range s.idle {
		o := &s.workers[oi]
		if o.stallKey >= 0 || o.crashNext {
			continue
		}
		// w sends to k1 and reads k2; o sends to k2 and reads k1
		k1 := s.findKey(s.keys, func(k int32) bool { return !o.hasPos[k] })
		if k1 < 0 {
			continue
		}
		k2 := s.findKey(s.keys, func(k int32) bool { return !w.hasPos[k] && (k != k1 || s.cfg.Keys == 1) })
		if k2 < 0 {
			continue
		}
		return i, k1, k2
	}
	return -1, -1, -1
}

// invokeG1c invokes the two transactions of a G1c injection: worker wi
// sends to k1, the idle worker at s.idle[other] to k2, and each polls.
func (s *sim) invokeG1c(wi, other int, k1, k2 int32) {
	oi := s.takeIdleAt(other)
	s.open = true
	s.g1c = g1cPair{w: [2]int32{int32(wi), int32(oi)}, key: [2]int32{k1, k2}}
	for j, x := range []int{wi, oi} {
		w := &s.workers[x]
		op := &w.op
		*op = pendingOp{mops: op.mops[:0], keys: op.keys[:0], f: fTxn, fault: G1c, hasFault: true, forced: tOK,
			partner: s.g1c.w[1-j]}
		op.mops = append(op.mops, s.newSend(w, s.g1c.key[j]), mop{})
		s.g1c.val[j] = op.mops[0].val
		s.invoke(x)
	}
}

// completeG1c fills the completion of worker wi's G1c transaction: the
// first to complete stores both messages, each reads the other's.
func (s *sim) completeG1c(wi int, idx int64) {
	g := &s.g1c
	j := 0
	if g.w[1] == int32(wi) {
		j = 1
	}
	w := &s.workers[wi]
	if g.done == 0 {
		g.off[j] = s.store(g.key[j], g.val[j], fAcked, idx)
		g.off[1-j] = s.store(g.key[1-j], g.val[1-j], fAcked, idx)
		g.first, g.pid, g.fj = idx, w.pid, j
	}
	g.done++
	send := &s.out[0]
	send.off, send.done = g.off[j], true
	w.lastSend[send.key] = send.off
	// the poll: the other's message
	rk, rv, ro := g.key[1-j], g.val[1-j], g.off[1-j]
	lg := &s.logs[rk]
	for i := len(lg.entries) - 1; i >= 0; i-- {
		if lg.entries[i].off == ro {
			lg.entries[i].flags |= fRead
			break
		}
	}
	s.advanceCommitted(lg)
	p0 := int32(len(s.pairs))
	s.pairs = append(s.pairs, pair{off: ro, val: rv})
	g0 := int32(len(s.groups))
	s.groups = append(s.groups, group{key: rk, p0: p0, p1: p0 + 1})
	s.out[1].g0, s.out[1].g1, s.out[1].done = g0, g0+1, true
	s.markers(&w.op, 0)
	w.crashNext = true
	if g.done == 2 {
		in := Injection{Fault: G1c, Process: g.pid, Key: int(g.key[g.fj]), Ops: []int64{g.first, idx}}
		for _, k := range []int{g.fj, 1 - g.fj} {
			in.Msgs = append(in.Msgs, Msg{Key: int(g.key[k]), Value: g.val[k], Offset: g.off[k]})
		}
		s.stats.Injections = append(s.stats.Injections, in)
		s.open = false
	}
}

// makeFaultOp turns the op about to be invoked into the carrier of fault k.
func (s *sim) makeFaultOp(w *worker, k FaultKind, key int32) {
	op := &w.op
	op.fault, op.hasFault, op.forced = k, true, tOK
	s.open = true
	if k == TornTxn {
		op.f = fTxn
		k1 := int32(s.rng.IntN(s.cfg.Keys))
		k2 := k1
		if s.cfg.Keys > 1 {
			k2 = (k1 + 1 + int32(s.rng.IntN(s.cfg.Keys-1))) % int32(s.cfg.Keys)
		}
		op.mops = append(op.mops, s.newSend(w, k1))
		if s.rng.IntN(2) == 0 {
			op.mops = append(op.mops, mop{})
		}
		op.mops = append(op.mops, s.newSend(w, k2))
		return
	}
	op.f = fSend
	if key < 0 {
		key = int32(s.rng.IntN(s.cfg.Keys))
	}
	op.mops = append(op.mops, s.newSend(w, key))
	if k == G1a {
		op.forced = tFail
	}
}

// storeSend stores one message of an ok send, applying the op's fault, and
// returns the offset to acknowledge.
func (s *sim) storeSend(w *worker, op *pendingOp, m mop, idx int64) int64 {
	if !op.hasFault {
		return s.store(m.key, m.val, fAcked, idx)
	}
	in := Injection{Fault: op.fault, Process: w.pid, Key: int(m.key), Ops: []int64{idx}}
	var off int64
	switch op.fault {
	case LostWrite:
		off = s.store(m.key, m.val, fLost|fAcked, idx)
		in.Msgs = []Msg{{Key: int(m.key), Value: m.val, Offset: off}}
		s.open = false
	case Duplicate:
		off = s.store(m.key, m.val, fAcked, idx)
		off2 := s.store(m.key, m.val, 0, idx)
		in.Msgs = []Msg{{Key: int(m.key), Value: m.val, Offset: off}, {Key: int(m.key), Value: m.val, Offset: off2}}
		s.open = false
	case InconsistentOffset:
		// Acknowledge the offset of a message already stored and seen, and
		// store nothing (see staleEntry). invokeMain chose a key that had
		// one; it still has, since entries only gain flags.
		i := s.staleEntry(w, m.key)
		if i < 0 {
			panic("gen: InconsistentOffset lost its stale entry")
		}
		e := s.logs[m.key].entries[i]
		off = e.off
		in.Msgs = []Msg{{Key: int(m.key), Value: e.val, Offset: off}, {Key: int(m.key), Value: m.val, Offset: off}}
		s.open = false
	default:
		return s.store(m.key, m.val, fAcked, idx)
	}
	s.stats.Injections = append(s.stats.Injections, in)
	return off
}

// staleEntry returns the index of the newest entry of key k that an
// InconsistentOffset send of worker w can be acknowledged at: stored and
// already seen (acked or read, so the version order keeps it at its offset),
// not lost or garbage, and above w's last acked send to k (else the ack
// would also be a nonmonotonic-send). -1 when there is none.
func (s *sim) staleEntry(w *worker, k int32) int {
	es := s.logs[k].entries
	for i := len(es) - 1; i >= 0 && es[i].off > w.lastSend[k]; i-- {
		if es[i].flags&(fRead|fAcked) != 0 && es[i].flags&(fLost|fGarbage) == 0 {
			return i
		}
	}
	return -1
}

// takeQueued removes and returns the first armed fault ok accepts.
func (s *sim) takeQueued(ok func(FaultKind) bool) (FaultKind, bool) {
	for i, k := range s.queue {
		if ok(k) {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			return k, true
		}
	}
	return 0, false
}

func (s *sim) startStall(w *worker, idx, t int64) {
	k := w.assigned[s.rng.IntN(len(w.assigned))]
	s.stalls--
	w.stallKey = k
	w.stallUntil = t + int64(s.cfg.StallDuration)
	w.stallFirst = t
	w.stallInj = len(s.stats.Injections)
	in := Injection{Fault: Stall, Process: w.pid, Key: int(k), Ops: []int64{idx}}
	es := s.logs[k].entries
	for p := w.pos[k]; int(p) < len(es); p++ {
		if es[p].flags&fLost == 0 {
			in.Msgs = []Msg{{Key: int(k), Value: es[p].val, Offset: es[p].off}}
			break
		}
	}
	s.stats.Injections = append(s.stats.Injections, in)
}

func (s *sim) endStall(w *worker) {
	in := &s.stats.Injections[w.stallInj]
	in.Ops = append(in.Ops, w.stallLastI)
	in.Duration = time.Duration(w.stallLastT - w.stallFirst)
	w.stallKey = -1
}
