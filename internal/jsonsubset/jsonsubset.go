// Package jsonsubset compares JSON documents the way the specification
// fixtures (testdata/<workload>/*.expected.json) state expectations: the
// expected document lists only the fields it cares about, at any depth.
package jsonsubset

import (
	"encoding/json"
	"reflect"
)

// Contains reports whether want is contained in got: objects may carry extra
// fields at any depth, arrays must match element by element, and scalars
// must be equal. It returns an error when either side is not JSON.
func Contains(want, got []byte) (bool, error) {
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return false, err
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return false, err
	}
	return contains(w, g), nil
}

func contains(w, g any) bool {
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			return false
		}
		for k, x := range wv {
			if !contains(x, gv[k]) {
				return false
			}
		}
		return true
	case []any:
		gv, ok := g.([]any)
		if !ok || len(gv) != len(wv) {
			return false
		}
		for i := range wv {
			if !contains(wv[i], gv[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(w, g)
}
