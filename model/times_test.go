package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTimesKeepsEveryValue appends columns of every shape a history may
// have and wants each value back exactly, and from a column made by
// Concat of two halves split at every kind of place.
func TestTimesKeepsEveryValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func(i int, prev int64) int64{
		"increasing nanoseconds": func(_ int, prev int64) int64 { return prev + rng.Int64N(5_000_000) },
		"no time at all":         func(int, int64) int64 { return NoTime },
		"some ops without time": func(i int, prev int64) int64 {
			if i%7 == 3 {
				return NoTime
			}
			return prev + rng.Int64N(1000)
		},
		"running backwards":   func(_ int, prev int64) int64 { return prev - rng.Int64N(10) },
		"jumps of hours":      func(_ int, prev int64) int64 { return prev + rng.Int64N(4e12) },
		"anything at all":     func(int, int64) int64 { return int64(rng.Uint64()) },
		"extremes":            func(i int, _ int64) int64 { return []int64{math.MaxInt64, math.MinInt64 + 1, 0, -1, NoTime}[i%5] },
		"one late jump":       func(i int, prev int64) int64 { return map[bool]int64{true: prev + 1<<40, false: prev + 1}[i == 300] },
		"a base of NoTime-ok": func(i int, _ int64) int64 { return map[bool]int64{true: NoTime, false: int64(i)}[i%timeBlock == 0] },
	}
	for name, next := range shapes {
		t.Run(name, func(t *testing.T) {
			const n = 3*timeBlock + 77
			want := make([]int64, n)
			var x Times
			prev := int64(1_000)
			for i := range want {
				v := next(i, prev)
				if v != NoTime {
					prev = v
				}
				want[i] = v
				x.Append(v)
			}
			check := func(what string, x *Times) {
				t.Helper()
				if x.Len() != n {
					t.Fatalf("%s: Len %d, want %d", what, x.Len(), n)
				}
				for i, w := range want {
					if got := x.At(i); got != w {
						t.Fatalf("%s: At(%d) = %d, want %d", what, i, got, w)
					}
				}
			}
			check("appended", &x)
			for _, cut := range []int{0, 1, timeBlock - 1, timeBlock, timeBlock + 5, 2*timeBlock + 200, n} {
				var a, b Times
				for i, v := range want {
					if i < cut {
						a.Append(v)
					} else {
						b.Append(v)
					}
				}
				a.Concat(&b)
				check("concatenated", &a)
			}
		})
	}
}

// TestTimesCostsFourBytesAnOp checks the layout's point: a history's
// times in order take the delta column alone, no wide copy.
func TestTimesCostsFourBytesAnOp(t *testing.T) {
	var x Times
	for i := range 10 * timeBlock {
		x.Append(int64(i) * 1_000_003)
	}
	if len(x.wide) != 0 || len(x.blocks) != 10 {
		t.Fatalf("increasing times: %d wide values, %d blocks; want 0 and 10", len(x.wide), len(x.blocks))
	}
	x.Append(7)
	x.Append(-5) // back in time: the eleventh block turns wide
	if len(x.wide) != 2 || x.At(10*timeBlock) != 7 || x.At(10*timeBlock+1) != -5 {
		t.Fatalf("wide block: %d wide values, At = %d, %d", len(x.wide), x.At(10*timeBlock), x.At(10*timeBlock+1))
	}
}

// TestTimesGrowKeepsAndHolds: Grow keeps the times recorded, in narrow and
// wide blocks, and the room it makes takes that many appends without
// moving the column.
func TestTimesGrowKeepsAndHolds(t *testing.T) {
	var x Times
	want := []int64{5, NoTime, 7, -3, 1 << 40}
	for _, v := range want {
		x.Append(v)
	}
	x.Grow(1000)
	if x.Room() < 1000 {
		t.Fatalf("room %d after Grow(1000)", x.Room())
	}
	first := &x.delta[0]
	for i := range 1000 {
		v := int64(i) * 1_000_000
		x.Append(v)
		want = append(want, v)
	}
	if &x.delta[0] != first {
		t.Error("the column moved within the room Grow made")
	}
	for p, v := range want {
		if got := x.At(p); got != v {
			t.Fatalf("At(%d) = %d, want %d", p, got, v)
		}
	}
}
