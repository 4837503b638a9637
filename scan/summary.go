package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"

	"github.com/hindsight-dev/hindsight/check"
)

// Exit statuses of docs/README.md#exit-status.
const (
	ExitValid   = 0
	ExitInvalid = 1
	ExitUnknown = 2
	ExitInput   = 3
	// ExitMemory: a history could not be judged within the memory budget
	// (--memory); it ranks above invalid and below an input error.
	ExitMemory = 4
)

// Summary is what a scan found. Its JSON form (`hindsight scan --format
// json`) has the snake_case names of the tags below, the shard as "i/n" (""
// when not sharded) and elapsed_ms in place of Elapsed.
type Summary struct {
	// Found is the number of history files in the inputs (loose, and
	// inside archives), all shards together; Histories the number of rows
	// of this scan's shard (files skipped as not histories are not rows).
	Found     int `json:"found"`
	Histories int `json:"histories"`
	// Skipped counts the files of this shard that were not taken for
	// histories: their first value is not an op (results.edn-like
	// files, tool configs), or an earlier member of the same archive has
	// the same name. SkippedFiles lists them, sorted by path.
	Skipped      int           `json:"skipped"`
	SkippedFiles []SkippedFile `json:"skipped_files"`
	// Shard is the shard scanned.
	Shard Shard `json:"shard"`
	// Verdict counts over this shard's histories; Errors are the histories
	// that could not be read, parsed or checked.
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"`
	Unknown int `json:"unknown"`
	Errors  int `json:"errors"`
	// OverMemory counts the error rows of histories that could not be
	// judged within the memory budget (--memory), Errors included.
	OverMemory int `json:"over_memory"`
	// Cached is how many rows came from the cache; Done how many histories
	// were finished (less than Histories when the scan was interrupted).
	Cached int `json:"cached"`
	Done   int `json:"done"`
	// Bytes is the size of the histories on disk.
	Bytes int64 `json:"bytes"`
	// Types are the anomaly types found, most widespread first (histories,
	// then instances, then name).
	Types []TypeSummary `json:"anomaly_types"`
	// Files are the result files written, Reports the HTML reports.
	Files   []string `json:"files"`
	Reports int      `json:"html_reports"`
	// Elapsed is the wall time of the scan.
	Elapsed time.Duration `json:"-"`
	// FirstErrors are the error rows with the first paths (at most
	// MaxListedErrors, sorted by path, whatever order the histories
	// finished in): the text summary names them, so that a scan that
	// exits 3 says which histories it could not check and why without a
	// query of the histories table, which holds them all.
	FirstErrors []ErrorRow `json:"-"`
}

// ErrorRow is a history that could not be read, parsed or checked: its
// path and its error.
type ErrorRow struct {
	Path, Error string
}

// MaxListedErrors is how many error rows the text summary lists.
const MaxListedErrors = 10

// MarshalJSON writes the summary with elapsed_ms.
func (s *Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return json.Marshal(struct {
		*plain
		ElapsedMS int64 `json:"elapsed_ms"`
	}{(*plain)(s), s.Elapsed.Milliseconds()})
}

// TypeSummary counts one anomaly type over the scanned histories.
type TypeSummary struct {
	Type string `json:"type"`
	// Histories have at least one instance; in Invalidating ones the type
	// is among the bad types.
	Histories    int `json:"histories"`
	Invalidating int `json:"invalidating"`
	// Instances over all histories.
	Instances int64 `json:"instances"`
}

// ExitCode is the exit status of the scan (docs/README.md#exit-status, over all
// histories): 3 when any history could not be read, parsed or checked for
// another reason than memory, else 4 when any could not be judged within
// the memory budget, else 1 when any is invalid, else 2 when any is
// unknown, else 0.
func (s *Summary) ExitCode() int {
	switch {
	case s.Errors > s.OverMemory:
		return ExitInput
	case s.OverMemory > 0:
		return ExitMemory
	case s.Invalid > 0:
		return ExitInvalid
	case s.Unknown > 0:
		return ExitUnknown
	}
	return ExitValid
}

// add counts a finished history.
func (s *Summary) add(r *HistoryRow, cached bool, types map[string]*TypeSummary) {
	s.Done++
	if cached {
		s.Cached++
	}
	s.Bytes += r.SizeBytes
	switch r.Verdict {
	case VerdictValid:
		s.Valid++
	case VerdictInvalid:
		s.Invalid++
	case VerdictUnknown:
		s.Unknown++
	default:
		s.Errors++
		if strings.Contains(r.Error, check.MemoryCapPhrase) {
			s.OverMemory++
		}
		s.noteError(ErrorRow{r.Path, r.Error})
	}
	for typ, n := range r.Counts {
		if n == 0 {
			continue
		}
		t := types[typ]
		if t == nil {
			t = &TypeSummary{Type: typ}
			types[typ] = t
		}
		t.Histories++
		t.Instances += n
		if slices.Contains(r.BadTypes, typ) {
			t.Invalidating++
		}
	}
}

// noteError keeps e among FirstErrors if its path is among the first
// MaxListedErrors: O(MaxListedErrors) a row.
func (s *Summary) noteError(e ErrorRow) {
	i, _ := slices.BinarySearchFunc(s.FirstErrors, e.Path, func(x ErrorRow, p string) int { return strings.Compare(x.Path, p) })
	if i >= MaxListedErrors {
		return
	}
	s.FirstErrors = slices.Insert(s.FirstErrors, i, e)
	if len(s.FirstErrors) > MaxListedErrors {
		s.FirstErrors = s.FirstErrors[:MaxListedErrors]
	}
}

