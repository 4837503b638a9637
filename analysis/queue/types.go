package queue

// Anomaly type names, exactly as docs/queue.md#types-at-a-glance spells them.
// Each doc comment states the property the anomaly violates and the instance
// fields it carries (JSON names of Instance, instance.go); every instance also
// carries witness, the sorted op indices of its minimal counterexample. Each
// type's meaning, severity, docs section, wording and timeline mark are its
// entry in catalogue.go (Catalogue), with its wording in explain.go.
const (
	// InconsistentOffsets: one offset of a key holds two or more distinct
	// values. Fields: key, offset, index (the offset's dense position),
	// values (sorted), ops (the ops that observed each value there).
	InconsistentOffsets = "inconsistent-offsets"
	// Duplicate: one value of a key sits at two or more offsets. Fields:
	// key, value, count, offsets (ascending).
	Duplicate = "duplicate"
	// G1a (aborted read): an ok poll read a value whose send failed.
	// Fields: key, value, offset, reader, writer.
	G1a = "G1a"
	// PrecommittedRead: an op read a value that it sent itself, before it
	// committed. Fields: op, key, value.
	PrecommittedRead = "precommitted-read"
	// LostWrite: a committed value whose last position is at or below the
	// highest first position of any value an ok poll read, never read by
	// an ok poll. Fields: key, value, offset, index, max_read_index,
	// writer, max_read.
	LostWrite = "lost-write"
	// Unseen: at the end of the history, ok sends of a key that no ok poll
	// ever read. One instance per key. Fields: key, count, values (the
	// first 1000, in log order; values_truncated when cut).
	Unseen = "unseen"
	// PollSkip: consecutive ok polls of one process on one key, the second
	// starting more than one position past where the first ended. Fields:
	// key, process, ops (earlier ok poll, later poll), values (last value of
	// the earlier, first of the later), delta, skipped. Bad
	// for a process that assigned its partitions, allowed for one that
	// subscribed (a rebalance may move it).
	PollSkip = "poll-skip"
	// NonmonotonicPoll: like poll-skip, but the second poll starts at or
	// before where the first ended. Fields: key, process, ops, values (last
	// value of the earlier op, first value of the later), delta.
	NonmonotonicPoll = "nonmonotonic-poll"
	// NonmonotonicSend: consecutive sends of one process to one key go
	// backwards (or repeat a position) in the version order. Fields: key,
	// process, ops, values, delta.
	NonmonotonicSend = "nonmonotonic-send"
	// IntPollSkip: inside one op, consecutive values read for a key skip
	// positions. Fields: key, op, values, skipped, delta.
	IntPollSkip = "int-poll-skip"
	// IntNonmonotonicPoll: inside one op, consecutive values read for a key
	// go backwards or repeat. Fields: key, op, values, delta.
	IntNonmonotonicPoll = "int-nonmonotonic-poll"
	// IntSendSkip (allowed): inside one op, consecutive sends to a key are
	// not adjacent in the log. Fields: key, op, values, skipped, delta.
	IntSendSkip = "int-send-skip"
	// IntNonmonotonicSend: inside one op, consecutive sends to a key land
	// backwards or at one position. Fields: key, op, values, delta.
	IntNonmonotonicSend = "int-nonmonotonic-send"
	// G0 (allowed): a cycle of write-write edges. Fields: cycle, steps,
	// proof (and assumes): every cycle type's instances say whether they
	// are proven, or assume a log order that an inconsistent-offsets
	// observation contradicts (a ww step's contested and contradicted_by;
	// docs/queue.md, "Proofs").
	G0 = "G0"
	// G0Process (allowed): a cycle of ww and process edges, at least one
	// process edge.
	G0Process = "G0-process"
	// G0Realtime (allowed): a cycle of ww and realtime edges, at least one
	// realtime edge.
	G0Realtime = "G0-realtime"
	// G1c: a cycle of ww and wr edges with at least one wr edge. Allowed
	// under --ww-deps when its witness needs a ww edge.
	G1c = "G1c"
	// G1cProcess: a G1c cycle that also uses process order.
	G1cProcess = "G1c-process"
	// G1cRealtime: a G1c cycle that also uses realtime order.
	G1cRealtime = "G1c-realtime"
	// GarbageRead (ours): an op read a value no op in the history sent.
	// Fields: key, value, offset, reader.
	GarbageRead = "garbage-read"
	// TornTransaction (ours): an op sent several values, some read by ok
	// polls and others lost and never returned by any poll (reason "lost"),
	// or, for a failed op, never seen anywhere (reason "aborted"). Fields:
	// op, seen, missing, reason.
	TornTransaction = "torn-transaction"
	// StalledConsumer (ours, informational): a process polled a key again
	// and again without getting anything new for longer than the stall
	// threshold, while higher offsets of the key were acknowledged. Fields:
	// key, process, from, to, duration_s, stuck_offset (-1 when the
	// consumer had read nothing of the key yet), acknowledged_offset.
	StalledConsumer = "stalled-consumer"
)

// AllTypes lists every anomaly type of the queue workload, in the order the
// text report shows them: the names of Catalogue's entries.
var AllTypes = names(Catalogue())

// alwaysAllowed are types that never make a history invalid: the
// catalogue's informational ones.
var alwaysAllowed = informational(Catalogue())

// IsBad reports whether an instance of typ makes the history invalid.
func IsBad(typ string, allowed bool) bool {
	return !alwaysAllowed[typ] && !allowed
}
