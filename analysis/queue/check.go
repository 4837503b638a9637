package queue

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/model"
)

// SubVia overrides the per-process assign/subscribe rule.
type SubVia uint8

// SubVia values.
const (
	// SubAuto decides per process from its assign/subscribe ops.
	SubAuto SubVia = iota
	// SubAssign makes every poll-skip and nonmonotonic-poll bad.
	SubAssign
	// SubSubscribe makes every poll-skip and nonmonotonic-poll allowed.
	SubSubscribe
)

// String returns "auto", "assign" or "subscribe".
func (s SubVia) String() string {
	switch s {
	case SubAssign:
		return "assign"
	case SubSubscribe:
		return "subscribe"
	}
	return "auto"
}

// Options tune the check.
type Options struct {
	// WWDeps adds write-write edges to the dependency graph.
	WWDeps bool
	// SubVia overrides per-process detection of assign/subscribe.
	SubVia SubVia
	// CycleBudget bounds the cycle search in each strongly connected
	// component; zero means no bound.
	CycleBudget time.Duration
	// StallThreshold is the shortest stall reported as stalled-consumer.
	StallThreshold time.Duration
	// MaxUnseenValues caps the values listed per unseen instance (0: 1000).
	MaxUnseenValues int
	// Series keeps the unseen-over-time and realtime-lag series in the
	// result (Result.Series) for the HTML report. They hold a point per ok
	// op and per polled key, so a plain check leaves them out.
	Series bool
	// Cores is how many cores the check may keep busy (0: GOMAXPROCS).
	// The realtime lag splits the keys into that many parts, each of
	// which walks every op (lagparts.go): on cores that other work keeps
	// busy (a scan checking several histories at once) one part costs
	// about a quarter less CPU. It changes no result (TestLagParts).
	Cores int
}

// DefaultOptions are the defaults of the command line.
func DefaultOptions() Options {
	return Options{CycleBudget: 10 * time.Second, StallThreshold: 10 * time.Second}
}

// Check analyses a queue history. pairing must come from model.Pair(h).
// Cost: O(ops + reads + edges log edges) time plus the cycle search, which
// is bounded per component by opts.CycleBudget; memory O(ops + messages +
// edges).
func Check(h *model.History, pairing model.Pairing, opts Options) *analysis.Result {
	return check(h, pairing, opts).res
}

// check is Check, returning the checker for tests to look into.
func check(h *model.History, pairing model.Pairing, opts Options) *checker {
	if opts.MaxUnseenValues <= 0 {
		opts.MaxUnseenValues = 1000
	}
	start := time.Now()
	c := &checker{h: h, opts: opts, res: &analysis.Result{
		Schema:   analysis.Schema,
		Source:   h.Source,
		Workload: "queue",
		Options: analysis.Options{
			WWDeps: &opts.WWDeps, SubVia: opts.SubVia.String(),
			CycleBudgetS:   opts.CycleBudget.Seconds(),
			StallThreshold: analysis.FloatPtr(opts.StallThreshold.Seconds()),
		},
		Warnings: h.Warnings,
	}}
	c.records(pairing)
	phase.Mark("queue records")
	// The checks run as five groups at once (six with Options.Series):
	// the message and log checks here; the lag, its series and the stalls
	// on c2; the unseen series on c6; the cycles on c4, once the
	// version order is built; the reads' writers (checkReads) on c3,
	// from when the messages' writers are known; and the int-* checks on
	// c5, once the version order is built. The groups add
	// anomalies of different types, each in the order a sequential run
	// adds them, into results of their own. (Five groups on two cores:
	// the scheduler spreads them over the time the others leave. The
	// cycles had waited for the lag on one goroutine: on the crash-heavy
	// history of bench/bench.sh, running them apart took the check from
	// 2.60 to 2.24 s and its peak RSS from 544 to 517 MB, medians of six
	// runs by bench/ab.sh; the other 1.39M-op history did not change.)
	c2 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs, procIDs: c.procIDs}
	c3 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs}
	c4 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs, procIDs: c.procIDs, ev: c2.events()}
	// logged is closed once the version order is built; on a panic here
	// before that, it is closed with failed set, so that c4 does not wait
	// for ever (a scan goes on after a history's panic: par.Group)
	logged := make(chan struct{})
	var failed atomic.Bool
	isClosed := false // this goroutine's own
	defer func() {    // runs on a panic too
		if !isClosed {
			failed.Store(true)
			close(logged)
		}
	}()
	var groups par.Group
	groups.Go(func() {
		c2.lagAndStalls()
		c2.ev = nil // c4 keeps it as long as it needs it
	})
	// the unseen series (Options.Series) has a group of its own: after the
	// lag's, it made the end of a report's check wait for it
	c6 := &checker{h: h, opts: opts, res: &analysis.Result{}, recs: c.recs}
	if opts.Series {
		groups.Go(c6.unseenSeries)
	}
	groups.Go(func() {
		// The graph waits for the version order: ww edges and their
		// explanations need it, and its working space is freed once the
		// log's is (the two at once would push a large history past its
		// memory budget).
		<-logged
		if failed.Load() {
			return
		}
		c4.writer = c.writer
		c4.versionOrder = c.versionOrder
		c4.cycles()
	})
	c.scanMessages()
	phase.Mark("queue messages")
	c3.writer = c.writer
	groups.Go(c3.checkAllReads)
	c.buildLog()
	phase.Mark("queue log")
	close(logged)
	isClosed = true
	c5 := *c // reads the version order and the messages' writers only
	c5.res = &analysis.Result{}
	groups.Go(c5.checkAllInternal)
	c.checkRecs()
	c.checkLostAndUnseen()
	phase.Mark("queue recs and lost")
	groups.Wait()
	phase.Mark("queue other groups")
	c.join(c2, c4)
	c.res.Series.Unseen = c6.res.Series.Unseen
	c.joinAnomalies(c3)
	c.joinAnomalies(&c5)
	if own := analysis.OwnStats[Stats](c5.res); own.Unpositioned > 0 {
		analysis.OwnStats[Stats](c.res).Unpositioned += own.Unpositioned
	}
	c.finish(start)
	return c
}

