package scan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"encoding/json"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/version"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report"
	"github.com/hindsight-dev/hindsight/workload"
)

// Options configure a scan. The zero value scans with the defaults below.
type Options struct {
	// Jobs is the number of histories checked at once (default: GOMAXPROCS,
	// the usable cores).
	Jobs int
	// OutDir receives the result tables (default "results").
	OutDir string
	// Shard selects this machine's part of the inputs (default: all).
	Shard Shard
	// IPC also writes each table as an Arrow IPC file (.arrow).
	IPC bool
	// HTMLDir, when set, receives an HTML report per invalid or unknown
	// history and an index.html linking them.
	HTMLDir string
	// Check are the analysis options, as for `hindsight check`.
	Check check.Options
	// MemoryBudget bounds, in bytes, the estimated memory of the histories
	// checked at once (default: DefaultMemoryBudget). See the package doc.
	MemoryBudget int64
	// Progress receives a progress bar (nil: none). Give it a terminal only.
	Progress io.Writer
	// CacheDir holds the per-history cache (default OutDir/.cache).
	CacheDir string
	// Rescan ignores cached rows (they are still written).
	Rescan bool
	// MaxHistoryBytes bounds one history's text (after decompression) and
	// its stored size: a bigger one is an error row, read no further than
	// the limit, so a decompression bomb cannot exhaust memory (default:
	// DefaultMaxHistoryBytes).
	MaxHistoryBytes int64
	// MemoryCeiling, with OnCeiling, is the process memory past which the
	// scan stops at once (ceiling.go): OnCeiling gets the error, after the
	// finished rows are written to a part file, and must end the process.
	// Zero: no ceiling.
	MemoryCeiling int64
	OnCeiling     func(error)
	// Version identifies the checker build in cache keys, so a new build
	// checks everything again (default: the SHA-256 of the running
	// executable).
	Version string
}

// ErrNoHistories is returned when the inputs hold no history at all.
var ErrNoHistories = errors.New("no histories found (looked for Jepsen store folders, .edn, .json and .jsonl files, optionally .gz or .zst, and inside .tar, .tar.gz, .tgz, .tar.zst and .zip archives)")

// result is what the scan keeps of a finished history: its row, and where
// its anomaly rows are (in memory, or in the cache under key).
type result struct {
	// skipped marks a file that is not a history (row.Path names it): no
	// row, only a count.
	skipped bool
	// member marks a history read from an archive, whose bytes the
	// progress bar counts as the archive is read; seq is its position in
	// the archive's walk, which orders members of the same name.
	member bool
	seq    int64
	// held is the bytes of a member read twice (streamAbove) that the
	// bar counts when its row comes, not as the walk passed it.
	held   int64
	row    HistoryRow
	anoms  []AnomalyRow
	key    string
	cached bool
	bad    int64  // bad anomaly instances
	report string // HTML report file name in HTMLDir, if any
	// ceiling marks the error row the memory ceiling gives a history
	// that was being checked (ceiling.go)
	ceiling bool
}

// testHooks let tests watch the workers; nil outside tests.
var testHooks struct {
	// checking gets +1 when a history is admitted to be checked, -1 when
	// its check is over.
	checking func(delta int)
	// done is called after each history's result is recorded.
	done func()
	// rerun is called when a history is read again alone.
	rerun func(path string)
	// setAside is called when the walk of an archive sets a large member
	// aside for the streaming pass.
	setAside func(path string)
	// bigPass is called as an archive's streaming pass begins.
	bigPass func(archivePath string)
	// budget gets the scan's memory budget when it is made.
	budget func(*budget)
	// checkRead, if set, is called as a history's check begins, where a
	// panic is taken as hindsight's own failure on that history.
	checkRead func(path string)
}

// internalError is a panic of hindsight's on one history: a bug, not the
// history's verdict, so its error row is not cached (a fixed build checks
// the history again) and the scan goes on with the others.
type internalError struct {
	path string
	p    any
}

func (e *internalError) Error() string {
	return fmt.Sprintf("%s: internal error: %v (a bug in hindsight: please report it, with the history if you can)", e.path, e.p)
}

