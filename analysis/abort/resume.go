package abort

import (
	"slices"
	"sort"

	"golang.org/x/sys/cpu"

	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/model"
)

// topic is what the sweep knows of one topic: every offset any poll read
// from it (sorted, without repeats), the resume points its aborted and
// info polls can make (coords, sorted), which of those hold since the
// latest commit (a prefix-maximum Fenwick tree over coords, and the poll
// that made each), and its committed position.
type topic struct {
	reads  []int64
	coords []int64
	tree   []int32 // 1-based; 1 + the largest live coordinate of a node's range, 0 for none
	by     []int32 // by coordinate: 1 + the poll that made it live, 0 while it is not
	live   []int32 // coordinates made live since the latest commit
	cp     int64
	cpBy   int32 // -1: no commit yet
	// where the latest search of coords and of reads ended (search)
	coordsAt, readsAt int
	// indexTopics's goroutines write topics side by side in memory: the pad
	// keeps two topics off one cache line
	_ cpu.CacheLinePad
}

// indexTopics gathers each topic's offsets read and resume points. A
// first pass counts each topic's offsets, so that its reads are allocated
// once; then, on a large history, several goroutines gather and sort a
// share of the topics each (those whose id is the part modulo parts).
func (c *checker) indexTopics() {
	c.topics = make([]*topic, len(c.h.Keys))
	counts := make([]int, len(c.h.Keys))
	for k := range c.polls {
		p := &c.polls[k]
		if !p.hasOffsets() {
			continue
		}
		if c.topics[p.topic] == nil {
			c.topics[p.topic] = &topic{cpBy: -1}
			c.res.Stats.Keys++
		}
		counts[p.topic] += int(p.offs.N)
	}
	n := workers(len(c.polls))
	var g par.Group
	for j := range n {
		g.Go(func() { c.indexPart(counts, uint32(j), uint32(n)) })
	}
	g.Wait()
}

// indexPart gathers, sorts and sizes the topics whose id is part modulo
// parts, for indexTopics.
func (c *checker) indexPart(counts []int, part, parts uint32) {
	for k, t := range c.topics {
		if t != nil && uint32(k)%parts == part {
			t.reads = make([]int64, 0, counts[k])
		}
	}
	for k := range c.polls {
		p := &c.polls[k]
		if !p.hasOffsets() || uint32(p.topic)%parts != part {
			continue
		}
		t := c.topics[p.topic]
		t.reads = append(t.reads, c.offs(p)...)
		if pt, ok := c.resumePoint(int32(k)); ok {
			t.coords = append(t.coords, pt)
		}
	}
	for k, t := range c.topics {
		if t == nil || uint32(k)%parts != part {
			continue
		}
		slices.Sort(t.reads)
		t.reads = slices.Compact(t.reads)
		slices.Sort(t.coords)
		t.coords = slices.Compact(t.coords)
		t.tree = make([]int32, len(t.coords)+1)
		t.by = make([]int32, len(t.coords))
	}
}

// point is the offset poll k (which has offsets) leaves its topic at: its
// smallest offset for an aborted poll, one past its largest for any other.
// For a committed poll it is the committed position it sets (update), for
// an aborted or info poll the resume point it makes (resumePoint); a
// poll's cpBy and rpBy name the polls whose points are its committed
// position and its resume point, which are not kept. O(1): a poll whose
// offsets increase has them at its ends, and the others' points are kept
// aside (unorderedPoint). Every pair asks for the point of the poll that
// set its committed position, so a scan of that poll's offsets each time
// cost O(pairs × offsets): one commit of 200,000 offsets followed by
// 200,000 aborted polls took 36 s.
func (c *checker) point(k int32) int64 {
	p := &c.polls[k]
	if !p.ordered {
		return c.unordered[k]
	}
	offs := c.offs(p)
	if p.typ == model.Fail {
		return offs[0]
	}
	return offs[len(offs)-1] + 1
}

// unorderedPoint keeps aside the point of poll k, which has offsets that
// do not increase (an int-nonmonotonic-poll), scanning them once;
// collect calls it for each such poll.
func (c *checker) unorderedPoint(k int32) {
	p := &c.polls[k]
	if c.unordered == nil {
		c.unordered = map[int32]int64{}
	}
	pt := slices.Max(c.offs(p)) + 1
	if p.typ == model.Fail {
		pt = slices.Min(c.offs(p))
	}
	c.unordered[k] = pt
}

// resumePoint is the resume point poll k makes until the next commit (its
// point): the smallest offset of an aborted poll, one past the largest of
// an info poll; none for a committed poll.
func (c *checker) resumePoint(k int32) (int64, bool) {
	if t := c.polls[k].typ; t != model.Fail && t != model.Info {
		return 0, false
	}
	return c.point(k), true
}

