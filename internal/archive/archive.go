// Package archive reads the files inside tar and zip archives without
// unpacking them: `hindsight scan` walks every member of an archive as a
// stream, and `hindsight check ARCHIVE!/path` opens one member.
//
// # Formats
//
// A tar archive plain, gzip- or zstd-compressed (.tar, .tar.gz, .tgz,
// .tar.zst, .tzst), and a zip archive (.zip, stored or deflated members).
// Walk and Open tell them by content (zip's "PK" signature; tar's "ustar"
// magic after the compression, recognised by its own magic bytes), never
// by name; IsName tells which file names a directory walk takes for
// archives.
//
// # Names
//
// A member is named ARCHIVE!/NAME: the archive's path, the separator "!/"
// and the member's name as stored, cleaned (CleanName: backslashes of zips
// made on Windows become '/', a leading '/' or "./" is dropped as tar does,
// "a/./b" and "a/x/../b" are folded). ".." that remains (a member stored as
// "../../etc/x.edn") stays in the name: nothing is ever written to disk, so
// a name is only a label and cannot escape anywhere. An archive inside an
// archive is walked too, one level deep (a zip of tarballs, as CI artifacts
// often are): its members are OUTER!/INNER.tar.gz!/NAME. An archive nested
// deeper is reported as an error, not read.
//
// # Links
//
// A tar holds hard links (GNU tar stores the second and later names of a
// hard-linked file as links to the first) and symbolic links. Walk reports
// each to Visitor.Link once the archive is read through, resolved to the
// regular member it names: a hard link's target is a member name, a
// symbolic link's is relative to the link's folder, or, when absolute,
// to the archive's root; links to links and names in symbolically linked
// folders are followed, up to MaxLinks. Paths are folded with path.Clean,
// and a target that climbs above the root with ".." is refused
// (ErrLinkOutside): nothing outside the archive is ever read. Open reads a
// link's target by reading the archive a second time. A zip's symbolic
// links (zip -y stores the target as the entry's content) are resolved
// the same way; its index gives the target directly.
//
// # Streaming and memory
//
// A tar archive is read once, front to back; the member being visited is
// a stream of its bytes, and memory never grows with the archive. A zip
// archive needs random access, which its file gives; a zip nested inside a
// tar, or compressed inside a zip, is read into memory first
// (Options.MaxBuffer bounds it); a stored zip inside a zip is read in place.
package archive

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/hindsight-dev/hindsight/internal/storename"
)

// Sep separates an archive's path from the name of a member inside it.
const Sep = "!/"

// Format is the kind of an archive.
type Format uint8

const (
	// NotArchive is a file that is neither tar nor zip.
	NotArchive Format = iota
	// Tar is a tar archive, plain or compressed.
	Tar
	// Zip is a zip archive.
	Zip
)

// String returns the format's name.
func (f Format) String() string {
	switch f {
	case Tar:
		return "tar"
	case Zip:
		return "zip"
	}
	return "not an archive"
}

// Compression is what a tar archive is wrapped in.
type Compression uint8

const (
	// Plain is no compression.
	Plain Compression = iota
	// Gzip is gzip (RFC 1952).
	Gzip
	// Zstd is Zstandard (RFC 8878).
	Zstd
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	zipMagic  = []byte("PK\x03\x04")
	zipEmpty  = []byte("PK\x05\x06")
)

// archiveExts are the file name endings IsName accepts, lower case.
var archiveExts = []string{".tar", ".tar.gz", ".tgz", ".tar.zst", ".tzst", ".zip"}

// IsName reports whether a file called name is taken for an archive when
// a directory (or an archive) is walked: it ends in .tar, .tar.gz, .tgz,
// .tar.zst, .tzst or .zip, in any case, and is not hidden.
func IsName(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	l := strings.ToLower(name)
	for _, e := range archiveExts {
		if strings.HasSuffix(l, e) && len(l) > len(e) {
			return true
		}
	}
	return false
}

