// Package testpack builds compressed files and archives in memory, writes
// files and symbolic links into a test's folder, and lists the files a
// test left in a folder, for the tests of the packages that read
// them (internal/archive, ingest, scan and the command line). It fails the
// test on any error.
package testpack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// File is a member to pack: its name as stored, and its content.
type File struct{ Name, Body string }

// Gzip returns b compressed with gzip.
func Gzip(t testing.TB, b []byte) []byte {
	t.Helper()
	return Compress(t, b, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil })
}

// Zstd returns b compressed with zstd.
func Zstd(t testing.TB, b []byte) []byte {
	t.Helper()
	return Compress(t, b, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
}

// Compress returns b written through the compressor newWriter makes (for
// a compressor or a level Gzip and Zstd do not take).
func Compress(t testing.TB, b []byte, newWriter func(io.Writer) (io.WriteCloser, error)) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := newWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Tar returns a tar archive of files, in order, as regular files.
func Tar(t testing.TB, files []File) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.Name, Mode: 0o644, Size: int64(len(f.Body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Entry is a tar member of any kind: a regular file (Body), a hard link
// (Hardlink names its target member), a symbolic link (Symlink is its
// target, as ln -s takes it), or a folder (Dir).
type Entry struct {
	Name, Body        string
	Hardlink, Symlink string
	Dir               bool
}

// BrokenLinks are symbolic links that lead to no file of their archive:
// out of it, to an absolute path, to a name it lacks, and to themselves.
// A reader of archives refuses each, saying why (BrokenLinkErrors), and
// reads nothing outside the archive.
var BrokenLinks = []Entry{
	{Name: "esc.edn", Symlink: "../../etc/passwd"},
	{Name: "abs.edn", Symlink: "/etc/passwd"},
	{Name: "dangling.edn", Symlink: "nope.edn"},
	{Name: "loop.edn", Symlink: "loop.edn"},
}

// BrokenLinkErrors is what hindsight says of each of BrokenLinks, by name,
// after the link's path and ": ".
var BrokenLinkErrors = map[string]string{
	"esc.edn":      `a symbolic link to "../../etc/passwd": the target lies outside the archive`,
	"abs.edn":      `a symbolic link to "/etc/passwd": the target names no file in the archive`,
	"dangling.edn": `a symbolic link to "nope.edn": the target names no file in the archive`,
	"loop.edn":     `a symbolic link to "loop.edn": following it takes more than 16 links (a loop)`,
}

// TarEntries returns a tar archive of entries, in order.
func TarEntries(t testing.TB, entries []Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: 0o644, Size: int64(len(e.Body)), Typeflag: tar.TypeReg}
		switch {
		case e.Hardlink != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, e.Hardlink, 0
		case e.Symlink != "":
			h.Typeflag, h.Linkname, h.Size, h.Mode = tar.TypeSymlink, e.Symlink, 0, 0o777
		case e.Dir:
			h.Typeflag, h.Size, h.Mode = tar.TypeDir, 0, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(e.Body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Zip returns a zip archive of files, in order, each stored with method
// (zip.Store or zip.Deflate).
func Zip(t testing.TB, files []File, method uint16) []byte {
	t.Helper()
	entries := make([]Entry, len(files))
	for i, f := range files {
		entries[i] = Entry{Name: f.Name, Body: f.Body}
	}
	return zipEntries(t, entries, method)
}

// ZipEntries returns a deflated zip archive of entries, in order: files,
// and symbolic links as zip -y stores them (the target as the content,
// with a symlink's Unix mode). Zip has no hard links or folder entries;
// those fields are ignored.
func ZipEntries(t testing.TB, entries []Entry) []byte {
	t.Helper()
	return zipEntries(t, entries, zip.Deflate)
}

func zipEntries(t testing.TB, entries []Entry, method uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.Name, Method: method}
		body := e.Body
		if e.Symlink != "" {
			h.SetMode(fs.ModeSymlink | 0o777)
			body = e.Symlink
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// WriteFile writes b at path, making its folder first.
func WriteFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Symlink makes link a symbolic link to target (as ln -s takes it),
// making link's folder first.
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// Files lists the paths of every file (not directory) below root, in
// lexical order; what cannot be read is left out.
func Files(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}
