package storename

import "testing"

// TestPick: the first name a folder holds wins, in the order of Names.
func TestPick(t *testing.T) {
	for _, c := range []struct {
		has  []string
		want string
		ok   bool
	}{
		{nil, "", false},
		{[]string{"results.edn"}, "", false},
		{[]string{"history.jsonl", "history.json.zst"}, "history.json.zst", true},
		{[]string{"history.edn.gz", "history.json"}, "history.edn.gz", true},
		{[]string{"history.edn.zst", "history.edn"}, "history.edn", true},
	} {
		set := map[string]bool{}
		for _, n := range c.has {
			set[n] = true
		}
		got, ok := Pick(func(n string) bool { return set[n] })
		if got != c.want || ok != c.ok {
			t.Errorf("Pick(%v) = %q, %v; want %q, %v", c.has, got, ok, c.want, c.ok)
		}
	}
}