// CleanName returns the name a member is reported under: slashes for
// backslashes, no leading "/" or "./", and path.Clean's folding; ".." that
// remains at the front is kept (see the package doc). A name that cleans
// to nothing is ".".
func CleanName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = strings.TrimLeft(name, "/")
	name = path.Clean(name)
	return name
}

// Join names the member called name (as CleanName gives it) of the archive
// at archivePath.
func Join(archivePath, name string) string { return archivePath + Sep + name }

// Detect tells the format of an archive from the first bytes of its file
// (at least 512 after decompression are needed to see a tar's magic; pass
// what there is) and, for tar, its compression. It decompresses the head
// of a gzip or zstd stream to look inside.
func Detect(head []byte) (Format, Compression) {
	switch {
	case bytes.HasPrefix(head, zipMagic), bytes.HasPrefix(head, zipEmpty):
		return Zip, Plain
	case bytes.HasPrefix(head, gzipMagic):
		if isTar(inflateHead(head, Gzip)) {
			return Tar, Gzip
		}
	case bytes.HasPrefix(head, zstdMagic):
		if isTar(inflateHead(head, Zstd)) {
			return Tar, Zstd
		}
	case isTar(head):
		return Tar, Plain
	}
	return NotArchive, Plain
}

// DetectFile opens path and tells its format: zip by its signature, tar
// by the magic of its first header, after decompressing the start of a
// gzip or zstd stream.
func DetectFile(path string) (Format, Compression, error) {
	f, err := os.Open(path)
	if err != nil {
		return NotArchive, Plain, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	head, err := br.Peek(4096)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return NotArchive, Plain, err
	}
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		if isTar(inflate(br, Gzip)) {
			return Tar, Gzip, nil
		}
		return NotArchive, Plain, nil
	case bytes.HasPrefix(head, zstdMagic):
		if isTar(inflate(br, Zstd)) {
			return Tar, Zstd, nil
		}
		return NotArchive, Plain, nil
	}
	fo, c := Detect(head)
	return fo, c, nil
}

// isTar reports whether b starts with a tar header: "ustar" at offset 257
// (POSIX and GNU tar; the magic-less v7 format is not recognised).
func isTar(b []byte) bool {
	return len(b) >= 262 && string(b[257:262]) == "ustar"
}

// inflateHead decompresses what it can of the compressed head.
func inflateHead(head []byte, c Compression) []byte {
	return inflate(bytes.NewReader(head), c)
}

// inflate returns the first 512 bytes (or fewer) that the compressed stream
// src decompresses to.
func inflate(src io.Reader, c Compression) []byte {
	var r io.Reader
	switch c {
	case Gzip:
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil
		}
		r = zr
	case Zstd:
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<28))
		if err != nil {
			return nil
		}
		defer zr.Close()
		r = zr
	}
	out := make([]byte, 512)
	n, _ := io.ReadFull(r, out)
	return out[:n]
}

// Member is one regular file of an archive, as Walk visits it.
type Member struct {
	// Path is the member's full name: ARCHIVE!/NAME (nested:
	// OUTER!/INNER!/NAME).
	Path string
	// Archive is the path of the archive holding it directly (for a nested
	// archive OUTER!/INNER), and Name its cleaned name in there.
	Archive, Name string
	// Size is the size of the member's content in bytes (tar's header
	// size; zip's uncompressed size, which the zip reader enforces).
	Size int64
	// Body reads the content; it is valid only during the visit, and what
	// the visit leaves unread is skipped.
	Body io.Reader
}

// Problem is something of an archive that could not be read: the archive
// itself (Path is the archive's path), or a member (Path is the member's).
type Problem struct {
	Path string
	Err  error
}

