package queueview

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMinMax(t *testing.T) {
	var pts []float64
	for i := range 10_000 {
		pts = append(pts, float64(i%100))
	}
	pts[5000] = 1e6 // a spike
	pts[7000] = -1e6
	got := minMax(pts, 200, func(p *float64) float64 { return *p })
	if len(got) > 200 || got[0] != pts[0] || got[len(got)-1] != pts[len(pts)-1] {
		t.Errorf("%d points, first %v last %v", len(got), got[0], got[len(got)-1])
	}
	if !slices.Contains(got, 1e6) || !slices.Contains(got, -1e6) {
		t.Error("an extreme was dropped")
	}
	if small := minMax(pts[:50], 200, func(p *float64) float64 { return *p }); len(small) != 50 {
		t.Errorf("a short series lost points: %d", len(small))
	}
}

func TestAllocate(t *testing.T) {
	for _, tc := range []struct {
		sizes          []int
		budget, maxPer int
		want           []int
	}{
		{[]int{10, 1000, 1000}, 1010, 2000, []int{10, 500, 500}},
		{[]int{10, 20}, 1000, 2000, []int{10, 20}},
		{[]int{5000, 5000}, 100_000, 2000, []int{2000, 2000}},
		{[]int{1000, 1000, 1000, 1000}, 100, 2000, []int{50, 50, 50, 50}}, // the floor
	} {
		got := allocate(tc.sizes, tc.budget, tc.maxPer, 50)
		if !slices.Equal(got, tc.want) {
			t.Errorf("allocate(%v, %d, %d) = %v, want %v", tc.sizes, tc.budget, tc.maxPer, got, tc.want)
		}
	}
}

// TestReducerIsMinMax feeds random series one point at a time to the
// streaming reducer of the offset timelines and checks that it keeps
// exactly what minMax keeps of the whole series, for budgets below,
// around and above the series' length.
func TestReducerIsMinMax(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 3000 {
		n := r.IntN(300)
		pts := make([]timelinePoint, n)
		for i := range pts {
			pts[i] = timelinePoint{x: float64(i), y: float64(r.IntN(20)), op: int64(i)}
		}
		budget := r.IntN(n + 10)
		red := newReducer(n, budget)
		for _, p := range pts {
			red.add(p)
		}
		want := minMax(slices.Clone(pts), budget, func(p *timelinePoint) float64 { return p.y })
		if got := red.points(); !slices.Equal(got, want) {
			t.Fatalf("%d points, budget %d:\n got %v\nwant %v", n, budget, got, want)
		}
	}
}
