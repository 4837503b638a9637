package analysis

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/model"
)

// Value is a key or value of the history as it goes to JSON: a number when it
// was an integer, a string otherwise (an EDN keyword :x becomes ":x"), null
// for model.KNil, or, when List is set, a list of values (a list-append
// read, an expected list state).
type Value struct {
	model.Atom
	List  bool
	Elems []Value
}

// AtomValue wraps an atom.
func AtomValue(a model.Atom) Value { return Value{Atom: a} }

// ListValue returns the list of the given values.
func ListValue(elems []Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{List: true, Elems: elems}
}

// MarshalJSON writes integers as numbers, nil as null, lists as arrays and
// everything else as strings.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.List {
		b := []byte{'['}
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			eb, err := e.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b = append(b, eb...)
		}
		return append(b, ']'), nil
	}
	switch v.Kind {
	case model.KInt:
		return strconv.AppendInt(nil, v.Int, 10), nil
	case model.KBigInt:
		return []byte(v.Text), nil
	case model.KNil:
		return []byte("null"), nil
	}
	return json.Marshal(v.Text)
}

// String renders the value for people: atoms as model.Atom.String, lists
// as [a b c].
func (v Value) String() string {
	if !v.List {
		return v.Atom.String()
	}
	parts := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Mop is one micro-op as it goes to JSON: [f, key, value], e.g.
// [":r", ":x", [1, 2]] or [":append", ":x", 3] (F is the EDN keyword, with
// its colon, like every keyword in the JSON); a read not made (an info
// txn's) has value null.
type Mop struct {
	F     string
	Key   Value
	Value Value
}

// MarshalJSON writes the micro-op as a three-element array.
func (m Mop) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{m.F, m.Key, m.Value})
}

// String renders the micro-op as EDN does: [:append :x 3].
func (m Mop) String() string {
	return "[" + m.F + " " + m.Key.String() + " " + m.Value.String() + "]"
}

// Pair is a [key, value] pair, as in torn-transaction's seen and missing.
type Pair [2]Value

// AtomValuePtr returns a pointer to the Value of a.
func AtomValuePtr(a model.Atom) *Value { v := Value{Atom: a}; return &v }
