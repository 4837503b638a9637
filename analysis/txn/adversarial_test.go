package txn

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/scaling"
	"github.com/hindsight-dev/hindsight/internal/testhist"
)

// TestAdversarialAllocs checks each adversarial history of
// BenchmarkAdversarial at n and 10n and requires the bytes allocated by
// the check to grow at most 12-fold: a check quadratic in one read, one
// txn, one key's writes or one process's ops grows about 100-fold.
func TestAdversarialAllocs(t *testing.T) { scaling.AllocGrowth(t, cases(), 300) }

// TestHugeGarbageReadBounded is issue 17's history: one 49 KB read of
// 10,000 elements nobody appended. Checking it (and writing its JSON
// result) must allocate O(n), not a copy of the read per element (4 GB
// before), and report the read as one garbage-read listing every element.
func TestHugeGarbageReadBounded(t *testing.T) {
	const n = 10_000
	var l testhist.Lines
	l.Pair(0, "txn", "[[:r :x nil]]", "ok", "[[:r :x ["+testhist.Ints(0, n, "%d")+"]]]")
	if l.Len() < 48_000 || l.Len() > 52_000 {
		t.Fatalf("history is %d bytes, want about 49 KB", l.Len())
	}
	h, p := testhist.Read(t, strings.NewReader(string(l.Bytes())), "huge-garbage.edn")
	var res *analysis.Result
	var out []byte
	used := scaling.Allocated(func() {
		res = CheckListAppend(h, p, DefaultOptions())
		var err error
		if out, err = json.Marshal(res); err != nil {
			t.Error(err)
		}
	})
	if used > 50<<20 {
		t.Errorf("check and JSON allocated %d MB, want under 50", used>>20)
	}
	if len(out) > 1<<20 {
		t.Errorf("JSON result is %d bytes, want under 1 MB", len(out))
	}
	if res.Verdict != analysis.Invalid || !slicesContain(res.BadTypes, GarbageRead) {
		t.Fatalf("%v %v, want invalid with garbage-read", res.Verdict, res.BadTypes)
	}
	ins := analysis.InstancesOf[*Instance](res, GarbageRead)
	if len(ins) != 1 || len(ins[0].Values) != n || ins[0].Element == nil || ins[0].Element.String() != "0" {
		t.Fatalf("%d garbage-read instances, want one listing %d elements from 0", len(ins), n)
	}
	for i, v := range ins[0].Values {
		if v.String() != fmt.Sprint(i) {
			t.Fatalf("garbage element %d is %s, want %d", i, v, i)
		}
	}
}

// TestHugeAbortedReadBounded checks that a read of n elements of a failed
// append, n G1a instances, prints O(n) JSON: each instance's mop lists
// the read's first MaxMopElements elements and mop_elements its length.
func TestHugeAbortedReadBounded(t *testing.T) {
	const n = 2000
	a := scaling.Find(t, cases(), "list-append/huge-read-aborted")
	h, p := a.Read(t, n)
	res := a.Check(h, p)
	a.Verify(t, res)
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 2<<20 {
		t.Errorf("JSON result is %d bytes, want under 2 MB", len(out))
	}
	ins := analysis.InstancesOf[*Instance](res, G1a)
	if len(ins) != n {
		t.Fatalf("%d G1a instances, want %d", len(ins), n)
	}
	in := ins[n-1]
	if in.Mop == nil || len(in.Mop.Value.Elems) != MaxMopElements || in.MopElements == nil || *in.MopElements != n ||
		in.Element == nil || in.Element.String() != fmt.Sprint(n-1) {
		t.Fatalf("last G1a: mop %v, mop_elements %v, element %v; want the first %d of %d elements, element %d",
			in.Mop, in.MopElements, in.Element, MaxMopElements, n, n-1)
	}
	if got := cutMopText(in); !strings.HasSuffix(got, "30 31]], the first of 2000 elements") {
		t.Fatalf("mop worded %q, want the first %d of %d elements", got, MaxMopElements, n)
	}
}

func slicesContain(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
