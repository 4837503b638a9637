package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/internal/storename"
	"github.com/hindsight-dev/hindsight/model"
)

// Format is the syntax of a history.
type Format uint8

const (
	// FormatAuto detects the format from the content (see the package doc).
	FormatAuto Format = iota
	// FormatEDN reads EDN.
	FormatEDN
	// FormatJSON reads JSON: one array of objects, or one object per line.
	FormatJSON
)

// String returns the format's name.
func (f Format) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatEDN:
		return "edn"
	case FormatJSON:
		return "json"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Options for reading.
type Options struct {
	// Format forces a syntax; the zero value detects it.
	Format Format
	// Workers is how many blocks of a large plain file ReadFile decodes at
	// once (parallel.go); 0 means one per core (GOMAXPROCS), 1 reads
	// sequentially. Read, standard input and compressed files are always
	// read sequentially (a compressed one decompressed by a goroutine of
	// its own).
	Workers int

	noFast bool // tests: read every op with readOp, never fastOp

	// Decoders are the workloads' own decoders, offered in order what
	// ingest does not decode itself (see the package doc, "Workload
	// values"); package workload lists them (workload.Decoders). Nil: none,
	// and such values are decoding errors or ignored as without hooks.
	Decoders []ValueDecoder

	// MaxBytes, when positive, bounds the history's text (after
	// decompression) and its bytes as stored: past it, reading stops with
	// an *Error that wraps ErrTooLarge. It keeps a decompression bomb from
	// taking all memory.
	MaxBytes int64

	// Tee, when set, is given the bytes of a file that ReadFile reads in
	// parallel (ReadsInParallel), so that a caller can hash the file
	// without reading it a second time. Nil: none.
	Tee *Tee
}

// Tee receives the bytes of a file as a parallel read reads them: every
// byte once, in file order (Options.Tee). Done is set when the parallel
// read succeeded, and so W was given the whole file; otherwise (the read
// fell back to a sequential one, or failed) W holds an unknown prefix of
// it.
type Tee struct {
	W    io.Writer
	Done bool
}

// ErrTooLarge is wrapped by the error of a history whose text passes
// Options.MaxBytes.
var ErrTooLarge = errors.New("history too large")

