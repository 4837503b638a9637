// Package consistency is Elle's consistency-model lattice, for the
// list-append and rw-register checkers
// (docs/list-append.md#consistency-models): which models imply which, which
// anomaly types each model forbids, which anomaly types imply which, and what
// follows from them: the types that make a history invalid under the models
// asked for (Prohibited), the models a set of found types rules out
// (Boundary, Elle's `:not` and `:also-not`), the order and pruning of the
// per-component cycle search (CycleTypes, ImpliedAnomalies), and Elle's
// cycle-exists projections (Projections, CycleExists).
//
// It holds data and set arithmetic only; it never looks at a history.
//
// # Sources
//
// The tables are ported from jepsen-io/elle. src/elle/consistency_model.clj
// was read at commit dda36d8 (the version with update-atomic in place of the
// older ROLA; Elle's output in the fixtures, made at ccdee6f, names
// update-atomic, and every `not` and `also_not` there agrees with these
// tables, see TestElleFixtures):
//
//   - implied-anomalies, lines 55-161: impliedEdges
//   - anomaly-severity-graph, 163-178: severityEdges
//   - canonical-model-names, 194-230: aliases
//   - friendly-model-names, 232-239: friendly
//   - models, 251-344: modelEdges
//   - all-models, 346-351: ModelNames
//   - direct-proscribed-anomalies, 408-520: proscribedEdges
//   - anomaly-depths and anomaly-depth-compare, 522-547: Depth, CompareDepth
//   - anomalies-prohibited-by, 554-566: ProhibitedBy
//   - anomalies->impossible-models, 568-579: ImpossibleModels
//   - boundary and friendly-boundary, 588-606: Boundary
//
// src/elle/txn.clj was read at commit 9a4bea6; the line numbers are those of
// research/elle.md (taken at ccdee6f); the text at 9a4bea6 has these
// definitions at the same spacing where compared (301 to 414):
//
//   - cycle-exists-specs, 301-353: Projections
//   - cycle-exists-cases, 414-446: CycleExists
//   - remove-redundant-cycle-exists, 448-473: RemoveRedundantCycleExists
//   - base-cycle-anomaly-specs and cycle-anomaly-spec-variant: CycleTypes
//   - unknown-anomaly-types, prohibited-anomaly-types (656-668),
//     reportable-anomaly-types: Prohibited, Reportable
//   - additional-graphs: OrderRel, SearchTypes
//   - cycle-exists-cases->impossible-cycle-anomalies, 797-819:
//     ImpossibleCycleTypes
//
// The sequential extension behind the snapshot-isolation projections is
// that of Elle's graph.clj as research/elle.md (A.5) describes it at ccdee6f:
// A ∪ (A;B) with an edge x → z for each x → y in A and y → z in B.
//
// # Choices
//
//   - Names. Model names are accepted as Elle's canonical names or aliases,
//     with or without a leading colon, and kept canonical inside (PL-3,
//     PL-SI, ...). Output uses the names Elle prints (Friendly). PL-SS has
//     two aliases; Elle's inverse map picks one by hash order, and its
//     output says "strong-serializable" (never "strict-serializable") in
//     every fixture, so Boundary says so too.
//   - Order. Boundary's two lists are sorted in byte order, which is Elle's
//     own order (it prints sorted sets of keywords; the names are ASCII), so
//     the JSON is deterministic and equal to Elle's.
//   - Elle's data is kept as it is, quirks included: proscriptions name G-SI
//     and G-SIb while the implication table has GSI and GSIb, so the two are
//     unlinked; G-cursor, G-monotonic, G-MSR, G-update and
//     predicate-read-miss are named but no Elle checker finds them.
//   - Predicates. Elle's projections and cycle types also use predicate
//     relations (wwp, wrp, rwp). List-append and rw-register have none, so the
//     projections here leave them out (PL-2.99's projection is then PL-3's)
//     and CycleType.Predicate marks the types (G-single, G-nonadjacent, G2
//     and their forms) that cannot occur without them.
//   - Search order. CycleTypes lists data cycles, then -process, then
//     -realtime, each group in Elle's depth order. Elle's literal depth order
//     (CompareDepth) interleaves the -item process and realtime forms with
//     the data types, because its severity graph predates the -item types;
//     both orders are topological, so they find the same types when the
//     search is not cut short.
//   - Prohibited checks that the anomaly types it is given are known (Elle
//     does not) and does not apply Elle's default model; DefaultModels is
//     there for callers.
//   - Boundary counts what it is given. Elle computes it over every anomaly
//     it found, including those the models do not make reportable; a caller
//     that wants Elle's `:not` must pass those too. Types outside Elle's
//     lattice (hindsight's garbage-read, the unknown-verdict types) rule out
//     nothing here; where garbage-read sits is the checker's choice.
package consistency
