package jsonsubset

import "testing"

func TestContains(t *testing.T) {
	cases := []struct {
		name      string
		want, got string
		ok        bool
	}{
		{"extra field - contained", `{"a":1}`, `{"a":1,"b":2}`, true},
		{"nested extra field - contained", `{"s":[{"a":1}]}`, `{"s":[{"a":1,"z":0}]}`, true},
		{"different value - not contained", `{"a":1}`, `{"a":2}`, false},
		{"missing field - not contained", `{"a":1}`, `{"b":1}`, false},
		{"array length differs - not contained", `[1]`, `[1,2]`, false},
		{"type differs - not contained", `{"a":"1"}`, `{"a":1}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := Contains([]byte(tc.want), []byte(tc.got))
			if err != nil || ok != tc.ok {
				t.Fatalf("Contains = %v, %v; want %v", ok, err, tc.ok)
			}
		})
	}
}
