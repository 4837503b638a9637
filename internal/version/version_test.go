package version

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		in   Info
		want string
	}{
		{Info{Version: "(devel)", Go: "go1.26.8"}, "hindsight (devel), go1.26.8"},
		{Info{Version: "v1.2.0", Revision: "0123456789abcdef", Time: "2026-11-30T12:00:00Z", Modified: true, Go: "go1.26.8"},
			"hindsight v1.2.0, revision 0123456789ab (2026-11-30T12:00:00Z, modified), go1.26.8"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCurrent(t *testing.T) {
	c := Current()
	if c.Version == "" || !strings.HasPrefix(c.Go, "go") {
		t.Fatalf("%+v", c)
	}
}
