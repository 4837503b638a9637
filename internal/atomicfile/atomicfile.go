// Package atomicfile writes files so that no reader ever sees half of one
// (design.md habit 9): the content goes to a temporary file in the target's
// directory, which is renamed over the target only once it is complete,
// flushed and closed without error; on any failure the temporary file is
// removed and the target is left as it was.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Options tune a write.
type Options struct {
	// Sync flushes the file to disk before the rename, so a crash of the
	// machine cannot leave an empty file under the target's name.
	Sync bool
	// Pattern is the os.CreateTemp pattern of the temporary file's name
	// (default "." + base + ".tmp-*": hidden, and never matched by a glob
	// for the target's kind).
	Pattern string
}

// File is a file being written under a temporary name. Write to it, then
// Commit or Abort.
type File struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	sync bool
}

// Create starts writing path.
func Create(path string, opts Options) (*File, error) {
	pattern := opts.Pattern
	if pattern == "" {
		pattern = "." + filepath.Base(path) + ".tmp-*"
	}
	f, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return nil, err
	}
	return &File{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<20), sync: opts.Sync}, nil
}

// Write writes to the temporary file (buffered).
func (a *File) Write(p []byte) (int, error) { return a.bw.Write(p) }

// TempName is the temporary file's path.
func (a *File) TempName() string { return a.f.Name() }

// Commit flushes, optionally syncs, closes and renames the file into place,
// readable by all (0644). On failure the temporary file is removed.
func (a *File) Commit() error {
	err := a.bw.Flush()
	if err == nil && a.sync {
		err = a.f.Sync()
	}
	if err == nil {
		err = a.f.Chmod(0o644)
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
	}
	return err
}

// Abort drops the temporary file; the target is untouched.
func (a *File) Abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}

// Write writes path with fill's output, atomically.
func Write(path string, opts Options, fill func(io.Writer) error) error {
	a, err := Create(path, opts)
	if err != nil {
		return err
	}
	if err := fill(a); err != nil {
		a.Abort()
		return err
	}
	return a.Commit()
}