// readChecked is check.Read, with a panic on the way (on this goroutine,
// or raised again from a worker's by par.Group) turned into an
// *internalError.
func readChecked(r io.Reader, path string, opts check.Options) (res *analysis.Result, h *model.History, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, h, err = nil, nil, &internalError{path: path, p: p}
		}
	}()
	if testHooks.checkRead != nil {
		testHooks.checkRead(path)
	}
	return check.Read(r, path, opts)
}

type scanner struct {
	opts  Options
	cache *cache
	mem   *budget
	parts *partWriter

	inflight *flights // histories being checked
}

// Run scans the histories found in inputs (files, directories and
// archives, see Discover), writes the result tables to opts.OutDir and
// returns the summary. Histories that cannot be read or checked become rows
// with their error; files that are not histories at all are skipped and
// counted (Summary.Skipped). Run itself fails only when it cannot do its
// job (an output cannot be written; no history found: ErrNoHistories) or
// when ctx is canceled.
//
// When ctx is canceled, no new history is started, histories being read
// are dropped, and Run returns ctx.Err() with the summary so far, without
// writing the tables: the rows finished before are in part files
// (Summary.Files; see the package doc) and in the cache, so running the
// same scan again finishes the job.
func Run(ctx context.Context, inputs []string, opts Options) (*Summary, error) {
	start := time.Now()
	if err := opts.Shard.Validate(); err != nil {
		return nil, err
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	if opts.Check.Analysis.Cores <= 0 {
		// each history checked at once gets its share of the cores
		// (workload.Options.Cores)
		opts.Check.Analysis.Cores = max(1, runtime.GOMAXPROCS(0)/opts.Jobs)
	}
	if opts.OutDir == "" {
		opts.OutDir = "results"
	}
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(opts.OutDir, ".cache")
	}
	if opts.MemoryBudget <= 0 {
		opts.MemoryBudget = DefaultMemoryBudget()
	}
	if opts.MaxHistoryBytes <= 0 {
		opts.MaxHistoryBytes = DefaultMaxHistoryBytes()
	}
	opts.Check.MaxBytes = opts.MaxHistoryBytes
	if opts.Version == "" {
		opts.Version = executableHash()
	}
	if opts.HTMLDir != "" {
		if err := report.AssetsAvailable(); err != nil {
			return nil, err
		}
		opts.Check.Analysis.Series = true // the report draws them
	}

	all := Discover(inputs)
	if len(all) == 0 {
		return nil, ErrNoHistories
	}
	var loose, archives []Input
	looseFound := 0
	for _, in := range all {
		switch {
		case in.Archive:
			archives = append(archives, in)
		default:
			looseFound++
			if opts.Shard.Contains(in.Path) {
				loose = append(loose, in)
			}
		}
	}

	for _, d := range []string{opts.OutDir, opts.CacheDir, opts.HTMLDir} {
		if d == "" {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	s := &scanner{opts: opts, cache: newCache(opts.CacheDir, opts.Check, opts.Version),
		mem: newBudget(opts.MemoryBudget), inflight: &flights{m: map[string]flight{}}}
	if testHooks.budget != nil {
		testHooks.budget(s.mem)
	}
	s.sweep()
	s.parts = s.startParts()
	keepParts := true
	defer func() {
		if keepParts {
			s.parts.finish(true)
		}
	}()

	stopWatch := s.watchCeiling()
	col := s.runAll(ctx, loose, archives)
	stopWatch()
	s.parts.halt()
	results, skipped := col.finish()
	sum := &Summary{Found: looseFound + int(col.found.Load()), Histories: len(results), Shard: opts.Shard,
		Skipped: len(skipped), SkippedFiles: skipped}

	types := map[string]*TypeSummary{}
	for _, r := range results {
		sum.add(&r.row, r.cached, types)
		if r.report != "" {
			sum.Reports++
		}
	}
	sum.setTypes(types)
	if err := ctx.Err(); err != nil {
		sum.Histories = col.mine()
		sum.Elapsed = time.Since(start)
		keepParts = false
		sum.Files, _ = s.parts.finish(true)
		return sum, err
	}
	if sum.Found == 0 || (!opts.Shard.Sharded() && len(results) == 0) {
		sum.Elapsed = time.Since(start)
		if sum.Skipped > 0 {
			return sum, fmt.Errorf("%w; skipped %d %s (--verbose lists them)",
				ErrNoHistories, sum.Skipped, plural(sum.Skipped, "file that is not a history", "files that are not histories"))
		}
		return sum, ErrNoHistories
	}
	files, err := s.writeTables(results)
	sum.Files = files
	if err == nil {
		keepParts = false
		s.parts.finish(false)
	}
	if err == nil && opts.HTMLDir != "" {
		var index string
		index, err = s.writeIndex(results, sum)
		sum.Files = append(sum.Files, index)
	}
	sum.Elapsed = time.Since(start)
	return sum, err
}

// job is one unit of work for a worker: a loose history file, or a member
// of an archive that the archive's reader is waiting to see read.
type job struct {
	in Input
	m  *memberJob
}

// runAll checks the loose inputs and the histories inside the archives
// with opts.Jobs workers. Loose files go the biggest first (so the longest
// ones do not start last); up to opts.Jobs archives are read at once, each
// front to back by a reader of its own that hands its members to the
// workers one at a time. Results are collected in any order (see
// collector.finish).
func (s *scanner) runAll(ctx context.Context, loose, archives []Input) *collector {
	var total int64
	for _, in := range loose {
		total += in.Size
	}
	for _, in := range archives {
		total += in.Size
	}
	bySize := func(inputs []Input) {
		slices.SortStableFunc(inputs, func(a, b Input) int {
			switch sa, sb := a.Size, b.Size; {
			case sa > sb:
				return -1
			case sa < sb:
				return 1
			}
			return 0
		})
	}
	bySize(loose)
	bySize(archives)
	col := &collector{superseded: map[string]bool{}, explicit: map[string]bool{}, parts: s.parts}
	col.pr = newProgress(s.opts.Progress, len(loose), total)
	col.inShard.Add(int64(len(loose)))
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range s.opts.Jobs {
		wg.Go(func() {
			for j := range jobs {
				var r *result
				switch {
				case ctx.Err() != nil:
					if j.m != nil {
						j.m.finished()
					}
					continue
				case j.m != nil:
					r = s.member(ctx, j.m)
				default:
					r = s.one(ctx, j.in)
				}
				if r != nil {
					col.add(r)
				}
			}
		})
	}
	var feeders sync.WaitGroup
	feeders.Go(func() {
		for _, in := range loose {
			select {
			case jobs <- job{in: in}:
			case <-ctx.Done():
				return
			}
		}
	})
	queue := make(chan Input)
	for range min(s.opts.Jobs, len(archives)) {
		feeders.Go(func() {
			for in := range queue {
				s.walkArchive(ctx, in, jobs, col)
			}
		})
	}
feed:
	for _, in := range archives {
		select {
		case queue <- in:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	feeders.Wait()
	close(jobs)
	wg.Wait()
	col.pr.stop(ctx.Err() != nil)
	return col
}

// ctxReader reads from r until ctx is canceled, and remembers the first
// error that is not io.EOF, so an I/O failure (never cached) can be told
// from a bad history (cached).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return 0, err
	}
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// tooBig is the error of a history whose stored size alone passes
// Options.MaxHistoryBytes.
func (s *scanner) tooBig(path string, size int64) error {
	return fmt.Errorf("%s: %d bytes, more than the limit of %d bytes for one history (--max-history-bytes); not read: %w",
		path, size, s.opts.MaxHistoryBytes, ingest.ErrTooLarge)
}

// weight is what checking a history of the given estimated uncompressed
// size takes from the memory budget, plus extra bytes held besides (an
// archive member's bytes), at most the whole budget.
func (s *scanner) weight(estimate, extra int64) int64 {
	if s.opts.MaxHistoryBytes > 0 {
		estimate = min(estimate, s.opts.MaxHistoryBytes)
	}
	return min(memoryCost(estimate, s.factor(), s.opts.MemoryBudget)+extra, s.opts.MemoryBudget)
}

// factor is the memory a history takes per byte of its text.
func (s *scanner) factor() int64 {
	if s.opts.HTMLDir != "" {
		return MemoryFactorHTML
	}
	return MemoryFactor
}

// tooLarge reports whether a history of n stored bytes passes
// MaxHistoryBytes (0: no limit).
func (s *scanner) tooLarge(n int64) bool {
	return s.opts.MaxHistoryBytes > 0 && n > s.opts.MaxHistoryBytes
}

// one checks one loose history file, or takes its rows from the cache. It
// returns nil when ctx was canceled before the history was done.
func (s *scanner) one(ctx context.Context, in Input) *result {
	if in.Err != nil {
		return &result{row: errorRow(in.Path, in.Size, "", in.Err)}
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return &result{row: errorRow(in.Path, in.Size, "", err)}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return &result{row: errorRow(in.Path, in.Size, "", err)}
	}
	if !fi.Mode().IsRegular() {
		return &result{row: errorRow(in.Path, in.Size, "", fmt.Errorf("%s: not a regular file", in.Path))}
	}
	size := fi.Size()
	var readErr error
	head := func(n int) []byte {
		b := make([]byte, min(size, int64(n)))
		k, err := f.ReadAt(b, 0)
		if err != nil && err != io.EOF && readErr == nil {
			readErr = err
		}
		return b[:k]
	}
	skip := notHistoryFile(head)
	if readErr != nil {
		return &result{row: errorRow(in.Path, size, "", fmt.Errorf("%s: %w", in.Path, readErr))}
	}
	if skip {
		return &result{skipped: true, row: HistoryRow{Path: in.Path}}
	}
	if s.tooLarge(size) && !compressed(head(4)) {
		return &result{row: errorRow(in.Path, size, "", s.tooBig(in.Path, size))}
	}

	hr := &ctxReader{ctx: ctx, r: f}
	hash := sha256.New()
	if _, err := io.Copy(hash, hr); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return &result{row: errorRow(in.Path, size, "", fmt.Errorf("%s: %w", in.Path, err))}
	}
	sha := hex.EncodeToString(hash.Sum(nil))
	key := s.cache.key(sha)
	if r, ok := s.cached(key, in.Path, size, ""); ok {
		return r
	}

	l, end, err := s.admit(ctx, s.weight(ingest.TextSize(f, size), 0))
	if err != nil {
		return nil
	}
	defer end()
	open := func() (io.Reader, *ctxReader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, err
		}
		rr := &ctxReader{ctx: ctx, r: f}
		return rr, rr, nil
	}
	return s.check(ctx, open, l, 0, in.Path, size, sha, key, "")
}

// admit takes n bytes of the memory budget for a check; end gives them
// back. The error is ctx's, when it was canceled first.
func (s *scanner) admit(ctx context.Context, n int64) (l *lease, end func(), err error) {
	if l, err = s.mem.acquire(ctx, n); err != nil {
		return nil, nil, err
	}
	if testHooks.checking != nil {
		testHooks.checking(1)
	}
	return l, func() {
		if testHooks.checking != nil {
			testHooks.checking(-1)
		}
		l.release()
	}, nil
}

// compressed reports whether a file's first bytes are gzip's or zstd's.
func compressed(head []byte) bool {
	return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b ||
		len(head) >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd
}

// cached returns the cached result under key, adapted to the path, size and
// archive it was found at now, unless the scan ignores the cache or a
// report of it is wanted and missing.
func (s *scanner) cached(key, path string, size int64, archivePath string) (*result, bool) {
	if s.opts.Rescan {
		return nil, false
	}
	e, ok := s.cache.head(key) // the rows are read back when the tables are written
	if !ok {
		return nil, false
	}
	r := &result{row: e.Row, key: key, cached: true}
	r.row.relocate(path, size, archivePath)
	r.bad = e.Bad
	if !s.wantsReport(&r.row) {
		return r, true
	}
	if name := reportName(r.row.Path); fileExists(filepath.Join(s.opts.HTMLDir, name)) {
		r.report = name
		return r, true
	}
	return nil, false // the report is missing: check again to write it
}

// check reads and checks the history that open opens (admitted already,
// holding l, with extra bytes held besides its check) and builds its
// result; open's *ctxReader, when not nil, tells an I/O failure of the
// file under it. The history's text is metered as it is read (l.meter):
// when its lease cannot grow, it is given back and the history is read
// again alone, holding the whole budget.
func (s *scanner) check(ctx context.Context, open func() (io.Reader, *ctxReader, error), l *lease, extra int64, path string, size int64, sha, key, archivePath string) *result {
	t0 := time.Now()
	var (
		res *analysis.Result
		h   *model.History
		err error
		rr  *ctxReader
	)
	for {
		var r io.Reader
		if r, rr, err = open(); err != nil {
			row := errorRow(path, size, sha, err)
			row.Archive = archivePath
			return &result{row: row}
		}
		opts := s.opts.Check
		opts.Meter = l.meter(ctx, path, s.factor(), extra)
		s.inflight.add(path, flight{size: size, sha: sha, archive: archivePath})
		res, h, err = readChecked(r, path, opts)
		s.inflight.remove(path)
		if !errors.Is(err, errRerun) {
			break
		}
		res, h = nil, nil
		l.release()
		nl, aerr := s.mem.acquire(ctx, s.opts.MemoryBudget)
		if aerr != nil {
			return nil
		}
		*l = *nl
		if testHooks.rerun != nil {
			testHooks.rerun(path)
		}
	}
	elapsed := time.Since(t0).Milliseconds()
	if ctx.Err() != nil {
		return nil
	}
	if rr != nil && rr.err != nil {
		// The file could not be read through: not the history's fault,
		// so not cached.
		row := errorRow(path, size, sha, err)
		row.Archive = archivePath
		return &result{row: row}
	}
	var (
		row  HistoryRow
		rows rowSource = rowSlice(nil)
		out            = &result{key: key}
	)
	if err != nil {
		row = errorRow(path, size, sha, err)
		row.ElapsedMS = elapsed
	} else {
		var ar anomalyRows
		row, ar = rowsOf(path, size, sha, h.Truncated, res, elapsed)
		rows, out.bad = ar, ar.bad()
		if s.wantsReport(&row) {
			name := reportName(row.Path)
			if err := writeReport(filepath.Join(s.opts.HTMLDir, name), res, h); err != nil {
				row.Warnings = append(row.Warnings, "HTML report not written: "+err.Error())
			} else {
				out.report = name
			}
		}
	}
	row.Archive = archivePath
	out.row = row
	var ie *internalError
	if _, ok := check.AsMemoryCapError(err); !ok && !errors.Is(err, ingest.ErrTooLarge) && !errors.As(err, &ie) {
		if s.cache.put(key, &row, rows) == nil {
			return out // the rows are read back from the entry when the tables are written
		}
	} // else not the content's verdict: a bigger --max-history-bytes or
	// --memory reads it, or a build without the bug; not cached
	anoms, err := allRows(rows)
	if err != nil {
		row = errorRow(path, size, sha, err)
		row.Archive = archivePath
		return &result{row: row}
	}
	out.key, out.anoms = "", anoms
	return out
}

// allRows builds every row of rows (none: an empty slice, not nil).
func allRows(rows rowSource) ([]AnomalyRow, error) {
	out := make([]AnomalyRow, 0, rows.count()) // grown by appends, 2M rows cost 5 s of copying
	err := rows.each(func(r *AnomalyRow) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// relocate adapts a cached row to the path and size it was found at now:
// the same content may sit at another path, and messages name the path.
func (r *HistoryRow) relocate(path string, size int64, archivePath string) {
	path = strings.ToValidUTF8(path, "\uFFFD")
	old := r.Path
	r.Path, r.SizeBytes, r.Archive = path, size, strings.ToValidUTF8(archivePath, "\uFFFD")
	if old == path || old == "" {
		return
	}
	r.Error = strings.ReplaceAll(r.Error, old, path)
	for i, w := range r.Warnings {
		r.Warnings[i] = strings.ReplaceAll(w, old, path)
	}
}

func countBad(anoms []AnomalyRow) int64 {
	var n int64
	for i := range anoms {
		if anoms[i].Bad {
			n++
		}
	}
	return n
}

func (s *scanner) wantsReport(r *HistoryRow) bool {
	return s.opts.HTMLDir != "" && (r.Verdict == VerdictInvalid || r.Verdict == VerdictUnknown)
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// eachAnomaly calls fn with each anomaly row of r, its path set, in
// order: from r's rows, or read back from its cache entry a window at a
// time (cache.eachRow; a row is valid only during its call). An error of
// fn ends it and is returned.
func (s *scanner) eachAnomaly(r *result, fn func(*AnomalyRow) error) error {
	if r.key == "" {
		for i := range r.anoms {
			r.anoms[i].Path = r.row.Path
			if err := fn(&r.anoms[i]); err != nil {
				return err
			}
		}
		return nil
	}
	var fnErr error
	err := s.cache.eachRow(r.key, func(a *AnomalyRow) error {
		a.Path = r.row.Path
		fnErr = fn(a)
		return fnErr
	})
	switch {
	case fnErr != nil:
		return fnErr
	case err != nil:
		return fmt.Errorf("%s: the cache entry %s could not be read back", r.row.Path, s.cache.path(r.key))
	}
	return nil
}

// outputNames returns the paths of the tables: histories and anomalies,
// Parquet then (with IPC) Arrow.
func (s *scanner) outputNames() (hpq, apq, hipc, aipc string) {
	sfx := s.opts.Shard.suffix()
	name := func(table, ext string) string {
		return filepath.Join(s.opts.OutDir, table+sfx+ext)
	}
	hpq, apq = name("histories", ".parquet"), name("anomalies", ".parquet")
	if s.opts.IPC {
		hipc, aipc = name("histories", ".arrow"), name("anomalies", ".arrow")
	}
	return
}

// sweep removes temporary files a killed scan of the same shard left
// behind: in OutDir those of this shard's outputs, and in the cache and
// HTMLDir those whose writer is gone (see cache.sweep).
func (s *scanner) sweep() {
	hpq, apq, _, _ := s.outputNames()
	sfx := s.opts.Shard.suffix()
	own := []string{filepath.Base(hpq), filepath.Base(apq), "histories" + sfx + ".arrow", "anomalies" + sfx + ".arrow"}
	entries, _ := os.ReadDir(s.opts.OutDir)
	for _, e := range entries {
		for _, o := range own {
			if strings.HasPrefix(e.Name(), "."+o+tempMark) {
				os.Remove(filepath.Join(s.opts.OutDir, e.Name()))
			}
		}
	}
	sweepDir(s.opts.OutDir) // parts of a dead scan
	s.cache.sweep()
	if s.opts.HTMLDir != "" {
		sweepDir(s.opts.HTMLDir)
	}
}

// provenance says which build and options produced the tables: the build
// line of hindsight --version, and the check options as JSON.
func (s *scanner) provenance() (build, options string) {
	o := s.opts.Check.Analysis
	o.Series = false
	b, _ := json.Marshal(struct {
		Workload string           `json:"workload,omitempty"`
		Analysis workload.Options `json:"analysis"`
	}{s.opts.Check.Workload, o})
	return version.Current().String(), string(b)
}

// writeTables writes the histories and anomalies tables, rows in path
// order (results are), and returns the files written.
func (s *scanner) writeTables(results []*result) ([]string, error) {
	hpq, apq, hipc, aipc := s.outputNames()
	return s.writeTablePair(results, hpq, apq, hipc, aipc)
}

// writeTablePair writes the rows of results as a histories and an
// anomalies table to the files named (IPC ones when not ""), each complete
// or absent, and returns them.
func (s *scanner) writeTablePair(results []*result, hpq, apq, hipc, aipc string) ([]string, error) {
	build, options := s.provenance()
	ht, err := newTableWriter(withRunMetadata(HistoriesSchema, build, options), hpq, hipc)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		appendHistory(ht.rb, &r.row)
		if err := ht.added(); err != nil {
			ht.abort()
			return nil, err
		}
	}
	at, err := newTableWriter(withRunMetadata(AnomaliesSchema, build, options), apq, aipc)
	if err != nil {
		ht.abort()
		return nil, err
	}
	for _, r := range results {
		err := s.eachAnomaly(r, func(a *AnomalyRow) error {
			appendAnomaly(at.rb, a)
			return at.added()
		})
		if err != nil {
			ht.abort()
			at.abort()
			return nil, err
		}
	}
	// Both tables are complete before either is renamed into place.
	if err := ht.commit(); err != nil {
		at.abort()
		return nil, err
	}
	if err := at.commit(); err != nil {
		return nil, err
	}
	files := []string{hpq, apq}
	if hipc != "" {
		files = append(files, hipc, aipc)
	}
	return files, nil
}

var (
	exeOnce sync.Once
	exeHash string
)

// executableHash returns the SHA-256 of the running executable, or "" when
// it cannot be read (then cache entries survive a rebuild: use
// Options.Version).
func executableHash() string {
	exeOnce.Do(func() {
		p, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(p)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			exeHash = hex.EncodeToString(h.Sum(nil))
		}
	})
	return exeHash
}