// Visitor receives what Walk finds.
type Visitor interface {
	// Member is called for each regular file of the archive (and of an
	// archive one level inside), in the archive's order; it may read
	// m.Body. A non-nil error stops the walk and is returned by Walk.
	Member(m *Member) error
	// Problem is called for what could not be read. The walk goes on with
	// the rest when it can.
	Problem(p Problem)
	// Link is called for each hard or symbolic link member of a tar
	// archive, and each symbolic link of a zip (and of an archive one
	// level inside), once the archive is read
	// through, in the archive's order, resolved to the regular member it
	// names (a symbolic link may name a later member) or with Link.Err set.
	// The target's bytes were visited by Member under the target's name, if
	// at all: a link has no Body. A non-nil error stops the walk.
	Link(l *Link) error
	// Names is called once a (possibly nested) archive is walked through
	// with the cleaned names of all its regular files and links, in the
	// archive's order, including those Member saw and those it skipped.
	Names(archivePath string, names []string)
}

// Options tune a walk.
type Options struct {
	// MaxBuffer bounds the size of an archive that must be read into memory
	// (a zip inside a tar, or a compressed zip inside a zip); a bigger one
	// is a Problem. 0: no bound.
	MaxBuffer int64
	// Nested, when set, says whether a member should be opened as an
	// archive (default: IsName of its base name).
	Nested func(name string) bool
}

// ErrTooDeep is the Problem of an archive nested more than one level deep.
var ErrTooDeep = errors.New("an archive inside an archive inside an archive: only one level of nesting is read (unpack the outer archive)")

// WalkFile walks the archive at path. It returns an error only when the
// file cannot be opened, or when the visitor stops the walk; everything
// inside that cannot be read is reported to the visitor as a Problem. read,
// when set, counts the bytes read from the file.
func WalkFile(path string, v Visitor, opts Options, read func(n int64)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	w := &walker{v: v, opts: opts}
	var src io.Reader = f
	var ra io.ReaderAt = f
	if read != nil {
		src = &countingReader{r: f, n: read}
		ra = &countingReaderAt{r: f, n: read}
	}
	return w.walkFile(path, ra, fi.Size(), src)
}

// countingReaderAt counts the bytes read through a zip's ReadAt calls (its
// index is read twice, so the count runs slightly past the file's size).
type countingReaderAt struct {
	r io.ReaderAt
	n func(int64)
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n(int64(n))
	return n, err
}

type countingReader struct {
	r io.Reader
	n func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n(int64(n))
	return n, err
}

type walker struct {
	v    Visitor
	opts Options
}

// stopErr carries an error of the visitor out of the walk.
type stopErr struct{ err error }

func (e *stopErr) Error() string { return e.err.Error() }

func (w *walker) walkFile(name string, ra io.ReaderAt, size int64, src io.Reader) error {
	head := make([]byte, 4096)
	n, _ := ra.ReadAt(head, 0)
	switch streamFormat(head[:n]) {
	case Zip:
		return w.walkZip(name, ra, size, 0)
	case Tar:
		return w.walkTar(name, src, 0)
	}
	w.v.Problem(Problem{name, fmt.Errorf("%s: not a tar or zip archive (tar, optionally gzip or zstd compressed, or zip)", name)})
	return nil
}

// streamFormat tells an archive's format from its first bytes without
// decompressing: a gzip or zstd stream is taken for a compressed tar (the
// tar reader says so if it is not one).
func streamFormat(head []byte) Format {
	if bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, zstdMagic) {
		return Tar
	}
	f, _ := Detect(head)
	return f
}

// nested reports whether the member called name is opened as an archive.
func (w *walker) nested(name string) bool {
	if w.opts.Nested != nil {
		return w.opts.Nested(name)
	}
	return IsName(path.Base(name))
}