// sweep goes through the polls' completions and the invocations of the
// polls with offsets in history order, and gives each of the latter what
// the history showed before it was invoked: its topic's committed
// position, and the largest resume point at or below its first offset.
//
// A poll's invocation (its completion, for one without) is an op of its
// own: byPos holds, at each position of the ops, 1 + the poll with
// offsets invoked there, so the polls are met in history order of their
// invocations without sorting: O(ops). progress, when not nil, gets
// every progressStep positions the position up to which the sweep is
// done (sweepAndWalk).
func (c *checker) sweep(byPos []int32, progress chan<- int) {
	u := int32(0)
	for at, q := range byPos {
		if progress != nil && at&(progressStep-1) == 0 && at > 0 {
			progress <- at
		}
		if q == 0 {
			continue
		}
		for ; int(u) < len(c.polls) && c.polls[u].comp < int32(at); u++ {
			c.update(u)
		}
		c.query(&c.polls[q-1])
	}
}

// update takes in the completion of poll k.
func (c *checker) update(k int32) {
	p := &c.polls[k]
	if !p.hasOffsets() {
		return
	}
	t := c.topics[p.topic]
	if p.typ == model.OK {
		if end := c.point(k); t.cpBy < 0 || end > t.cp {
			t.cp, t.cpBy = end, k
		}
		t.clear()
		return
	}
	if pt, ok := c.resumePoint(k); ok {
		i, _ := search(t.coords, pt, &t.coordsAt)
		t.add(i, k)
	}
}

// query fills in what N, a poll with offsets, needs.
func (c *checker) query(n *poll) {
	t := c.topics[n.topic]
	f := c.first(n)
	n.cpBy = t.cpBy
	best, by := int64(0), int32(-1)
	if t.cpBy >= 0 && t.cp <= f {
		best, by = t.cp, t.cpBy
	}
	if i, ok := search(t.coords, f, &t.coordsAt); ok || i > 0 {
		if !ok {
			i--
		}
		if j := t.max(i); j >= 0 && (by < 0 || t.coords[j] >= best) {
			best, by = t.coords[j], t.by[j]-1
		}
	}
	if by < 0 {
		return
	}
	n.rpBy = by
	// N resumes at best when no poll read an offset in [best, f)
	i, _ := search(t.reads, best, &t.readsAt)
	n.resumes = t.reads[i] >= f
}

// add makes coordinate i live, made by poll k.
func (t *topic) add(i int, k int32) {
	if t.by[i] == 0 {
		t.live = append(t.live, int32(i))
	}
	t.by[i] = k + 1
	for j := i + 1; j < len(t.tree); j += j & -j {
		t.tree[j] = max(t.tree[j], int32(i)+1)
	}
}

// max is the largest live coordinate at or below i, -1 for none.
func (t *topic) max(i int) int {
	m := int32(0)
	for j := i + 1; j > 0; j -= j & -j {
		m = max(m, t.tree[j])
	}
	return int(m) - 1
}

// clear makes every coordinate dead again (a commit): O(live · log).
func (t *topic) clear() {
	for _, i := range t.live {
		t.by[i] = 0
		for j := int(i) + 1; j < len(t.tree); j += j & -j {
			t.tree[j] = 0
		}
	}
	t.live = t.live[:0]
}

// search is slices.BinarySearch on xs, sorted and without repeats, that
// starts from *at, the index the previous search of xs returned, and
// leaves its own answer there. A topic's queries move forward with its
// consumer, mostly by a few offsets: the search gallops from *at (strides
// 1, 2, 4, ...) to bracket x, then bisects the last stride, O(log d) for
// an answer d places away, at worst about twice a bisection's probes, and
// they fall near each other in memory. slices.BinarySearch was a third of
// the sweep's queries (cpuprofile of the 1M-poll history of
// bench/bench.sh).
func search(xs []int64, x int64, at *int) (int, bool) {
	n := len(xs)
	h := min(max(*at, 0), n)
	// the answer is the first i with xs[i] >= x (n: none), in (lo, hi]
	lo, hi := h, h
	if h < n && xs[h] < x {
		for step := 1; ; step *= 2 {
			hi = lo + step
			if hi >= n {
				hi = n
				break
			}
			if xs[hi] >= x {
				break
			}
			lo = hi
		}
	} else {
		for step := 1; ; step *= 2 {
			lo = hi - step
			if lo < 0 {
				lo = -1
				break
			}
			if xs[lo] < x {
				break
			}
			hi = lo
		}
	}
	i := lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return xs[lo+1+k] >= x })
	*at = i
	return i, i < n && xs[i] == x
}
