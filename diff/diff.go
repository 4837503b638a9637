// Package diff compares two sets of results (hindsight diff OLD NEW;
// docs/ci.md): check results, a scan's history rows, or histories checked
// on the spot. It matches each history of OLD with one of NEW by its path
// relative to the set's root (its file name for a set of one), then, for
// those left, by the sha256 of its bytes, and says what changed: each
// verdict change, the anomaly types added, removed and changed in count,
// the histories that turned invalid or valid, the types new across the
// archive, and the histories renamed, new or missing.
//
// A change is worse when a verdict moves from valid to unknown or invalid,
// or from unknown to invalid; when a bad type appears (in a history of
// both sets, or in a history new in NEW); or when a history that was
// readable no longer is. Counts that grow are listed, not worse.
//
// Compare is pure: O(n log n) in the histories of both sets.
package diff

import (
	"path"
	"slices"
	"strings"
)

// Verdicts of an Entry.
const (
	Valid   = "valid"
	Invalid = "invalid"
	Unknown = "unknown"
	Error   = "error" // not read, parsed or checked
)

// Entry is one history's result.
type Entry struct {
	// Source is the history as the result names it.
	Source string `json:"source"`
	// Key is Source relative to its set's root (Set fills it).
	Key      string `json:"-"`
	SHA256   string `json:"sha256,omitempty"`
	Bytes    int64  `json:"bytes,omitempty"`
	Workload string `json:"workload,omitempty"`
	// Verdict is valid, invalid, unknown or error.
	Verdict string `json:"verdict"`
	// Counts are the instances of each anomaly type found; Bad the types
	// that make it invalid.
	Counts map[string]int64 `json:"counts,omitempty"`
	Bad    []string         `json:"bad_types,omitempty"`
	Error  string           `json:"error,omitempty"`
}

// Set is one side of a comparison.
type Set struct {
	// Name is what was given (a file, a folder); Kind says what it held:
	// "check" (check results), "scan" (a scan's table) or "history"
	// (histories checked by diff).
	Name    string  `json:"name"`
	Kind    string  `json:"kind"`
	Entries []Entry `json:"-"`
}

// rank orders verdicts from good to bad; error is apart.
func rank(v string) int {
	switch v {
	case Valid:
		return 0
	case Unknown:
		return 1
	case Invalid:
		return 2
	}
	return -1
}

// TypeChange is an anomaly type whose count differs.
type TypeChange struct {
	Type string `json:"type"`
	Old  int64  `json:"old"`
	New  int64  `json:"new"`
	Bad  bool   `json:"bad"` // bad in NEW (added, changed) or in OLD (removed)
}

// Change is one history present in both sets.
type Change struct {
	// Old and New are its source in OLD and in NEW.
	Old string `json:"old"`
	New string `json:"new"`
	// OldVerdict and NewVerdict are its verdicts: valid, invalid, unknown
	// or error.
	OldVerdict string `json:"old_verdict"`
	NewVerdict string `json:"new_verdict"`
	// MatchedBy is "path", "sha256" (renamed), or "only" (the only
	// history of two single results).
	MatchedBy string `json:"matched_by"`
	// Added are the types found in NEW only, Removed those in OLD only,
	// Changed those in both with another number of instances.
	Added   []TypeChange `json:"added"`
	Removed []TypeChange `json:"removed"`
	Changed []TypeChange `json:"changed"`
	// Error is NEW's error, for a history that turned unreadable.
	Error string `json:"error,omitempty"`
	// Worse says whether this history got worse, and Why in words.
	Worse bool     `json:"worse"`
	Why   []string `json:"why,omitempty"`
}

// Unchanged reports whether nothing differs but perhaps the name.
func (c *Change) Unchanged() bool {
	return c.OldVerdict == c.NewVerdict && len(c.Added)+len(c.Removed)+len(c.Changed) == 0
}

// NewType is an anomaly type found in NEW and in no history of OLD.
type NewType struct {
	Type      string   `json:"type"`
	Bad       bool     `json:"bad"`
	Histories []string `json:"histories"`
}

