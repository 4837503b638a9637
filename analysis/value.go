package analysis

import (
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/model"
)

// Value is a key or value of the history as it goes to JSON: a number when it
// was an integer, a string otherwise (an EDN keyword :x becomes ":x"), null
// for model.KNil, or, when IsList, a list of values (a list-append read, an
// expected list state), read with Len and At.
//
// A Value is an atom and one pointer, 40 bytes: instances hold many
// (a poll-skip lists up to MaxSkipped values of the queue, and a hostile
// history gave 80,000 of them), and a list's parts live behind the pointer.
// A list of integers keeps them as integers, 8 bytes each, instead of a
// Value each: every instance that shows a read holds its own copy of the
// list, and a hostile history of one 3M-element read with duplicates and
// unwritten elements in it took 630 MB for its two instances' copies (an
// 11.7 MB file).
type Value struct {
	model.Atom
	list *list // nil for an atom
}

// list is the elements of a list value.
type list struct {
	// etc marks a list known only by its end (an expected state the txn
	// never read whole): it renders with "..." before its elements.
	etc   bool
	elems []Value // the elements, unless ints holds them
	ints  []int64 // the elements of a list of integers
}

// AtomValue wraps an atom.
func AtomValue(a model.Atom) Value { return Value{Atom: a} }

// ListValue returns the list of the given values, kept as integers when
// every one is a plain integer.
func ListValue(elems []Value) Value {
	ints := make([]int64, 0, len(elems))
	for _, e := range elems {
		if e.list != nil || e.Kind != model.KInt {
			return Value{list: &list{elems: elems}}
		}
		ints = append(ints, e.Int)
	}
	return Value{list: &list{ints: ints}}
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
			return Value{list: &list{elems: elems}}
		}
		ints = append(ints, a.Int)
	}
	return Value{list: &list{ints: ints}}
}

// IsList says whether v is a list (else an atom).
func (v Value) IsList() bool { return v.list != nil }

// Etc says whether v is a list known only by its end, which renders with
// "..." before its elements.
func (v Value) Etc() bool { return v.list != nil && v.list.etc }

// KnownByItsEnd returns list v marked as known only by its end (Etc); an
// atom is returned as it is.
func (v Value) KnownByItsEnd() Value {
	if v.list == nil {
		return v
	}
	l := *v.list
	l.etc = true
	return Value{Atom: v.Atom, list: &l}
}

// Len is the number of elements of a list (0 for an atom), "..." left out.
func (v Value) Len() int {
	switch {
	case v.list == nil:
		return 0
	case v.list.ints != nil:
		return len(v.list.ints)
	}
	return len(v.list.elems)
}

// At is element i of a list.
func (v Value) At(i int) Value {
	if v.list.ints != nil {
		return AtomValue(model.IntAtom(v.list.ints[i]))
	}
	return v.list.elems[i]
}

// etc is the "..." a list known only by its end starts with.
var etc = AtomValue(model.Atom{Kind: model.KOther, Text: "..."})

// MarshalJSON writes integers as numbers, nil as null, lists as arrays and
// everything else as strings.
func (v Value) MarshalJSON() ([]byte, error) {
	return v.AppendJSON(nil), nil
}

// AppendJSON appends the JSON of v to b, as MarshalJSON writes it.
func (v Value) AppendJSON(b []byte) []byte {
	if l := v.list; l != nil {
		b = append(b, '[')
		if l.etc {
			b = etc.AppendJSON(b)
		}
		for i := range v.Len() {
			if i > 0 || l.etc {
				b = append(b, ',')
			}
			if l.ints != nil {
				b = strconv.AppendInt(b, l.ints[i], 10)
				continue
			}
			b = l.elems[i].AppendJSON(b)
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
	return AppendJSONString(b, v.Text, true) // json.Marshal's, which escapes HTML
}

// String renders the value for people: atoms as model.Atom.String, lists
// as [a b c].
func (v Value) String() string {
	l := v.list
	if l == nil {
		return v.Atom.String()
	}
	var sb strings.Builder
	sb.WriteByte('[')
	if l.etc {
		sb.WriteString(etc.String())
	}
	for i := range v.Len() {
		if i > 0 || l.etc {
			sb.WriteByte(' ')
		}
		if l.ints != nil {
			sb.WriteString(strconv.FormatInt(l.ints[i], 10))
			continue
		}
		sb.WriteString(l.elems[i].String())
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
	return m.AppendJSON(nil), nil
}

// AppendJSON appends the micro-op's JSON to b, as MarshalJSON writes it:
// what json.Marshal writes for [F, Key, Value].
func (m Mop) AppendJSON(b []byte) []byte {
	b = AppendJSONString(append(b, '['), m.F, true)
	b = m.Key.AppendJSON(append(b, ','))
	return append(m.Value.AppendJSON(append(b, ',')), ']')
}

// String renders the micro-op as EDN does: [:append :x 3].
func (m Mop) String() string {
	return "[" + m.F + " " + m.Key.String() + " " + m.Value.String() + "]"
}

// Pair is a [key, value] pair, as in torn-transaction's seen and missing.
type Pair [2]Value

// AtomValuePtr returns a pointer to the Value of a.
func AtomValuePtr(a model.Atom) *Value { v := Value{Atom: a}; return &v }
