package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// sortTestInstance is an instance for the sort tests: a key, a witness,
// and the position it was added at, to tell equal ones apart.
type sortTestInstance struct {
	Subject
	Evidence
	added int
}

func (*sortTestInstance) InstanceCycle() *CycleFields { return nil }

// TestSortInstances: sortInstances orders lists large and small as the
// stable sort by compareInstances does, both where every lowest witness
// differs (the lists it sorts on their lowest witnesses) and where some
// are shared, by ops and by keys, some keys missing (sorted before the
// keys).
func TestSortInstances(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	keys := []*Value{nil, AtomValuePtr(model.IntAtom(1)), AtomValuePtr(model.IntAtom(2))}
	kinds := map[bool]int{} // lists sorted, by whether their lowest witnesses all differ
	for _, c := range []struct {
		n, ops int // ops 0: every lowest witness differs
	}{{10, 5}, {keyedSortMin - 1, 100}, {keyedSortMin, 0}, {50000, 0}, {50000, 40000}, {50000, 500}} {
		ins := make([]Instance, c.n)
		lows := r.Perm(c.n)
		distinct := c.ops == 0
		for i := range ins {
			w := []int64{int64(lows[i]), 1 << 40}
			if !distinct {
				w[0] = r.Int64N(int64(c.ops))
				if r.IntN(1000) == 0 {
					w = nil // no witness: the highest lowest
				}
			}
			ins[i] = &sortTestInstance{Subject: Subject{Key: keys[r.IntN(len(keys))]}, Evidence: Evidence{Witness: w}, added: i}
		}
		if c.n >= keyedSortMin {
			kinds[distinct]++
		}
		want := slices.Clone(ins)
		slices.SortStableFunc(want, compareInstances)
		got := slices.Clone(ins)
		sortInstances(got)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%d instances (lowest witnesses distinct: %v): at %d, instance added %d, want %d",
					c.n, distinct, i, got[i].(*sortTestInstance).added, want[i].(*sortTestInstance).added)
			}
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("large lists with distinct lowest witnesses and without: %v; the test misses a path", kinds)
	}
}

// BenchmarkSortInstances sorts 210,075 instances (as many as the
// abort-advance instances of bench/bench.sh's 1M-poll abort history) in
// random order, with sortInstances and with the stable sort it replaced:
// "distinct", whose lowest witnesses all differ, and "shared", which all
// share theirs (as a storm of poll-skips share the history's first send),
// with one of four keys each, made afresh at every call as a compact
// instance's are.
func BenchmarkSortInstances(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	distinct := make([]Instance, 210075)
	shared := make([]Instance, len(distinct))
	for i, low := range r.Perm(len(distinct)) {
		distinct[i] = &sortTestInstance{Evidence: Evidence{Witness: []int64{int64(low), 1 << 40}}, added: i}
		shared[i] = &freshKeyInstance{key: model.IntAtom(r.Int64N(4)), sortTestInstance: sortTestInstance{Evidence: Evidence{Witness: []int64{0, int64(low)}}, added: i}}
	}
	for _, in := range []struct {
		name string
		ins  []Instance
	}{{"distinct", distinct}, {"shared", shared}} {
		for _, s := range []struct {
			name string
			sort func([]Instance)
		}{{"keyed", sortInstances}, {"stable", func(x []Instance) { slices.SortStableFunc(x, compareInstances) }}} {
			b.Run(in.name+"/"+s.name, func(b *testing.B) {
				x := make([]Instance, len(in.ins))
				for b.Loop() {
					copy(x, in.ins)
					s.sort(x)
				}
			})
		}
	}
}

// freshKeyInstance is a sortTestInstance whose key is made afresh at every
// call, as a compact instance's is.
type freshKeyInstance struct {
	sortTestInstance
	key model.Atom
}

func (f *freshKeyInstance) InstanceKey() *Value { return AtomValuePtr(f.key) }