// setTypes fills s.Types from the per-type counts, sorted.
func (s *Summary) setTypes(types map[string]*TypeSummary) {
	s.Types = []TypeSummary{}
	for _, t := range types {
		s.Types = append(s.Types, *t)
	}
	slices.SortFunc(s.Types, func(a, b TypeSummary) int {
		switch {
		case a.Histories != b.Histories:
			return b.Histories - a.Histories
		case a.Instances != b.Instances:
			if a.Instances > b.Instances {
				return -1
			}
			return 1
		case a.Type < b.Type:
			return -1
		case a.Type > b.Type:
			return 1
		}
		return 0
	})
}

// WriteText writes the summary as text tables: the verdict counts, then
// the maxTypes most widespread anomaly types (all of them when maxTypes
// <= 0), then a line on the files written.
func (s *Summary) WriteText(w io.Writer, maxTypes int) error {
	var b bytes.Buffer
	what := fmt.Sprintf("%d %s", s.Histories, plural(s.Histories, "history", "histories"))
	if s.Shard.Sharded() {
		what = fmt.Sprintf("%d of %d %s (shard %s)", s.Histories, s.Found, plural(s.Found, "history", "histories"), s.Shard)
	}
	fmt.Fprintf(&b, "scanned %s, %s, in %s", what, sizeString(s.Bytes), s.Elapsed.Round(time.Millisecond))
	if s.Cached > 0 {
		fmt.Fprintf(&b, " (%d from the cache)", s.Cached)
	}
	b.WriteString("\n")
	notHist, dups := s.skippedCounts()
	if notHist > 0 {
		fmt.Fprintf(&b, "skipped %d %s that %s not histories (their first value is not an op; --verbose lists them)\n",
			notHist, plural(notHist, "file", "files"), plural(notHist, "is", "are"))
	}
	if dups > 0 {
		fmt.Fprintf(&b, "skipped %d archive %s with the name of an earlier member of the same archive\n", dups, plural(dups, "member", "members"))
	}
	t := tablewriter.NewWriter(&b)
	t.Header("verdict", "histories")
	for _, r := range [][2]string{
		{VerdictValid, strconv.Itoa(s.Valid)}, {VerdictInvalid, strconv.Itoa(s.Invalid)},
		{VerdictUnknown, strconv.Itoa(s.Unknown)}, {VerdictError, strconv.Itoa(s.Errors)},
		{"total", strconv.Itoa(s.Done)},
	} {
		if err := t.Append(r[0], r[1]); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	s.writeErrors(&b)
	if len(s.Types) == 0 {
		b.WriteString("no anomalies found\n")
	} else {
		t := tablewriter.NewWriter(&b)
		t.Header("anomaly type", "histories", "invalidating", "instances")
		n := len(s.Types)
		if maxTypes > 0 {
			n = min(n, maxTypes)
		}
		for _, ty := range s.Types[:n] {
			if err := t.Append(ty.Type, strconv.Itoa(ty.Histories), strconv.Itoa(ty.Invalidating),
				strconv.FormatInt(ty.Instances, 10)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		if n < len(s.Types) {
			fmt.Fprintf(&b, "... and %d more anomaly types (see the histories table)\n", len(s.Types)-n)
		}
	}
	for _, f := range s.Files {
		fmt.Fprintf(&b, "wrote %s\n", f)
	}
	if s.Reports > 0 {
		fmt.Fprintf(&b, "wrote %d HTML reports\n", s.Reports)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeErrors lists the first error rows, each error's first line cut
// at maxErrorChars, and says how many more the histories table holds.
func (s *Summary) writeErrors(b *bytes.Buffer) {
	if s.Errors == 0 {
		return
	}
	fmt.Fprintf(b, "%d %s could not be checked:\n", s.Errors, plural(s.Errors, "history", "histories"))
	for _, e := range s.FirstErrors {
		// the first line: a parse error's excerpt and caret follow it
		msg, _, _ := strings.Cut(e.Error, "\n")
		if len(msg) > maxErrorChars {
			msg = strings.ToValidUTF8(msg[:maxErrorChars], "") + " ..."
		}
		if !strings.HasPrefix(msg, e.Path) {
			msg = e.Path + ": " + msg // most errors name their file first
		}
		fmt.Fprintf(b, "  %s\n", msg)
	}
	if more := s.Errors - len(s.FirstErrors); more > 0 {
		fmt.Fprintf(b, "  ... and %d more (the histories table's error column holds every one)\n", more)
	}
}

// maxErrorChars cuts an error row's message in the text summary: a parse
// error quotes the op it stopped in, which may be megabytes long.
const maxErrorChars = 300

// skippedCounts splits the skipped files by reason.
func (s *Summary) skippedCounts() (notHistory, duplicate int) {
	for _, f := range s.SkippedFiles {
		if f.Reason == SkipDuplicate {
			duplicate++
		} else {
			notHistory++
		}
	}
	return
}

// WriteSkipped lists the skipped files, one a line with its reason (for
// --verbose).
func (s *Summary) WriteSkipped(w io.Writer) error {
	var b bytes.Buffer
	for _, f := range s.SkippedFiles {
		fmt.Fprintf(&b, "skipped %s: %s\n", f.Path, f.Reason)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sizeString formats a byte count in binary units.
func sizeString(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), 0
	for f >= unit && i < 4 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGT"[i-1])
}
