package scan

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/hindsight-dev/hindsight/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hindsight-dev/hindsight/check"
)

// cache keeps the rows computed for a history under a key derived from its
// content, so a rerun (after an interruption, or over a grown archive)
// checks only what it has not checked with the same checker and options.
//
// An entry is a file DIR/kk/KEY.entry (kk: the key's first two hex
// digits) in the format of entryMagic (entry.go); it is written to a
// temporary name in the same directory and renamed, so a reader never sees
// half an entry. An entry that cannot be read or decoded is a miss.
type cache struct {
	dir  string
	salt string // hash of everything but the content that the rows depend on
}

// cacheEntry is what the cache stores per key: the history row, the count
// of its bad anomaly rows, and the anomaly rows (nil when only the head
// was read).
type cacheEntry struct {
	Row       HistoryRow
	Bad       int64
	Anomalies []AnomalyRow
}

// newCache returns the cache in dir for rows computed with opts by the
// checker build version.
func newCache(dir string, opts check.Options, version string) *cache {
	opts.Analysis.Series = false // the series change no row
	opts.Analysis.Cores = 0      // nor does how a check splits its work
	opts.MaxBytes = 0            // rows of histories past it are not cached
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%+v", SchemaVersion, version, opts)
	return &cache{dir: dir, salt: hex.EncodeToString(h.Sum(nil))}
}

// key returns the cache key of a file whose content has the given sha256.
func (c *cache) key(contentSHA string) string {
	h := sha256.Sum256([]byte(c.salt + "\x00" + contentSHA))
	return hex.EncodeToString(h[:])
}

func (c *cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".entry")
}

// eachRow calls fn with each anomaly row of the entry under key, in order,
// reading the entry a window at a time (readEntryRows: a row is valid only
// during its call). A miss, or an entry cut, grown or corrupt, is
// errBadEntry or the file's error, possibly after fn has seen some rows;
// an error of fn ends the read and is returned.
func (c *cache) eachRow(key string, fn func(*AnomalyRow) error) error {
	return c.open(key, func(r io.Reader) error {
		_, err := readEntryRows(r, fn)
		return err
	})
}

// open calls read with the entry under key up to its trailer, once the
// trailer says the file has the length it was written with.
func (c *cache) open(key string, read func(io.Reader) error) error {
	f, err := os.Open(c.path(key))
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var end [entryTrailer]byte
	if fi.Size() < entryTrailer {
		return errBadEntry
	}
	if _, err := f.ReadAt(end[:], fi.Size()-entryTrailer); err != nil || !trailerFits(end[:], fi.Size()) {
		return errBadEntry // cut or grown since it was written
	}
	return read(io.NewSectionReader(f, 0, fi.Size()-entryTrailer))
}

// head returns the entry under key without its anomaly rows (Bad counts
// them), reading no more of the file than its head, or false on a miss.
func (c *cache) head(key string) (*cacheEntry, bool) {
	var e *cacheEntry
	err := c.open(key, func(r io.Reader) (err error) {
		e, _, err = readEntryHead(bufio.NewReader(r))
		return err
	})
	return e, err == nil
}

// put stores an entry under key: a temporary file, then a rename.
func (c *cache) put(key string, row *HistoryRow, anoms rowSource) error {
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeAtomic(p, false, func(w io.Writer) error {
		return encodeEntry(w, row, anoms)
	})
}

// sweep removes temporary files left in the cache by a scan that was
// killed: those of a process of this host that is gone, and any older than
// a day (their host's processes cannot be asked).
func (c *cache) sweep() {
	dirs, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, d := range dirs {
		if d.IsDir() {
			sweepDir(filepath.Join(c.dir, d.Name()))
		}
	}
}

// sweepDir removes the stale temporary files of dir (see cache.sweep).
func sweepDir(dir string) {
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if stale(f) {
			os.Remove(filepath.Join(dir, f.Name()))
		}
	}
}

// stale reports whether e is a temporary file whose writer is gone: made
// by a process of this host that no longer runs, or older than a day.
func stale(e os.DirEntry) bool {
	if !isTemp(e.Name()) {
		return false
	}
	if host, pid, ok := tempOwner(e.Name()); ok && host == hostname() && !processAlive(pid) {
		return true
	}
	fi, err := e.Info()
	return err == nil && time.Since(fi.ModTime()) > 24*time.Hour
}

// tempMark is in the name of every temporary file the scanner writes.
const tempMark = ".tmp-"

func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMark)
}

// createTemp starts writing path under a temporary file: in path's directory,
// named "." + base + ".tmp-" + host + "-" + pid + "-" + random, so a glob
// for path's kind never matches it and a later scan can tell whether its
// writer is gone.
func createTemp(path string) (*atomicfile.File, error) {
	return atomicfile.Create(path, atomicfile.Options{Sync: true, Pattern: tempPattern(path)})
}

// tempPattern is the os.CreateTemp pattern of createTemp's names.
func tempPattern(path string) string {
	owner := strings.ReplaceAll(hostname(), "*", "_") + "-" + strconv.Itoa(os.Getpid()) + "-"
	return "." + filepath.Base(path) + tempMark + owner + "*"
}

// tempOwner reads the host and process id from a temporary file's name.
func tempOwner(name string) (host string, pid int, ok bool) {
	i := strings.LastIndex(name, tempMark)
	if i < 0 {
		return "", 0, false
	}
	rest := name[i+len(tempMark):]
	j := strings.LastIndex(rest, "-") // before the random part
	if j < 0 {
		return "", 0, false
	}
	rest = rest[:j]
	k := strings.LastIndex(rest, "-") // before the pid
	if k < 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(rest[k+1:])
	if err != nil {
		return "", 0, false
	}
	return rest[:k], pid, true
}

var hostOnce = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
})

func hostname() string { return hostOnce() }

// writeFileAtomic writes b to path through a temporary file and a rename;
// with sync, the file is flushed to disk before the rename.
func writeFileAtomic(path string, b []byte, sync bool) error {
	return writeAtomic(path, sync, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeAtomic writes path through a temporary file of the scanner's naming
// and a rename (atomicfile); with sync, flushed to disk first.
func writeAtomic(path string, sync bool, write func(io.Writer) error) error {
	return atomicfile.Write(path, atomicfile.Options{Sync: sync, Pattern: tempPattern(path)}, write)
}
