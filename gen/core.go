package gen

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"slices"
)

// The clock and the nemesis of every simulation.
const (
	startTime    = 10_000_000
	minGap       = 100_000   // 0.1 ms between two lines, at least
	maxGap       = 5_000_000 // 5 ms at most
	nemesisEvery = 3000      // one nemesis op per this many steps, on average
)

// Counts are what every generator counts of the history it wrote; Stats,
// TxnStats and AbortStats embed them.
type Counts struct {
	// Lines is the number of op lines written; Bytes the number of bytes.
	Lines, Bytes int64
	// Processes counts distinct client process ids.
	Processes int64
	// EndTime is the :time of the last line, in nanoseconds (0 when no line
	// was written).
	EndTime int64
}

// core is the part of a simulation that the queue (sim), transactional
// (tsim) and abort (asim) simulations share, embedded in each: the random
// source, the clock, the buffered output and its Counts, the idle and
// in-flight workers, and the partitioning nemesis. See the package doc,
// "Simulation core".
type core struct {
	rng *rand.Rand
	bw  *bufio.Writer
	buf []byte // the line being written
	err error  // the first write error

	now, lines     int64
	logLo, logSpan float64 // log(minGap), log(maxGap) - log(minGap)

	// nworkers is the number of client workers; the in-flight slot nworkers
	// stands for the nemesis.
	nworkers int
	idle     []int32
	inflight []int32
	nem      nemesis
	nl       line    // the nemesis line being written
	enc      encoder // the queue form's encoder, which nemesis lines use

	counts *Counts // the stats' Counts
}

// newCore returns the core of a simulation of workers workers, all idle,
// each running its first process, writing to w in format. The random
// source is a PCG of seed and stream (one stream per workload); counts
// are the stats' Counts, which the core keeps.
func newCore(w io.Writer, seed int64, stream uint64, workers int, format Format, counts *Counts) core {
	c := core{
		rng:      rand.New(rand.NewPCG(uint64(seed), stream)),
		bw:       bufio.NewWriterSize(w, 256<<10),
		now:      startTime,
		logLo:    math.Log(minGap),
		logSpan:  math.Log(maxGap) - math.Log(minGap),
		nworkers: workers,
		enc:      appendEDN,
		counts:   counts,
	}
	if format == JSON {
		c.enc = appendJSON
	}
	for i := range workers {
		c.idle = append(c.idle, int32(i))
	}
	counts.Processes = int64(workers)
	return c
}

// finish flushes the output once the simulation has written its history,
// sets EndTime and returns the first write error, if any.
func (c *core) finish() error {
	if c.err == nil {
		c.err = c.bw.Flush()
	}
	if c.counts.Lines > 0 {
		c.counts.EndTime = c.now
	}
	return c.err
}

// tick advances the clock by a log-uniform gap in [minGap, maxGap).
func (c *core) tick() int64 {
	c.now += int64(math.Exp(c.logLo + c.rng.Float64()*c.logSpan))
	return c.now
}

// write writes c.buf as the next line and counts it.
func (c *core) write() {
	c.lines++
	c.counts.Lines++
	c.counts.Bytes += int64(len(c.buf))
	if _, err := c.bw.Write(c.buf); err != nil && c.err == nil {
		c.err = err
	}
}

// emitLine writes l, a line of the queue form (every workload's nemesis
// lines are), as the next line, at time t; groups and pairs hold what its
// polls read.
func (c *core) emitLine(l *line, t int64, groups []group, pairs []pair) {
	l.index, l.time = c.lines, t
	c.buf = c.enc(c.buf[:0], l, groups, pairs)
	c.write()
}

// chooseInvoke decides between invoking on one of n candidate idle workers
// and completing an op in flight; about half the workers stay in flight.
func (c *core) chooseInvoke(n int) bool {
	return n > 0 && (len(c.inflight) == 0 || c.rng.IntN(n+len(c.inflight)) < n)
}

// takeIdleAt removes and returns the worker at position i of c.idle.
func (c *core) takeIdleAt(i int) int { return takeAt(&c.idle, i) }

