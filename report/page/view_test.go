package page

import "testing"

func TestElideAndThousands(t *testing.T) {
	if got := Elide("ключ🔑ключ", 5); got != "ключ…" {
		t.Errorf("Elide = %q", got)
	}
	if got := Elide("short", 5); got != "short" {
		t.Errorf("Elide = %q", got)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q", n, got)
		}
	}
	if got := Anchor("G1c-realtime"); got != "anomaly-G1c-realtime" {
		t.Errorf("anchor %q", got)
	}
}
