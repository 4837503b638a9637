package abort

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
)

// encode is in's JSON as report.JSON's encoder writes it.
func encode(t *testing.T, in any) string {
	t.Helper()
	return strings.TrimSuffix(testhist.JSONLine(t, in), "\n")
}

// readPaired reads src and pairs its ops.
func readPaired(t *testing.T, name, src string) (*model.History, model.Pairing) {
	t.Helper()
	h, err := ingest.Read(strings.NewReader(src), name, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.Pair(h)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

// fill sets every field of v (recursively, through pointers, slices and
// embedded structs) to a value that is not the zero value: a field the
// appender does not know shows up in encoding/json's output only.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if depth > 4 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth)
			}
		}
	case reflect.Slice:
		if depth > 4 {
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), depth+1)
		}
	case reflect.String:
		v.SetString(`s<&>"é` + "\u2028\x01")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(-3 - depth))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(1 + depth))
	}
}

// TestAppendJSON: Instance.AppendJSON writes what encoding/json writes,
// on every instance of the fixtures and the generated history under both
// contracts, on instances with every field set (fill: a field added to
// Instance, Pair, PollRef, RebalanceEvent, Subject or Evidence that the
// appender misses fails here) and with fields empty, and on keys of every
// kind and strings that need escaping.
func TestAppendJSON(t *testing.T) {
	var ins []*Instance
	for name, src := range sources(t) {
		h, p := readPaired(t, name, src)
		for _, c := range []Contract{ContractKafka, ContractRewind} {
			res := Check(h, p, Options{Contract: c})
			for _, typ := range res.AnomalyTypes {
				ins = append(ins, instancesOf(res, typ)...)
			}
		}
	}
	if len(ins) < 100 {
		t.Fatalf("%d instances", len(ins))
	}
	full := &Instance{}
	fill(reflect.ValueOf(full).Elem(), 0)
	ins = append(ins, full, &Instance{}, &Instance{Pair: &Pair{}, Offsets: []int64{}, Evidence: analysis.Evidence{Witness: []int64{}}})
	for _, a := range []model.Atom{model.IntAtom(-7), {Kind: model.KBigInt, Text: "123456789012345678901234"},
		{Kind: model.KNil}, {Kind: model.KKeyword, Text: ":t<1>"}, {Kind: model.KString, Text: "t\"1\\\n\xff"}} {
		v := analysis.AtomValue(a)
		ins = append(ins, &Instance{Subject: analysis.Subject{Key: &v}, Pair: &Pair{
			RebalanceEvents: []RebalanceEvent{{Type: &v, Keys: []analysis.Value{v, analysis.ListValue([]analysis.Value{v})}}}}})
	}
	for _, in := range ins {
		want := encode(t, in)
		if got := string(in.AppendJSON([]byte("x"))); got != "x"+want {
			t.Fatalf("AppendJSON\n%s\nencoding/json\n%s", got[1:], want)
		}
	}
}
