package workload

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
)

func read(t *testing.T, edn string) *model.History {
	t.Helper()
	h, err := ingest.Read(strings.NewReader(edn), "h.edn", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, edn, want string
	}{
		{"queue - sends and polls", `{:type :invoke :process 0 :f :send :value [[:send 1 2]]}
{:type :ok :process 0 :f :send :value [[:send 1 [0 2]]]}`, "queue"},
		{"list-append - appends", `{:type :invoke :process 0 :value [[:append :x 1] [:r :y nil]]}
{:type :ok :process 0 :value [[:append :x 1] [:r :y [1 2]]]}`, "list-append"},
		{"list-append - list reads alone", `{:type :ok :process 0 :f :txn :value [[:r :y []]]}`, "list-append"},
		{"rw-register - writes", `{:type :invoke :process 0 :f :txn :value [[:r :y nil] [:w :x 1]]}`, "rw-register"},
		{"rw-register - a value read decides", `{:type :ok :process 0 :f :txn :value [[:r :y nil] [:r :x 3]]}`, "rw-register"},
		{"nil reads only - list-append", `{:type :invoke :process 0 :f :txn :value [[:r :y nil]]}`, "list-append"},
		{"nemesis ops only - queue", `{:type :info :process :nemesis :f :start :value [[:n1 :n2]]}`, "queue"},
		{"empty history - queue", ``, "queue"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Detect(read(t, tc.edn))
			if err != nil {
				t.Fatal(err)
			}
			if w.Name != tc.want {
				t.Errorf("detected %s, want %s", w.Name, tc.want)
			}
		})
	}
}

func TestDetectMixed(t *testing.T) {
	h := read(t, `{:index 0 :type :invoke :process 0 :value [[:append :x 1]]}
{:index 1 :type :ok :process 0 :value [[:append :x 1]]}
{:index 2 :type :invoke :process 1 :value [[:w :x 2]]}
{:index 3 :type :ok :process 1 :value [[:w :x 2]]}`)
	_, err := Detect(h)
	var me *MixedError
	if !errors.As(err, &me) {
		t.Fatalf("want a *MixedError, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"h.edn:4:", "op 3 has a :w micro-op", "rw-register", "op 1 (line 2)", ":append", "list-append", "--workload"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestTypesDescribed checks that every type of every workload has a
// meaning, a documentation path on its workload's page, and a rule for
// when it is bad, and that names are unique within a workload.
func TestTypesDescribed(t *testing.T) {
	for _, w := range All() {
		if w.Check == nil {
			continue
		}
		seen := map[string]bool{}
		for _, ty := range w.Types {
			if seen[ty.Name] {
				t.Errorf("%s lists %s twice", w.Name, ty.Name)
			}
			seen[ty.Name] = true
			if ty.Meaning == "" || ty.When == "" {
				t.Errorf("%s/%s: meaning %q, when %q", w.Name, ty.Name, ty.Meaning, ty.When)
			}
			if !strings.HasPrefix(ty.Doc, w.Doc+"#") || strings.ContainsAny(ty.Doc[len(w.Doc)+1:], " ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				t.Errorf("%s/%s: doc %q is not an anchor of %s", w.Name, ty.Name, ty.Doc, w.Doc)
			}
		}
	}
}

func TestAllTypesWithoutRepeats(t *testing.T) {
	all := AllTypes()
	if len(slices.Compact(slices.Sorted(slices.Values(all)))) != len(all) {
		t.Fatalf("AllTypes repeats a type: %v", all)
	}
	for _, w := range All() {
		for _, n := range w.TypeNames() {
			if !slices.Contains(all, n) {
				t.Errorf("AllTypes lacks %s's %s", w.Name, n)
			}
		}
	}
	q := MustLookup("queue").TypeNames()
	if !slices.Equal(all[:len(q)], q) {
		t.Errorf("AllTypes does not start with the queue's types in order")
	}
}

func TestDocAnchor(t *testing.T) {
	for in, want := range map[string]string{"lost-write": "lost-write", "G1c-process": "g1c-process",
		"G-single-item": "g-single-item", "PL-SS cycle": "pl-ss-cycle"} {
		if got := catalog.Anchor(in); got != want {
			t.Errorf("catalog.Anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDocAnchorsExist: every type's documentation anchor is a heading (or
// an <a id>) of its workload's page, so the links in reports land.
func TestDocAnchorsExist(t *testing.T) {
	for _, w := range All() {
		if w.Check == nil {
			continue
		}
		page, err := os.ReadFile(filepath.Join("..", w.Doc))
		if err != nil {
			t.Fatal(err)
		}
		anchors := map[string]bool{}
		for _, line := range strings.Split(string(page), "\n") {
			if h, ok := strings.CutPrefix(line, "## "); ok {
				anchors[catalog.Anchor(strings.Trim(h, "`"))] = true
			}
			for rest := line; ; {
				_, after, ok := strings.Cut(rest, `<a id="`)
				if !ok {
					break
				}
				id, tail, _ := strings.Cut(after, `"`)
				anchors[id] = true
				rest = tail
			}
		}
		for _, ty := range w.Types {
			if _, a, _ := strings.Cut(ty.Doc, "#"); !anchors[a] {
				t.Errorf("%s/%s: %s has no anchor #%s", w.Name, ty.Name, w.Doc, a)
			}
		}
	}
}
