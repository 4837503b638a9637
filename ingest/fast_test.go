package ingest

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// slowInteger is fastInteger's specification: lexer.fastInt on a buffer.
func slowInteger(buf []byte, p int) (int64, int) {
	u, s, q := intDigits(buf, p)
	if q == s || !fastEnd(buf, q) {
		return 0, -1
	}
	if s > p {
		return -int64(u), q
	}
	return int64(u), q
}

// TestFastInteger compares fastInteger with its specification on numbers
// of every length, followed by every kind of byte, at the end of the buffer
// or not.
func TestFastInteger(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var inputs []string
	for digits := 1; digits <= 22; digits++ {
		for range 20 {
			b := []byte{}
			if r.IntN(3) == 0 {
				b = append(b, '-')
			}
			for range digits {
				b = append(b, byte('0'+r.IntN(10)))
			}
			inputs = append(inputs, string(b))
		}
	}
	inputs = append(inputs, "", "-", "0", "-0", "007", "999999999999999999", "1000000000000000000")
	tails := []string{"", " ", ",", "]", "}", "\n", "a", ".5", "N", "/2", "x12345678", "\x00", "\xff", ":", "/", "9"}
	for _, in := range inputs {
		for _, tail := range tails {
			for _, pad := range []string{"", " 12345678"} {
				buf := []byte(in + tail + pad)
				v1, q1 := fastInteger(buf, 0)
				v2, q2 := slowInteger(buf, 0)
				if v1 != v2 || q1 != q2 {
					t.Fatalf("%q: fast (%d, %d), slow (%d, %d)", buf, v1, q1, v2, q2)
				}
				if q1 >= 0 {
					if want, _ := strconv.ParseInt(string(buf[:q1]), 10, 64); want != v1 {
						t.Fatalf("%q: %d, want %d", buf, v1, want)
					}
				}
			}
		}
	}
}

// FuzzFastInteger: fastInteger agrees with its specification on any bytes.
func FuzzFastInteger(f *testing.F) {
	f.Add([]byte("12345678 "), 0)
	f.Add([]byte("-1234567890123 x"), 0)
	f.Fuzz(func(t *testing.T, buf []byte, p int) {
		if p < 0 || p > len(buf) {
			return
		}
		v1, q1 := fastInteger(buf, p)
		v2, q2 := slowInteger(buf, p)
		if v1 != v2 || q1 != q2 {
			t.Fatalf("%q at %d: fast (%d, %d), slow (%d, %d)", buf, p, v1, q1, v2, q2)
		}
	})
}
