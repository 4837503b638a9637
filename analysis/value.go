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
// read, an expected list state), read with Len and At.
//
// A list of integers keeps them as integers, 8 bytes each, instead of a
// Value (64 bytes) each: every instance that shows a read holds its own
// copy of the list, and a hostile history of one 3M-element read with
// duplicates and unwritten elements in it took 630 MB for its two
// instances' copies (an 11.7 MB file).
type Value struct {
	model.Atom
	List bool
	// Etc marks a list known only by its end (an expected state the txn
	// never read whole): it renders with "..." before its elements.
	Etc   bool
	elems []Value // the elements of a list, unless ints holds them
	ints  []int64 // the elements of a list of integers
}

// AtomValue wraps an atom.
func AtomValue(a model.Atom) Value { return Value{Atom: a} }

// ListValue returns the list of the given values, kept as integers when
// every one is a plain integer.
func ListValue(elems []Value) Value {
	ints := make([]int64, 0, len(elems))
	for _, e := range elems {
		if e.List || e.Kind != model.KInt {
			return Value{List: true, elems: elems}
		}
		ints = append(ints, e.Int)
	}
	return Value{List: true, ints: ints}
}

// AtomsValue returns the list of n atoms, the i-th at(i), built without a
// Value per element when all are plain integers.
func AtomsValue(n int, at func(i int) model.Atom) Value {
	ints := make([]int64, 0, n)
	for i := range n {
		a := at(i)
		if a.Kind != model.KInt {
			elems := make([]Value, n)
			for j, x := range ints {
				elems[j] = AtomValue(model.IntAtom(x))
			}
			for j := i; j < n; j++ {
				elems[j] = AtomValue(at(j))
			}
			return Value{List: true, elems: elems}
		}
		ints = append(ints, a.Int)
	}
	return Value{List: true, ints: ints}
}

// Len is the number of elements of a list (0 for an atom), "..." left out.
func (v Value) Len() int {
	if v.ints != nil {
		return len(v.ints)
	}
	return len(v.elems)
}

// At is element i of a list.
func (v Value) At(i int) Value {
	if v.ints != nil {
		return AtomValue(model.IntAtom(v.ints[i]))
	}
	return v.elems[i]
}

// etc is the "..." a list known only by its end starts with.
var etc = AtomValue(model.Atom{Kind: model.KOther, Text: "..."})

// MarshalJSON writes integers as numbers, nil as null, lists as arrays and
// everything else as strings.
func (v Value) MarshalJSON() ([]byte, error) {
	return v.appendJSON(nil), nil
}

// appendJSON appends the JSON of v to b.
func (v Value) appendJSON(b []byte) []byte {
	if v.List {
		b = append(b, '[')
		if v.Etc {
			b = etc.appendJSON(b)
		}
		for i := range v.Len() {
			if i > 0 || v.Etc {
				b = append(b, ',')
			}
			if v.ints != nil {
				b = strconv.AppendInt(b, v.ints[i], 10)
				continue
			}
			b = v.elems[i].appendJSON(b)
		}
		return append(b, ']')
	}
	switch v.Kind {
	case model.KInt:
		return strconv.AppendInt(b, v.Int, 10)
	case model.KBigInt:
		return append(b, v.Text...)
	case model.KNil:
		return append(b, "null"...)
	}
	s, _ := json.Marshal(v.Text) // a string always marshals
	return append(b, s...)
}

// String renders the value for people: atoms as model.Atom.String, lists
// as [a b c].
func (v Value) String() string {
	if !v.List {
		return v.Atom.String()
	}
	var sb strings.Builder
	sb.WriteByte('[')
	if v.Etc {
		sb.WriteString(etc.String())
	}
	for i := range v.Len() {
		if i > 0 || v.Etc {
			sb.WriteByte(' ')
		}
		if v.ints != nil {
			sb.WriteString(strconv.FormatInt(v.ints[i], 10))
			continue
		}
		sb.WriteString(v.elems[i].String())
	}
	sb.WriteByte(']')
	return sb.String()
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