// walkTar reads a tar stream, compressed or not, at nesting depth.
func (w *walker) walkTar(name string, src io.Reader, depth int) error {
	br := bufio.NewReaderSize(src, 256<<10)
	head, _ := br.Peek(4)
	var r io.Reader = br
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			w.v.Problem(Problem{name, fmt.Errorf("%s: cannot read the gzip stream: %w", name, err)})
			return nil
		}
		defer zr.Close()
		r = zr
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<28), zstd.WithDecoderLowmem(true))
		if err != nil {
			w.v.Problem(Problem{name, fmt.Errorf("%s: cannot read the zstd stream: %w", name, err)})
			return nil
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	var names []string
	links := newLinkTable()
	count := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			what := "the archive cannot be read"
			switch {
			case count == 0:
				w.v.Problem(Problem{name, fmt.Errorf("%s: not a tar or zip archive, or cut off or damaged in its first header: %w", name, err)})
				return nil
			case errors.Is(err, io.ErrUnexpectedEOF):
				what = "the archive is cut off"
			}
			w.v.Problem(Problem{name, fmt.Errorf("%s: %s after %d members; the rest was not read: %w", name, what, count, err)})
			return w.links(name, links, true)
		}
		count++
		clean := CleanName(hdr.Name)
		if k := linkKind(hdr); k != 0 {
			// Resolved once the whole archive is seen (see Visitor.Link).
			links.add(clean, entry{kind: k, target: hdr.Linkname})
			if k != kindDir {
				names = append(names, clean)
			}
			continue
		}
		if !hdr.FileInfo().Mode().IsRegular() {
			continue
		}
		links.add(clean, entry{kind: kindFile, size: hdr.Size})
		names = append(names, clean)
		full := Join(name, clean)
		body := &memberReader{r: tr}
		if w.nested(clean) {
			if depth >= 1 {
				w.v.Problem(Problem{full, fmt.Errorf("%s: %w", full, ErrTooDeep)})
				continue
			}
			if err := w.walkNested(full, body, hdr.Size); err != nil {
				return err
			}
		} else if err := w.v.Member(&Member{Path: full, Archive: name, Name: clean, Size: hdr.Size, Body: body}); err != nil {
			return &stopErr{err}
		}
		if body.err != nil {
			// The stream broke inside this member: nothing after it can
			// be read.
			what := "cannot be read past"
			if errors.Is(body.err, io.ErrUnexpectedEOF) {
				what = "is cut off inside"
			}
			w.v.Problem(Problem{name, fmt.Errorf("%s: the archive %s %s; the rest was not read: %w", name, what, clean, body.err)})
			return w.links(name, links, true)
		}
	}
	if err := w.links(name, links, false); err != nil {
		return err
	}
	w.v.Names(name, names)
	return nil
}

// linkKind tells the members of a tar that are not files: hard and
// symbolic links, folders; 0 for anything else.
func linkKind(hdr *tar.Header) entryKind {
	switch hdr.Typeflag {
	case tar.TypeLink:
		return kindHardlink
	case tar.TypeSymlink:
		return kindSymlink
	case tar.TypeDir:
		return kindDir
	}
	return 0
}

// links hands the link members of the archive called name, resolved, to
// the visitor; partial says the archive could not be read to its end.
func (w *walker) links(name string, t *linkTable, partial bool) error {
	for _, n := range t.links {
		if err := w.v.Link(t.link(name, n, partial)); err != nil {
			return &stopErr{err}
		}
	}
	return nil
}

// memberReader remembers the first error of the stream under a member other
// than io.EOF: the archive broke there.
type memberReader struct {
	r   io.Reader
	err error
}

func (m *memberReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if err != nil && err != io.EOF && m.err == nil {
		m.err = err
	}
	return n, err
}

// walkNested walks an archive stored as a member (full is its path, body
// its content of size bytes) one level down.
func (w *walker) walkNested(full string, body io.Reader, size int64) error {
	br := bufio.NewReaderSize(body, 4096)
	head, _ := br.Peek(4096)
	switch streamFormat(head) {
	case Tar:
		return w.walkTar(full, br, 1)
	case Zip:
		buf, err := w.buffer(full, br, size)
		if err != nil {
			w.v.Problem(Problem{full, err})
			return nil
		}
		return w.walkZip(full, bytes.NewReader(buf), int64(len(buf)), 1)
	}
	w.v.Problem(Problem{full, fmt.Errorf("%s: named like an archive, but not a tar or zip archive", full)})
	return nil
}

