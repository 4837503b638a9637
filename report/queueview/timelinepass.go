package queueview

import (
	"runtime"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// The two passes of the offset timelines over the history run on every
// core. The first counts, which does not depend on order: each core counts
// a range of the ops into counts of its own, added up at the end. The
// second gives each drawn key's points to its plan in history order: each
// core takes the keys whose number is its own modulo the cores, and walks
// every op for them. The page is the same for any number of cores. On the
// crash-heavy history of bench/bench.sh the timelines had run on one core
// at the end of the report, the series charts long done (perf).

// timelineMinOps is the fewest ops a core takes in the first pass.
const timelineMinOps = 1 << 14

// countPoints is the first pass: each key's points counted into lines (by
// process for sends and positions, a key's map made at its first such
// point), which hold none yet. It returns how many completions have no
// time.
func (b *builder) countPoints(lines []keyLine) int {
	n := len(b.H.Ops)
	parts := max(1, min(runtime.GOMAXPROCS(0), n/timelineMinOps))
	counts := make([][]keyLine, parts)
	untimed := make([]int, parts)
	par.Each(parts, parts, func() func(int) {
		return func(w int) {
			ls := lines // the first range counts into lines itself
			if w > 0 {
				ls = make([]keyLine, len(lines))
			}
			untimed[w] = b.timelinePoints(w*n/parts, (w+1)*n/parts, 0, 1, func(k model.KeyID, kind int, p timelinePoint) {
				countPoint(&ls[k], kind, p)
			})
			counts[w] = ls
		}
	})
	total := untimed[0]
	for w := 1; w < parts; w++ {
		total += untimed[w]
		for k := range lines {
			addCounts(&lines[k], &counts[w][k])
		}
	}
	return total
}

// countPoint counts one point of kind kind in line.
func countPoint(line *keyLine, kind int, p timelinePoint) {
	switch kind {
	case ptSend, ptPoll:
		if line.procs == nil {
			line.procs = map[int32]*[2]int{}
		}
		c := line.procs[p.proc]
		if c == nil {
			c = new([2]int)
			line.procs[p.proc] = c
		}
		c[kind]++
	case ptInfo:
		line.info++
	case ptFail:
		line.fail++
	case ptIfp:
		line.infoFailPolls++
	}
}

// addCounts adds the counts of o to line.
func addCounts(line, o *keyLine) {
	for p, c := range o.procs {
		if line.procs == nil {
			line.procs = map[int32]*[2]int{}
		}
		if mine := line.procs[p]; mine != nil {
			mine[ptSend] += c[ptSend]
			mine[ptPoll] += c[ptPoll]
		} else {
			line.procs[p] = c
		}
	}
	line.info += o.info
	line.fail += o.fail
	line.infoFailPolls += o.infoFailPolls
}

// placePoints is the second pass: each drawn key's points given to its
// plan, in history order.
func (b *builder) placePoints(lines []keyLine) {
	parts := max(1, min(runtime.GOMAXPROCS(0), len(lines)))
	if len(b.H.Ops) < timelineMinOps {
		parts = 1
	}
	par.Each(parts, parts, func() func(int) {
		return func(w int) {
			b.timelinePoints(0, len(b.H.Ops), w, parts, func(k model.KeyID, kind int, p timelinePoint) {
				if plan := lines[k].plan; plan != nil {
					plan.add(kind, p)
				}
			})
		}
	})
}
