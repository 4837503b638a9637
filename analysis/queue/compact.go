package queue

import (
	"encoding/json"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// The two types a history can hold by the hundred thousand, garbage-read
// (every value a consumer read that no send wrote: a history recorded
// without its producers) and lost-write (every acknowledged value a
// consumer skipped past: a log that lost a range), are kept compact
// (analysis.Lazy): their fields as plain numbers, the Instance built when
// an output asks for it, and the JSON written straight from the numbers
// (AppendJSON). An Instance of either, with its pointers and Values, took
// about 500 bytes: one poll of a million unwritten values (16 MB of EDN)
// peaked at 670 MB. These take about 100, and the million of them are
// written in a fraction of the time encoding/json took (the whole check
// 2.8 -> 1.9 s).

// garbageRead is a garbage-read instance: a value of key read at offset
// by the op at index reader, which no send wrote.
type garbageRead struct {
	ev          analysis.Evidence
	h           *model.History
	key         model.KeyID
	msg         model.MsgID
	off, reader int64
}

// lostWrite is a lost-write instance: value msg of key, sent at offset
// (index its position in the key's log) by the op at index writer, that
// no consumer read, though the op at index maxRead read past it (to the
// value at position maxReadIndex, offset maxReadOffset).
type lostWrite struct {
	ev                             analysis.Evidence
	h                              *model.History
	key                            model.KeyID
	msg                            model.MsgID
	off, index, maxReadIndex       int64
	writer, maxRead, maxReadOffset int64
}

// InstanceKey returns the key, made afresh.
func (g *garbageRead) InstanceKey() *analysis.Value { return analysis.AtomValuePtr(g.h.Keys[g.key]) }

// InstanceEvidence returns the witness: the reading op.
func (g *garbageRead) InstanceEvidence() *analysis.Evidence { return &g.ev }

// InstanceCycle returns nil.
func (*garbageRead) InstanceCycle() *analysis.CycleFields { return nil }

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

// InstanceKey returns the key, made afresh.
func (l *lostWrite) InstanceKey() *analysis.Value { return analysis.AtomValuePtr(l.h.Keys[l.key]) }

// InstanceEvidence returns the witness: the sending op and the op that
// read past the value.
func (l *lostWrite) InstanceEvidence() *analysis.Evidence { return &l.ev }

// InstanceCycle returns nil.
func (*lostWrite) InstanceCycle() *analysis.CycleFields { return nil }

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