// buffer reads a nested zip of size bytes into memory, within MaxBuffer.
func (w *walker) buffer(full string, r io.Reader, size int64) ([]byte, error) {
	if w.opts.MaxBuffer > 0 && size > w.opts.MaxBuffer {
		return nil, fmt.Errorf("%s: a zip inside an archive is read into memory, and this one has %d bytes, more than the limit of %d (--max-history-bytes); unpack the outer archive", full, size, w.opts.MaxBuffer)
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("%s: %w", full, err)
	}
	return buf, nil
}

// walkZip walks a zip archive of size bytes read through ra.
func (w *walker) walkZip(name string, ra io.ReaderAt, size int64, depth int) error {
	zr, err := zip.NewReader(ra, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		w.v.Problem(Problem{name, fmt.Errorf("%s: cannot read the zip archive (a zip cut off short loses the index at its end, and then none of it can be read): %w", name, err)})
		return nil
	}
	if err := zipOffsetsBroken(name, zr.File); err != nil {
		w.v.Problem(Problem{name, err})
		return nil
	}
	var names []string
	links := zipTable(zr.File)
	for _, f := range zr.File {
		if f.Mode()&fs.ModeSymlink != 0 {
			names = append(names, CleanName(f.Name))
			continue
		}
		if !f.Mode().IsRegular() {
			continue
		}
		clean := CleanName(f.Name)
		names = append(names, clean)
		full := Join(name, clean)
		if w.nested(clean) {
			if depth >= 1 {
				w.v.Problem(Problem{full, fmt.Errorf("%s: %w", full, ErrTooDeep)})
				continue
			}
			if err := w.zipNested(full, ra, f); err != nil {
				return err
			}
			continue
		}
		rc, err := f.Open()
		if err != nil {
			w.v.Problem(Problem{full, zipMemberError(full, err)})
			continue
		}
		err = w.v.Member(&Member{Path: full, Archive: name, Name: clean, Size: int64(f.UncompressedSize64), Body: rc})
		rc.Close()
		if err != nil {
			return &stopErr{err}
		}
	}
	if err := w.links(name, links, false); err != nil {
		return err
	}
	w.v.Names(name, names)
	return nil
}

// maxZipLink bounds the target a zip's symbolic link stores as its
// content.
const maxZipLink = 64 << 10

// zipTable returns the link table of a zip's entries: its files, folders
// and symbolic links (a zip made with symlinks kept, zip -y, stores a
// link's target as its content and marks its Unix mode). Cost: one read
// of each symbolic link's content.
func zipTable(files []*zip.File) *linkTable {
	t := newLinkTable()
	for _, f := range files {
		clean := CleanName(f.Name)
		switch m := f.Mode(); {
		case m.IsRegular():
			t.add(clean, entry{kind: kindFile, size: int64(f.UncompressedSize64)})
		case m.IsDir():
			t.add(clean, entry{kind: kindDir})
		case m&fs.ModeSymlink != 0:
			target, err := zipLinkTarget(f)
			t.add(clean, entry{kind: kindSymlink, target: target, err: err})
		}
	}
	return t
}

// zipLinkTarget reads the target a zip's symbolic link stores.
func zipLinkTarget(f *zip.File) (string, error) {
	if f.UncompressedSize64 > maxZipLink {
		return "", fmt.Errorf("its target, stored as its content, has %d bytes, more than %d", f.UncompressedSize64, maxZipLink)
	}
	rc, err := f.Open()
	if err != nil {
		return "", fmt.Errorf("its target cannot be read: %w", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxZipLink))
	if err != nil {
		return "", fmt.Errorf("its target cannot be read: %w", err)
	}
	return string(b), nil
}

