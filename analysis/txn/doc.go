// Package txn checks the transactional histories of Elle's workloads,
// list-append and (to come) rw-register: spec/txn.md, which follows Elle
// (jepsen-io/elle) and departs from it where noted. A checker returns an
// analysis.Result; it never prints.
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
// # Cycles
//
// A step of a cycle stands for one relation: the first of ww, wr, rw,
// process, realtime its edge carries (graph.Effective), the order in which
// Elle's explainers justify an edge, so every cycle reported classifies as
// Elle would classify it. In each component the search first looks for a
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
// one budget per component (--cycle-budget); when it runs out the
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
// # List-append choices (where spec/txn.md is silent, or departs from Elle)
//
//   - Reads. An ok txn's [:r k nil] reads the empty list, as Elle's read
//     index has it; an info txn's nil reads nothing. Version orders come
//     from every read of ok and info txns (internal reads included, as in
//     Elle); the order of a key is its longest read without repeated
//     elements, and a key appended to once by ok and info txns has that
//     one element as its order (Elle's values-from-single-appends). Of two
//     equally long longest reads, the one first read later wins (Elle's
//     pick is hash order).
//   - Edges. Only external reads (those before the txn's first append to
//     the key) make wr and rw edges (spec/txn.md §3; Elle also makes rw
//     edges from reads after a txn's own append, which its explainer then
//     justifies as ww on the same edge). An append no read showed comes
//     after the last element of the order, or after the empty state when no
//     read showed any element.
//   - Explanations. Each ww and rw step names the read that showed the
//     order (order_op): the first read, in history order, that showed the
//     later element in its place; for an element no read showed, the read
//     the order came from, with unread set.
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
//   - garbage-read (ours). An element of an ok or info txn's read that no
//     op (of any type) appended; one instance per element and read.
//   - Open invocations count as info txns: their appends may have happened,
//     and are order sources like any info txn's (Elle ignores them).
//
// Cost: O(ops + mops + read elements) for the indexes and checks, plus a
// sort of the reads by key; O(edges) for the graph (about five per txn);
// the cycle search is linear in a component for the types it rules out
// and bounded by the budget otherwise.
package txn
