package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis/catalog"
)

// WriteJSON writes the report as one indented JSON object
// (hindsight.diff/v1).
func (r *Report) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteText writes the report for people: a verdict line, each changed
// history with its verdict change and types added, removed and changed in
// count, then (when either side holds several histories) the archive's
// summary: turned invalid, turned valid, turned unreadable, new types, and
// the histories renamed, new and missing. Every list is sorted.
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	verdict := "nothing got worse"
	if r.Worse {
		verdict = "WORSE"
	}
	fmt.Fprintf(&b, "%s (%s) -> %s (%s): %s\n", r.Old.Name, r.Old.Kind, r.New.Name, r.New.Kind, verdict)
	fmt.Fprintf(&b, "%s, %d changed, %d new, %d missing, %d renamed\n",
		catalog.Count(int64(r.Matched), "history in both", "histories in both"), len(r.Changes), len(r.Added), len(r.Missing), len(r.Renamed))
	for _, c := range r.Changes {
		name := c.New
		if c.Old != c.New {
			name = c.Old + " -> " + c.New
		}
		fmt.Fprintf(&b, "\n%s: %s -> %s", name, c.OldVerdict, c.NewVerdict)
		if c.Worse {
			fmt.Fprintf(&b, " (worse: %s)", strings.Join(c.Why, "; "))
		}
		b.WriteString("\n")
		if c.Error != "" {
			fmt.Fprintf(&b, "  error: %s\n", c.Error)
		}
		line := func(label string, ts []TypeChange, f func(TypeChange) string) {
			if len(ts) == 0 {
				return
			}
			parts := make([]string, len(ts))
			for i, t := range ts {
				parts[i] = f(t)
			}
			fmt.Fprintf(&b, "  %s: %s\n", label, strings.Join(parts, ", "))
		}
		line("added", c.Added, func(t TypeChange) string { return fmt.Sprintf("%s (%d%s)", t.Type, t.New, badNote(t.Bad)) })
		line("removed", c.Removed, func(t TypeChange) string { return fmt.Sprintf("%s (was %d%s)", t.Type, t.Old, badNote(t.Bad)) })
		line("count changed", c.Changed, func(t TypeChange) string { return fmt.Sprintf("%s %d -> %d", t.Type, t.Old, t.New) })
	}
	if len(r.Old.Entries) > 1 || len(r.New.Entries) > 1 || r.Old.Kind == "scan" || r.New.Kind == "scan" {
		b.WriteString("\n")
		list := func(label string, l []string) {
			if len(l) == 0 {
				fmt.Fprintf(&b, "%s: none\n", label)
				return
			}
			fmt.Fprintf(&b, "%s (%d):\n", label, len(l))
			for _, s := range l {
				fmt.Fprintf(&b, "  %s\n", s)
			}
		}
		list("turned invalid", r.TurnedInvalid)
		list("turned valid", r.TurnedValid)
		list("turned unreadable", r.TurnedUnreadable)
		var nt []string
		for _, t := range r.NewTypes {
			nt = append(nt, fmt.Sprintf("%s (%s; in %s)", t.Type, map[bool]string{true: "bad", false: "not bad"}[t.Bad], strings.Join(t.Histories, ", ")))
		}
		list("anomaly types new in the archive", nt)
		var added, missing, renamed []string
		for _, e := range r.Added {
			added = append(added, entryLine(e))
		}
		for _, e := range r.Missing {
			missing = append(missing, entryLine(e))
		}
		for _, rn := range r.Renamed {
			renamed = append(renamed, rn.Old+" -> "+rn.New+" (same sha256)")
		}
		list("new histories", added)
		list("missing histories", missing)
		list("renamed histories", renamed)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func badNote(bad bool) string {
	if bad {
		return ", bad"
	}
	return ""
}

// entryLine is a history with its verdict and types.
func entryLine(e Entry) string {
	s := e.Source + ": " + e.Verdict
	if e.Verdict == Error {
		return s + " (" + e.Error + ")"
	}
	var ts []string
	for _, t := range sortedKeys(e.Counts) {
		ts = append(ts, fmt.Sprintf("%s %d", t, e.Counts[t]))
	}
	if len(ts) > 0 {
		s += " (" + strings.Join(ts, ", ") + ")"
	}
	return s
}