// tooLargeError is the error a limitReader returns; it is ErrTooLarge.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the history is larger than the limit of %d bytes (--max-history-bytes); not read further", e.limit)
}

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// limitReader reads at most limit bytes of r, then fails with a
// tooLargeError if r has more.
type limitReader struct {
	r           io.Reader
	left, limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		for {
			n, err := l.r.Read(one[:])
			if n > 0 {
				return 0, &tooLargeError{l.limit}
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// limit wraps r in a limitReader when max is positive.
func limit(r io.Reader, max int64) io.Reader {
	if max <= 0 {
		return r
	}
	return &limitReader{r: r, left: max, limit: max}
}

// ReadFile reads the history at path: a file (plain, gzip or zstd), "-" for
// standard input, a Jepsen store directory, from which it reads its
// history file (StoreFile), or a member of a tar or zip archive, named
// ARCHIVE!/NAME (package internal/archive; read in place, never unpacked
// to disk).
// Errors opening the file are returned as they are; errors in its content
// are *Error.
func ReadFile(path string, opts Options) (*model.History, error) {
	if path == "-" {
		return Read(os.Stdin, "-", opts)
	}
	fi, err := os.Stat(path)
	if err != nil {
		if _, _, ok := archive.Split(path); ok {
			return readMember(path, opts)
		}
		return nil, err
	}
	if fi.IsDir() {
		dir := path
		var ok bool
		if path, ok = StoreFile(dir); !ok {
			return nil, noHistoryIn(dir)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if h, ok, err := readFileParallel(f, path, opts); ok || err != nil {
		return h, err
	}
	return read(f, path, opts, lineHint(path))
}

// noHistoryIn is the error for a directory holding no history file. A
// Jepsen store's root and each test's folder hold a symlink, latest, to
// the latest run: when it leads to a history, the error names it.
func noHistoryIn(dir string) error {
	latest := filepath.Join(dir, "latest")
	if fi, err := os.Stat(latest); err == nil && fi.IsDir() {
		if _, ok := StoreFile(latest); ok {
			return fmt.Errorf("%s: a directory without %s; its latest run is %s (hindsight check %s), and hindsight scan %s checks every history below it",
				dir, storename.Listed, latest, latest, dir)
		}
	}
	return fmt.Errorf("%s: a directory without %s; to check every history below it, use hindsight scan", dir, storename.Listed)
}

// readMember reads the history stored as the archive member named by path
// (ARCHIVE!/NAME).
func readMember(path string, opts Options) (*model.History, error) {
	rc, err := archive.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return read(rc, rc.Name, opts, 0)
}

// lineHint counts the lines of a plain regular file: an upper bound on the
// ops of a one-op-per-line history, so that ops can be stored in one
// allocation of the right size. A small, compressed or unreadable file
// gives 0 (no hint). Reading a file twice from the page cache costs far less
// than holding its ops twice.
func lineHint(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < 1<<20 {
		return 0
	}
	buf := make([]byte, 1<<20)
	n := 0
	for first := true; ; first = false {
		k, err := f.Read(buf)
		if first && Compressed(buf[:k]) {
			return 0
		}
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n + 1
		}
	}
}

// Read reads a history from r; name is used in errors, warnings and
// History.Source. A history cut off in the middle of an op is not an error
// (see the package doc); every other problem in the content is an *Error.
func Read(r io.Reader, name string, opts Options) (*model.History, error) {
	if testBlock > 0 {
		if h, ok, err := readForTest(r, name, opts); ok || err != nil {
			return h, err
		}
	}
	return read(r, name, opts, 0)
}

// read is Read with a hint of how many ops to expect (0: unknown).
func read(r io.Reader, name string, opts Options, hint int) (*model.History, error) {
	r = limit(r, opts.MaxBytes)
	b := model.NewBuilder(name)
	l := newLexer(r)
	p := 0
	l.ensure(&p, len(zstdMagic), 0)
	head := l.buf[:l.end]
	var dec io.Reader
	var release func()
	var gz *gzipMembers
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		// a bufio.Reader is a flate.Reader: the decompressor reads no byte
		// past a member's end, so what follows it can be looked at
		src := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(head)), r), 64<<10)
		zr, err := gzip.NewReader(src)
		if err != nil {
			return compressedHeaderErr(b, name, "gzip", err)
		}
		zr.Multistream(false)
		gz = &gzipMembers{src: src, zr: zr}
		dec, release = gz, func() { zr.Close() }
	case bytes.HasPrefix(head, zstdMagic):
		src := io.MultiReader(bytes.NewReader(bytes.Clone(head)), r)
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<28))
		if err != nil {
			return compressedHeaderErr(b, name, "zstd", err)
		}
		dec, release = zr, zr.Close
	}
	if dec != nil {
		// Decompress in a goroutine of its own, one chunk ahead of the parser.
		pf := newPrefetch(limit(dec, opts.MaxBytes), release)
		defer pf.stop()
		l.src, l.end, l.eof, l.rerr, l.nulRun = pf, 0, false, nil, 0
	}
	// A UTF-8 byte order mark is not part of the text.
	q := 0
	if l.ensure(&q, 3, 0) && bytes.HasPrefix(l.buf[:l.end], []byte{0xef, 0xbb, 0xbf}) {
		l.pos, l.lineStart = 3, 3
	}
	l.skipSpace()
	switch opts.Format {
	case FormatJSON:
		l.json = true
	case FormatEDN:
	default:
		l.json = l.looksJSON()
	}
	d := newDecoder(l, b, name)
	d.noFast = opts.noFast
	d.setHooks(opts.Decoders)
	d.ops.hint = hint
	d.gz = gz
	if err := d.run(); err != nil {
		return nil, err
	}
	d.settleAll()
	b.SetExtOwners(hookNames(opts.Decoders))
	h := b.History()
	h.Ops, h.Indices, h.Lines, h.Times = d.ops.join(), d.indices, d.lines, d.times
	h.CompactElems()
	return h, nil
}

