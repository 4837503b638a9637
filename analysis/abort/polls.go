package abort

import (
	"iter"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
)

// Poll is one poll of an abort history as the report draws it: where it
// is, who ran it, what it read and how it ended.
type Poll struct {
	// Op is the index of its completion (of its invocation, for one that
	// never completed); Pos the completion's position in History.Ops.
	Op  int64
	Pos int
	// Process ran it; Topic is the topic it polled (HasTopic false: none
	// named).
	Process  int64
	Topic    model.KeyID
	HasTopic bool
	// Outcome is "committed", "aborted" or "unknown" (Outcomes).
	Outcome string
	// Offsets are the offsets it read, as listed; nil for an empty poll.
	Offsets []int64
	// Rebalance says a consumer-group rebalance was logged before or
	// during it.
	Rebalance bool
}

// Polls yields the polls of h (an abort history read with the abort
// decoder installed) in the order of their completions, as the check
// walks them. pairing must come from model.Pair(h). A poll's Offsets
// alias the history. O(ops), and memory for the polls' own records, not
// for a Poll each: a report keeps only the few thousand it draws.
func Polls(h *model.History, pairing model.Pairing) iter.Seq[Poll] {
	return func(yield func(Poll) bool) {
		c := &checker{source: newSource(h), pairing: pairing}
		c.res = &analysis.Result{}
		c.collect()
		for i := range c.polls {
			p := &c.polls[i]
			if !yield(Poll{Op: h.Index(int(p.comp)), Pos: int(p.comp), Process: int64(p.proc), Topic: p.topic,
				HasTopic: p.hasTopic, Outcome: Outcomes[outcome(p.typ)], Offsets: c.offs(p), Rebalance: p.reb}) {
				return
			}
		}
	}
}

// OpText renders what the abort decoder kept of the op at position i of
// h, for a report's witness table: its value as EDN (a poll's topic,
// :abort? and offsets; an assign's topic; a create's map) followed by its
// :rebalance-log. "" when it kept nothing.
func OpText(h *model.History, i int) string {
	value, fields, ok := EDN(h, i)
	if !ok {
		return ""
	}
	return value + fields
}
