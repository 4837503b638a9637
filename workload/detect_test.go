package workload

import (
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// TestOwnerTable: Detect's table of owners says what asking every
// workload says, for every micro-op kind, done or not, and past the last.
func TestOwnerTable(t *testing.T) {
	own := owners()
	seen := map[*Workload]bool{}
	for k := model.MopKind(0); int(k) <= model.MopKinds; k++ {
		for _, done := range []bool{false, true} {
			m := &model.Mop{Kind: k, Done: done}
			if got, want := own.of(m), owner(m.Kind, m.Done); got != want {
				t.Errorf("kind %v done %v: table %v, owner %v", k, done, got, want)
			}
			seen[own.of(m)] = true
		}
	}
	if len(seen) < 4 { // queue, list-append, rw-register and none
		t.Errorf("%d owners met", len(seen))
	}
}