// gzipMembers reads a gzip stream of one or more members, as gzip.Reader
// does in its multistream mode, except that NUL bytes after a complete
// member, up to the end of the file, end the stream: what a writer that
// crashed leaves (the file's length was saved, its last blocks were not).
// pad counts them; the decoder reads the history as cut off there.
type gzipMembers struct {
	src *bufio.Reader
	zr  *gzip.Reader
	pad int64 // NUL bytes after the last member; set before Read returns io.EOF
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		if n > 0 {
			return n, nil // the member's end comes again on the next call
		}
		// the member is complete: the end, another member, or NUL bytes
		b, err := g.src.Peek(1)
		if len(b) == 0 {
			return 0, err
		}
		if b[0] == 0 {
			return 0, g.nulTail()
		}
		if err := g.zr.Reset(g.src); err != nil {
			return 0, err
		}
		g.zr.Multistream(false)
	}
}

// nulTail reads the rest of the input, which starts with a NUL byte: if it
// is all NUL bytes, it counts them in pad and returns io.EOF; otherwise
// gzip.ErrHeader, as a multistream gzip.Reader would.
func (g *gzipMembers) nulTail() error {
	var buf [32 << 10]byte
	n := int64(0)
	for {
		k, err := g.src.Read(buf[:])
		for _, c := range buf[:k] {
			if c != 0 {
				return gzip.ErrHeader
			}
		}
		n += int64(k)
		if err == io.EOF {
			g.pad = n
			return io.EOF
		}
		if err != nil {
			return err
		}
	}
}

// compressedHeaderErr handles a compressed stream whose header cannot be
// read: cut off, it is an empty truncated history; otherwise an *Error.
func compressedHeaderErr(b *model.Builder, name, kind string, err error) (*model.History, error) {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		b.SetTruncated()
		b.Warn("%s:1:1: the %s stream ends inside its header; no ops could be read", name, kind)
		return b.History(), nil
	}
	return nil, &Error{File: name, Line: 1, Col: 1, Msg: "cannot read " + kind + " stream: " + err.Error(), Err: err}
}

// looksJSON reports whether the text starts like JSON: '[' then '{' then '"',
// or '{' then '"', with whitespace allowed in between.
func (l *lexer) looksJSON() bool {
	i := l.peekNonSpace(l.pos)
	if i < 0 {
		return false
	}
	switch l.buf[i] {
	case '[':
		i = l.peekNonSpace(i + 1)
		if i < 0 || l.buf[i] != '{' {
			return false
		}
		fallthrough
	case '{':
		i = l.peekNonSpace(i + 1)
		return i >= 0 && l.buf[i] == '"'
	}
	return false
}

// peekNonSpace returns the index of the first byte at or after i that is not
// JSON whitespace, reading more input as needed, or -1: at the end of the
// input, or past maxPeek bytes of whitespace. Nothing before l.pos has been
// consumed yet, so no byte moves, and what it peeks at stays in memory:
// hence the bound.
func (l *lexer) peekNonSpace(i int) int {
	start := l.base + int64(i)
	for {
		for i < l.end {
			switch l.buf[i] {
			case ' ', '\t', '\r', '\n':
				i++
				continue
			}
			return i
		}
		if l.base+int64(i)-start > maxPeek || !l.more(&i, 0) {
			return -1
		}
	}
}

// maxPeek is how much whitespace looksJSON reads past inside "[ {" before
// it gives up on JSON (and the history is read as EDN).
const maxPeek = 1 << 20

// skipSpace consumes the JSON whitespace at l.pos (EDN reads it as
// whitespace too), counting its lines and reading on as it goes, so that a
// history that starts with gigabytes of blanks is read in constant memory
// (the format's detection kept them all, 1.35 GB for 512 MB of spaces).
func (l *lexer) skipSpace() {
	p := l.pos
	for {
		for p < l.end {
			switch l.buf[p] {
			case ' ', '\t':
				p++
				continue
			case '\r', '\n':
				l.newline(p)
				p++
				continue
			}
			l.pos = p
			return
		}
		l.pos = p
		if !l.more(&p, p) {
			l.pos = p
			return
		}
	}
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)
