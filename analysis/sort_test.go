package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// TestSortInstancesIsStableSort: sorting positions and moving the
// instances once gives what a stable sort of the instances gives.
func TestSortInstancesIsStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		ins := make([]Instance, r.IntN(300))
		for i := range ins {
			ins[i].Witness = []int64{int64(r.IntN(20))}
			if r.IntN(3) > 0 {
				ins[i].Key = AtomValuePtr(model.IntAtom(int64(r.IntN(4))))
			}
			ins[i].Cycle = []int64{int64(i)} // tells equal instances apart
		}
		want := slices.Clone(ins)
		slices.SortStableFunc(want, compareInstances)
		sortInstances(ins)
		for i := range ins {
			if ins[i].Cycle[0] != want[i].Cycle[0] {
				t.Fatalf("position %d holds instance %d, a stable sort puts %d there", i, ins[i].Cycle[0], want[i].Cycle[0])
			}
		}
	}
}
