package abort

import (
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
)

// The abort workload's values are read by its own decoder (package
// ingest, "Workload values"): poll maps, topic names, create maps and
// :rebalance-log maps, which ingest does not decode itself. What it keeps
// of each form is one record (model.ExtRec) of the op:
//
//	recPoll:      keys [topic] (none without one); words [flags offset ...],
//	              flags pollAbort, pollOffsets, pollTopic
//	recTopic:     keys [topic] (an assign's or subscribe's)
//	recCreate:    keys [topic]; words [count] when there is one
//	recRebalance: words [events before, events during, then per event,
//	              in the order read: its flags (eventType, eventDuring),
//	              its number of keys]; keys, per event: its :type when it
//	              has one, then its :keys
//
// A poll map's other keys, and a rebalance event's, are skipped; so are
// rebalance events that are not maps (counted, with no type or keys).

// Record kinds.
const (
	recPoll uint16 = iota + 1
	recTopic
	recCreate
	recRebalance
)

// Flags of a poll record.
const (
	pollAbort   = 1 // :abort? true
	pollOffsets = 2 // has :offsets
	pollTopic   = 4 // has a :topic
)

// Flags of a rebalance event.
const (
	eventType   = 1 // it has a :type
	eventDuring = 2 // it is logged during the op, not before
)

// Decoder is the abort workload's value decoder (ingest.ValueDecoder),
// which package workload installs beside the workload's registry entry.
type Decoder struct{}

// Name is the workload's name: the records' owner (History.ExtOwnerOf).
func (Decoder) Name() string { return Workload }

// Claim takes a poll's value unless it is a vector (the queue's
// micro-ops), an assign's or subscribe's value when it is a string (a
// topic), a create's map, and a :rebalance-log that is a map ({:before
// [...] :during [...]}; the queue's is a vector).
func (Decoder) Claim(field, f string, s ingest.Shape) bool {
	switch {
	case field == "rebalance-log":
		return s == ingest.ShapeMap
	case field != ingest.ValueField:
		return false
	case f == "poll":
		return s != ingest.ShapeVector && s != ingest.ShapeNil
	case f == "assign" || f == "subscribe":
		return s == ingest.ShapeString
	case f == "create":
		return s == ingest.ShapeMap
	}
	return false
}

// Decode reads one claimed form into a record. A poll value that is not a
// map, an offset that is not an integer, and offsets without a topic are
// errors at the form.
func (Decoder) Decode(field, f string, v *ingest.Value, w *ingest.ExtWriter) error {
	switch {
	case field == "rebalance-log":
		return decodeRebalance(v, w)
	case f == "assign" || f == "subscribe":
		w.SetKind(recTopic)
		return topicKey(v, w)
	case f == "create":
		w.SetKind(recCreate)
		return v.Map(func(k string, x *ingest.Value) error {
			switch k {
			case "topic":
				return topicKey(x, w)
			case "count":
				n, err := x.Int()
				w.Word(n)
				return err
			}
			return nil
		})
	}
	return decodePoll(v, w)
}

// DecodeRaw reads a poll's map and an assign's or subscribe's topic
// straight from their source bytes (ingest.RawDecoder), writing exactly
// what Decode writes; it declines anything else, and any form Decode
// would reject, which Decode then reads and reports. On the 1M-poll
// history of bench/bench.sh it takes the poll maps' decoding from about
// 0.6 to about 0.25 CPU-seconds (cpuprofile): no token stream, no
// callback per token, no map keys turned into strings.
func (Decoder) DecodeRaw(field, f string, s *ingest.Scanner, w *ingest.ExtWriter) bool {
	switch {
	case field == "rebalance-log":
		return decodeRebalanceRaw(s, w)
	case field != ingest.ValueField:
		return false
	case f == "poll":
		return decodePollRaw(s, w)
	case f == "assign" || f == "subscribe":
		w.SetKind(recTopic)
		return s.Key(w)
	}
	return false
}

