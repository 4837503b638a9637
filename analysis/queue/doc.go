// Package queue checks Kafka-style queue histories: the semantics of
// docs/queue.md, which follows Jepsen's jepsen.tests.kafka checker and
// departs from it where that checker is nondeterministic, crashes or misses
// something.
//
// # What an op is here
//
// Every client completion (ok, info, fail) is a record, paired with its
// invocation; an invocation that never completed is a record of type info
// whose micro-ops are still in invocation form. Assign and subscribe ops are
// records too (they move consumer positions); only send, poll and txn records
// are vertices of the dependency graph.
//
// # Choices the anomaly definitions leave open
//
//   - Positions. Order comparisons (skips, nonmonotonic, internal checks)
//     use a value's position in the version order: the last position at
//     which the log holds it (a duplicate's last offset, as Jepsen does).
//     Every value at a conflicting offset has that offset's position, not
//     only the value listed for it (the one observed first, lowest op
//     index), so a consumer that reads a rewritten log in order skips
//     nothing. Going from one value to a different value at the same
//     position compares two values the log does not order: it is neither a
//     skip nor a step back, and nothing is reported (the conflict is
//     inconsistent-offsets' business); the same value twice is a repeat.
//     Going from a later position back to a conflicting one is a step back
//     like any other: a consumer that read the stale log past offset o and
//     then reads the rewritten value at o gets nonmonotonic-poll.
//   - What stays unpositioned. A value that no completed op observed at an
//     offset has no position, and every comparison that needs it is skipped
//     and counted in stats.unpositioned_skipped: once per send or read of
//     it that the internal checks meet (they stand for the process-level
//     comparisons too), and once more when the lost-write rule meets a
//     committed value of it that no ok poll read. Such a value was sent with
//     no offset (nil, a micro-op still in invocation form, an invocation
//     never completed) or by an op whose sends do not enter the log (fail,
//     or info not proven by an ok read), and no poll returned it at an
//     offset (a poll with a nil offset does not place it either). Values at
//     conflicting offsets never land there.
//   - ww edges at conflicting offsets (--ww-deps). The version order lists
//     one value per position (the one observed first), and ww edges join
//     the writers of the listed values of consecutive positions, as
//     Jepsen's do (where Jepsen lists a value picked in hash order). A value
//     that shares its position with an earlier-observed one gets no ww
//     edge: which of the two logs a neighbour belongs to is unknown, and
//     joining every value of a position to every value of the next would
//     assert orders no log held (a rewritten value before a truncated one),
//     giving G0 and G1c cycles that are artefacts of the conflict. ww edges
//     only ever make a cycle allowed, never the verdict bad. lost-write,
//     duplicate, unseen and torn-transaction work on the log itself (every
//     observed value, first and last positions), not on the listed values.
//   - Subscribe or assign. Without --sub-via, poll-skip and
//     nonmonotonic-poll are allowed when the process's most recent
//     assign/subscribe (ok or info) was a subscribe, and bad otherwise,
//     including for a process that never did either.
//   - info/fail ops in the internal checks. int-poll-skip and friends look
//     at every completed op: a failed transaction's polls returned real
//     data, and its sends real offsets or none.
//   - G1c under --ww-deps. The search first looks for a cycle of reads
//     alone (with process or realtime edges for those forms); only when
//     there is none does it allow ww edges, and such a cycle is reported
//     as allowed.
//   - Cycles needing two relations (G1c-process, G1c-realtime) are simple
//     cycles; the witness is the shortest the search reaches.
//   - An op that read a value sent by a failed op counts for G1a only when
//     the reader is ok. precommitted-read applies to any completed op.
//   - torn-transaction counts a value of a committed op as missing when it
//     is lost and no poll at all (ok, info or fail) ever returned it: a value
//     that an aborted poll saw did reach the log, so the write was not torn,
//     only never consumed (lost-write and unseen report that). The shared
//     fixture txn-abort-no-rewind-poll-skip-invalid requires this reading.
//   - Unseen keeps the first 1000 values of a key (count has them all).
//   - Realtime lag. At each ok poll, for each key the process is assigned
//     (or, without an assignment, each key it has polled), stamped with the
//     poll's invocation time: the time since the smallest acknowledged
//     offset past the consumer's position (after this poll) was
//     acknowledged, counting ok sends completed before the poll was
//     invoked; 0 when nothing acknowledged is past it.
//   - stalled-consumer. A run of two or more such samples of one process and
//     key in which the position did not move and the lag stayed above zero,
//     lasting (first to last poll) at least --stall-threshold.
//   - A history where no send, poll or txn completed ok has nothing to
//     judge: unknown.
//
// # Jepsen checker behaviour not copied
//
// For users, docs/queue.md#where-hindsight-departs-from-jepsens-checker.
//
//   - Hash-order choice at conflicting offsets: Jepsen keeps one value per
//     offset, picked in hash order, and gives the others no position, so
//     its skips and ww edges depend on the pick. Here every value has its
//     offset's position and the listed one is the first observed.
//   - Throwing on a value with no writer (garbage-read here), and on a key
//     whose ok polls were all empty, which crashes Jepsen's lost-write step.
//   - The unseen series spiking when a key is polled before any ok send.
//   - Dropping an op's earlier send offsets when a later send has none
//     (realtime lag).
//   - Dense per-offset arrays: memory grows with messages, not offsets.
//   - Skipping the cycle search when the first op has no type.
//   - Forgetting a consumer's position at an ok poll that returns nothing
//     for a key ({k []}): here an empty poll keeps the position, and the
//     next read of k is compared with the last value actually read, so a
//     skip across empty polls is still a poll-skip.
//
// # The code
//
// Check (check.go) numbers the ops as records (checker.go) and runs five
// groups of passes at once. The first scans the messages and builds the
// log (log.go: positions, inconsistent-offsets, duplicate), then goes
// through the ops once for the process-level order checks (order.go:
// poll-skip, nonmonotonic-*) and ends with lost-write, unseen and
// torn-transaction (lost.go). The second computes the series and the
// realtime lag (series.go; lagsweep.go, or lag.go with lagkeys.go;
// acks.go and stalls.go). The third, once the log is built, the
// dependency graph and its cycles (depgraph.go, cycles.go); the fourth,
// then too, the order checks within one op (order.go: int-*). The fifth
// finds the reads' writers (reads.go: G1a, precommitted-read,
// garbage-read). The anomaly types are in types.go, their catalogue
// entries in catalogue.go, their wording in explain.go. An instance is an
// Instance (instance.go: the queue's own fields around the shared
// analysis.Subject, *analysis.CycleFields and analysis.Evidence); the
// counts only a queue keeps are Stats (stats.go), the result's Stats.Own.
//
// # Cost
//
// n is the size of the history: ops, micro-ops and values read. Every
// check is O(n log n) or better, whatever the shape of the history: one
// poll of a million values, one op of a million sends (to one key or to
// many), one key sent to a million times, one process running a million
// ops (BenchmarkAdversarial and TestAdversarialAllocs check each at n and
// 10n). Per pass: the message scan and the log (offsets per key), O(n) plus
// a sort of each key's observations; the reads' writers (G1a,
// precommitted-read, garbage-read), O(reads); the int-* checks, O(mops) per
// op, its keys indexed by dense id (keyStamps); the process checks
// (poll-skip, nonmonotonic-*), O(1) per key read or sent, a process's
// positions indexed by key once it holds many (posList); lost-write,
// unseen and torn-transaction, O(messages + mops) plus a sort of the unseen
// values; the dependency graph, O(edges log edges), its realtime edges the
// frontier reduction, O(ops · concurrency). A poll-skip or int-*-skip lists
// at most MaxSkipped of the values it jumped over and counts them all in
// skipped_count (docs/queue.md#poll-skip), so a consumer jumping back and
// forth over n values k times costs O(k) output, not O(k·n). The realtime
// lag (its series, the worst lag and stalled-consumer) samples, at each
// poll, every key the consumer holds, as Jepsen's realtime-lag does, but
// takes a sample explicitly only where a key's state may have changed and
// accounts for the runs of polls between at once (lag.go), so one consumer
// polling n keys one at a time costs O(n log n) (the adversarial history
// one-process-many-keys). It first samples every held key explicitly
// (lagsweep.go), cheaper where consumers hold a few keys, within a budget
// of key visits linear in the history, past which lag.go runs instead (the
// adversarials one-process-many-keys and consumer-assigned-many-keys, and
// their /check runs). The realtime edges share the txn workloads'
// limit: k ops concurrent with each other and all followed by k more make
// k² edges (analysis/txn's package doc says why and what would fix it).
package queue
