package gen

import "math/rand/v2"

// nemesis is the partitioning nemesis both generators run: it alternates
// start-partition and stop-partition ops, one in flight at a time, and a
// start-partition's completion reports a random split of the five nodes
// (two on one side, three on the other).
type nemesis struct {
	busy  bool // an op is in flight
	start bool // the op in flight is a start-partition
	split bool // a partition is in force
	part  nemesisPart
}

// invoke begins the next nemesis op and returns its invocation line.
func (n *nemesis) invoke() line {
	n.busy = true
	n.start = !n.split
	f := fStopPartition
	if n.start {
		f = fStartPartition
	}
	return line{typ: tInfo, pid: -1, f: f}
}

// complete ends the op in flight and returns its completion line; a
// start-partition draws the split from rng.
func (n *nemesis) complete(rng *rand.Rand) line {
	n.busy = false
	l := line{typ: tInfo, pid: -1, f: fStopPartition, nemDone: true}
	if n.start {
		l.f = fStartPartition
		var side [5]bool
		for _, i := range rng.Perm(5)[:2] {
			side[i] = true // the minority
		}
		for i := range 5 {
			n.part[i] = 0
			for j := range 5 {
				if side[i] != side[j] {
					n.part[i] |= 1 << j
				}
			}
		}
		l.part = &n.part
	}
	n.split = n.start
	return l
}