// decodePollRaw is decodePoll on the source bytes, for a map whose keys
// are keywords.
func decodePollRaw(s *ingest.Scanner, w *ingest.ExtWriter) bool {
	w.SetKind(recPoll)
	w.Word(0) // the flags
	var flags int64
	ok := s.Map(func(k []byte) bool {
		switch string(k) {
		case "topic":
			if s.Nil() {
				return true
			}
			flags |= pollTopic
			return s.Key(w)
		case "abort?":
			b, ok := s.Bool()
			if b {
				flags |= pollAbort
			}
			return ok
		case "offsets":
			if s.Nil() {
				return true
			}
			flags |= pollOffsets
			return s.Words(w)
		}
		return s.Skip()
	})
	if !ok {
		return false
	}
	if flags&(pollTopic|pollOffsets) == pollOffsets {
		return false // Decode reports it
	}
	w.SetWord(0, flags)
	return true
}

// topicKey reads a topic into w's keys.
func topicKey(x *ingest.Value, w *ingest.ExtWriter) error {
	id, err := x.Key()
	w.Key(id)
	return err
}

func decodePoll(v *ingest.Value, w *ingest.ExtWriter) error {
	w.SetKind(recPoll)
	if v.Shape() != ingest.ShapeMap {
		return v.Errorf("the value of a poll must be a map such as {:topic \"t1\" :offsets [1 2]} or nil, found %s", v.Describe())
	}
	at := v.Pos()
	w.Word(0) // the flags, set once the map is read
	pr := pollReader{w: w}
	if err := v.Map(pr.entry); err != nil {
		return err
	}
	if pr.flags&(pollTopic|pollOffsets) == pollOffsets {
		return v.ErrorAt(at, "a poll with :offsets needs a :topic")
	}
	w.SetWord(0, pr.flags)
	return nil
}

// pollReader reads the entries of a poll map.
type pollReader struct {
	w     *ingest.ExtWriter
	flags int64
}

func (pr *pollReader) entry(k string, x *ingest.Value) error {
	switch {
	case k == "topic" && !x.IsNil():
		pr.flags |= pollTopic
		return topicKey(x, pr.w)
	case k == "abort?":
		b, err := x.Bool()
		if b {
			pr.flags |= pollAbort
		}
		return err
	case k == "offsets" && !x.IsNil():
		pr.flags |= pollOffsets
		return x.Seq(pr.offset)
	}
	return nil
}

// offset reads one offset into the record's words.
func (pr *pollReader) offset(o *ingest.Value) error {
	off, err := o.Int()
	if err == nil {
		pr.w.Word(off)
	}
	return err
}

// startRebalance begins a rebalance record in w: its kind, then its
// numbers of events before and during, zero until the events are read.
func startRebalance(w *ingest.ExtWriter) {
	w.SetKind(recRebalance)
	w.Word(0) // events before
	w.Word(0) // events during
}

// rebalanceSlot is the slot of a rebalance map's key: 0 for :before, 1
// for :during; ok is false for any other key.
func rebalanceSlot(k string) (slot int64, ok bool) {
	switch k {
	case "before":
		return 0, true
	case "during":
		return 1, true
	}
	return 0, false
}

// startEvent begins one event of slot in w: its flags (eventDuring for
// the :during slot) and its number of keys (0 until read). It returns
// where the two words are, for SetWord.
func startEvent(w *ingest.ExtWriter, slot int64) int {
	at := w.Len()
	w.Word(slot * eventDuring) // flags
	w.Word(0)                  // keys
	return at
}

