package gen

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Msg is one message of a key's log as the generator placed it.
type Msg struct {
	Key    int
	Value  int64
	Offset int64
}

// Injection records one fault that Write injected, with enough detail for a
// test to find it in the output. Ops are op indices (the :index of
// completion lines). What each field holds, per kind:
//
//   - LostWrite: Ops = [the ok send]; Msgs = [the dropped message at its acked offset].
//   - Duplicate: Ops = [the ok send]; Msgs = [the value at its acked offset, the same value at the next offset].
//   - InconsistentOffset: Ops = [the ok send acked at o]; Msgs = [the message stored at o, which
//     consumers read, the message of that send, acked at o and never stored].
//   - G1a: Ops = [the failed send]; Msgs = the messages it stored anyway.
//   - PollSkip: Process = the skipping process; Ops = [its previous ok poll that read Key, the ok poll
//     that skipped]; Msgs = [the skipped message].
//   - Stall: Process, Key; Ops = [first, last] ok poll that returned nothing for Key; Msgs = [the
//     next message the consumer should have read] when one was already in the log at the start, else
//     none; Duration = time between the first and last stalled poll.
//   - Garbage: Ops = [the first ok poll that read it]; Msgs = [the garbage message].
//   - TornTxn: Ops = [the ok txn]; Msgs = [the message that was kept, the message that was dropped].
//   - G1c: Process and Key of the txn that completed first; Ops = [its completion, the other's];
//     Msgs = [its message, the other's], each read by the other txn.
type Injection struct {
	Fault    FaultKind
	Process  int64
	Key      int
	Ops      []int64
	Msgs     []Msg
	Duration time.Duration
}

// String describes the injection in one line.
func (in Injection) String() string {
	var b strings.Builder
	b.WriteString(in.Fault.String())
	b.WriteString(" key=")
	b.WriteString(strconv.Itoa(in.Key))
	if in.Process >= 0 {
		b.WriteString(" process=")
		b.WriteString(strconv.FormatInt(in.Process, 10))
	}
	b.WriteString(" ops=")
	for i, o := range in.Ops {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(o, 10))
	}
	for _, m := range in.Msgs {
		b.WriteString(" [")
		b.WriteString(strconv.Itoa(m.Key))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(m.Offset, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(m.Value, 10))
		b.WriteByte(']')
	}
	if in.Duration > 0 {
		b.WriteString(" duration=")
		b.WriteString(in.Duration.String())
	}
	return b.String()
}

// Stats summarises what Write produced.
type Stats struct {
	// Counts are the lines, bytes, processes and end time.
	Counts
	// Invocations counts client and nemesis invocations.
	Invocations int64
	// Invocations by function.
	Sends, Polls, Txns, Assigns, Subscribes, Crashes, Nemesis int64
	// Client completions by type (crashes complete :info).
	OK, Info, Fail int64
	// InfoLanded counts :info sends and txns that the broker applied anyway.
	InfoLanded int64
	// ClientCrashes counts sends, polls and txns whose client crashed
	// (Config.CrashRate); they are counted in Info too.
	ClientCrashes int64
	// Messages counts messages stored in the logs by sends and txns (a
	// duplicate counts twice; lost, never-stored and garbage messages do not).
	Messages int64
	// FinalPhase is the index of the first line of the final reads (-1 when
	// the history has none).
	FinalPhase int64
	// Injections lists the injected faults in the order they happened.
	Injections []Injection
}

// Injected returns how many faults of kind k were injected.
func (s *Stats) Injected(k FaultKind) int {
	return countKind(s.Injections, k, func(in Injection) FaultKind { return in.Fault })
}

// countKind counts the injections whose kind (kindOf) is k.
func countKind[I any, K comparable](ins []I, k K, kindOf func(I) K) int {
	n := 0
	for _, in := range ins {
		if kindOf(in) == k {
			n++
		}
	}
	return n
}

// String is a one-line summary.
func (s *Stats) String() string {
	var b summary
	b.kvs("lines bytes sends polls txns assigns crashes nemesis ok info info-landed",
		s.Lines, s.Bytes, s.Sends, s.Polls, s.Txns, s.Assigns+s.Subscribes, s.Crashes, s.Nemesis, s.OK, s.Info, s.InfoLanded)
	if s.ClientCrashes > 0 {
		b.kv("client-crashes", s.ClientCrashes)
	}
	b.kvs("fail messages processes final-from", s.Fail, s.Messages, s.Processes, s.FinalPhase)
	b.WriteString(" sim-time=")
	b.WriteString((time.Duration(s.EndTime) * time.Nanosecond).Round(time.Millisecond).String())
	writeFaults(&b, FaultKinds(), s.Injected, len(s.Injections) == 0)
	return b.String()
}

// summary builds the one-line summaries of Stats and TxnStats.
type summary struct{ strings.Builder }

// kv appends k=v, after a space unless it is the first pair.
func (b *summary) kv(k string, v int64) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(k)
	b.WriteByte('=')
	b.WriteString(strconv.FormatInt(v, 10))
}

// kvs appends name=value for each of the space-separated names and the
// value in the same place of values.
func (b *summary) kvs(names string, values ...int64) {
	for i, k := range strings.Fields(names) {
		b.kv(k, values[i])
	}
}

// writeFaults appends " faults:", then " none" when nothing was injected,
// and kind=count for every kind of kinds injected at least once.
func writeFaults[K fmt.Stringer](b *summary, kinds []K, injected func(K) int, none bool) {
	b.WriteString(" faults:")
	if none {
		b.WriteString(" none")
	}
	for _, k := range kinds {
		if n := injected(k); n > 0 {
			b.WriteByte(' ')
			b.WriteString(k.String())
			b.WriteByte('=')
			b.WriteString(strconv.Itoa(n))
		}
	}
}
