package queue

import (
	"slices"

	"github.com/hindsight-dev/hindsight/model"
)

// lagProc is what the lag computation remembers of one process.
type lagProc struct {
	assigned  []model.KeyID
	hasAssign bool
	keys      []lagKey // in order of first use
	index     keyIndex // key -> its index in keys
	posKeys   []int32  // entries with a position (hasPos), maybe stale
	dirty     []int32  // entries to sample at the next poll
	// polls are the process's polls the lag samples at (lagPolls), of
	// which the walk has reached the first n
	polls     []lagPollRec
	n         int32
	unordered bool // a poll's time went back: sample every held key at each poll
	// the sweep's series (lagsweep.go): the time of the process's last poll
	prevTime int64
}

// lagKey is one key of a lagProc.
type lagKey struct {
	key       model.KeyID
	hasPos    bool
	inPosKeys bool
	// the sweep's series (lagsweep.go): whether the entry's last sample
	// starts or continues a run (its poll's index in last, its next
	// acknowledgement in aj and ackTime), and whether that run's last
	// sample (at poll pendingHP, of lag pendingLag) waits to go in the
	// series
	inRun, hasPending bool
	pos               int64 // offset of the last read
	held              bool  // sampled at each poll (assigned, or has a position before any assign)
	dirty             bool
	ver               uint32 // bumped whenever its lagIndex references go stale
	last              int32  // index in polls of its last sample, explicit or accounted
	aj                int    // at the last sample: the next acknowledged offset's index, or -1
	above             int32  // at the last held sample: the first of the key's offsets above pos, the next search's hint
	ackTime           int64  // and its acknowledgement time and rec
	ackRec            int32
	inStall           bool
	st                stall
	// the sweep's pending sample (inRun above)
	pendingHP  int32
	pendingLag int64
}

// denseKeys is the most keys for which a keyIndex indexes keys by an
// array (4 bytes a key per process) rather than a map.
const denseKeys = 1024

// keyIndex maps the keys of one process to the index of their entry in a
// list of its own: through an array when the history has at most denseKeys
// keys, else through a map.
type keyIndex struct {
	dense []int32 // key -> 1 + its index
	other map[model.KeyID]int32
}

// get returns k's index, or -1; nk is the history's number of keys.
func (x *keyIndex) get(k model.KeyID, nk int) int32 {
	var i int32
	if nk <= denseKeys {
		if x.dense == nil {
			return -1
		}
		i = x.dense[k]
	} else {
		i = x.other[k]
	}
	return i - 1
}

// set gives k index i.
func (x *keyIndex) set(k model.KeyID, nk int, i int32) {
	if nk <= denseKeys {
		if x.dense == nil {
			x.dense = make([]int32, nk)
		}
		x.dense[k] = i + 1
	} else {
		if x.other == nil {
			x.other = map[model.KeyID]int32{}
		}
		x.other[k] = i + 1
	}
}

// get returns k's entry index, or -1; nk is the history's number of keys.
func (lp *lagProc) get(k model.KeyID, nk int) int32 { return lp.index.get(k, nk) }

// entry returns k's entry index, adding it if need be.
func (lp *lagProc) entry(k model.KeyID, nk int) int32 {
	if e := lp.get(k, nk); e >= 0 {
		return e
	}
	if len(lp.keys) == cap(lp.keys) {
		// doubled, not append's quarter at a time once large: a process
		// that polls many keys (a wide poll) would copy its entries
		// about five times over
		lp.keys = slices.Grow(lp.keys, max(4, len(lp.keys)))
	}
	lp.keys = append(lp.keys, lagKey{key: k, last: -1, aj: -1})
	i := int32(len(lp.keys) - 1)
	lp.index.set(k, nk, i)
	return i
}

// lagRef names a held key of a process in a lagIndex.
type lagRef struct {
	proc, entry int32
	ver         uint32
}

// lagIndex is one key's held entries by position: bucket j holds those
// whose next offset (the first above their position) is the key's j-th
// offset, with a Fenwick tree counting references per bucket (stale ones
// included, dropped when their bucket is emptied).
type lagIndex struct {
	buckets []refList
	count   fenwick
}

// refList is a bucket of a lagIndex: a list of references in the order
// filed, whose nodes live in the lagState's refPool.
type refList struct {
	head, tail int32 // 1 + a node's number in the refPool; 0: none
}

// refPool holds the nodes of every bucket's list, and reuses those of the
// buckets emptied: one store for all the references in the check, not a
// slice per bucket grown reference by reference (a crash-heavy history
// files a reference at nearly every poll of every key). The nodes live in
// chunks of refChunk that never move: the pool reaches millions of nodes,
// and growing one slice by append copied it about five times over (a
// sixth of a 1.39M-op queue check's CPU, in a profile).
type refPool struct {
	chunks [][]refNode
	n      int32 // nodes made so far
	free   int32 // 1 + the first free node; 0: none
}

