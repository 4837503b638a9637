// Package gen writes deterministic, Jepsen-shaped histories for tests and
// benchmarks: Kafka queue histories (Write, docs/queue.md) and Elle's
// list-append and rw-register transactional histories (WriteTxn,
// docs/list-append.md, docs/rw-register.md). The same Config or TxnConfig
// always gives the same bytes (one PCG source from math/rand/v2, no map
// iteration). A queue history without faults is valid under docs/queue.md; a
// transactional one without faults is strict serializable. Faults are
// injected on request, each documented with what a checker must then report.
//
// # Queue output
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
// an :error keyword, or for a crashed client (CrashRate) the string
// "indeterminate: client crashed". A poll's map lists every key the consumer holds, in key
// order, with [] for keys that returned nothing. JSON is the same, one
// object per line, with strings for keywords.
//
// # Queue simulation
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
// read before. There is no rebalancing: subscribe behaves like assign. With
// PollAllKeys every assign (or subscribe) takes every key, and a process
// with no assignment (a new one, after an :info) assigns before anything
// else, so every poll lists all Keys keys, with [] for each key it found
// nothing new in (28% of the lists in a 1,390,000-line history of 20
// workers, 16 keys and a quarter txns: a consumer's poll finds about two
// new messages per key on average).
//
// With probability InfoRate a send, poll or txn completes :info (:error
// :net-timeout): a send or txn then landed or not, one chance in two; a poll
// returns nothing. With FailRate it completes :fail: nothing happened (a
// failed txn only takes offsets). With probability CrashRate, drawn first
// (and only when CrashRate is positive, so histories without it are as
// before), the worker's client crashes during a send, poll or txn: the op
// completes :info as Jepsen's interpreter writes a crashed client's op,
// with an :error string "indeterminate: " and the exception's message
// (Jepsen's :exception map is left out), and with the effects of an :info
// above. After an :info (or a :crash) the worker's process is replaced by
// process id + Concurrency, with no assignment: a history has Concurrency
// process ids plus one per :info completion. Stalled consumers and the
// final reads never crash.
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
// # Queue faults
//
// Each Fault asks for Count injections of a kind. They are armed at evenly
// spread points of the first 70% of the history, interleaved by kind, and
// carried out one at a time (a Stall may overlap others). Each is recorded
// in Stats.Injections (see Injection for the fields), and produces, under
// docs/queue.md:
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
//     nonmonotonic-poll (the copy at o+1 repeats it); docs/queue.md leaves
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
//   - G1c: two ok txns of two workers, each [:send k v] then [:poll], run
//     at once; the first to complete stores both messages (the other's as
//     if the broker let an uncommitted write be seen), and each poll reads
//     only the other's message. The keys are chosen so that neither
//     consumer had read the key it reads since it was assigned, and both
//     clients crash right after, so no consumer position moves. Reported:
//     G1c, one cycle of the two txns (a send to the second key completed
//     between the two is stored after its message, which only ww-deps
//     orders).
//
// A fault armed too late to be carried out before the final reads is
// dropped; Stats.Injected tells how many of each kind happened.
//
// # Transactional output
//
// WriteTxn writes Elle's workloads (cfg.Workload), one op map per line, keys
// in Jepsen's order:
//
//	{:index 20, :time 38286026, :type :invoke, :process 0, :f :txn, :value [[:append 1 3] [:r 0 nil] [:append 6 4] [:r 1 nil]]}
//	{:index 23, :time 40694978, :type :ok, :process 7, :f :txn, :value [[:append 6 3] [:r 6 [2 1 3]]]}
//
// and for rw-register:
//
//	{:index 27, :time 51176685, :type :ok, :process 4, :f :txn, :value [[:w 3 3] [:r 1 2] [:w 0 2] [:r 6 1]]}
//	{:index 29, :time 54842515, :type :info, :process 3, :f :txn, :value [[:r 5 nil] [:r 2 nil] [:r 2 nil]], :error :net-timeout}
//
// list-append: [:append k v], and [:r k nil] in invocations, [:r k [v ...]]
// (the whole list) in ok completions. rw-register: [:w k v], and [:r k nil]
// in invocations, [:r k v] in ok completions, nil meaning the initial state.
// Keys are integers; values count up from 1 per key, so no value is written
// twice to a key (values nobody wrote, from GarbageRead, are negative). An
// :info completion repeats the invocation (its reads nil: unknown) with
// :error :net-timeout; a :fail completion repeats it with :error :conflict,
// :aborted or :nocluster. TxnConfig.OmitF leaves :f out of client ops, as
// many real histories do; TxnConfig.Nemesis adds partition ops of the
// nemesis, in the queue form. JSON is elle-cli's form, one object per line:
//
//	{"index":23,"time":40694978,"type":"ok","process":7,"f":"txn","value":[["append",6,3],["r",6,[2,1,3]]]}
//
// # Transactional simulation
//
// The workers and the clock are those of the queue simulation: a step
// invokes a txn on a random idle worker or completes a random txn in
// flight. A txn has 1 to MaxTxnLen micro-ops, each a read or a write (one
// chance in two) of one of the Keys active keys (uniform; a txn may touch
// a key more than once). Write values are fixed at invocation. A key is
// retired once it has been given its limit of writes, drawn per key from
// [⌈MaxWritesPerKey/2⌉, MaxWritesPerKey] (Elle's generator also draws
// them, so keys do not all retire together), and the next unused integer
// takes its slot.
//
// The store keeps, per key, the committed list (list-append) or the
// register's successive values (rw-register) in commit order. An ok txn
// takes effect atomically at its completion: its micro-ops run in order
// against the store, so its reads see every txn committed before it and
// its own earlier writes. The commit point lies inside every txn's
// interval, so a history without faults and without ReadLag is strict
// serializable: every ww, wr, rw, process and realtime edge points forward
// in completion order, and there is no cycle and no non-cycle anomaly. An
// :info txn took effect at its completion or not, one chance in two, and
// reports no reads; its worker then takes process id + Concurrency. A
// :fail txn took no effect. A history has exactly Txns txns, all completed
// (a nemesis op in flight at the end completes too).
//
// TxnConfig.ReadLag makes the store misbehave like a store whose per-key
// followers lag behind their leaders: an ok txn draws a lag from
// 0..ReadLag and reads each key it does not write as it was that many
// writes ago (further back rather than split another txn's writes), while
// it writes, and reads the keys it writes, at the leader. Lists stay
// prefixes of one another, so the anomalies are cycles: a stale read of a
// write that completed before the reader began is G-single-item-realtime,
// and stale reads across keys give G-single-item and G2-item cycles of data
// edges alone. In rw-register a stale read of a value other than nil is
// only visible with a version-order option (--linearizable-keys).
//
// Memory: the store, 8 bytes per committed write (16 with ReadLag), plus
// O(Concurrency); lines are encoded into one reused buffer and streamed.
// Time: O(Txns × MaxTxnLen) plus the elements of the lists read; a
// 1,000,000-txn list-append history (284 MB of EDN) takes about a second
// (BenchmarkWriteTxn).
//
// # Transactional faults
//
// Each TxnFault asks for Count injections of a kind. An injection is a
// script of a few txns on fresh keys that no other txn touches, in stages:
// the txns of a stage are all invoked before any completes (they overlap in
// real time), a stage starts once the previous one has completed, on
// workers that did not run the previous stage (so no process edge joins
// them; faults need Concurrency >= 3), and every completion is scripted.
// No other txn starts while a stage is being invoked, so none lies in real
// time between two stages. The rest of the history stays strict
// serializable, and no cycle takes in a txn outside the script, so a
// checker must report exactly the types below for each injection
// (TxnFaultKind.Anomalies lists them, for the default options:
// strict-serializable, no version-order flags), each naming only the
// script's ops. Scripts start at evenly spread points
// of the first 90% of the txns, one at a time; one that no longer fits in
// Txns is dropped (TxnStats.Injected tells). Each is recorded in
// TxnStats.Injections, with its ops in the order listed here. "A | B" runs
// A and B in one stage, "; then" starts the next; the written values are
// 1, 2, ... per key; rw-register scripts use [:w k v] where list-append
// ones append.
//
//   - AbortedRead: W appends 1 and fails, yet the store applied it; then R
//     reads [1] (rw-register: 1). Reported: G1a. W, failed, is no vertex of
//     the dependency graph, so there is no edge.
//   - IntermediateRead: W appends 1 and 2 | R reads [1]. Reported: G1b and,
//     for list-append, G-single-item: R depends on W (its last element is
//     W's) and anti-depends on W (2, which follows R's read, is W's too), as
//     in Elle's G1b test. rw-register (R reads 1): G1b only; 1 is not W's
//     final write of k, so no edge.
//   - LostUpdate: T0 appends 1; then T1 reads [1] and appends 2 | T2 reads
//     [1] and appends 3; then (list-append) R reads [1 2 3]. Reported:
//     lost-update and, for list-append, G-single-item (T1 -ww-> T2 -rw->
//     T1: T2's read ends at 1, followed by T1's 2). rw-register: lost-update
//     only, as nothing orders 1 before 2 and 3; with --wfr-keys it does,
//     and T1 and T2 anti-depend on each other: G2-item.
//   - StaleRead: W appends 1; then R, on another process, reads [] (nil).
//     Reported: G-single-item-realtime: W precedes R in real time, and R
//     anti-depends on W (the empty list, or nil, precedes 1).
//   - WriteCycle: list-append: T1 appends 1 to x and 2 to y | T2 appends 2
//     to x and 1 to y; then R reads x = [1 2] and y = [1 2]. x puts T1
//     before T2, y T2 before T1. Reported: G0. rw-register: T1 [w x 1]
//     [r y 1] [w y 2] | T2 [r x 1] [w x 2] [w y 1]: each reads the other's
//     write. Reported: G1c; with --wfr-keys, which orders x 1 < 2 and y
//     1 < 2 from those reads, also the write cycle, as PL-1-cycle-exists:
//     each of its ww edges is also a wr edge, and an rw-register edge
//     stands for its wr first (Elle's explainer order), so the cycle is a
//     G1c, and only the projection on ww edges shows what read-uncommitted
//     forbids. (A register's version order comes only from such evidence,
//     so its write cycle always brings this wr cycle.)
//   - IncompatibleOrder (list-append): T1 appends 1 and 2; then T2 appends
//     3; then R1 reads [1 2 3] | R2 reads [2 1 3]. Reported:
//     incompatible-order only: both reads end at T2's 3, so whichever
//     order a checker keeps gives no rw edge and no cycle.
//   - DuplicateElement (list-append): W appends 1; then R reads [1 1].
//     Reported: duplicate-elements.
//   - GarbageRead: W appends 1; then R reads [1 g] (rw-register: g), g
//     negative and never written. Reported: garbage-read (Elle reports
//     nothing here: jepsen-io/elle#8).
//   - InternalRead: T appends 1 and then reads [] (rw-register: writes 1,
//     reads nil). Reported: internal.
//   - FutureRead (list-append): T reads [1] and then appends 1. Reported:
//     future-read (the read's writer is T itself: no edge).
//   - DirtyUpdate (list-append): W1 appends 1 and fails, yet the store
//     applied it; then W2 appends 2; then R reads [1 2]. Reported:
//     dirty-update and G1a (R read 1), as Elle's dirty-update test under
//     strict-serializable.
//
// TxnInjection.Values holds 1 for AbortedRead, IntermediateRead,
// DuplicateElement and DirtyUpdate, and g for GarbageRead.
//
// # Huge SCC
//
// HugeSCCConfig (histgen --huge-scc) is a 10,000-txn list-append history
// in the spirit of Elle's huge-scc-test (jepsen-io/elle
// test/elle/list_append_test.clj, histories/huge-scc.edn, where a cluster
// that is often down fails and crashes many txns and serves stale reads):
// 10 workers, 8 keys, 20% failed and 5% crashed txns, and ReadLag 8. Each
// ok txn that reads a key it does not write anti-depends on the writer of
// the first element it missed, mostly a txn that completed before it
// began; realtime, ww and wr edges lead forward again, so these backward
// steps chain into one strongly connected component holding nearly every
// ok txn and every crashed txn whose writes were read (for seeds 1 and 2,
// all but 4 and 1 of about 7,700). Failed txns, and crashed ones whose
// writes nobody saw, have no outgoing edges and stay outside. Its
// anomalies are cycles only: G-single-item-realtime at each stale read,
// and G-single-item or G2-item cycles of data edges alone; there is no
// non-cycle anomaly. A checker meets one component of thousands of txns,
// where a full search of every cycle type may run out of time.
//
// # Abort simulation
//
// WriteAbort (histgen --workload abort) writes the abort workload of
// docs/abort.md. Topics (AbortConfig.Topics, at least one per worker) have
// one partition each; every worker is one client process with a producer
// and a consumer, and consumes one topic that no other worker holds. The
// workers and the clock are those of the queue simulation. A new process
// first assigns its topic ({:f :assign :value "t3"}); its consumer starts
// at the topic's committed position. Then each op is a :crash (CrashRate;
// completes :info, the worker takes process id + Concurrency and assigns a
// free topic at random) or a poll: one transaction, invoked as {:topic
// "t1"}, or {:topic "t1" :abort? true} with probability AbortRate.
//
// At a poll's completion the topic's producer first appends a transaction
// of 0 to 3 records and its marker (aborted one time in ten: its records are
// never visible); markers take offsets no poll returns, so gaps are normal.
// The poll reads 1 to MaxPoll visible records from the consumer's position
// (fewer, or none, when the log ends) and moves past them. With probability
// InfoRate it completes :info (:error :net-timeout) with what it read, and
// committed or not, one chance in two; the client is then replaced as after
// a crash. Else it completes :fail with :error :intentional-abort when it
// asked to abort, and the consumer keeps its position (AbortAdvance, Kafka's
// behaviour) or returns to the poll's first record (AbortRewind); or it
// completes :ok and, when it read something, sets the committed position
// past it. With probability RebalanceRate a rebalance happens during the
// poll (:rebalance-log {:during [revoked, assigned]}) and, after the
// outcome, sends the consumer back to the committed position.
//
// Without faults, each history is valid under the contract it simulates:
// an AbortAdvance history is valid under --abort-contract kafka and, under
// rewind, invalid with abort-advance only; an AbortRewind history is valid
// under both. Memory: 8 bytes per visible record.
//
// # Abort faults
//
// Each AbortFault asks for Count injections of a kind, armed at evenly
// spread points of the first 80% of the history, kinds interleaved, and
// carried out one at a time, each on the first poll that can show it (one
// that would not fit is dropped; AbortStats.Injected tells). The poll
// carrying it has no rebalance and does not complete :info. Each produces
// exactly one instance of the type it is named after, bad under both
// contracts, and nothing else:
//
//   - CommittedRedelivery: a poll of a process that has read from its topic
//     starts one record below the committed position the history shows and
//     commits.
//   - AbortOther: a poll that asked to abort reads two records and aborts;
//     the consumer resumes at the second, and its next op is a poll.
//   - NonmonotonicPoll: a committed poll reads three records and lists
//     the last two swapped.
//
// # Simulation core
//
// The three simulations (Write, WriteTxn, WriteAbort) each embed one core
// (core.go) and keep only what is their own: the store, the workers' state,
// what an op does, and how its line is spelled. Each entry point is one
// call of simulate (write.go): validate the config, build the simulation,
// run it, finish. The core holds what they share:
//
//   - the random source, one PCG per workload (its own stream), seeded
//     with the configuration's Seed, which every random choice draws from
//     in a fixed order;
//   - the clock (tick: a log-uniform gap of 0.1-5 ms per line);
//   - the buffered output: a line is encoded into one reused buffer and
//     written and counted (write), the first write error kept, and finish
//     flushes it and sets EndTime;
//   - the Counts every stats type embeds (lines, bytes, processes, end
//     time), and the process a worker takes after a crash (newProcess:
//     process id + Concurrency);
//   - the idle and in-flight workers (takeIdleAt, takeInflight, and
//     chooseInvoke, which invokes on one of n idle candidates with odds n
//     to the ops in flight, so about half the workers stay in flight; the
//     abort simulation invokes or completes with even odds instead);
//   - completing a random op in flight at the next tick (completeSlot,
//     which hands a worker's op to the simulation);
//   - the partitioning nemesis (startNemesis, one chance in 3000 per step
//     when none is in flight, and completeNemesis), whose lines have the
//     queue form in every workload;
//   - the fault plan (schedule, made by plan): every injection asked for,
//     kinds interleaved round-robin, armed at evenly spread points of the
//     history (a line count, or for WriteTxn a count of invoked txns).
//
// A change to the core changes every workload's bytes; a simulation's own
// code draws from the same source, so a new random choice anywhere changes
// what follows it.
package gen
