package graph

import (
	"fmt"
	"math"
	"time"
)

// StepsPerSecond is the nominal speed of the cycle search: how many search
// steps (Searcher.Steps) a budget given as a duration buys per second. One
// core of the 2-core machine the README's figures come from searched the
// components of histgen's --huge-scc histories (10,000 to 5M txns) at 25M
// to 38M steps a second, and a plain ring at 50M: the slowest of those is
// the rate, so that a budget takes at most about its duration there.
//
// The budget counts work, not time, so that whether a search runs out, and
// therefore the verdict and every instance, is the same on every machine,
// under any load and with any number of workers: a faster machine spends a
// budget sooner, a slower one later, and both stop at the same step.
const StepsPerSecond = 25_000_000

// Budget is an amount of cycle-search work for the searches of one
// component: each ShortestTyped call spends what it did, and stops, saying
// so, when nothing is left. The nil *Budget is unlimited. A Budget is not
// safe for concurrent use; give each component its own.
type Budget struct {
	left int64
}

// NewBudget returns a budget of steps search steps; steps <= 0 means no
// limit (nil).
func NewBudget(steps int64) *Budget {
	if steps <= 0 {
		return nil
	}
	return &Budget{left: steps}
}

// BudgetFor returns the budget a duration buys at StepsPerSecond; d <= 0
// means no limit (nil).
func BudgetFor(d time.Duration) *Budget { return NewBudget(StepsFor(d)) }

// StepsFor is the number of search steps a duration buys at StepsPerSecond
// (0 for d <= 0: no limit), saturating at the largest int64.
func StepsFor(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := d.Seconds() * StepsPerSecond
	if s >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(int64(s), 1)
}

// limit is the value of a Searcher's step counter at which a search that
// starts at steps must stop.
func (b *Budget) limit(steps int64) int64 {
	if b == nil {
		return math.MaxInt64
	}
	if b.left > math.MaxInt64-steps {
		return math.MaxInt64
	}
	return steps + max(b.left, 0)
}

// spend takes n steps off the budget.
func (b *Budget) spend(n int64) {
	if b != nil {
		b.left -= n
	}
}

// Exhausted reports whether the budget is spent.
func (b *Budget) Exhausted() bool { return b != nil && b.left <= 0 }

// BudgetText names a budget given as a duration for messages: the
// duration and the search steps it buys ("10s, 250000000 search steps").
func BudgetText(d time.Duration) string {
	n := StepsFor(d)
	if n == 1 {
		return d.String() + ", 1 search step"
	}
	return fmt.Sprintf("%s, %d search steps", d, n)
}