// Report is the comparison of two sets.
type Report struct {
	// Schema is the format's version (Schema).
	Schema string `json:"schema"`
	// Old and New are the two sets compared, as given.
	Old Set `json:"old"`
	New Set `json:"new"`
	// Worse is true when anything got worse (exit status 1).
	Worse bool `json:"worse"`
	// Matched counts the histories in both sets; Changes lists those with
	// a difference (or a new name), sorted by NEW's source.
	Matched int      `json:"matched"`
	Changes []Change `json:"changes"`
	// TurnedInvalid and TurnedValid are NEW sources whose verdict became
	// invalid, or valid.
	TurnedInvalid []string `json:"turned_invalid"`
	TurnedValid   []string `json:"turned_valid"`
	// TurnedUnreadable are NEW sources that were readable in OLD.
	TurnedUnreadable []string `json:"turned_unreadable"`
	// NewTypes are the types found in NEW and nowhere in OLD.
	NewTypes []NewType `json:"new_types"`
	// Added are histories only in NEW (with their results), Missing those
	// only in OLD; Renamed are matched by sha256 under another path.
	Added   []Entry  `json:"added"`
	Missing []Entry  `json:"missing"`
	Renamed []Rename `json:"renamed"`
}

// Rename is a history matched by its sha256 under a new path.
type Rename struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Schema names the JSON form of a Report.
const Schema = "hindsight.diff/v1"

// Keys sets each entry's Key: its source relative to the set's root, the
// longest folder all sources share (for a set of one, its file name). An
// archive member's path inside the archive counts as folders.
func Keys(entries []Entry) {
	if len(entries) == 1 {
		entries[0].Key = path.Base(slashes(entries[0].Source))
		return
	}
	var root []string
	for i, e := range entries {
		dirs := strings.Split(slashes(e.Source), "/")
		dirs = dirs[:len(dirs)-1]
		if i == 0 {
			root = dirs
			continue
		}
		n := 0
		for n < len(root) && n < len(dirs) && root[n] == dirs[n] {
			n++
		}
		root = root[:n]
	}
	for i := range entries {
		parts := strings.Split(slashes(entries[i].Source), "/")
		entries[i].Key = strings.Join(parts[len(root):], "/")
	}
}

// slashes writes a source with / between folders and after an archive's
// name (ARCHIVE!/member).
func slashes(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\\", "/"), "!/", "/")
}

