package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Part files keep the finished rows of a scan on disk as it goes, so that a
// scan that is killed, interrupted or stopped by a failure loses none of
// them (package doc, "Part files"). Every partBatch finished histories, or
// every partInterval, the rows finished since the last part are written as
// a pair of Parquet files in OutDir, histories<shard>.part-<run>-<n>.parquet
// and anomalies<shard>.part-<run>-<n>.parquet, each under a temporary name
// until complete. At the end the tables are written whole and every part of
// the shard is removed; when the scan is interrupted, the rows not yet in a
// part are written to a last one and the parts stay. A later run of the
// same shard leaves the earlier parts in place until its own tables are
// written, and does not write the rows of paths they already hold again, so
// the parts never hold a path twice.
var (
	partBatch    = 256
	partInterval = 2 * time.Second
)

// partWriter writes finished results to part files.
type partWriter struct {
	s    *scanner
	run  string
	have map[string]bool // paths in the parts of earlier runs

	mu      sync.Mutex
	pending []*result
	at      map[string]int // position in pending, by path
	n       int
	err     error // the first failure to write a part

	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	haltOnce sync.Once
}

// partPrefixes are the name prefixes of the shard's part files.
func (s *scanner) partPrefixes() (hist, anom string) {
	sfx := s.opts.Shard.suffix()
	return "histories" + sfx + ".part-", "anomalies" + sfx + ".part-"
}

// PartFiles returns the part files of the shard in dir, sorted.
func (s *scanner) partFiles() []string {
	hp, ap := s.partPrefixes()
	entries, _ := os.ReadDir(s.opts.OutDir)
	var out []string
	for _, e := range entries {
		n := e.Name()
		if (strings.HasPrefix(n, hp) || strings.HasPrefix(n, ap)) && strings.HasSuffix(n, ".parquet") {
			out = append(out, filepath.Join(s.opts.OutDir, n))
		}
	}
	return out
}

// startParts starts writing parts; stop it with finish.
func (s *scanner) startParts() *partWriter {
	pw := &partWriter{s: s, run: fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()), have: map[string]bool{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	hp, _ := s.partPrefixes()
	for _, p := range s.partFiles() {
		if strings.HasPrefix(filepath.Base(p), hp) {
			for _, path := range partPaths(p) {
				pw.have[path] = true
			}
		}
	}
	go func() {
		defer close(pw.done)
		t := time.NewTicker(partInterval)
		defer t.Stop()
		for {
			select {
			case <-pw.stop:
				return
			case <-t.C:
			case <-pw.kick:
			}
			pw.flush()
		}
	}()
	return pw
}

// add takes a finished result.
//
// A path is pending once: the memory ceiling's error row for a history
// that was being checked can meet that history's own row, when the check
// finished while the ceiling was taking its rows; the finished check's
// row is kept.
func (pw *partWriter) add(r *result) {
	if r.skipped {
		return
	}
	pw.mu.Lock()
	switch i, ok := pw.at[r.row.Path]; {
	case pw.have[r.row.Path]:
	case !ok:
		if pw.at == nil {
			pw.at = map[string]int{}
		}
		pw.at[r.row.Path] = len(pw.pending)
		pw.pending = append(pw.pending, r)
	case pw.pending[i].ceiling && !r.ceiling:
		pw.pending[i] = r
	}
	full := len(pw.pending) >= partBatch
	pw.mu.Unlock()
	if full {
		select {
		case pw.kick <- struct{}{}:
		default:
		}
	}
}

// flush writes the pending results to a part.
func (pw *partWriter) flush() {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if len(pw.pending) == 0 {
		return
	}
	rs := pw.pending
	pw.n++
	hp, ap := pw.s.partPrefixes()
	name := fmt.Sprintf("%s-%04d.parquet", pw.run, pw.n)
	_, err := pw.s.writeTablePair(rs, filepath.Join(pw.s.opts.OutDir, hp+name), filepath.Join(pw.s.opts.OutDir, ap+name), "", "")
	if err != nil {
		if pw.err == nil {
			pw.err = err
		}
		return // kept pending: the next flush tries again
	}
	for _, r := range rs {
		pw.have[r.row.Path] = true
	}
	pw.pending = nil
	clear(pw.at)
}

// finish stops the writer; when keep is set (an interrupted scan) the
// pending rows are written to a last part and the parts are kept,
// otherwise (the tables are written) every part of the shard is removed.
// It returns the parts left.
func (pw *partWriter) finish(keep bool) ([]string, error) {
	pw.halt()
	if keep {
		pw.flush()
		return pw.s.partFiles(), pw.err
	}
	for _, p := range pw.s.partFiles() {
		os.Remove(p)
	}
	return nil, nil
}

// halt stops writing parts on the way (the tables are about to be
// written from the same results).
func (pw *partWriter) halt() {
	pw.haltOnce.Do(func() {
		close(pw.stop)
		<-pw.done
	})
}

// partPaths reads the path column of a histories part; nil when it cannot
// be read.
func partPaths(path string) []string {
	var out []string
	info, err := readParquetRows(path, []string{"path"}, func(rows []map[string]any) error {
		for _, r := range rows {
			if p, ok := r["path"].(string); ok {
				out = append(out, p)
			}
		}
		return nil
	})
	if err != nil || !slices.Contains(info.columns, "path") {
		return nil
	}
	return out
}
