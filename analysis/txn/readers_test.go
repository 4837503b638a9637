package txn

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestReaderIndexBuild builds the readers index of random reads on every
// core, in ranges of items and pieces of rows, and checks it against the
// index a serial pass makes: each state's readers in history (rec) order,
// a rec that read a state twice kept once.
func TestReaderIndexBuild(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ states, reads int }{{10, 30}, {50_000, 120_000}, {40_000, 9_000}} {
		// reads in history order: rec r reads a few states, some twice
		type read struct{ st, rec int32 }
		var reads []read
		for rec := int32(0); len(reads) < c.reads; rec++ {
			for range 1 + r.IntN(3) {
				st := int32(r.IntN(c.states))
				reads = append(reads, read{st, rec})
				if r.IntN(5) == 0 {
					reads = append(reads, read{st, rec})
				}
			}
		}
		want := make([][]int32, c.states)
		for _, rd := range reads {
			if w := want[rd.st]; len(w) == 0 || w[len(w)-1] != rd.rec {
				want[rd.st] = append(w, rd.rec)
			}
		}
		var ix readerIndex
		ix.build(c.states, len(reads), func(lo, hi int, f func(st, r int32)) {
			for _, rd := range reads[lo:hi] {
				f(rd.st, rd.rec)
			}
		})
		for st := range c.states {
			if got := ix.of(int32(st)); !slices.Equal(got, want[st]) && len(got)+len(want[st]) > 0 {
				t.Fatalf("%d states, %d reads: state %d has readers %v, want %v", c.states, len(reads), st, got, want[st])
			}
		}
		if len(ix.recs) != int(ix.start[c.states]) {
			t.Errorf("%d recs kept, the rows end at %d", len(ix.recs), ix.start[c.states])
		}
	}
}