// Compare compares OLD and NEW, whose entries have their Keys set.
func Compare(old, new Set) *Report {
	r := &Report{Schema: Schema, Old: old, New: new,
		Changes: []Change{}, TurnedInvalid: []string{}, TurnedValid: []string{}, TurnedUnreadable: []string{},
		NewTypes: []NewType{}, Added: []Entry{}, Missing: []Entry{}, Renamed: []Rename{}}
	oldBy := map[string]int{}
	for i, e := range old.Entries {
		if _, dup := oldBy[e.Key]; !dup {
			oldBy[e.Key] = i
		}
	}
	usedOld := make([]bool, len(old.Entries))
	matchOf := make([]int, len(new.Entries))
	how := make([]string, len(new.Entries))
	for j, e := range new.Entries {
		matchOf[j] = -1
		if i, ok := oldBy[e.Key]; ok && !usedOld[i] {
			matchOf[j], how[j], usedOld[i] = i, "path", true
		}
	}
	// Then by digest, among those left.
	oldBySHA := map[string][]int{}
	for i, e := range old.Entries {
		if !usedOld[i] && e.SHA256 != "" {
			oldBySHA[e.SHA256] = append(oldBySHA[e.SHA256], i)
		}
	}
	for j, e := range new.Entries {
		if matchOf[j] >= 0 || e.SHA256 == "" {
			continue
		}
		if c := oldBySHA[e.SHA256]; len(c) > 0 {
			matchOf[j], how[j], usedOld[c[0]] = c[0], "sha256", true
			oldBySHA[e.SHA256] = c[1:]
		}
	}
	if len(old.Entries) == 1 && len(new.Entries) == 1 && matchOf[0] < 0 {
		matchOf[0], how[0], usedOld[0] = 0, "only", true
	}
	oldTypes := map[string]bool{}
	for _, e := range old.Entries {
		for t := range e.Counts {
			oldTypes[t] = true
		}
	}
	newTypes := map[string]*NewType{}
	for j, e := range new.Entries {
		for t, n := range e.Counts {
			if n == 0 || oldTypes[t] {
				continue
			}
			nt := newTypes[t]
			if nt == nil {
				nt = &NewType{Type: t}
				newTypes[t] = nt
			}
			nt.Histories = append(nt.Histories, e.Source)
			nt.Bad = nt.Bad || slices.Contains(e.Bad, t)
		}
		if matchOf[j] < 0 {
			r.Added = append(r.Added, e)
			if len(e.Bad) > 0 {
				r.Worse = true
			}
			continue
		}
		r.Matched++
		o := old.Entries[matchOf[j]]
		c := compare(o, e, how[j])
		if how[j] == "sha256" && o.Key != e.Key {
			r.Renamed = append(r.Renamed, Rename{Old: o.Source, New: e.Source})
		}
		if c.NewVerdict == Invalid && c.OldVerdict != Invalid {
			r.TurnedInvalid = append(r.TurnedInvalid, e.Source)
		}
		if c.NewVerdict == Valid && c.OldVerdict != Valid {
			r.TurnedValid = append(r.TurnedValid, e.Source)
		}
		if c.NewVerdict == Error && c.OldVerdict != Error {
			r.TurnedUnreadable = append(r.TurnedUnreadable, e.Source)
		}
		r.Worse = r.Worse || c.Worse
		if !c.Unchanged() || how[j] == "sha256" && o.Key != e.Key {
			r.Changes = append(r.Changes, c)
		}
	}
	for i, e := range old.Entries {
		if !usedOld[i] {
			r.Missing = append(r.Missing, e)
		}
	}
	for _, nt := range newTypes {
		slices.Sort(nt.Histories)
		r.NewTypes = append(r.NewTypes, *nt)
	}
	slices.SortFunc(r.NewTypes, func(a, b NewType) int { return strings.Compare(a.Type, b.Type) })
	slices.SortFunc(r.Changes, func(a, b Change) int { return strings.Compare(a.New, b.New) })
	bySource := func(a, b Entry) int { return strings.Compare(a.Source, b.Source) }
	slices.SortFunc(r.Added, bySource)
	slices.SortFunc(r.Missing, bySource)
	slices.SortFunc(r.Renamed, func(a, b Rename) int { return strings.Compare(a.New, b.New) })
	for _, l := range [][]string{r.TurnedInvalid, r.TurnedValid, r.TurnedUnreadable} {
		slices.Sort(l)
	}
	return r
}

// compare compares one history's two results.
func compare(o, n Entry, how string) Change {
	c := Change{Old: o.Source, New: n.Source, OldVerdict: o.Verdict, NewVerdict: n.Verdict, MatchedBy: how,
		Added: []TypeChange{}, Removed: []TypeChange{}, Changed: []TypeChange{}}
	if n.Verdict == Error {
		c.Error = n.Error
	}
	for _, t := range sortedKeys(n.Counts) {
		on, nn := o.Counts[t], n.Counts[t]
		switch {
		case on == 0 && nn > 0:
			c.Added = append(c.Added, TypeChange{Type: t, New: nn, Bad: slices.Contains(n.Bad, t)})
		case on != nn:
			c.Changed = append(c.Changed, TypeChange{Type: t, Old: on, New: nn, Bad: slices.Contains(n.Bad, t)})
		}
	}
	for _, t := range sortedKeys(o.Counts) {
		if o.Counts[t] > 0 && n.Counts[t] == 0 {
			c.Removed = append(c.Removed, TypeChange{Type: t, Old: o.Counts[t], Bad: slices.Contains(o.Bad, t)})
		}
	}
	if ro, rn := rank(o.Verdict), rank(n.Verdict); ro >= 0 && rn > ro {
		c.Why = append(c.Why, "verdict "+o.Verdict+" -> "+n.Verdict)
	}
	if o.Verdict != Error && n.Verdict == Error {
		c.Why = append(c.Why, "no longer readable")
	}
	for _, t := range n.Bad {
		if !slices.Contains(o.Bad, t) {
			c.Why = append(c.Why, "bad type "+t+" appeared")
		}
	}
	c.Worse = len(c.Why) > 0
	return c
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
