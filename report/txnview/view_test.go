package txnview

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
)

func TestWriteListAndSideBySide(t *testing.T) {
	for _, tc := range []struct {
		n          int
		head, tail int
		want       string
	}{
		{0, 2, 2, "[]"},
		{5, 2, 2, "[0 1 2 3 4]"},
		{6, 2, 2, "[0 1 … 2 more … 4 5]"},
		{1234, 3, 1, "[0 1 2 … 1,230 more … 1233]"},
	} {
		var sb strings.Builder
		page.WriteList(&sb, tc.n, tc.head, tc.tail, 1000, func(i int) string { return fmt.Sprint(i) })
		if sb.String() != tc.want {
			t.Errorf("page.WriteList(%d, %d, %d) = %q, want %q", tc.n, tc.head, tc.tail, sb.String(), tc.want)
		}
	}
	list := func(xs ...int) analysis.Value {
		var vs []analysis.Value
		for _, x := range xs {
			vs = append(vs, analysis.AtomValue(model.IntAtom(int64(x))))
		}
		return analysis.ListValue(vs)
	}
	var long []int
	for i := range 30 {
		long = append(long, i)
	}
	other := slices.Clone(long)
	other[20] = 99
	r := sideBySide([]int64{4, 8}, []analysis.Value{list(long...), list(other[:25]...)})
	if r.Diff != 20 || r.Indices[0] != 15 || len(r.Indices) != 13 || r.Rows[0].Before != 14 || r.Rows[0].After != 3 ||
		r.Rows[1].After != 0 || r.Rows[1].Cells[6].Text != "99" || !r.Rows[1].Cells[6].Diff || r.Rows[1].Cells[12].Text != "" {
		t.Errorf("side by side %+v", r)
	}
}
