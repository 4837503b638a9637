package scan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/internal/storename"
)

// Input is one history found in the arguments of a scan.
type Input struct {
	// Path is the history file: the argument it was found under joined with
	// the path below it, cleaned. For a Jepsen store folder it names the
	// history file inside, not the folder.
	Path string
	// Size is the file's size in bytes as stored (compressed, if it is).
	Size int64
	// Err says why Path cannot be read as a history (a dangling symlink, a
	// directory or device where a history file should be, an unreadable
	// directory). Such an input becomes a row with verdict "error".
	Err error
	// Archive says that Path is a tar or zip archive: its members are
	// walked for histories (package internal/archive), and Path itself is
	// a row only when it cannot be read.
	Archive bool
	// Only, for an archive given as ARCHIVE!/path, is that member name:
	// only the members it names, or that lie below it, are scanned (a
	// member it names exactly is taken whatever its name).
	Only string
}

// IsHistoryName reports whether a file called name is taken for a loose
// history when a directory is walked: it ends in .edn, .json or .jsonl,
// optionally followed by .gz or .zst, and is none of the files Jepsen and
// hindsight keep next to histories (results.edn, test.edn, *.expect.json,
// *.expected.json). Hidden names (a leading '.') are never histories.
func IsHistoryName(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
	switch {
	case base == "results.edn", base == "test.edn":
		return false
	case strings.HasSuffix(base, ".expect.json"), strings.HasSuffix(base, ".expected.json"):
		return false
	}
	ext := filepath.Ext(base)
	return (ext == ".edn" || ext == ".json" || ext == ".jsonl") && len(base) > len(ext)
}

// Discover finds the histories and archives named by args, each a file or
// a directory, and returns them sorted by Path, each file once.
//
// A file argument is an input whatever its name: an archive when its
// content is a tar (plain, gzip or zstd) or zip archive, else a history.
// A directory is walked: files named as archive.IsName says (.tar,
// .tar.gz, .tgz, .tar.zst, .tzst, .zip) are archives, and
// a directory holding a history file of a Jepsen store (history.edn,
// history.json or history.jsonl, optionally .gz or .zst; the first of these
// in that order) is a store folder, and that file is its one input; the
// walk does not descend further (a store's node folders hold logs). In any
// other directory, files named as IsHistoryName says are loose histories,
// and subdirectories are walked; hidden files and directories are skipped.
//
// Symlinks are followed: to a file, when its name is a history's; to a
// directory, after every real directory of every argument has been walked,
// so a file reachable both ways is reported under its real path. Every
// directory and every file is visited once, identified by device and inode,
// which breaks symlink loops and drops hard-linked copies. What cannot be
// read (an argument that does not exist, a directory that cannot be listed,
// a dangling symlink with a history's name, a history name on something
// that is not a regular file) becomes an Input with Err set; the walk goes
// on. Cost: one lstat or stat per directory entry, no file is opened.
func Discover(args []string) []Input {
	w := &walker{dirs: map[fileID]bool{}, files: map[fileID]bool{}}
	for _, a := range args {
		if _, err := os.Stat(a); err != nil {
			if arch, member, ok := archive.Split(a); ok {
				w.member(filepath.Clean(arch), member)
				continue
			}
		}
		w.root(filepath.Clean(a))
	}
	for len(w.links) > 0 {
		dir := w.links[0]
		w.links = w.links[1:]
		fi, err := os.Stat(dir)
		if err != nil {
			continue // vanished since it was seen; nothing to report
		}
		if _, ok := idOf(fi); !ok {
			continue // without inodes a loop cannot be told; do not follow
		}
		if w.enter(fi) {
			w.dir(dir)
		}
	}
	slices.SortStableFunc(w.out, func(a, b Input) int { return strings.Compare(a.Path, b.Path) })
	return w.out
}

type walker struct {
	dirs, files map[fileID]bool
	links       []string // symlinked directories, walked after the real tree
	out         []Input
}

func (w *walker) fail(path string, err error) {
	w.out = append(w.out, Input{Path: path, Err: err})
}

func (w *walker) root(path string) {
	fi, err := os.Stat(path)
	if err != nil {
		w.fail(path, err)
		return
	}
	if fi.IsDir() {
		if w.enter(fi) {
			w.dir(path)
		}
		return
	}
	isArchive := false
	if fi.Mode().IsRegular() {
		if f, _, err := archive.DetectFile(path); err == nil {
			isArchive = f != archive.NotArchive
		}
	}
	w.file(path, fi, isArchive)
}

// member adds the part of the archive at arch that a path ARCHIVE!/member
// names (nested: member holds another "!/").
func (w *walker) member(arch, member string) {
	parts := strings.Split(member, archive.Sep)
	for i := range parts {
		parts[i] = archive.CleanName(parts[i])
	}
	only := archive.Join(arch, strings.Join(parts, archive.Sep))
	fi, err := os.Stat(arch)
	if err != nil {
		w.fail(only, err)
		return
	}
	w.out = append(w.out, Input{Path: arch, Size: fi.Size(), Archive: true, Only: only})
}

// enter marks the directory fi visited and reports whether it was new.
func (w *walker) enter(fi fs.FileInfo) bool {
	id, ok := idOf(fi)
	if !ok {
		return true
	}
	if w.dirs[id] {
		return false
	}
	w.dirs[id] = true
	return true
}

// file adds path (already stat'ed, symlinks followed) unless it was seen.
func (w *walker) file(path string, fi fs.FileInfo, isArchive bool) {
	if !fi.Mode().IsRegular() {
		what := "not a regular file"
		if fi.IsDir() {
			what = "a directory, not a history file"
		}
		w.fail(path, fmt.Errorf("%s: %s", path, what))
		return
	}
	if id, ok := idOf(fi); ok {
		if w.files[id] {
			return
		}
		w.files[id] = true
	}
	w.out = append(w.out, Input{Path: path, Size: fi.Size(), Archive: isArchive})
}

// statFile stats path, following symlinks, and adds it or its error; the
// file is an archive when its name says so.
func (w *walker) statFile(path string) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(path); lerr == nil {
				err = fmt.Errorf("%s: dangling symlink", path)
			}
		}
		w.fail(path, err)
		return
	}
	w.file(path, fi, archive.IsName(filepath.Base(path)))
}

func (w *walker) dir(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		// ReadDir returns what it could read before the error; go on with it.
		w.fail(dir, err)
	}
	for _, n := range storename.Names {
		if slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == n }) {
			w.statFile(filepath.Join(dir, n))
			return
		}
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		switch t := e.Type(); {
		case t.IsDir():
			fi, err := e.Info()
			if err != nil {
				w.fail(path, err)
				continue
			}
			if w.enter(fi) {
				w.dir(path)
			}
		case t&fs.ModeSymlink != 0:
			fi, err := os.Stat(path)
			switch {
			case err == nil && fi.IsDir():
				w.links = append(w.links, path)
			case IsHistoryName(name), archive.IsName(name):
				w.statFile(path)
			}
		case IsHistoryName(name), archive.IsName(name):
			w.statFile(path)
		}
	}
}
