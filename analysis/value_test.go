package analysis

import (
	"encoding/json"
	"testing"

	"github.com/hindsight-dev/hindsight/model"
)

// TestListValues checks that a list renders alike to JSON and text
// whether it keeps its elements as integers or as Values, with "..."
// first when it is known only by its end, and that AtomsValue falls back
// to Values at the first element that is not an integer.
func TestListValues(t *testing.T) {
	ints := []model.Atom{model.IntAtom(1), model.IntAtom(-2), model.IntAtom(30)}
	mixed := []model.Atom{model.IntAtom(1), {Kind: model.KKeyword, Text: ":x"}, {Kind: model.KString, Text: "a\"b"}, model.NilAtom}
	atoms := func(as []model.Atom) Value { return AtomsValue(len(as), func(i int) model.Atom { return as[i] }) }
	values := func(as []model.Atom) Value {
		vs := make([]Value, len(as))
		for i, a := range as {
			vs[i] = AtomValue(a)
		}
		return ListValue(vs)
	}
	etc := func(v Value) Value { return v.KnownByItsEnd() }
	for _, c := range []struct {
		name       string
		v          Value
		json, text string
		compact    bool
	}{
		{"ints", atoms(ints), `[1,-2,30]`, `[1 -2 30]`, true},
		{"ints as values", values(ints), `[1,-2,30]`, `[1 -2 30]`, true},
		{"mixed", atoms(mixed), `[1,":x","a\"b",null]`, `[1 :x "a\"b" nil]`, false},
		{"mixed as values", values(mixed), `[1,":x","a\"b",null]`, `[1 :x "a\"b" nil]`, false},
		{"empty", atoms(nil), `[]`, `[]`, true},
		{"empty as values", ListValue(nil), `[]`, `[]`, true},
		{"known by its end", etc(atoms(ints)), `["...",1,-2,30]`, `[... 1 -2 30]`, true},
		{"empty, known by its end", etc(atoms(nil)), `["..."]`, `[...]`, true},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.json {
			t.Errorf("%s: JSON %s (%v), want %s", c.name, b, err, c.json)
		}
		if got := c.v.String(); got != c.text {
			t.Errorf("%s: text %s, want %s", c.name, got, c.text)
		}
		if got := c.v.list.ints != nil; got != c.compact {
			t.Errorf("%s: kept as integers %v, want %v", c.name, got, c.compact)
		}
	}
	m := atoms(mixed)
	if m.Len() != len(mixed) || m.At(1).Text != ":x" || m.At(0).Int != 1 {
		t.Errorf("mixed list: Len %d, At(0) %v, At(1) %v", m.Len(), m.At(0), m.At(1))
	}
	if v := atoms(ints); v.Len() != 3 || v.At(2).Kind != model.KInt || v.At(2).Int != 30 {
		t.Errorf("int list: Len %d, At(2) %v", v.Len(), v.At(2))
	}
}
