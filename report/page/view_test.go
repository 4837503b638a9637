package page

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

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

// TestCyclic checks the summaries' count of cyclic components: singular
// for one, the largest's size in its unit, no size when there are none.
func TestCyclic(t *testing.T) {
	for _, tc := range []struct {
		n, largest int64
		want       string
	}{
		{0, 0, "0 cyclic components"},
		{1, 1, "1 cyclic component of 1 txn"},
		{1, 4, "1 cyclic component of 4 txns"},
		{3, 1200, "3 cyclic components, the largest of 1,200 txns"},
	} {
		if got := Cyclic(tc.n, tc.largest, Thousands, "txn", "txns"); got != tc.want {
			t.Errorf("Cyclic(%d, %d) = %q, want %q", tc.n, tc.largest, got, tc.want)
		}
	}
	if got := catalog.Count(1, "key", "keys") + ", " + catalog.Count(0, "key", "keys"); got != "1 key, 0 keys" {
		t.Errorf("Count = %q", got)
	}
}

// TestExplanationCut checks that an explanation longer than
// MaxExplanationChars is cut on the page, with an omission saying so and
// pointing to the JSON, and that a shorter one is shown whole.
func TestExplanationCut(t *testing.T) {
	text := ""
	b := &Builder{hooks: Hooks{Explain: func(string, analysis.Instance, catalog.OpLookup) string { return text }}}
	text = strings.Repeat("é", MaxExplanationChars)
	if got := b.explanation("garbage-read", 1, nil); got != text || len(b.Omissions) != 0 {
		t.Fatalf("an explanation of %d characters was changed (%d runes) or noted (%q)", MaxExplanationChars, utf8.RuneCountInString(got), b.Omissions)
	}
	text = "op 1 read key 1 as [:r 1 [" + strings.Repeat("7 ", 1_000_000) + "]]"
	got := b.explanation("duplicate-elements", 2, nil)
	if n := utf8.RuneCountInString(got); n != MaxExplanationChars || !strings.HasPrefix(got, "op 1 read key 1 as") || !strings.HasSuffix(got, "…") {
		t.Fatalf("a 2 MB explanation became %d runes (%.40q…), want %d ending in …", n, got, MaxExplanationChars)
	}
	want := "duplicate-elements #2: its explanation is cut at 2,000 characters (of 2,000,028); the JSON report holds the whole instance."
	if len(b.Omissions) != 1 || b.Omissions[0] != want {
		t.Fatalf("omissions %q, want [%q]", b.Omissions, want)
	}
}

// TestNumbersOnThePage: the page's check time and proven counts carry
// separators as its other counts do; the text output's proven counts
// none, as its other numbers.
func TestNumbersOnThePage(t *testing.T) {
	if got := CheckTime(5050); got.Label != "check time" || got.Value != "5,050 ms" {
		t.Errorf("check time %+v", got)
	}
	r := &analysis.Result{ProvenCycles: map[string]int64{"G1c": 16510}, Anomalies: map[string][]analysis.Instance{"G1c": make([]analysis.Instance, 16511)}}
	for num, want := range map[string]string{"Thousands": "16,510 of 16,511 proven", "Decimal": "16510 of 16511 proven"} {
		f := map[string]func(int64) string{"Thousands": Thousands, "Decimal": Decimal}[num]
		if got := ProvenNote(r, "G1c", f); got != want {
			t.Errorf("%s: %q, want %q", num, got, want)
		}
	}
	if got := ProvenNote(r, "G0", Thousands); got != "" {
		t.Errorf("a type without cycles: %q", got)
	}
}