// finish gives the result of a check begun at start its reasons for an
// unknown verdict, its verdict and its elapsed time.
func (c *checker) finish(start time.Time) {
	if c.h.Truncated {
		c.res.UnknownReasons = append(c.res.UnknownReasons,
			"the input was cut off in the middle of an op; only the complete ops before it were analysed")
	}
	if c.res.Stats.OKOps == 0 || !c.anyOKData() {
		c.res.UnknownReasons = append(c.res.UnknownReasons,
			"no send, poll or txn op completed ok: there is nothing to judge")
	}
	c.res.Finish(func(typ string, in analysis.Instance) bool { return IsBad(typ, in.InstanceEvidence().Allowed) })
	c.res.Stats.ElapsedMS = time.Since(start).Milliseconds()
}

// join takes in what the lag group (lag) and the cycle group (cyc) found:
// their anomaly types (none of which c adds), their statistics and the
// series, and their reasons for an unknown verdict (c has none yet).
func (c *checker) join(lag, cyc *checker) {
	c.joinAnomalies(lag)
	c.joinAnomalies(cyc)
	r := c.res
	st, own := &r.Stats, analysis.OwnStats[Stats](r)
	lagOwn, cycSt := analysis.OwnStats[Stats](lag.res), &cyc.res.Stats
	own.WorstLagS, own.WorstLagProcess, own.WorstLagKey, own.WorstLagOp = lagOwn.WorstLagS, lagOwn.WorstLagProcess, lagOwn.WorstLagKey, lagOwn.WorstLagOp
	st.GraphVertices, st.GraphEdges = cycSt.GraphVertices, cycSt.GraphEdges
	st.Components, st.LargestComponent = cycSt.Components, cycSt.LargestComponent
	r.Series = lag.res.Series
	r.UnknownReasons = slices.Concat(lag.res.UnknownReasons, cyc.res.UnknownReasons, r.UnknownReasons)
}

// joinAnomalies takes in the anomalies another group of checks found, of
// types c does not add.
func (c *checker) joinAnomalies(o *checker) {
	r := c.res
	for typ, ins := range o.res.Anomalies {
		if r.Anomalies == nil {
			r.Anomalies = map[string][]analysis.Instance{}
		}
		r.Anomalies[typ] = ins
	}
}

// anyOKData reports whether some send, poll or txn op completed ok.
func (c *checker) anyOKData() bool {
	for _, r := range c.recs {
		if r.typ == model.OK && r.vertex >= 0 {
			return true
		}
	}
	return false
}

// checkRecs runs the checks that go through the ops one by one: each
// op's reads are looked at by checkProcesses and the search for the max
// reads of checkLostAndUnseen in turn, while they are in cache, rather
// than in two passes over the history. (checkReads and checkAllInternal
// make passes of their own, on other goroutines: the int-* checks had
// been a third of this pass, the last of the check on one core; apart,
// bench/bench.sh's 1.39M-op history went from 1.26 to 1.24 s and the
// crash-heavy one from 1.89 to 1.83 s, medians of bench/ab.sh.)
func (c *checker) checkRecs() {
	c.maxReads()
	ps := processState{procs: make([]procState, len(c.procIDs))}
	for i := range c.recs {
		ri := int32(i)
		r := &c.recs[i]
		op := c.op(r.comp)
		mops := c.h.MopsOf(op)
		c.checkProcesses(ri, r, op, mops, &ps)
		if !c.ordered {
			c.maxReader(ri, r, mops)
		}
	}
}

// checkAllInternal runs checkInternal on every op: the int-* types, and
// the comparisons skipped for want of a position (Stats.Unpositioned),
// which check adds to its own.
func (c *checker) checkAllInternal() {
	var is internalState
	for i := range c.recs {
		op := c.op(c.recs[i].comp)
		c.checkInternal(int32(i), op, c.h.MopsOf(op), &is)
	}
}
