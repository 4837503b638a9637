package tokenpass

import (
	"strings"
	"testing"
)

// TestScanCounts counts the tokens of an EDN and a JSON op line.
func TestScanCounts(t *testing.T) {
	var c Counts
	Scan([]byte(`{:index 12, :type :ok, :value [[:send "k" [3 -4]] #{1N}], :error "a\"b"} ; 99`+"\n"), false, &c)
	want := Counts{Bytes: c.Bytes, Lines: 1, Delims: 10, Keywords: 6, Strings: 2, Ints: 4, Sum: 12 + 3 - 4 + 1}
	if c != want {
		t.Errorf("EDN: got %+v, want %+v", c, want)
	}
	c = Counts{}
	Scan([]byte(`{"index": 12, "type": "ok", "value": [["send", 3, [0, 7]]], "x": null}`+"\n"), true, &c)
	want = Counts{Bytes: c.Bytes, Lines: 1, Delims: 8, Strings: 6, Ints: 4, Symbols: 1, Sum: 12 + 3 + 0 + 7}
	if c != want {
		t.Errorf("JSON: got %+v, want %+v", c, want)
	}
}

// TestReaderAcrossBuffers reads lines longer than its buffer, and many
// short ones across buffer boundaries, and gets the counts of one Scan.
func TestReaderAcrossBuffers(t *testing.T) {
	var sb strings.Builder
	for i := range 200000 {
		sb.WriteString("{:index 1, :time 2, :value [[:poll]]}\n")
		if i%50000 == 0 {
			sb.WriteString("{:error \"" + strings.Repeat("x", 3<<20) + "\"}\n")
		}
	}
	sb.WriteString("{:index 7}") // no final newline
	src := sb.String()
	got, err := Reader(strings.NewReader(src), false)
	if err != nil {
		t.Fatal(err)
	}
	var want Counts
	Scan([]byte(src), false, &want)
	if got != want {
		t.Errorf("Reader: %+v, one Scan: %+v", got, want)
	}
}
