// Package txn checks the transactional histories of Elle's workloads,
// list-append and rw-register (docs/list-append.md, docs/rw-register.md),
// following Elle (jepsen-io/elle) and departing from it where noted. A
// checker returns an analysis.Result; it never prints.
//
// # Shape of a check
//
//  1. Transactions. Every client completion (ok, info, fail) whose
//     micro-ops are transactional, paired with its invocation, and every
//     invocation never completed (taken as info, with its invocation's
//     micro-ops). Ops are named by their completion's index; witnesses list
//     invocations and completions. Any :f will do (real files use :txn,
//     :read, :write or none).
//  2. Inference (per workload): version orders, the data edges ww, wr and rw
//     between ok and info txns, and the anomalies that need no graph.
//  3. Order edges, as Elle adds them for the models asked for
//     (consistency.OrderRel): realtime edges when a -realtime type is
//     reportable (they subsume process order), else process edges when a
//     -process type is, else none. Realtime edges are the sparse frontier
//     reduction (order.go) over the history's order of lines, never :time
//     (real files have non-monotonic times).
//  4. Cycles, per strongly connected component (cycles.go), and the verdict
//     (txn.go, finish): Elle's result map.
//
// Both workloads report instances of one type, Instance (instance.go: the
// transactional fields around the shared analysis.Subject,
// *analysis.CycleFields and analysis.Evidence), and keep their own counts
// in Stats (stats.go), the result's Stats.Own.
//
// # Cycles
//
// A step of a cycle stands for one relation: the first of ww, wr, rw,
// process, realtime its edge carries (graph.Effective; for rw-register wr
// comes first, graph.WRFirst), the order in which Elle's explainers
// justify an edge, so every cycle reported classifies as Elle would
// classify it. In each component the search first looks for a
// cycle in each of Elle's cycle-exists projections (consistency.Projections;
// the snapshot-isolation ones as sequential extensions); a model's
// projection without a cycle rules out every cycle type that model forbids.
// Then it looks for each findable type (consistency.SearchTypes) in
// severity order: data cycles, then -process, then -realtime. Once a type is
// found in a component, the types it implies are not searched there
// (consistency.ImpliedAnomalies). Each type gets its shortest witness in the
// component (graph.ShortestTyped), where Elle keeps the first cycle its
// breadth-first search meets; so hindsight can find a type in a component
// where Elle finds none, or a worse type that implies the one Elle reported
// (the reference tests compare up to that lattice). All of it runs under
// one budget per component (--cycle-budget), counted in search steps at a
// nominal rate (graph.StepsPerSecond) so that where it runs out depends on
// the graph alone; components are searched in parallel and reported in
// component order, so the result is the same for any number of workers
// and on any machine. When the budget runs out the
// component gets a cycle-search-timeout instance and an unknown reason,
// keeps what was found, and, as in Elle, some cycle of the component (a
// walk along first edges) is reported as a fallback under the type its
// steps make. Cycle-exists instances are kept only when no other anomaly
// already rules their model out (consistency.RemoveRedundantCycleExists).
//
// # Verdict
//
// Elle's result map: only types the models (and --anomalies) make
// reportable are kept; the verdict is invalid when one of them is
// prohibited, unknown when the only ones left are undecided
// (empty-transaction-graph, cycle-search-timeout, duplicate-appends), valid
// otherwise. not and also_not are the boundary of every type found,
// reported or not, as Elle computes it. Ours: garbage-read is always
// reported and bad under every model, and counts as G1a for the boundary
// (Elle's lattice has no place for it; an aborted read is the nearest:
// Elle treats a read order no append explains, incompatible-order, the same
// way).
//
// # List-append choices (ours, where Elle is silent or we depart from it)
//
//   - Reads. An ok txn's [:r k nil] reads the empty list, as Elle's read
//     index has it; an info txn's nil reads nothing. Version orders come
//     from every read of ok and info txns (internal reads included, as in
//     Elle); the order of a key is its longest read without repeated
//     elements, and a key appended to once by ok and info txns has that
//     one element as its order (Elle's values-from-single-appends). Of two
//     equally long longest reads, the one first read later wins (Elle's
//     pick is hash order).
//   - Edges. Only external reads (those before the txn's first append to the
//     key) make wr and rw edges (docs/list-append.md#the-workload; Elle also
//     makes rw edges from reads after a txn's own append, which its explainer
//     then justifies as ww on the same edge). An append no read showed comes
//     after the last element of the order, or after the empty state when no
//     read showed any element.
//   - Explanations. Each ww and rw step names the read that showed the
//     order (order_op): the first read, in history order, that showed the
//     later element in its place; for an element no read showed, the read
//     the order came from, with unread set.
//   - Proofs and contested orders (docs/list-append.md, "Contested
//     orders"). A ww or rw step claims the order pair (a, b): element b
//     right after a in its key's order (a the empty state: b first). With
//     each read's repeated elements dropped, a read of the key contradicts
//     the pair when it shows b right after an element other than a (or b
//     first while a is an element), or a right before an element other
//     than b; a read ending in a, or holding neither, contradicts nothing.
//     On a key whose reads are all prefixes of its order (clean), nothing
//     contradicts any pair, and the step is explained as above. On another
//     key the step names the first read showing a right before b, when one
//     does; else, when no read shows b, it is unread as above; else b was
//     read, but not after a, and the chosen order placed it after its last
//     element: placed, never unread. A step some read contradicts is
//     contested and names the first few such reads (those showing b
//     first); a cycle instance with a contested step assumes its keys'
//     orders (proof "assumes", with each key, the read its order came from,
//     and the contradicting reads, all in the witness); rw-register steps
//     ordered by an option's source make it "given"; else it is "proven".
//     The edges, types and verdicts do not change: the key is reported as
//     incompatible-order, and Elle builds and reports the same cycles. Cost:
//     one pass over the reads to find the clean keys; per contested key
//     read by a step, one pass over its reads (a map of the pairs they
//     show); per step, the distinct neighbours of a and b.
//   - incompatible-order. The distinct non-empty reads of a key, sorted by
//     length (ties: by first reader), must each be a prefix of the next;
//     the first pair that is not is the key's one instance (as Elle's
//     reduce stops there).
//   - internal. A read of nil is a state of its own: a later read must be
//     nil too, and an append after it starts a known list (Elle's
//     semantics at ccdee6f, which its fixtures assert).
//   - lost-update. A txn counts with the first list it read of a key before
//     its first append to it. Elle also counts a txn that appended without
//     reading, then read, then appended again (its "writes" set misses that
//     first append); the two differ only on txns whose reads miss their own
//     appends (internal anomalies).
//   - duplicate-appends (ours). A value appended twice to a key makes that
//     key's order unknowable (Elle refuses the whole history): the key is
//     left out of the graph, each value is reported with its ops, and the
//     verdict is at best unknown; other keys are checked as usual.
//   - garbage-read (ours). The elements of an ok or info txn's read that no
//     op (of any type) appended: one instance per read, its first such
//     element as element and all of them (each once, in read order) as
//     values, so that a read of n such elements costs O(n), not n copies
//     of the read.
//   - Open invocations count as info txns: their appends may have happened,
//     and are order sources like any info txn's (Elle ignores them).
//
// # RW-register choices (ours, where Elle is silent or we depart from it)
//
//   - Reads and writes. A txn's external read of a key is its first
//     micro-op on it when that is a read; its external write, its last
//     write of it (Elle's ext-reads, ext-writes). An ok txn's [:r k nil]
//     reads the initial state; an info txn's nil reads nothing, but an info
//     txn's read that reports a value counts, and so do info txns' writes:
//     a crashed write someone read did happen (Elle indexes ok txns only,
//     "TODO: index :info"). Only external reads and writes make edges.
//   - Writers. A value is written by one txn (of any type). A txn that
//     writes a value twice is still its one writer; the write is
//     intermediate (G1b) unless it is the txn's last write of the key. A
//     value written by two or more txns (duplicate-writes, ours; Elle
//     refuses the whole history) matters only when an ok or info txn reads
//     it: then which write the read saw cannot be told, the key is left out
//     of the graph, the verdict is at best unknown, and G1a, G1b and
//     lost-update pass that value over. A duplicated value nobody read is
//     only kept out of the version orders, which is sound (edges are lost,
//     none is made up).
//   - wr. From the writer of a value, when it is that txn's external
//     write, to each txn whose external read saw it; an intermediate write
//     makes no edge (only G1b), as in Elle.
//   - Version orders. A key's order is a partial order over its values
//     and its initial state, kept as the edges of a small DAG, each with
//     its source and the txns behind it. Sources are merged in Elle's
//     order: initial-state (nil precedes each value ok and info txns read
//     or wrote externally), transaction-order (Options.TransactionOrder,
//     Elle's :transaction-order of PR #31: per key, the external writes of
//     the positioned txns by position; txns sharing a position are not
//     ordered), wfr-keys (an ok txn's external read of v, not nil, then its
//     external write of v'), sequential-keys and linearizable-keys. The
//     last two turn txn order into version order as Elle's
//     transaction-graph->version-graphs does, and stay linear the same way:
//     a txn's last value of a key (an ok txn's external write, else its
//     external read; an info txn's write) precedes the first value
//     (external read, else write; an info txn's write) of only the nearest
//     txns after it that touch the key, not every later one.
//     sequential-keys: per process and key, the next ok txn touching the
//     key. linearizable-keys: per key, the frontier reduction of the
//     realtime order (order.go) run over the txns touching that key, which
//     gives the txns after it in real time with no txn touching the key in
//     between; Elle searches its global sparse realtime graph instead,
//     which can also link past such a txn along a path that avoids it.
//     Both orders are sound under the flag's assumption.
//   - cyclic-versions. A source whose new edges would make a key's order
//     cyclic is dropped for that key only, as
//     docs/rw-register.md#cyclic-versions says (Elle drops it for every key
//     when any key's order turns cyclic). One instance per strongly connected
//     set of values; its sources are the ones merged for that key, the
//     dropped one last (Elle's :sources); it also holds a shortest cycle
//     through the set's first value, each edge with the source and ops that
//     put it there (ours: Elle has a TODO to "justify exactly why we inferred
//     a version order"), and those ops are its witness. An edge given by two
//     sources keeps the first one's reason. A txn's own v < v is no edge.
//   - ww and rw. For each edge v1 < v2 of the accepted orders (not their
//     transitive closure, as in Elle): the external writer of v1 → the
//     external writer of v2 (ww), and each txn whose external read saw v1
//     → the writer of v2 (rw). So, as in Elle, every reader of a key's
//     initial state gets an rw edge to the writer of each of its values:
//     n readers of a version followed by m values cost n·m edges, which a
//     store whose reads keep returning nil while writes go on would make
//     quadratic. Ours: when all rw edges together would exceed 8 per touch
//     plus 2^20, the versions costing most lose their rw edges until the
//     rest fit, each with an unknown reason (rwBudget).
//   - Explanations. A ww or rw step says which source ordered its two
//     values (order_by: initial-state, transaction-order, wfr-keys,
//     sequential-keys, linearizable-keys) and with which txns (order_op for
//     wfr-keys, the txn that read and then wrote; order_ops for the others,
//     the two txns); a cycle's witness includes those txns. Edges take wr
//     first, then ww, rw (Elle combines its wr-graph before its
//     ww+rw-graph), so a write cycle whose ww edges are also wr edges (the
//     usual case with --wfr-keys) is a G1c, and the write cycle itself
//     shows as PL-1-cycle-exists, as in Elle.
//   - Non-cycle checks, on ok txns: G1a (any read of a value a failed txn
//     wrote), G1b (any read of a value another txn overwrote within itself,
//     whatever that txn's type), internal (Elle's op-internal-case: a read
//     must match the txn's last write of the key, or its first read before
//     any write; a read of nil is a state of its own, as Elle's fixtures
//     assert; the first per txn), lost-update (a first access that reads,
//     then a write; nil counts; as list-append, a write before any read takes
//     the txn out for that key) and future-read (ours for registers,
//     docs/rw-register.md#future-read: a read of a value only the txn itself
//     writes, later; Elle has no such check). On ok and info txns:
//     garbage-read (a value no op of any type wrote; once per txn and value).
//   - Empty graph. Elle's realtime graph also links ok txns to the failed
//     txns invoked after them; a failed txn is no vertex here, but such an
//     edge keeps the graph from counting as empty, for both workloads.
//
// # Cost
//
// n is the size of the history: ops, micro-ops and read elements. Every
// pass but the cycle search is O(n log n) or better, whatever the shape of
// the history: one read of a million elements, one txn of a million
// micro-ops, one key written a million times, one process running a
// million txns (BenchmarkAdversarial and TestAdversarialAllocs check each
// at n and 10n). Per pass:
//
//   - Transactions, writers, intermediate appends or writes, external
//     reads: O(mops); a txn's keys and elements are indexed by dense id
//     (scratch.go), never by scanning its earlier micro-ops. An
//     rw-register txn's touches (one per key, its external read and last
//     write) are not kept but derived from its micro-ops each time a pass
//     asks, O(its mops): comparing keys pairwise in a txn of at most 8
//     micro-ops that repeats a key; a longer one that does has its
//     touches kept (rwRegister.touchesOf).
//   - List-append version orders: a sort of the reads by key and list,
//     O(r log r) comparisons for r reads, each O(1) for two reads of one
//     stored span (reads of one state mostly are), else at most their
//     common prefix (O(L · r log r) for lists of L); the prefix test,
//     once per run of stored elements (the reads sharing a span's start,
//     at the longest one's length), O(stored elements); the shownBy pass,
//     O(read elements).
//     Each key's sort, order, clean test and shownBy pass run on their
//     own, the keys split among GOMAXPROCS workers (internal/par); what
//     they find is reported after, in key order, so the result is the
//     same for any number of workers.
//   - G1a, G1b, internal, future-read, duplicate-elements, garbage-read:
//     O(mops + read elements) in all; a read's instances share one copy of
//     it (garbage-read is one instance per read), so memory and output are
//     O(read) too. A list read shorter than where its run's prefix test
//     met the first element G1a, garbage-read or duplicate-elements would
//     report is not looked through again (plainRead), and a txn that
//     touches each key once skips internal, future-read and lost-update,
//     which need a key met twice (keysRepeat). The txns are checked in pieces on every core, each
//     worker with scratch of its own (8 bytes a message and 16 a key);
//     the pieces' instances are reported in txn order.
//   - lost-update: O(mops), plus a sort of the candidates (on every core,
//     internal/par.SortFunc); a group whose lists hash alike but differ is
//     sorted apart, O(L · g log g).
//   - dirty-update: O(elements of the version orders), the keys in
//     pieces on every core, reported in key order.
//   - RW-register version orders: O(mops) per source, plus a sort of
//     their edges (on every core) and an SCC pass per source.
//     linearizable-keys and transaction-order can ask for a complete
//     bipartite set of version edges (k txns touching a key at once, then
//     k more; k txns claiming one position, then k at the next): their
//     edges are counted per key
//     before any is made, and past 8 per touch of a key plus 2^20 the keys
//     costing most are left out of that source, each with an unknown
//     reason (orderBudget, as rwBudget caps the rw edges from one version).
//   - Graph: O(edges log edges) to build, about five edges per txn; rw
//     edges from one version are capped (rwBudget). The edges into each
//     vertex are emitted with it, in ranges of vertices on every core
//     (graph.Build; rw-register's ww and rw edges, along the version
//     orders, on one), and each row is sorted after it is filled, so the
//     graph is the same for any number of workers (each range finds its
//     external reads with marks of its own, from a pool). Realtime edges are the
//     frontier reduction (a transitive reduction, as in Elle): k txns all
//     concurrent with each other and all followed by k more would be k²
//     edges, which the graph keeps through hubs (graph.Windows: a segment
//     tree of vertices that are no txn over the frontier, which is a window
//     of the ok txns in completion order) as O(ops log ops) edges. Hubs
//     never show: SCC leaves them out, the search takes a path through them
//     as one realtime step, and graph_edges counts the edges they stand
//     for.
//   - Cycle search: linear in a component for the types it rules out,
//     bounded by --cycle-budget otherwise (counted in search steps); the
//     components are searched on every core; each step it explains costs
//     O(mops of its txns).
package txn
