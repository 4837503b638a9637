package txn

import (
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// TestKeysRepeat: a repeated key is found in a short txn (pairwise) and
// a long one (through the marks), wherever it is, and none is found where
// there is none.
func TestKeysRepeat(t *testing.T) {
	tc := &txnChecks{keyMarks: newMarks(64)}
	for _, n := range []int{2, 3, 8, 9, 40} {
		mops := make([]model.Mop, n)
		for i := range mops {
			mops[i].Key = model.KeyID(i)
		}
		if tc.keysRepeat(mops) {
			t.Errorf("%d distinct keys: a repeat found", n)
		}
		for i := 1; i < n; i++ {
			for j := range i {
				mops[i].Key = mops[j].Key
				if !tc.keysRepeat(mops) {
					t.Fatalf("%d micro-ops, key of %d repeated at %d: not found", n, j, i)
				}
				mops[i].Key = model.KeyID(i)
			}
		}
	}
}
