package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/scan"
)

// ErrInput wraps every error of Load: an input diff cannot read (exit
// status 3).
var ErrInput = errors.New("unreadable input")

// Load reads one side of a comparison from name, by what it holds:
//
//   - a scan's output folder, or a histories table (histories.parquet):
//     its rows (scan.ReadHistories);
//   - a file of check results (hindsight check --format json, one object a
//     line): each result;
//   - anything else (a history file, a store folder, ARCHIVE!/member): a
//     history, checked here with opts; one that cannot be read is an entry
//     with verdict error.
//
// Errors wrap ErrInput.
func Load(name string, opts check.Options) (Set, error) {
	set, err := load(name, opts)
	if err != nil {
		return set, fmt.Errorf("%w: %w", ErrInput, err)
	}
	Keys(set.Entries)
	return set, nil
}

func load(name string, opts check.Options) (Set, error) {
	fi, err := os.Stat(name)
	if err != nil {
		if _, _, ok := archive.Split(name); ok {
			return history(name, opts), nil
		}
		return Set{}, err
	}
	if fi.IsDir() {
		if tables, _ := filepath.Glob(filepath.Join(name, "histories*.parquet")); len(tables) > 0 {
			return scanSet(name)
		}
		if _, ok := ingest.StoreFile(name); !ok {
			return Set{}, fmt.Errorf("%s: a folder that is neither a scan's output (no histories.parquet) nor a Jepsen store folder (no history.edn); scan it first (hindsight scan -o)", name)
		}
		return history(name, opts), nil
	}
	head, err := readHead(name)
	if err != nil {
		return Set{}, err
	}
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return scanSet(name)
	case bytes.Contains(head, []byte(`"schema":"hindsight.check/`)):
		return checkSet(name)
	case bytes.Contains(head, []byte(`"histories":`)) && bytes.Contains(head, []byte(`"anomaly_types":`)):
		return Set{}, fmt.Errorf("%s: a scan's summary (scan --format json) has no rows; give the scan's output folder (-o) instead", name)
	}
	return history(name, opts), nil
}

// readHead returns the first 4 KB of a file.
func readHead(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}

// scanSet reads a scan's rows.
func scanSet(name string) (Set, error) {
	rows, err := scan.ReadHistories(name)
	if err != nil {
		return Set{}, err
	}
	s := Set{Name: name, Kind: "scan"}
	for _, r := range rows {
		e := Entry{Source: r.Path, SHA256: r.SHA256, Bytes: r.SizeBytes, Workload: r.Workload,
			Verdict: r.Verdict, Counts: map[string]int64{}, Bad: r.BadTypes, Error: r.Error}
		for t, n := range r.Counts {
			if n > 0 {
				e.Counts[t] = n
			}
		}
		s.Entries = append(s.Entries, e)
	}
	return s, nil
}

// checkResult is the part of a v1 check result diff reads.
type checkResult struct {
	Schema    string                       `json:"schema"`
	Source    string                       `json:"source"`
	SHA256    string                       `json:"sha256"`
	Bytes     int64                        `json:"bytes"`
	Workload  string                       `json:"workload"`
	Valid     json.RawMessage              `json:"valid"`
	BadTypes  []string                     `json:"bad_anomaly_types"`
	Anomalies map[string][]json.RawMessage `json:"anomalies"`
}

// checkSet reads check results, one JSON object after another.
func checkSet(name string) (Set, error) {
	f, err := os.Open(name)
	if err != nil {
		return Set{}, err
	}
	defer f.Close()
	s := Set{Name: name, Kind: "check"}
	dec := json.NewDecoder(bufio.NewReader(f))
	for n := 1; ; n++ {
		var r checkResult
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return Set{}, fmt.Errorf("%s: result %d: %w", name, n, err)
		}
		e := Entry{Source: r.Source, SHA256: r.SHA256, Bytes: r.Bytes, Workload: r.Workload, Bad: r.BadTypes, Counts: map[string]int64{}}
		switch string(r.Valid) {
		case "true":
			e.Verdict = Valid
		case "false":
			e.Verdict = Invalid
		case `"unknown"`:
			e.Verdict = Unknown
		default:
			return Set{}, fmt.Errorf("%s: result %d: valid is %s, not true, false or \"unknown\"", name, n, r.Valid)
		}
		for t, ins := range r.Anomalies {
			if len(ins) > 0 {
				e.Counts[t] = int64(len(ins))
			}
		}
		s.Entries = append(s.Entries, e)
	}
	if len(s.Entries) == 0 {
		return Set{}, fmt.Errorf("%s: no results in this file", name)
	}
	return s, nil
}

// history checks one history.
func history(name string, opts check.Options) Set {
	s := Set{Name: name, Kind: "history"}
	res, _, err := check.File(name, opts)
	if err != nil {
		d, _ := check.DigestFile(name)
		s.Entries = []Entry{{Source: name, SHA256: d.SHA256, Bytes: d.Bytes, Verdict: Error, Error: err.Error()}}
		return s
	}
	s.Entries = []Entry{FromResult(res)}
	return s
}

// FromResult is the entry of a check result.
func FromResult(res *analysis.Result) Entry {
	e := Entry{Source: res.Source, SHA256: res.SHA256, Bytes: res.Bytes, Workload: res.Workload,
		Verdict: res.Verdict.String(), Bad: res.BadTypes, Counts: map[string]int64{}}
	for t, ins := range res.Anomalies {
		if len(ins) > 0 {
			e.Counts[t] = int64(len(ins))
		}
	}
	return e
}
