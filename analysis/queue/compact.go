package queue

import (
	"encoding/json"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// The types a history can hold by the hundred thousand, garbage-read
// (every value a consumer read that no send wrote: a history recorded
// without its producers), lost-write (every acknowledged value a consumer
// skipped past: a log that lost a range), duplicate and the int-* steps
// (every message written twice, and read so), and the steps between one
// process's ops (poll-skip, nonmonotonic-poll, nonmonotonic-send: every
// poll of a consumer that reads from anywhere), are kept compact
// (analysis.Lazy): their fields as plain numbers, the Instance built when
// an output asks for it, and the JSON written straight from the numbers
// (AppendJSON). An Instance of any, with its pointers and Values, took
// about 500 bytes: one poll of a million unwritten values (16 MB of EDN)
// peaked at 670 MB. These take about 100, and the million of them are
// written in a fraction of the time encoding/json took (the whole check
// 2.8 -> 1.9 s).

// compactKey is what the compact instances share: the witness, the
// history, and the key and value (message) they are about (an opStep's
// value is the one it stepped from); it answers the Instance methods. The
// value is here, beside the key, so that the two share a word.
type compactKey struct {
	ev  analysis.Evidence
	h   *model.History
	key model.KeyID
	msg model.MsgID
}

// compact is the compactKey of an instance of value m of key k witnessed
// by the ops of recs.
func (c *checker) compact(k model.KeyID, m model.MsgID, recs ...int32) compactKey {
	return compactKey{ev: analysis.Evidence{Witness: c.witness(recs...)}, h: c.h, key: k, msg: m}
}

// InstanceKey returns the key, made afresh.
func (x *compactKey) InstanceKey() *analysis.Value { return analysis.AtomValuePtr(x.h.Keys[x.key]) }

// InstanceEvidence returns the witness.
func (x *compactKey) InstanceEvidence() *analysis.Evidence { return &x.ev }

// InstanceCycle returns nil: none of them is a cycle.
func (*compactKey) InstanceCycle() *analysis.CycleFields { return nil }

// ListedValues returns the value, as the full instance of a garbage-read,
// lost-write or duplicate lists it (analysis.Listed), without building
// it; opStep lists its own.
func (x *compactKey) ListedValues() (values, skipped []analysis.Value) {
	return []analysis.Value{analysis.AtomValue(x.h.MsgValue(x.msg))}, nil
}

// garbageRead is a garbage-read instance: a value of key read at offset
// by the op at index reader, which no send wrote.
type garbageRead struct {
	compactKey
	off, reader int64
}

// lostWrite is a lost-write instance: value msg of key, sent at offset
// (index its position in the key's log) by the op at index writer, that
// no consumer read, though the op at index maxRead read past it (to the
// value at position maxReadIndex, offset maxReadOffset).
type lostWrite struct {
	compactKey
	off, index, maxReadIndex       int64
	writer, maxRead, maxReadOffset int64
}

// Full builds the Instance g stands for.
func (g *garbageRead) Full() analysis.Instance {
	return &Instance{Subject: analysis.Subject{Key: g.InstanceKey()}, Value: msgValue(g.h, g.msg), Offset: analysis.IntPtr(g.off),
		Reader: analysis.IntPtr(g.reader), Evidence: g.ev}
}

// MarshalJSON writes the Instance g stands for.
func (g *garbageRead) MarshalJSON() ([]byte, error) { return json.Marshal(g.Full()) }

// AppendJSON appends the JSON of the Instance g stands for, as report.JSON
// writes it, without building it.
func (g *garbageRead) AppendJSON(b []byte) []byte {
	f := keyValueFields(b, g.h, g.key, g.msg, g.off)
	f.Int("reader", g.reader)
	f.Evidence(&g.ev)
	return f.End()
}

// Full builds the Instance l stands for.
func (l *lostWrite) Full() analysis.Instance {
	return &Instance{
		Subject: analysis.Subject{Key: l.InstanceKey()}, Value: msgValue(l.h, l.msg), Offset: analysis.IntPtr(l.off),
		Index: analysis.IntPtr(l.index), MaxReadIndex: analysis.IntPtr(l.maxReadIndex),
		Writer: analysis.IntPtr(l.writer), MaxRead: analysis.IntPtr(l.maxRead),
		MaxReadOffset: analysis.IntPtr(l.maxReadOffset),
		Evidence:      l.ev,
	}
}

// MarshalJSON writes the Instance l stands for.
func (l *lostWrite) MarshalJSON() ([]byte, error) { return json.Marshal(l.Full()) }

// AppendJSON appends the JSON of the Instance l stands for, as report.JSON
// writes it, without building it.
func (l *lostWrite) AppendJSON(b []byte) []byte {
	f := keyValueFields(b, l.h, l.key, l.msg, l.off)
	f.Int("index", l.index)
	f.Int("max_read_index", l.maxReadIndex)
	f.Int("writer", l.writer)
	f.Int("max_read", l.maxRead)
	f.Int("max_read_offset", l.maxReadOffset)
	f.Evidence(&l.ev)
	return f.End()
}

// keyValueFields starts the JSON of an instance of a value of key at
// offset, on b: its key, value and offset fields.
func keyValueFields(b []byte, h *model.History, key model.KeyID, msg model.MsgID, off int64) analysis.JSONFields {
	f := analysis.NewJSONFields(b)
	f.Value("key", analysis.AtomValue(h.Keys[key]))
	f.Value("value", analysis.AtomValue(h.MsgValue(msg)))
	f.Int("offset", off)
	return f
}

// msgValue is a pointer to message m's value, for an Instance field.
func msgValue(h *model.History, m model.MsgID) *analysis.Value {
	v := analysis.AtomValue(h.MsgValue(m))
	return &v
}

// duplicate is a duplicate instance: value msg of key at the offsets offs
// (two or more, sorted). A log that holds every message twice (a producer
// retrying without idempotence) makes one per message.
type duplicate struct {
	compactKey
	offs []int64
}

// Full builds the Instance d stands for.
func (d *duplicate) Full() analysis.Instance {
	return &Instance{Subject: analysis.Subject{Key: d.InstanceKey()}, Value: msgValue(d.h, d.msg),
		Count: analysis.IntPtr(int64(len(d.offs))), Offsets: d.offs, Evidence: d.ev}
}

// MarshalJSON writes the Instance d stands for.
func (d *duplicate) MarshalJSON() ([]byte, error) { return json.Marshal(d.Full()) }

// AppendJSON appends the JSON of the Instance d stands for, as report.JSON
// writes it, without building it.
func (d *duplicate) AppendJSON(b []byte) []byte {
	f := analysis.NewJSONFields(b)
	f.Value("key", analysis.AtomValue(d.h.Keys[d.key]))
	f.Value("value", analysis.AtomValue(d.h.MsgValue(d.msg)))
	f.Name("offsets")
	f.B = analysis.AppendJSONInts(f.B, d.offs)
	f.Int("count", int64(len(d.offs)))
	f.Evidence(&d.ev)
	return f.End()
}

// opStep is an int-poll-skip, int-nonmonotonic-poll, int-send-skip or
// int-nonmonotonic-send instance: within the op at index op, key's value
// msg went to value to, delta positions on, over the values skipped (the
// first MaxSkipped of them; skippedCount is how many in all when more).
// One op that reads every message twice makes one per message.
type opStep struct {
	compactKey   // msg: the value it stepped from
	to           model.MsgID
	op, delta    int64
	skipped      []model.MsgID
	skippedCount int64 // 0 unless past MaxSkipped
}

// Full builds the Instance s stands for.
func (s *opStep) Full() analysis.Instance { return s.withSkipped(s.sketch()) }

// sketch builds the Instance s stands for but for its Skipped values.
func (s *opStep) sketch() *Instance {
	in := &Instance{Subject: analysis.Subject{Key: s.InstanceKey()}, Op: analysis.IntPtr(s.op),
		Values: s.values(), Delta: analysis.IntPtr(s.delta), Evidence: s.ev}
	if s.skippedCount > 0 {
		in.SkippedCount = analysis.IntPtr(s.skippedCount)
	}
	return in
}

// withSkipped sets in's Skipped values, s's, and returns it.
func (s *opStep) withSkipped(in *Instance) *Instance {
	in.Skipped = s.skippedValues()
	return in
}

// skippedValues returns the values s skipped (nil for none).
func (s *opStep) skippedValues() []analysis.Value {
	if len(s.skipped) == 0 {
		return nil
	}
	vs := make([]analysis.Value, len(s.skipped))
	for i, m := range s.skipped {
		vs[i] = analysis.AtomValue(s.h.MsgValue(m))
	}
	return vs
}

// values returns the value s stepped from and the one it stepped to.
func (s *opStep) values() []analysis.Value {
	return []analysis.Value{analysis.AtomValue(s.h.MsgValue(s.msg)), analysis.AtomValue(s.h.MsgValue(s.to))}
}

// ListedValues returns the two values and the skipped ones, as the full
// instance lists them (analysis.Listed), without building it.
func (s *opStep) ListedValues() (values, skipped []analysis.Value) {
	return s.values(), s.skippedValues()
}

// MarshalJSON writes the Instance s stands for.
func (s *opStep) MarshalJSON() ([]byte, error) { return json.Marshal(s.Full()) }

// AppendJSON appends the JSON of the Instance s stands for, as report.JSON
// writes it, without building it.
func (s *opStep) AppendJSON(b []byte) []byte { return s.appendJSON(b, nil) }

// appendJSON is AppendJSON, of the procStep around s when p is not nil:
// its ops instead of op, and its process.
func (s *opStep) appendJSON(b []byte, p *procStep) []byte {
	value := func(b []byte, m model.MsgID) []byte { return analysis.AtomValue(s.h.MsgValue(m)).AppendJSON(b) }
	f := analysis.NewJSONFields(b)
	f.Value("key", analysis.AtomValue(s.h.Keys[s.key]))
	f.Name("values")
	f.B = analysis.AppendJSONList(f.B, 2, func(b []byte, i int) []byte { return value(b, [2]model.MsgID{s.msg, s.to}[i]) })
	if p != nil {
		f.Name("ops")
		f.B = analysis.AppendJSONInts(f.B, []int64{p.prev, s.op})
	} else {
		f.Int("op", s.op)
	}
	f.Int("delta", s.delta)
	if len(s.skipped) > 0 {
		f.Name("skipped")
		f.B = analysis.AppendJSONList(f.B, len(s.skipped), func(b []byte, i int) []byte { return value(b, s.skipped[i]) })
	}
	if p != nil {
		f.Int("process", p.process)
	}
	f.Evidence(&s.ev)
	if s.skippedCount > 0 {
		f.Int("skipped_count", s.skippedCount)
	}
	return f.End()
}

// procStep is a poll-skip, nonmonotonic-poll or nonmonotonic-send
// instance: process's op at index prev ended at (or sent) value msg of
// key, and its next op, at index op, started at (or sent) value to, delta
// positions on; a skip lists what it skipped as an opStep does, and a
// poll step of a subscribed consumer is allowed (in ev). A consumer that
// polls from anywhere makes one per poll and key.
type procStep struct {
	opStep
	prev, process int64
}

// Full builds the Instance s stands for.
func (s *procStep) Full() analysis.Instance { return s.withSkipped(s.sketch()) }

// sketch builds the Instance s stands for but for its Skipped values.
func (s *procStep) sketch() *Instance {
	in := s.opStep.sketch()
	in.Op = nil
	in.Ops = []int64{s.prev, s.op}
	in.Process = analysis.IntPtr(s.process)
	return in
}

// MarshalJSON writes the Instance s stands for.
func (s *procStep) MarshalJSON() ([]byte, error) { return json.Marshal(s.Full()) }

// AppendJSON appends the JSON of the Instance s stands for, as report.JSON
// writes it, without building it.
func (s *procStep) AppendJSON(b []byte) []byte { return s.opStep.appendJSON(b, s) }

// Sketch returns the Instance in stands for (analysis.Full), but without
// the values a step kept compact skipped (Skipped; SkippedCount is set as
// in the full one): what the report's timeline needs to place a mark,
// without building 32 values for each of a million skips.
func Sketch(in analysis.Instance) analysis.Instance {
	if s, ok := in.(interface{ sketch() *Instance }); ok {
		return s.sketch()
	}
	return analysis.Full(in)
}
