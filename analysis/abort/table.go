package abort

import (
	"fmt"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

// CountTable renders an abort result's count table for the text report:
// a header, one line per outcome of the first poll with the pairs of each
// class (and how many of them came with a rebalance), then what the
// contracts make of it: rewinds without a rebalance (Kafka does not
// promise them) and advances with one. Nil when the result has no table
// (another workload's).
func CountTable(res *analysis.Result) []string {
	if res == nil || res.PairCounts == nil {
		return nil
	}
	var pairs int64
	cell := map[[2]string]analysis.PairCount{}
	for _, r := range res.PairCounts {
		cell[[2]string{r.Outcome, r.Class}] = r
		pairs += r.Pairs
	}
	lines := []string{fmt.Sprintf("Pairs of polls: %d (contract %s)", pairs, res.Options.AbortContract)}
	for _, o := range Outcomes {
		line := fmt.Sprintf("  after %s poll:", o)
		for i, k := range Classes {
			r := cell[[2]string{o, k}]
			sep := ","
			if i == 0 {
				sep = ""
			}
			line += fmt.Sprintf("%s %d %s (%d with a rebalance)", sep, r.Pairs, k, r.WithRebalance)
		}
		lines = append(lines, line)
	}
	adv, rew := cell[[2]string{Aborted, Advance}], cell[[2]string{Aborted, Rewind}]
	lines = append(lines, fmt.Sprintf("  after an abort: %d %s came without a rebalance (Kafka does not promise them), %d %s came with one",
		rew.Pairs-rew.WithRebalance, catalog.Plural(rew.Pairs-rew.WithRebalance, "rewind", "rewinds"),
		adv.WithRebalance, catalog.Plural(adv.WithRebalance, "advance", "advances")))
	return lines
}
