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
