package queue

import (
	"cmp"
	"slices"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// The log: each key's distinct offsets in order (its positions, the version
// order) and each message's first and last position in it, built from what
// completed ops observed, and the checks on the log itself,
// inconsistent-offsets and duplicate.

// scanMessages fills writer, okReader, anyRead and committed, and
// makes buildLog's observations of polled values (its own pass over the
// sends observes theirs, which need committed): one pass over every read.
func (c *checker) scanMessages() {
	n := len(c.h.Msgs)
	c.writer = filled(n, -1)
	c.okReader = filled(n, -1)
	c.anyRead = make([]bool, n)
	c.log = newLogState(n)
	for ri := range c.recs {
		r := &c.recs[ri]
		done := r.comp != r.inv // else an open invocation: nothing was read
		var opIdx int64
		if done {
			opIdx = c.compIdx(int32(ri))
		}
		sq := int32(0) // observation sequence: sends and reads in order
		mops := c.mops(int32(ri))
		for mi := range mops {
			m := &mops[mi]
			switch m.Kind {
			case model.MopSend:
				if c.writer[m.Msg] < 0 {
					c.writer[m.Msg] = int32(ri)
				}
				sq++
			case model.MopPoll:
				if !done {
					continue
				}
				for _, kp := range c.h.PollsOf(m) {
					for _, rd := range c.h.ReadsOf(&kp) {
						c.anyRead[rd.Msg] = true
						if r.typ == model.OK && c.okReader[rd.Msg] < 0 {
							c.okReader[rd.Msg] = int32(ri)
						}
						c.log.observe(c, rd.Msg, rd.Offset(), int32(ri), sq, opIdx)
						sq++
					}
				}
			}
		}
	}
	c.committed = make([]bool, len(c.recs))
	for ri, r := range c.recs {
		switch r.typ {
		case model.OK:
			c.committed[ri] = true
		case model.Info:
			for _, m := range c.mops(int32(ri)) {
				if m.Kind == model.MopSend && c.okReader[m.Msg] >= 0 {
					c.committed[ri] = true
					break
				}
			}
		}
	}
}

// logEntry is one (message, offset) observation: the op index and micro-op
// sequence of its first observer, for "observed first".
type logEntry struct {
	key   model.KeyID
	msg   model.MsgID
	off   int64
	obsOp int64
	obsSq int32
	obsR  int32 // rec of the first observer
}

// logState is what buildLog gathers about the log: each message's first
// (message, offset) observation in a flat array (off NoOffset: none), and
// its further offsets, if any, in a side list. The first observer of each
// (message, offset) is the one with the lowest op index, then the lowest
// sequence in the op, whatever the order observe is called in. extraAt
// finds a further (message, offset) pair's entry in one step: a message
// read at thousands of offsets (a hostile poll) must not cost a scan of
// them per read.
type logState struct {
	primObs []logEntry
	extra   []logEntry
	extraOf map[model.MsgID][]int
	extraAt map[msgOffset]int
}

// msgOffset is a message at one offset.
type msgOffset struct {
	msg model.MsgID
	off int64
}

func newLogState(n int) *logState {
	ls := &logState{primObs: make([]logEntry, n), extraOf: map[model.MsgID][]int{}, extraAt: map[msgOffset]int{}}
	for i := range ls.primObs {
		ls.primObs[i].off = model.NoOffset
	}
	return ls
}

// observe records that rec r (op index opIdx) saw message m at offset off,
// as its sq-th send or read.
func (ls *logState) observe(c *checker, m model.MsgID, off int64, r int32, sq int32, opIdx int64) {
	if off == model.NoOffset {
		return
	}
	better := func(e *logEntry) bool {
		return opIdx < e.obsOp || (opIdx == e.obsOp && sq < e.obsSq)
	}
	if e := &ls.primObs[m]; e.off == model.NoOffset {
		*e = logEntry{key: c.h.Msgs[m].Key, msg: m, off: off, obsOp: opIdx, obsSq: sq, obsR: r}
		return
	} else if e.off == off {
		if better(e) {
			e.obsOp, e.obsSq, e.obsR = opIdx, sq, r
		}
		return
	}
	if i, ok := ls.extraAt[msgOffset{m, off}]; ok {
		if better(&ls.extra[i]) {
			ls.extra[i].obsOp, ls.extra[i].obsSq, ls.extra[i].obsR = opIdx, sq, r
		}
		return
	}
	ls.extraAt[msgOffset{m, off}] = len(ls.extra)
	ls.extraOf[m] = append(ls.extraOf[m], len(ls.extra))
	ls.extra = append(ls.extra, logEntry{key: c.h.Msgs[m].Key, msg: m, off: off, obsOp: opIdx, obsSq: sq, obsR: r})
}

// buildLog builds each key's log (offset -> values), its version order and
// every message's first and last position, and reports inconsistent-offsets
// and duplicate. Each message usually sits at one offset, so the first
// (message, offset) pair lives in flat per-message arrays and only further
// offsets of a message go to a side list: memory grows with messages.
func (c *checker) buildLog() {
	ls := c.log
	c.log = nil
	c.observeSends(ls)
	// the first observer of each duplicate's first offset, for its witness
	dupFirst := make(map[model.MsgID]logEntry, len(ls.extraOf))
	for m := range ls.extraOf {
		dupFirst[m] = ls.primObs[m]
	}
	c.placeEntries(ls.entries())
	c.reportDuplicates(dupFirst, ls.extra, ls.extraOf)
}

// observeSends makes the sends' observations of the log (scanMessages made
// the reads'): those of the committed recs, whose sends enter the log.
func (c *checker) observeSends(ls *logState) {
	for ri, r := range c.recs {
		if r.comp == r.inv || !c.committed[ri] {
			continue // open invocation: nothing observed; uncommitted sends: not in the log
		}
		opIdx := c.compIdx(int32(ri))
		sq := int32(0)
		mops := c.mops(int32(ri))
		for mi := range mops {
			m := &mops[mi]
			switch m.Kind {
			case model.MopSend:
				if m.Done {
					ls.observe(c, m.Msg, c.h.Offset(m), int32(ri), sq, opIdx)
				}
				sq++
			case model.MopPoll:
				for _, kp := range c.h.PollsOf(m) {
					sq += kp.Reads.N
				}
			}
		}
	}
}

// entries returns every observation, the first ones and the further ones:
// it compacts the observed messages to the front of primObs, no second
// array of entries, so primObs is not to be read after.
func (ls *logState) entries() []logEntry {
	primObs := ls.primObs
	entries := primObs[:0]
	for m := range primObs {
		if primObs[m].off != model.NoOffset {
			entries = append(entries, primObs[m])
		}
	}
	ls.primObs = nil
	return append(entries, ls.extra...)
}

// placeEntries sorts the log's entries and gives each key its positions
// (offsets, kept) and each message its first and last position, reporting
// the positions that hold more than one value (addConflict).
func (c *checker) placeEntries(entries []logEntry) {
	nk := len(c.h.Keys)
	runs := sortEntries(entries, nk)
	c.offsets = make([][]int64, nk)
	c.kept = make([][]model.MsgID, nk)
	for k, n := range runs { // each key's entries: at most that many positions
		if n > 0 {
			c.offsets[k] = make([]int64, 0, n)
			c.kept[k] = make([]model.MsgID, 0, n)
		}
	}
	n := len(c.h.Msgs)
	c.first = filled(n, -1)
	c.last = filled(n, -1)
	for i := 0; i < len(entries); {
		e := entries[i]
		j := i + 1
		for j < len(entries) && entries[j].key == e.key && entries[j].off == e.off {
			j++
		}
		pos := int32(len(c.offsets[e.key]))
		c.offsets[e.key] = append(c.offsets[e.key], e.off)
		c.kept[e.key] = append(c.kept[e.key], e.msg)
		for _, x := range entries[i:j] {
			if c.first[x.msg] < 0 {
				c.first[x.msg] = pos
			}
			c.last[x.msg] = pos // entries ascend by offset within a key
		}
		if j-i > 1 {
			c.addConflict(pos, entries[i:j])
		}
		i = j
	}
}

// addConflict records the values of group, the entries of one offset of
// one key at position pos, in conflicts and reports inconsistent-offsets.
func (c *checker) addConflict(pos int32, group []logEntry) {
	e := group[0]
	vals := make([]analysis.Value, len(group))
	var recs []int32
	var ops []int64
	if c.conflicts == nil {
		c.conflicts = map[[2]int32][]conflictObs{}
	}
	for gi, x := range group {
		vals[gi] = c.msgVal(x.msg)
		recs = append(recs, x.obsR)
		ops = append(ops, c.compIdx(x.obsR))
		ck := [2]int32{int32(e.key), pos}
		c.conflicts[ck] = append(c.conflicts[ck], conflictObs{x.msg, x.obsR})
	}
	slices.SortFunc(vals, func(a, b analysis.Value) int { return lessCmp(a.Atom, b.Atom) })
	slices.Sort(ops)
	c.res.Add(InconsistentOffsets, &Instance{
		Subject: analysis.Subject{Key: c.keyVal(e.key)}, Offset: analysis.IntPtr(e.off), Index: analysis.IntPtr(int64(pos)),
		Values: vals, Ops: slices.Compact(ops), Evidence: analysis.Evidence{Witness: c.witness(recs...)},
	})
}

// reportDuplicates reports duplicate for each message seen at more than
// one offset (in extraOf), by message: dupFirst holds its first
// observation, extra the further ones.
func (c *checker) reportDuplicates(dupFirst map[model.MsgID]logEntry, extra []logEntry, extraOf map[model.MsgID][]int) {
	dups := make([]model.MsgID, 0, len(extraOf))
	for m := range extraOf {
		dups = append(dups, m)
	}
	slices.Sort(dups)
	for _, m := range dups {
		offs := []int64{dupFirst[m].off}
		recs := []int32{dupFirst[m].obsR}
		for _, i := range extraOf[m] {
			offs = append(offs, extra[i].off)
			recs = append(recs, extra[i].obsR)
		}
		slices.Sort(offs)
		c.res.Add(Duplicate, &duplicate{compactKey: c.compact(c.h.Msgs[m].Key, m, recs...), offs: offs})
	}
}

// sortEntries sorts entries by key, offset and first observation (a total
// order: no two entries share all four). Keys first, by distributing them
// in place (an American flag sort), then each key's run on its own. It
// returns the number of entries of each key.
func sortEntries(entries []logEntry, nk int) []int {
	next := make([]int, nk+1) // start of each key's run, then its next free slot
	for i := range entries {
		next[entries[i].key+1]++
	}
	for k := 1; k <= nk; k++ {
		next[k] += next[k-1]
	}
	end := slices.Clone(next[1:])
	for k := range nk {
		for next[k] < end[k] {
			e := entries[next[k]]
			if int(e.key) == k {
				next[k]++
				continue
			}
			entries[next[k]], entries[next[e.key]] = entries[next[e.key]], e
			next[e.key]++
		}
	}
	runs := make([]int, nk)
	start := 0
	var slot []int32
	var tmp []logEntry
	for k := range nk {
		run := entries[start:end[k]]
		runs[k] = len(run)
		start = end[k]
		if slot, tmp = placeByOffset(run, slot, tmp); slot != nil {
			continue
		}
		slices.SortFunc(run, func(a, b logEntry) int {
			if a.off != b.off {
				return cmp.Compare(a.off, b.off)
			}
			if a.obsOp != b.obsOp {
				return cmp.Compare(a.obsOp, b.obsOp)
			}
			return cmp.Compare(a.obsSq, b.obsSq)
		})
	}
	return runs
}

// placeByOffset sorts the entries of one key by offset without comparing
// them, when that is easy: their offsets are distinct (no conflict, the
// usual case) and span less than twice their number (a key's log is dense),
// so each goes to the slot of its offset. It returns the scratch space,
// slot nil when it did not sort them.
func placeByOffset(run []logEntry, slot []int32, tmp []logEntry) ([]int32, []logEntry) {
	if len(run) < 2 {
		return slot[:0], tmp // nothing to sort
	}
	lo, hi := run[0].off, run[0].off
	for i := range run {
		lo, hi = min(lo, run[i].off), max(hi, run[i].off)
	}
	span := uint64(hi - lo)
	if span >= 2*uint64(len(run)) {
		return nil, tmp
	}
	slot = slices.Grow(slot[:0], int(span)+1)[:span+1]
	for i := range slot {
		slot[i] = -1
	}
	for i := range run {
		j := run[i].off - lo
		if slot[j] >= 0 {
			return nil, tmp // two values at one offset: compare
		}
		slot[j] = int32(i)
	}
	tmp = append(tmp[:0], run...)
	w := 0
	for _, i := range slot {
		if i >= 0 {
			run[w] = tmp[i]
			w++
		}
	}
	return slot, tmp
}
