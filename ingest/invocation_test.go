package ingest

import (
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// TestInvocationMopsHeldUntilCompletion: an invocation keeps its own
// micro-ops only when nothing else carries them (model.Op.Mops doc).
func TestInvocationMopsHeldUntilCompletion(t *testing.T) {
	src := `{:index 0, :type :invoke, :process 0, :f :send, :value [[:send 1 2]]}
{:index 1, :type :invoke, :process 1, :f :send, :value [[:send 1 3]]}
{:index 2, :type :ok, :process 0, :f :send, :value [[:send 1 [0 2]]]}
{:index 3, :type :info, :process 1, :f :send, :value nil}
{:index 4, :type :invoke, :process 2, :f :poll, :value [[:poll]]}
{:index 5, :type :invoke, :process 3, :f :send, :value [[:send 1 4]]}
{:index 6, :type :invoke, :process 3, :f :send, :value [[:send 1 5]]}
{:index 7, :type :ok, :process 3, :f :send, :value [[:send 1 [1 5]]]}
`
	h := readString(t, "h.edn", src, Options{})
	cases := []struct {
		name string
		pos  int
		want int
	}{
		{"completed by an op with micro-ops - dropped", 0, 0},
		{"completed by an op without a value - kept", 1, 1},
		{"never completed - kept", 4, 1},
		{"followed by another invocation - kept", 5, 1},
		{"the second invocation, completed - dropped", 6, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(h.MopsOf(&h.Ops[tc.pos])); got != tc.want {
				t.Errorf("op %d has %d micro-ops, want %d", tc.pos, got, tc.want)
			}
		})
	}
	p, _ := model.Pair(h)
	inv := h.InvocationMops(0, p)
	if len(inv) != 1 || inv[0].Done || h.Offset(&inv[0]) != model.NoOffset || h.MsgValue(inv[0].Msg).Int != 2 {
		t.Errorf("rebuilt invocation micro-ops %+v", inv)
	}
}

// TestCutAfterColon: a file cut right after the ':' of a keyword is
// truncated, not a syntax error.
func TestCutAfterColon(t *testing.T) {
	src := "{:index 0, :type :invoke, :process 0, :f :poll, :value [[:poll]]}\n{:index 1, :type :"
	h := readString(t, "cut.edn", src, Options{})
	if !h.Truncated || len(h.Ops) != 1 {
		t.Fatalf("truncated %v, %d ops; want truncated with 1 op", h.Truncated, len(h.Ops))
	}
	if _, err := Read(strings.NewReader("{:index 0, :type : :ok}"), "bad.edn", Options{}); err == nil {
		t.Fatal("a lone ':' inside the input must stay a syntax error")
	}
}