// zipNested walks an archive stored in a zip, one level down: a stored
// (uncompressed) zip in place, anything else as a stream or from memory.
func (w *walker) zipNested(full string, ra io.ReaderAt, f *zip.File) error {
	if f.Method == zip.Store {
		if off, err := f.DataOffset(); err == nil {
			sr := io.NewSectionReader(ra, off, int64(f.CompressedSize64))
			head := make([]byte, 4096)
			n, _ := sr.ReadAt(head, 0)
			if fo, _ := Detect(head[:n]); fo == Zip {
				return w.walkZip(full, sr, int64(f.CompressedSize64), 1)
			}
		}
	}
	rc, err := f.Open()
	if err != nil {
		w.v.Problem(Problem{full, zipMemberError(full, err)})
		return nil
	}
	defer rc.Close()
	body := &memberReader{r: rc}
	if err := w.walkNested(full, body, int64(f.UncompressedSize64)); err != nil {
		return err
	}
	return nil
}

// ErrZipDirectory is the error of a zip archive whose central directory
// (the index at its end) gives offsets at which no file is stored.
var ErrZipDirectory = errors.New("not a readable zip archive: its central directory points outside the file or to no stored file, so none of its files can be read")

// zipOffsetsBroken tells a zip whose central directory points nowhere
// (a damaged offset of the directory shifts every file's offset, past the
// start of the file or into the middle of other data): the first regular
// file's local header cannot be read, and no other file's either. It
// returns nil when any file can be read, so a zip with one damaged entry
// reports that entry only. Cost: one small read in a sound zip; one per
// file in a broken one.
func zipOffsetsBroken(name string, files []*zip.File) error {
	n := 0
	for _, f := range files {
		if !f.Mode().IsRegular() {
			continue
		}
		if _, err := f.DataOffset(); err == nil {
			return nil
		}
		n++
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w (its %d files; the offset of the directory, or of the files, is damaged)", name, ErrZipDirectory, n)
}

// zipMemberError puts the error of opening one member of a zip in words
// (the zip reader's own are terse: "zip: not a valid zip file", "readat:
// negative offset").
func zipMemberError(full string, err error) error {
	if errors.Is(err, zip.ErrAlgorithm) {
		return fmt.Errorf("%s: compressed with a method other than stored or deflated, which cannot be read (%w)", full, err)
	}
	return fmt.Errorf("%s: its entry in the zip archive points to no stored file, so it cannot be read (%w)", full, err)
}

// Unwrap returns the visitor's error that stopped a walk, for errors.Is.
func (e *stopErr) Unwrap() error { return e.err }

// Split splits p at the first separator "!/" whose prefix is an existing
// file that is not a directory: the archive's path and the member's name
// (which may hold another "!/" for a nested archive). ok is false when p
// names no archive member.
func Split(p string) (archivePath, member string, ok bool) {
	for i := 0; ; {
		j := strings.Index(p[i:], Sep)
		if j < 0 {
			return "", "", false
		}
		a := p[:i+j]
		if fi, err := os.Stat(a); err == nil && !fi.IsDir() {
			return a, p[i+j+len(Sep):], true
		}
		i += j + len(Sep)
	}
}

// ReadCloser is an open member: its content, and Close to release the
// archive.
type ReadCloser struct {
	io.Reader
	// Size is the member's size (see Member.Size).
	Size int64
	// Name is the path the member is known by: the one Open was given,
	// or, when that named a Jepsen store folder in the archive, its
	// history file's (ARCHIVE!/store/history.edn), as a store folder on
	// disk is read.
	Name    string
	closers []func()
}

// Close releases the archive files and decompressors behind the member.
func (r *ReadCloser) Close() error {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
	return nil
}

// Open opens the member named by p (ARCHIVE!/NAME, or OUTER!/INNER!/NAME
// one level deep; names compare after CleanName). A tar archive is read up
// to the member; a zip's member is opened directly. A name no member has
// gives an error that wraps fs.ErrNotExist.
//
// A hard or symbolic link of a tar (or a symbolic link of a zip), or a
// name that lies in a symbolically linked folder, is resolved to the regular member it names (see Link):
// the archive is read once through to know its links, then again up to
// that member. A link that resolves to no member of the archive gives
// Link.Err; nothing outside the archive is ever read.
func Open(p string) (*ReadCloser, error) {
	arch, member, ok := Split(p)
	if !ok {
		return nil, fmt.Errorf("%s: no archive file before a %q in this path: %w", p, Sep, fs.ErrNotExist)
	}
	rc, err := openMember(arch, member)
	var rl *relink
	if errors.As(err, &rl) {
		// The second read, to the regular member the link (or the store
		// folder) resolves to.
		store := rl.store
		rc, err = openMember(arch, rl.member)
		if errors.As(err, &rl) {
			err = fmt.Errorf("%s: resolves to %s, which the archive no longer holds as a file (did it change?)", p, Join(arch, rl.member))
		} else if err == nil && store {
			rc.Name = Join(arch, rl.member)
		}
	}
	if rc != nil && rc.Name == "" {
		rc.Name = p
	}
	return rc, err
}

// relink is the answer of a first read of an archive that found the
// member asked for to be a link, or a Jepsen store folder: member names
// the link's target or the folder's history file (with the nested path, if
// any, as for Open), and store says which.
type relink struct {
	member string
	store  bool
}

func (r *relink) Error() string { return "a link to " + r.member }

// openMember opens member of the archive at arch (see Open), or returns a
// *relink when it is a link.
func openMember(arch, member string) (*ReadCloser, error) {
	f, err := os.Open(arch)
	if err != nil {
		return nil, err
	}
	rc := &ReadCloser{closers: []func(){func() { f.Close() }}}
	fi, err := f.Stat()
	if err != nil {
		rc.Close()
		return nil, err
	}
	if err := openIn(rc, arch, f, f, fi.Size(), member, 0); err != nil {
		rc.Close()
		return nil, err
	}
	return rc, nil
}

// openIn finds member in the archive called name (read through ra, or src
// when ra is nil) and sets rc's reader to it.
func openIn(rc *ReadCloser, name string, ra io.ReaderAt, src io.Reader, size int64, member string, depth int) error {
	want, rest := member, ""
	if depth == 0 {
		// OUTER!/INNER.tar.gz!/NAME: the first "!/" after an archive name.
		for i := 0; ; {
			j := strings.Index(member[i:], Sep)
			if j < 0 {
				break
			}
			if IsName(path.Base(member[:i+j])) {
				want, rest = member[:i+j], member[i+j+len(Sep):]
				break
			}
			i += j + len(Sep)
		}
	}
	want = CleanName(want)
	notFound := fmt.Errorf("%s: %s holds no file named %q: %w", Join(name, want), name, want, fs.ErrNotExist)
	var head []byte
	if ra != nil {
		head = make([]byte, 4096)
		n, _ := ra.ReadAt(head, 0)
		head = head[:n]
	} else {
		br := bufio.NewReaderSize(src, 256<<10)
		head, _ = br.Peek(4096)
		src = br
	}
	format, comp := Detect(head)
	if bytes.HasPrefix(head, gzipMagic) {
		format, comp = Tar, Gzip
	} else if bytes.HasPrefix(head, zstdMagic) {
		format, comp = Tar, Zstd
	}
	found := func(r io.Reader, n int64) error {
		if rest == "" {
			rc.Reader, rc.Size = r, n
			return nil
		}
		inner := Join(name, want)
		br := bufio.NewReaderSize(r, 4096)
		h, _ := br.Peek(4096)
		var err error
		if streamFormat(h) == Zip {
			buf := make([]byte, n)
			if _, err := io.ReadFull(br, buf); err != nil {
				return fmt.Errorf("%s: %w", inner, err)
			}
			err = openIn(rc, inner, bytes.NewReader(buf), nil, n, rest, 1)
		} else {
			err = openIn(rc, inner, nil, br, n, rest, 1)
		}
		var rl *relink
		if errors.As(err, &rl) {
			rl.member = want + Sep + rl.member
		}
		return err
	}
	// relinked answers a link called want (or lying below a linked
	// folder) resolved to target, with the nested path after it.
	relinked := func(target string) error {
		if rest != "" {
			target += Sep + rest
		}
		return &relink{member: target}
	}
	// notFoundIn is the answer for a want no regular member or link has:
	// the history file of want as a store folder (package storename),
	// read on a second pass, or notFound.
	notFoundIn := func(t *linkTable) error {
		if rest == "" {
			if target, ok := t.storeIn(want); ok {
				return &relink{member: target, store: true}
			}
			if t.isDir(want) {
				return fmt.Errorf("%s: a folder of %s holding no %s: %w", Join(name, want), name, storename.Listed, fs.ErrNotExist)
			}
		}
		return notFound
	}
	switch format {
	case Zip:
		if ra == nil {
			return fmt.Errorf("%s: a zip archive needs random access", name)
		}
		zr, err := zip.NewReader(ra, size)
		if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
			return fmt.Errorf("%s: cannot read the zip archive: %w", name, err)
		}
		open := func(member string) (bool, error) {
			for _, f := range zr.File {
				if f.Mode().IsRegular() && CleanName(f.Name) == member {
					r, err := f.Open()
					if err != nil {
						if err := zipOffsetsBroken(name, zr.File); err != nil {
							return true, err
						}
						return true, zipMemberError(Join(name, member), err)
					}
					rc.closers = append(rc.closers, func() { r.Close() })
					return true, found(r, int64(f.UncompressedSize64))
				}
			}
			return false, nil
		}
		if ok, err := open(want); ok {
			return err
		}
		// A symbolic link, or a name in a symlinked folder: the zip's
		// index gives the target's entry directly.
		table := zipTable(zr.File)
		target, err := table.resolveName(name, want)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return notFoundIn(table)
		case err != nil:
			return err
		}
		want = target
		if ok, err := open(target); ok {
			return err
		}
		return notFound
	case Tar:
		if src == nil {
			src = io.NewSectionReader(ra, 0, size)
		}
		var r io.Reader = src
		switch comp {
		case Gzip:
			zr, err := gzip.NewReader(src)
			if err != nil {
				return fmt.Errorf("%s: cannot read the gzip stream: %w", name, err)
			}
			rc.closers = append(rc.closers, func() { zr.Close() })
			r = zr
		case Zstd:
			zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<28), zstd.WithDecoderLowmem(true))
			if err != nil {
				return fmt.Errorf("%s: cannot read the zstd stream: %w", name, err)
			}
			rc.closers = append(rc.closers, zr.Close)
			r = zr
		}
		tr := tar.NewReader(r)
		links := newLinkTable()
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
				return fmt.Errorf("%s: the archive cannot be read before %s was found: %w", name, want, err)
			}
			clean := CleanName(hdr.Name)
			if k := linkKind(hdr); k != 0 {
				links.add(clean, entry{kind: k, target: hdr.Linkname})
				continue
			}
			if hdr.FileInfo().Mode().IsRegular() {
				if clean == want {
					return found(tr, hdr.Size)
				}
				links.add(clean, entry{kind: kindFile, size: hdr.Size})
			}
		}
		// No file of that name: a link of that name, or a name in a
		// symlinked folder?
		target, err := links.resolveName(name, want)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return notFoundIn(links)
		case err != nil:
			return err
		}
		return relinked(target)
	}
	return fmt.Errorf("%s: not a tar or zip archive", name)
}
