package diff

import (
	"slices"
	"testing"
)

func entry(src, verdict string, counts map[string]int64, bad ...string) Entry {
	return Entry{Source: src, SHA256: "sha-" + src, Verdict: verdict, Counts: counts, Bad: bad}
}

func set(entries ...Entry) Set {
	Keys(entries)
	return Set{Name: "x", Kind: "check", Entries: entries}
}

func TestKeys(t *testing.T) {
	cases := []struct {
		name    string
		sources []string
		want    []string
	}{
		{"one history - its file name", []string{"a/b/history.edn"}, []string{"history.edn"}},
		{"scan root stripped", []string{"old/r1/history.edn", "old/r2/history.edn"}, []string{"r1/history.edn", "r2/history.edn"}},
		{"archive members - the archive is a folder", []string{"ci.zip!/r1/h.edn", "ci.zip!/r2/h.edn"}, []string{"r1/h.edn", "r2/h.edn"}},
		{"nothing shared", []string{"a/h.edn", "b/h.edn"}, []string{"a/h.edn", "b/h.edn"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var es []Entry
			for _, s := range c.sources {
				es = append(es, Entry{Source: s})
			}
			Keys(es)
			var got []string
			for _, e := range es {
				got = append(got, e.Key)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	valid := func(src string) Entry { return entry(src, Valid, nil) }
	cases := []struct {
		name     string
		old, new []Entry
		worse    bool
		check    func(t *testing.T, r *Report)
	}{
		{"same - not worse", []Entry{valid("o/a.edn"), valid("o/b.edn")}, []Entry{valid("n/a.edn"), valid("n/b.edn")}, false,
			func(t *testing.T, r *Report) {
				if r.Matched != 2 || len(r.Changes) != 0 {
					t.Errorf("%+v", r)
				}
			}},
		{"valid to invalid - worse, type added", []Entry{valid("o/a.edn"), valid("o/b.edn")},
			[]Entry{valid("n/a.edn"), entry("n/b.edn", Invalid, map[string]int64{"G1c": 1}, "G1c")}, true,
			func(t *testing.T, r *Report) {
				if !slices.Equal(r.TurnedInvalid, []string{"n/b.edn"}) || len(r.Changes) != 1 || r.Changes[0].Added[0].Type != "G1c" {
					t.Errorf("%+v", r)
				}
				if len(r.NewTypes) != 1 || r.NewTypes[0].Type != "G1c" || !r.NewTypes[0].Bad {
					t.Errorf("new types %+v", r.NewTypes)
				}
			}},
		{"invalid to unknown - better", []Entry{entry("a.edn", Invalid, map[string]int64{"G1c": 1}, "G1c")},
			[]Entry{entry("a.edn", Unknown, map[string]int64{"cycle-search-timeout": 1})}, false, nil},
		{"valid to unknown - worse", []Entry{valid("a.edn")}, []Entry{entry("a.edn", Unknown, nil)}, true, nil},
		{"count grows - listed, not worse", []Entry{entry("a.edn", Invalid, map[string]int64{"lost-write": 2}, "lost-write")},
			[]Entry{entry("a.edn", Invalid, map[string]int64{"lost-write": 5}, "lost-write")}, false,
			func(t *testing.T, r *Report) {
				if len(r.Changes) != 1 || r.Changes[0].Changed[0] != (TypeChange{"lost-write", 2, 5, true}) {
					t.Errorf("%+v", r.Changes)
				}
			}},
		{"no longer readable - worse", []Entry{valid("a.edn")}, []Entry{{Source: "a.edn", Verdict: Error, Error: "bad"}}, true,
			func(t *testing.T, r *Report) {
				if !slices.Equal(r.TurnedUnreadable, []string{"a.edn"}) {
					t.Errorf("%+v", r)
				}
			}},
		{"renamed - matched by sha256", []Entry{valid("o/x/a.edn"), valid("o/y/b.edn")},
			[]Entry{{Source: "n/x/a.edn", SHA256: "sha-o/x/a.edn", Verdict: Valid}, {Source: "n/z/c.edn", SHA256: "sha-o/y/b.edn", Verdict: Valid}}, false,
			func(t *testing.T, r *Report) {
				if len(r.Renamed) != 1 || r.Renamed[0] != (Rename{"o/y/b.edn", "n/z/c.edn"}) || len(r.Missing)+len(r.Added) != 0 {
					t.Errorf("%+v", r)
				}
			}},
		{"missing and new - a new bad history is worse", []Entry{valid("o/a.edn"), valid("o/b.edn")},
			[]Entry{valid("n/a.edn"), entry("n/c.edn", Invalid, map[string]int64{"G0": 1}, "G0")}, true,
			func(t *testing.T, r *Report) {
				if len(r.Missing) != 1 || r.Missing[0].Source != "o/b.edn" || len(r.Added) != 1 || r.Added[0].Source != "n/c.edn" {
					t.Errorf("%+v", r)
				}
			}},
		{"two single results - paired whatever their names", []Entry{valid("old.edn")}, []Entry{entry("new.edn", Invalid, map[string]int64{"G1c": 1}, "G1c")}, true,
			func(t *testing.T, r *Report) {
				if r.Matched != 1 || r.Changes[0].MatchedBy != "only" {
					t.Errorf("%+v", r)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(set(c.old...), set(c.new...))
			if r.Worse != c.worse {
				t.Errorf("worse = %v, want %v: %+v", r.Worse, c.worse, r)
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}
