// Package abort checks the abort workload's histories (docs/abort.md):
// when a transaction that polled records aborts, does the consumer read
// those records again, keep going past them, or jump somewhere else? It
// follows the abort workload Jepsen runs on Redpanda and Bufstream, and
// gives its classification of pairs of polls a verdict that depends on
// the contract the user expects (--abort-contract: kafka, the default,
// or rewind).
//
// # Input
//
// The workload's values are read by its own decoder (decode.go, an
// ingest.ValueDecoder that package workload installs): a poll's map
// ({:topic "t1" :abort? true :offsets [3 4]}), an assign's or subscribe's
// topic string, a create's map, and a :rebalance-log map ({:before [...]
// :during [...]}, each event a map whose :type and :keys are kept). A poll
// value that is not a map or nil, an offset that is not an integer, and
// offsets without a topic are input errors at the form. JSON reads the
// same, keys with or without a leading colon.
//
// # Pairs
//
// check.go walks each process's polls in history order (of their
// completions); every two consecutive polls with offsets by one process on
// one topic make a pair P, N. Its class compares N's first offset with
// P's first and last, as each lists them; its outcome is P's completion
// type (an invocation that never completed is unknown); its rebalance
// flag says whether a rebalance was logged during P, or before or during
// any poll after it up to N. resume.go gives each N what the history
// showed before N was invoked: the topic's committed position (one past
// the highest offset of any ok poll on it, by any process) and the largest
// resume point at or below N's first offset (the committed position, the
// smallest offset of an aborted poll since the topic's latest commit, or
// one past the largest of an info poll since then). N resumes there when
// no poll of the topic, at any time, read an offset between it and N's
// first offset. Each pair gets the first type that applies
// (docs/abort.md#anomaly-types); a pair whose P committed and that
// redelivers nothing is counted only.
//
// # Choices where the workload's description is silent
//
//   - Only commits and aborts whose completion comes before N's invocation
//     count for N: a commit that completes while N runs may not have
//     happened yet when N polled.
//   - An empty poll (no offsets, whatever its topic) is skipped: it never
//     starts a process afresh, but its rebalances (before and during it)
//     are carried by the next pair, and it joins that pair's witness.
//   - A crash op of the process (its invocation or completion), and an ok
//     assign or subscribe of a topic other than the last poll's, start the
//     process afresh. An assign or subscribe of the same topic does not.
//   - An ok poll with no offsets commits nothing: it neither moves the
//     committed position nor ends the resume points since the latest
//     commit. An ok poll with offsets ends them, whether it moves the
//     position or not.
//   - A rebalance is any event in a :rebalance-log, whichever topics it
//     names.
//   - Rebalance events logged before P belong to the pair before it, not
//     to P's pair.
//   - When the committed position and an aborted poll's start are the same
//     resume point, the aborted poll is the one named.
//   - abort-advance under the kafka contract is reported with allowed set;
//     under rewind it is bad.
//   - A history with no pair is unknown; a cut-off history is unknown
//     unless a bad type shows.
//
// # Results
//
// An instance is an Instance (instance.go): the topic as its
// analysis.Subject, the poll's fields, a *Pair (nil for
// int-nonmonotonic-poll) and analysis.Evidence; it has no cycle. The
// result holds a pair type's instances in a compact form (pairinst.go)
// that writes the same JSON: AsInstance builds the Instance, PairEnds
// reads a pair's ends without it. Every pair is also counted in
// Result.PairCounts, and the polls in Stats (stats.go), the result's
// Stats.Own.
//
// # Cost
//
// O(ops + offsets · log offsets) time; beside the history, memory for one
// record per poll and each topic's offsets read (the offsets themselves
// are not copied, nor does an instance copy its polls' offsets); a pair
// instance takes about 210 bytes, its witness included.
package abort

// Workload is the abort workload's name in the registry and the JSON.
const Workload = "abort"

// Doc is the abort workload's documentation page; each type has a section
// headed by its name.
const Doc = "docs/abort.md"
