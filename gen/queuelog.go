package gen

// store appends one message to key k's log and returns its offset.
func (s *sim) store(k int32, v int64, flags uint8, idx int64) int64 {
	lg := &s.logs[k]
	off := lg.next
	lg.next++
	lg.entries = append(lg.entries, entry{off: off, val: v, flags: flags})
	if flags&(fLost|fGarbage) == 0 {
		s.stats.Messages++
	}
	if flags&fLost != 0 {
		s.advanceCommitted(lg)
	}
	return off
}

// markers takes the offsets of transaction markers: one per key the txn
// sent to, plus (aborted > 0) one per record of an aborted txn, which
// read_committed consumers never see.
func (s *sim) markers(op *pendingOp, aborted int64) {
	s.touched = s.touched[:0]
	for _, m := range op.mops {
		if !m.send {
			continue
		}
		seen := false
		for _, k := range s.touched {
			seen = seen || k == m.key
		}
		if !seen {
			s.touched = append(s.touched, m.key)
		}
	}
	for _, k := range s.touched {
		if aborted > 0 {
			for _, m := range op.mops {
				if m.send && m.key == k {
					s.logs[k].next += aborted
				}
			}
		}
		s.logs[k].next++
	}
}

func (s *sim) advanceCommitted(lg *keyLog) {
	for int(lg.committed) < len(lg.entries) && lg.entries[lg.committed].flags&(fRead|fLost) != 0 {
		lg.committed++
	}
}

// visibleAhead reports whether key k's log has at least need messages a
// consumer at position p has yet to read.
func (s *sim) visibleAhead(k int32, p int32, need int) bool {
	es := s.logs[k].entries
	for ; int(p) < len(es) && need > 0; p++ {
		if es[p].flags&fLost == 0 {
			need--
		}
	}
	return need == 0
}

func (s *sim) caughtUp(w *worker) bool {
	for _, k := range w.assigned {
		if s.visibleAhead(k, w.pos[k], 1) {
			return false
		}
	}
	return true
}

// poll reads, for every key assigned to worker wi, the next messages from
// its position, and returns the range of groups written. plain is true for
// a :poll op (not a txn): only those start the poll-level faults.
func (s *sim) poll(wi int, idx, t int64, plain bool) (int32, int32) {
	w := &s.workers[wi]
	g0 := int32(len(s.groups))
	if w.stallKey >= 0 && t >= w.stallUntil {
		s.endStall(w)
	}
	skipKey, garbKey := int32(-1), int32(-1)
	if plain && s.phase == phaseMain && len(w.assigned) > 0 {
		if w.stallKey < 0 && s.stalls > 0 {
			s.startStall(w, idx, t)
		}
		if !s.open && w.stallKey < 0 && len(s.queue) > 0 {
			s.takeQueued(func(k FaultKind) bool {
				switch k {
				case PollSkip:
					skipKey = s.findKey(w.assigned, func(k int32) bool { return w.hasPos[k] && s.visibleAhead(k, w.pos[k], 2) })
					return skipKey >= 0
				case Garbage:
					garbKey = s.findKey(w.assigned, func(k int32) bool { return !s.visibleAhead(k, w.pos[k], 1) })
					return garbKey >= 0
				}
				return false
			})
		}
	}
	for _, k := range w.assigned {
		lg := &s.logs[k]
		n := maxPoll
		if s.phase == phaseMain || s.phase == phaseDrain {
			n = s.rng.IntN(maxPoll + 1)
		}
		p := w.pos[k]
		switch k {
		case w.stallKey:
			n = 0
			w.stallLastT, w.stallLastI = t, idx
		case skipKey:
			for lg.entries[p].flags&fLost != 0 {
				p++
			}
			e := lg.entries[p]
			s.stats.Injections = append(s.stats.Injections, Injection{
				Fault: PollSkip, Process: w.pid, Key: int(k), Ops: []int64{w.lastRead[k], idx},
				Msgs: []Msg{{Key: int(k), Value: e.val, Offset: e.off}},
			})
			p++
			n = max(n, 1)
		case garbKey:
			s.garbageN++
			v := -s.garbageN
			off := s.store(k, v, fGarbage, idx)
			s.stats.Injections = append(s.stats.Injections, Injection{
				Fault: Garbage, Process: w.pid, Key: int(k), Ops: []int64{idx},
				Msgs: []Msg{{Key: int(k), Value: v, Offset: off}},
			})
			n = max(n, 1)
		}
		p0 := int32(len(s.pairs))
		for n > 0 && int(p) < len(lg.entries) {
			e := &lg.entries[p]
			p++
			if e.flags&fLost != 0 {
				continue
			}
			s.pairs = append(s.pairs, pair{off: e.off, val: e.val})
			e.flags |= fRead
			n--
		}
		w.pos[k] = p
		if p1 := int32(len(s.pairs)); p1 > p0 {
			w.hasPos[k] = true
			w.lastRead[k] = idx
			s.advanceCommitted(lg)
		}
		s.groups = append(s.groups, group{key: k, p0: p0, p1: int32(len(s.pairs))})
	}
	return g0, int32(len(s.groups))
}

// findKey returns a key of keys (trying them from a random one on) that
// satisfies ok, or -1.
func (s *sim) findKey(keys []int32, ok func(int32) bool) int32 {
	n := len(keys)
	if n == 0 {
		return -1
	}
	start := s.rng.IntN(n)
	for i := range n {
		k := keys[(start+i)%n]
		if ok(k) {
			return k
		}
	}
	return -1
}

// applyAssign gives worker w the keys of its assign/subscribe op. Keys it
// keeps keep their position; a newly assigned key starts at the key's
// committed prefix (like a Kafka consumer starting from the group's
// committed offset), which is never a skip since the process had no position.
func (s *sim) applyAssign(w *worker) {
	op := &w.op
	for _, k := range op.keys {
		s.mark[k] = true
	}
	for _, k := range w.assigned {
		if !s.mark[k] {
			w.isAssigned[k] = false
			w.hasPos[k] = false
		}
	}
	w.assigned = w.assigned[:0]
	for k := range s.mark {
		if !s.mark[k] {
			continue
		}
		s.mark[k] = false
		if !w.isAssigned[k] {
			w.isAssigned[k] = true
			w.pos[k] = s.logs[k].committed
			w.hasPos[k] = false
		}
		w.assigned = append(w.assigned, int32(k))
	}
}

// retire replaces worker w's process by a new one (Jepsen: after an :info the
// worker takes process id + concurrency), with no assignment.
func (s *sim) retire(w *worker) {
	s.newProcess(&w.pid)
	for _, k := range w.assigned {
		w.isAssigned[k] = false
		w.hasPos[k] = false
	}
	w.assigned = w.assigned[:0]
	for k := range w.lastSend {
		w.lastSend[k] = -1
	}
}

// startFinal ends every stall and starts the final reads.
func (s *sim) startFinal() {
	s.phase = phaseFinal
	s.stats.FinalPhase = s.lines
	s.queue = s.queue[:0]
	s.stalls = 0
	for i := range s.workers {
		w := &s.workers[i]
		if w.stallKey >= 0 {
			s.endStall(w)
		}
		w.script = 0
	}
}
