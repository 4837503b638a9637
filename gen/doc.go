// Package gen writes deterministic, Jepsen-shaped Kafka queue histories
// (spec/queue.md) for tests and benchmarks: the same Config always gives the
// same bytes (one PCG source from math/rand/v2, no map iteration), and a
// history without faults is valid under spec/queue.md.
//
// # Output
//
// One op map per line, keys in Jepsen's order:
//
//	{:index 7, :time 14276615, :type :invoke, :process 3, :f :send, :value [[:send 0 0] [:send 0 1]]}
//	{:index 8, :time 14888258, :type :ok, :process 3, :f :send, :value [[:send 0 [0 0]] [:send 0 [1 1]]]}
//	{:index 20, :time 21660252, :type :ok, :process 2, :f :poll, :value [[:poll {0 [[0 0] [1 1]], 1 []}]]}
//
// Keys are the integers 0..Keys-1, values count up from 0 per key. :f is
// :send (1-3 sends), :poll, :txn (1-4 sends and polls), :assign or
// :subscribe (a vector of keys), :crash, or, for {:process :nemesis},
// :start-partition/:stop-partition (both lines :info, as Jepsen writes them).
// :info and :fail completions carry their micro-ops in invocation form and
// an :error keyword. A poll's map lists every key the consumer holds, in key
// order, with [] for keys that returned nothing. JSON is the same, one
// object per line, with strings for keywords.
//
// # Simulation
//
// A correct broker keeps, per key, an append-only log with offsets. Offsets
// are sparse as in Kafka: a committed transaction takes one more offset per
// key it wrote (the commit marker), an aborted one takes one per record plus
// the abort marker; consumers (read_committed) never see markers or aborted
// records.
//
// Concurrency workers each run one client process that both produces and
// consumes. A step either invokes an op on a random idle worker or completes
// a random op in flight, so about half the workers are in flight at once.
// Every op takes effect atomically at its completion: sends get the next
// offsets, polls read from the consumer's positions, a txn polls first (it
// never sees its own writes) and then appends its sends and markers. Because
// effects follow completion order, wr, ww, process and realtime edges all
// point forward in time and a fault-free history has no cycles. Time grows
// by 0.1-5 ms (log-uniform) per line.
//
// A consumer holds an assignment (assign or subscribe a random non-empty set
// of keys now and then) and a position per key. A poll returns, per assigned
// key, the next 0-5 messages from the position, in order, without gaps or
// repeats. A key the consumer keeps across an assign keeps its position; a
// newly assigned key starts at the key's committed prefix (the first message
// no ok poll has read yet, like a group's committed offset): the process has
// no position there, so this is never a skip, and whatever it re-reads was
// read before. There is no rebalancing: subscribe behaves like assign.
//
// With probability InfoRate a send, poll or txn completes :info (:error
// :net-timeout): a send or txn then landed or not, one chance in two; a poll
// returns nothing. With FailRate it completes :fail: nothing happened (a
// failed txn only takes offsets). After an :info (or a :crash) the worker's
// process is replaced by process id + Concurrency, with no assignment.
//
// The history ends with final reads, as Jepsen's do: once fewer lines are
// left than the final reads can need, no new op starts, the ops in flight
// complete, and then every worker crashes its client, assigns (or
// subscribes to) every key and polls until it has read every message, so no
// acknowledged send stays unseen. Empty polls fill any lines still left, so
// a history has exactly Config.Ops lines (rounded up to even), unless Ops
// is too small to hold the final reads.
//
// Memory: the logs (24 bytes per message) and O(Concurrency × Keys); lines
// are encoded into one reused buffer and streamed.
//
// # Faults
//
// Each Fault asks for Count injections of a kind. They are armed at evenly
// spread points of the first 70% of the history, interleaved by kind, and
// carried out one at a time (a Stall may overlap others). Each is recorded
// in Stats.Injections (see Injection for the fields), and produces, under
// spec/queue.md:
//
//   - LostWrite: an ok single send is acknowledged at offset o, but the
//     broker drops the message; o stays taken and later sends go above it.
//     Reported: lost-write and unseen for the value; every consumer that
//     reads across o also shows int-poll-skip (inside one poll) or poll-skip
//     (between two polls; informational for a subscribing process), since o
//     is in the version order by its acknowledgement.
//   - Duplicate: an ok single send is acknowledged at o and stored at o and
//     o+1; consumers read both copies. Reported: duplicate. A checker places
//     a value at one of its positions (hindsight and Jepsen: the last one),
//     so readers of the copies also show int-poll-skip or poll-skip (the
//     copy at o looks one position too far) and int-nonmonotonic-poll or
//     nonmonotonic-poll (the copy at o+1 repeats it); spec/queue.md leaves
//     this open (fixture duplicate-send-and-poll-offsets).
//   - InconsistentOffset: an ok single send of v2 is acknowledged at the
//     offset o of a message v1 that is already stored and already seen (acked
//     or read, so the version order keeps v1 at o), and v2 is never stored, as
//     when a broker acknowledges with a stale offset and drops the write. o is
//     above the sender's previous acked send to the key, so there is no
//     nonmonotonic-send. Reported: inconsistent-offsets at o (v1, v2), and
//     lost-write and unseen for v2; v1 is read as usual, with no skips.
//   - G1a: a single send completes :fail, yet the message is stored and read.
//     Reported: G1a, once per ok poll that read it.
//   - PollSkip: an ok poll of a consumer that already read from the key jumps
//     over its next message and reads from the one after. The skipped message
//     is read by other processes (at the latest in the final reads).
//     Reported: poll-skip for that process (bad for an assigning process,
//     informational for a subscribing one).
//   - Stall: a consumer gets [] for one key in every poll for StallDuration
//     (25 s by default) of simulated time, while sends to the key are
//     acknowledged; then it resumes where it was. Its ops cannot fail,
//     time out, crash or reassign meanwhile. Reported: stalled-consumer
//     (informational) and a large realtime lag; the history stays valid.
//   - Garbage: a message with a negative value, which nobody sent, is
//     appended to a key a consumer has read up to, and that poll reads it;
//     later consumers of the key read it too. Reported: garbage-read, once
//     per reading poll.
//   - TornTxn: an ok txn with sends to two keys (two distinct keys when
//     Keys > 1) is acknowledged, but the broker drops the second message.
//     Reported: torn-transaction (reason lost), lost-write and unseen for the
//     dropped message, and (int-)poll-skip for consumers reading across it,
//     as for LostWrite.
//
// A fault armed too late to be carried out before the final reads is
// dropped; Stats.Injected tells how many of each kind happened.
package gen
