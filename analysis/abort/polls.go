package abort

import (
	"fmt"
	"strings"

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

// Polls lists the polls of h (an abort history read with the abort
// decoder installed) in the order of their completions, as the check
// walks them. pairing must come from model.Pair(h). O(ops).
func Polls(h *model.History, pairing model.Pairing) []Poll {
	c := &checker{h: h, pairing: pairing}
	c.res = &analysis.Result{}
	c.owner, c.mine = h.ExtOwnerOf(Workload)
	c.collect()
	out := make([]Poll, len(c.polls))
	for i := range c.polls {
		p := &c.polls[i]
		out[i] = Poll{Op: h.Ops[p.comp].Index, Pos: int(p.comp), Process: int64(p.proc), Topic: p.topic,
			HasTopic: p.hasTopic, Outcome: Outcomes[outcome(p.typ)], Offsets: p.offs, Rebalance: p.reb}
	}
	return out
}

// OpText renders what the abort decoder kept of the op at position i of
// h: a poll's topic, :abort? and offsets, an assign's or subscribe's
// topic, a create's topic and count, the number of rebalance events
// logged with it. "" when it kept nothing.
func OpText(h *model.History, i int) string {
	owner, ok := h.ExtOwnerOf(Workload)
	if !ok {
		return ""
	}
	var parts []string
	for _, r := range h.ExtAt(i) {
		if r.Owner != owner {
			continue
		}
		ws, ks := h.ExtWordsOf(&r), h.ExtKeysOf(&r)
		switch r.Kind {
		case recPoll:
			var b strings.Builder
			b.WriteString("{")
			if ws[0]&pollTopic != 0 {
				fmt.Fprintf(&b, ":topic %s", h.Keys[ks[0]].String())
			}
			if ws[0]&pollAbort != 0 {
				b.WriteString(" :abort? true")
			}
			if ws[0]&pollOffsets != 0 {
				fmt.Fprintf(&b, " :offsets %s", offsetText(ws[1:]))
			}
			b.WriteString("}")
			parts = append(parts, strings.Replace(b.String(), "{ ", "{", 1))
		case recTopic:
			parts = append(parts, h.Keys[ks[0]].String())
		case recCreate:
			s := "{:topic " + h.Keys[ks[0]].String()
			if len(ws) > 0 {
				s += fmt.Sprintf(" :count %d", ws[0])
			}
			parts = append(parts, s+"}")
		case recRebalance:
			parts = append(parts, fmt.Sprintf("rebalance: %d events before, %d during", ws[0], ws[1]))
		}
	}
	return strings.Join(parts, "; ")
}

// offsetText lists offsets as EDN, the middle of a long list elided.
func offsetText(offs []int64) string {
	const head, tail = 8, 2
	var b strings.Builder
	b.WriteString("[")
	for i, o := range offs {
		if len(offs) > head+tail+1 && i == head {
			fmt.Fprintf(&b, " … (%d more)", len(offs)-head-tail)
		}
		if len(offs) > head+tail+1 && i >= head && i < len(offs)-tail {
			continue
		}
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprint(&b, o)
	}
	b.WriteString("]")
	return b.String()
}