// refChunkBits sets the nodes in a chunk: 2^14 of 16 bytes, 256 KiB.
const refChunkBits = 14

const refChunk = 1 << refChunkBits

type refNode struct {
	ref  lagRef
	next int32 // 1 + the next node; 0: the end
}

// node returns node n (1-based).
func (rp *refPool) node(n int32) *refNode {
	i := n - 1
	return &rp.chunks[i>>refChunkBits][i&(refChunk-1)]
}

// push appends r to l. O(1).
func (rp *refPool) push(l *refList, r lagRef) {
	n := rp.free
	if n != 0 {
		rp.free = rp.node(n).next
	} else {
		if rp.n&(refChunk-1) == 0 {
			rp.chunks = append(rp.chunks, make([]refNode, refChunk))
		}
		rp.n++
		n = rp.n
	}
	*rp.node(n) = refNode{ref: r}
	if l.tail != 0 {
		rp.node(l.tail).next = n
	} else {
		l.head = n
	}
	l.tail = n
}

// take empties l and returns its references in order, in out's room; its
// nodes are free again.
func (rp *refPool) take(l *refList, out []lagRef) []lagRef {
	for n := l.head; n != 0; {
		node := rp.node(n)
		out = append(out, node.ref)
		next := node.next
		node.next, rp.free = rp.free, n
		n = next
	}
	*l = refList{}
	return out
}

// indexEntry files held entry i of process p under its next offset, the
// j-th of its key's offsets (firstAbove of its position).
func (ls *lagState) indexEntry(p, i int32, j int) {
	e := &ls.procs[p].keys[i]
	offs := ls.acks.of(e.key).offs
	if j == len(offs) {
		return // no acknowledgement can come after its position
	}
	x := &ls.index[ls.acks.at[e.key]] // it has offsets, so a log of its own
	if x.buckets == nil {
		x.buckets = make([]refList, len(offs))
		x.count = make(fenwick, len(offs)+1)
	}
	e.ver++
	ls.refs.push(&x.buckets[j], lagRef{p, i, e.ver})
	x.count.add(j, 1)
}

// markDirty has entry i of process p sampled at the process's next poll.
func (ls *lagState) markDirty(p, i int32) {
	lp := &ls.procs[p]
	e := &lp.keys[i]
	if !e.dirty {
		e.dirty = true
		lp.dirty = append(lp.dirty, i)
	}
}

// acked is called when the acknowledgement of key k's j-th offset was added
// or moved earlier: every held entry whose next offset it now is, those
// filed in buckets after the previous acknowledged offset up to j, has its
// run accounted for and is sampled at its process's next poll.
func (ls *lagState) acked(k model.KeyID, j int) {
	i := ls.acks.at[k] // acknowledged, so a log of its own
	x := &ls.index[i]
	if x.buckets == nil {
		return
	}
	a := &ls.acks.logs[i]
	lo := 0
	if before := a.tree.prefix(j); before > 0 {
		lo = a.tree.kth(before) + 1
	}
	// the entries filed below lo stay; nothing here files one (sample
	// does, after): the count below lo, and the total less what is taken,
	// are known without asking the tree again each round
	below, total := x.count.prefix(lo), x.count.prefix(len(x.buckets))
	for below < total {
		b := x.count.kth(below + 1)
		if b > j {
			return
		}
		refs := ls.refs.take(&x.buckets[b], ls.taken[:0])
		ls.taken = refs
		x.count.add(b, -int32(len(refs)))
		total -= int32(len(refs))
		for _, r := range refs {
			lp := &ls.procs[r.proc]
			e := &lp.keys[r.entry]
			if e.ver != r.ver || !e.held || e.dirty {
				continue
			}
			e.ver++
			ls.catchUp(r.proc, e, lp.n)
			ls.markDirty(r.proc, r.entry)
		}
	}
}

// hold makes entry i of process p held from now on (sampled at each poll).
func (ls *lagState) hold(p, i int32) {
	lp := &ls.procs[p]
	e := &lp.keys[i]
	if e.held {
		return
	}
	e.held, e.last = true, lp.n-1
	ls.markDirty(p, i)
}

// release stops sampling entry i of process p, after accounting for its run.
func (ls *lagState) release(p, i int32) {
	lp := &ls.procs[p]
	e := &lp.keys[i]
	if !e.held {
		return
	}
	ls.catchUp(p, e, lp.n)
	e.held = false
	e.ver++
}