// decodeRebalance reads a rebalance value into w: the counts of events
// before and during it, then each event's flags, number of keys, type and
// keys.
func decodeRebalance(v *ingest.Value, w *ingest.ExtWriter) error {
	startRebalance(w)
	var counts [2]int64
	return v.Map(func(k string, evs *ingest.Value) error {
		slot, ok := rebalanceSlot(k)
		if !ok {
			return nil
		}
		if evs.Shape() != ingest.ShapeVector {
			return evs.Skip()
		}
		n := int64(0)
		err := evs.Seq(func(e *ingest.Value) error {
			n++
			at := startEvent(w, slot)
			if e.Shape() != ingest.ShapeMap {
				return e.Skip()
			}
			var keys int64
			flags := slot * eventDuring
			var typ model.KeyID
			var ks []model.KeyID
			err := e.Map(func(k string, x *ingest.Value) error {
				switch k {
				case "type":
					id, err := x.Key()
					typ, flags = id, flags|eventType
					return err
				case "keys":
					if x.Shape() != ingest.ShapeVector && x.Shape() != ingest.ShapeSet {
						return x.Skip()
					}
					return x.Seq(func(kv *ingest.Value) error {
						id, err := kv.Key()
						ks = append(ks, id)
						return err
					})
				}
				return nil
			})
			if flags&eventType != 0 {
				w.Key(typ)
			}
			for _, id := range ks {
				w.Key(id)
				keys++
			}
			w.SetWord(at, flags)
			w.SetWord(at+1, keys)
			return err
		})
		counts[slot] += n
		w.SetWord(int(slot), counts[slot])
		return err
	})
}

// decodeRebalanceRaw is decodeRebalance on the source bytes, for a map
// whose keys are keywords; a form it cannot read there (a set of keys, a
// list of events, a key that is not a keyword) it declines, and
// decodeRebalance reads it.
func decodeRebalanceRaw(s *ingest.Scanner, w *ingest.ExtWriter) bool {
	startRebalance(w)
	var counts [2]int64
	return s.Map(func(k []byte) bool {
		slot, ok := rebalanceSlot(string(k))
		if !ok {
			return s.Skip()
		}
		if !s.Byte('[') {
			return s.Skip() // not a vector of events: skipped
		}
		for !s.Byte(']') {
			counts[slot]++
			if !rebalanceEventRaw(s, w, slot) {
				return false
			}
		}
		w.SetWord(int(slot), counts[slot])
		return true
	})
}

// rebalanceEventRaw reads one rebalance event of the :before (slot 0) or
// :during (1) list into w, as decodeRebalance does: its flags, its number
// of keys, then its type and keys; an event that is not a map is counted,
// with neither.
func rebalanceEventRaw(s *ingest.Scanner, w *ingest.ExtWriter, slot int64) bool {
	at := startEvent(w, slot)
	if !s.Byte('{') {
		return s.Skip()
	}
	flags := slot * eventDuring
	var typ model.KeyID
	var buf [8]model.KeyID
	ks := buf[:0]
	for !s.Byte('}') {
		k, ok := s.Keyword()
		if !ok {
			return false
		}
		switch string(k) {
		case "type":
			if typ, ok = s.KeyID(); !ok {
				return false
			}
			flags |= eventType
		case "keys":
			if !s.Byte('[') {
				if !s.Skip() {
					return false // a set of keys: decodeRebalance reads it
				}
				continue
			}
			for !s.Byte(']') {
				id, ok := s.KeyID()
				if !ok {
					return false
				}
				ks = append(ks, id)
			}
		default:
			if !s.Skip() {
				return false
			}
		}
	}
	if flags&eventType != 0 {
		w.Key(typ)
	}
	for _, id := range ks {
		w.Key(id)
	}
	w.SetWord(at, flags)
	w.SetWord(at+1, int64(len(ks)))
	return true
}

// Recognise says whether the op at position i of h decides that h is an
// abort history (package workload, "Detection"): a poll whose value is a
// map with a :topic and :offsets or :abort?. It returns a description of
// that value for an error naming the op, or "".
func Recognise(h *model.History, i int) string {
	owner, ok := h.ExtOwnerOf(Workload)
	if !ok {
		return ""
	}
	for _, r := range h.ExtAt(i) {
		if r.Owner != owner || r.Kind != recPoll {
			continue
		}
		if ws := h.ExtWordsOf(&r); ws[0]&pollTopic != 0 && ws[0]&(pollOffsets|pollAbort) != 0 {
			return "a poll map with a :topic"
		}
	}
	return ""
}
