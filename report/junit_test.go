package report

import (
	"bytes"
	"encoding/xml"
	"testing"
)

// TestJUnitHostileText: strings from a history reach the XML escaped, a
// "]]>" does not end the CDATA early, and characters XML cannot hold
// become U+FFFD; the document reads back whole.
func TestJUnitHostileText(t *testing.T) {
	msg := "bad ]]> <script>x</script> & \x01\x1b end"
	var b bytes.Buffer
	if err := WriteJUnit(&b, []JUnitSuite{JUnitUnreadable("a\"<b>.edn", "", 0, msg)}); err != nil {
		t.Fatal(err)
	}
	var doc JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(doc.Suites) != 1 || doc.Errors != 1 || doc.Suites[0].Name != "a\"<b>.edn" {
		t.Fatalf("read back %+v", doc)
	}
	if got, want := doc.Suites[0].Cases[0].Error.Text, "bad ]]> <script>x</script> & \uFFFD\uFFFD end"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}