// takeIdle removes worker wi from c.idle and returns it.
func (c *core) takeIdle(wi int32) int {
	return c.takeIdleAt(slices.Index(c.idle, wi))
}

// takeInflight removes a random op in flight and returns its slot: a
// worker, or c.nworkers for the nemesis.
func (c *core) takeInflight() int { return takeAt(&c.inflight, c.rng.IntN(len(c.inflight))) }

// takeAt removes the element at position i of *xs, moving the last one
// there, and returns it.
func takeAt(xs *[]int32, i int) int {
	s := *xs
	x := s[i]
	last := len(s) - 1
	s[i] = s[last]
	*xs = s[:last]
	return int(x)
}

// completeSlot completes a random op in flight at the next tick: the
// nemesis's, or a worker's with complete(worker, time).
func (c *core) completeSlot(complete func(wi int, t int64)) {
	slot := c.takeInflight()
	t := c.tick()
	if slot == c.nworkers {
		c.completeNemesis(t)
		return
	}
	complete(slot, t)
}

// startNemesis starts the nemesis's next op, one chance in nemesisEvery
// when none is in flight, and reports whether it did.
func (c *core) startNemesis() bool {
	if c.nem.busy || c.rng.IntN(nemesisEvery) != 0 {
		return false
	}
	c.invokeNemesis()
	return true
}

// invokeNemesis starts the nemesis's next op and writes its invocation.
func (c *core) invokeNemesis() {
	c.inflight = append(c.inflight, int32(c.nworkers))
	c.nl = c.nem.invoke()
	c.emitLine(&c.nl, c.tick(), nil, nil)
}

// completeNemesis writes the completion of the nemesis op in flight, at
// time t.
func (c *core) completeNemesis(t int64) {
	c.nl = c.nem.complete(c.rng)
	c.emitLine(&c.nl, t, nil, nil)
}

// newProcess gives a worker whose process pid crashed its next process
// (Jepsen: process id + concurrency; a crashed process never comes back).
func (c *core) newProcess(pid *int64) {
	*pid += int64(c.nworkers)
	c.counts.Processes++
}

// schedule is the plan of a simulation's fault injections: the kinds, in
// the order they are armed, and the point (a line or a txn count) each is
// armed at.
type schedule[K faultKind] struct {
	at    []int64
	kinds []K
	next  int
}

// plan spreads every injection faults ask for (kinds numKinds), kinds
// interleaved round-robin, at evenly spread points from 5% of n to 5% +
// span of n.
func plan[K faultKind](faults []Injections[K], numKinds K, n, span float64) schedule[K] {
	counts := make([]int, numKinds)
	for _, f := range faults {
		counts[f.Kind] += f.Count
	}
	var p schedule[K]
	p.kinds = interleave[K](counts)
	for i := range p.kinds {
		p.at = append(p.at, int64(n*(0.05+span*float64(i)/float64(len(p.kinds)))))
	}
	return p
}

// peek returns the kind of the next injection armed by point now, if any,
// and leaves it planned.
func (p *schedule[K]) peek(now int64) (K, bool) {
	if p.next == len(p.kinds) || p.at[p.next] > now {
		return 0, false
	}
	return p.kinds[p.next], true
}

// due returns the kind of the next injection armed by point now, if any,
// and takes it off the plan.
func (p *schedule[K]) due(now int64) (K, bool) {
	k, ok := p.peek(now)
	if ok {
		p.next++
	}
	return k, ok
}

// interleave lists counts[k] faults of each kind k, the kinds taking turns
// in their order (round-robin) while any is left.
func interleave[K ~uint8](counts []int) []K {
	left := slices.Clone(counts)
	total := 0
	for _, n := range counts {
		total += n
	}
	kinds := make([]K, 0, total)
	for len(kinds) < total {
		for k := range left {
			if left[k] > 0 {
				left[k]--
				kinds = append(kinds, K(k))
			}
		}
	}
	return kinds
}
