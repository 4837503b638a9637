package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/atomicfile"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report"
	"github.com/hindsight-dev/hindsight/scan"
	"github.com/hindsight-dev/hindsight/workload"
)

// junitOut gathers the JUnit suites of a run (--format junit, --junit
// FILE; docs/ci.md): one per history, written once every history is
// checked.
type junitOut struct {
	file   string // --junit FILE, or ""
	mu     sync.Mutex
	suites []report.JUnitSuite // under mu: the memory cap's watchdog writes them too
}

// registerJUnit adds --junit FILE to check and scan.
func (f *checkFlags) registerJUnit(cmd *cobra.Command) {
	f.junit = &junitOut{}
	cmd.Flags().StringVar(&f.junit.file, "junit", "", "also write JUnit XML (one testsuite per history, one testcase per anomaly type) to this file, beside the --format output")
}

// wantsJUnit reports whether the run writes JUnit XML.
func (f *checkFlags) wantsJUnit() bool {
	return f.junit != nil && (f.format == "junit" || f.junit.file != "")
}

// addJUnit adds the suite of a checked history.
func (f *checkFlags) addJUnit(res *analysis.Result, h *model.History) {
	if f.wantsJUnit() {
		suite := report.JUnitSuiteOf(report.JUnitResult(res, report.HistoryLookup(h), f.maxExamples))
		f.junit.mu.Lock()
		f.junit.suites = append(f.junit.suites, suite)
		f.junit.mu.Unlock()
	}
}

// addJUnitError adds the suite of a history that could not be read.
func (f *checkFlags) addJUnitError(path string, err error) {
	if f.wantsJUnit() {
		f.junit.mu.Lock()
		f.junit.suites = append(f.junit.suites, report.JUnitUnreadable(path, "", 0, err.Error()))
		f.junit.mu.Unlock()
	}
}

// writeJUnit writes the gathered suites: to stdout for --format junit, to
// the --junit file (written whole, then renamed) when one is named.
func (f *checkFlags) writeJUnit(stdout io.Writer) error {
	if !f.wantsJUnit() {
		return nil
	}
	var b bytes.Buffer
	f.junit.mu.Lock()
	err := report.WriteJUnit(&b, f.junit.suites)
	f.junit.mu.Unlock()
	if err != nil {
		return err
	}
	if f.format == "junit" {
		if _, err := stdout.Write(b.Bytes()); err != nil {
			return err
		}
	}
	if f.junit.file != "" {
		if err := atomicfile.Write(f.junit.file, atomicfile.Options{}, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	return nil
}

// scanJUnit builds the suites of a finished scan from its histories
// table, one per row: a scan keeps counts, not explanations, so a failed
// case gives the count and the meaning (the anomalies table and
// hindsight check give the instances).
func (f *checkFlags) scanJUnit(sum *scan.Summary) error {
	if !f.wantsJUnit() {
		return nil
	}
	var table string
	for _, p := range sum.Files {
		if isHistoriesTable(p) {
			table = p
			break
		}
	}
	if table == "" {
		return errors.New("--junit: the scan wrote no histories table")
	}
	rows, err := scan.ReadHistories(table)
	if err != nil {
		return fmt.Errorf("--junit: reading back %s: %w", table, err)
	}
	for _, r := range rows {
		f.junit.suites = append(f.junit.suites, rowSuite(r))
	}
	return nil
}

// rowSuite is the JUnit suite of one scan row.
func rowSuite(r scan.HistoryRow) report.JUnitSuite {
	if r.Verdict == scan.VerdictError {
		return report.JUnitUnreadable(r.Path, r.SHA256, r.SizeBytes, r.Error)
	}
	return report.JUnitSuiteOf(report.JUnitSummary{
		Source: r.Path, Workload: r.Workload, Models: r.Models, SHA256: r.SHA256, Bytes: r.SizeBytes,
		Verdict: r.Verdict, UnknownReasons: r.UnknownReasons, Types: rowTypes(r), ElapsedMS: r.ElapsedMS,
	})
}

// rowTypes is report.TypeRows for a scan row: its types in the workload's
// order, each bad, allowed or (for a type that leaves the verdict
// undecided) unknown.
func rowTypes(r scan.HistoryRow) []report.TypeRow {
	var known []string
	if w, ok := workload.Lookup(r.Workload); ok {
		known = w.TypeNames()
	}
	types := slices.Clone(r.AnomalyTypes)
	slices.SortStableFunc(types, func(a, b string) int {
		ia, ib := slices.Index(known, a), slices.Index(known, b)
		if ia < 0 {
			ia = len(known)
		}
		if ib < 0 {
			ib = len(known)
		}
		return ia - ib
	})
	var out []report.TypeRow
	for _, t := range types {
		status := "allowed"
		if d, ok := workload.Describe(r.Workload, t); ok && d.Severity == workload.Undecided {
			status = "unknown"
		}
		if slices.Contains(r.BadTypes, t) {
			status = "bad"
		}
		out = append(out, report.TypeRow{Type: t, Count: int(r.Counts[t]), Status: status})
	}
	return out
}

// isHistoriesTable reports whether a file a scan wrote is its histories
// table in Parquet (histories.parquet, histories-i-of-n.parquet).
func isHistoriesTable(p string) bool {
	b := filepath.Base(p)
	return strings.HasPrefix(b, "histories") && strings.HasSuffix(b, ".parquet")
}
