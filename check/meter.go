package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/model"
)

// # Metering
//
// Go cannot make an allocation fail, so a memory cap (hindsight check
// --memory, scan's budget) is kept by watching what is read: with
// Options.Meter set, the history's text is counted after decompression, as
// the parser takes it, and the meter is told the running total before the
// parser sees the bytes. A meter that returns an error stops the read
// there: a history whose text alone cannot fit stops before its ops are
// allocated, whatever its file's header claimed (a gzip trailer can lie
// either way). A plain file's text is its size, told at once; compressed
// input (gzip or zstd, and the member of an archive or standard input,
// whatever they hold) is decompressed here, on a goroutine of its own one
// chunk ahead of the parser, and handed to ingest as text.

// MemoryCapError is the error of a history that cannot be judged within a
// memory cap: hindsight check's --memory (exit status 4), or scan's budget
// (an error row).
type MemoryCapError struct {
	// Path names the history.
	Path string
	// Cap is the cap in bytes.
	Cap int64
	// Flag is the command-line flag that sets the cap ("--memory").
	Flag string
	// Why says what passed the cap (the text read so far, the live heap).
	Why string
}

// MemoryCapPhrase is in the message of every MemoryCapError (and of scan's
// rows of them), after the path.
const MemoryCapPhrase = "could not be judged within the memory cap of"

func (e *MemoryCapError) Error() string {
	flag := e.Flag
	if flag == "" {
		flag = "--memory"
	}
	return fmt.Sprintf("%s: %s %s (%s); %s", e.Path, MemoryCapPhrase, FormatBytes(e.Cap), flag, e.Why)
}

// FormatBytes writes n bytes in binary units with one decimal (3.0 GiB,
// 512.0 MiB), or as bytes below 1 KiB.
func FormatBytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

// AsMemoryCapError returns the MemoryCapError err is or wraps, if any.
func AsMemoryCapError(err error) (*MemoryCapError, bool) {
	var mc *MemoryCapError
	ok := errors.As(err, &mc)
	return mc, ok
}

// ReadHistory reads the history at path (as ingest.ReadFile: "-" is
// standard input), metered by opts.Meter when it is set. Errors in the
// content are ingest's, as ingest.ReadFile returns them.
func ReadHistory(path string, opts Options) (*model.History, error) {
	iopts := readOptions(opts)
	if opts.Meter == nil {
		return ingest.ReadFile(path, iopts)
	}
	if path == "-" {
		return ReadHistoryFrom(os.Stdin, "-", opts)
	}
	fi, err := os.Stat(path)
	if err != nil {
		if _, _, ok := archive.Split(path); ok {
			rc, err := archive.Open(path)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return ReadHistoryFrom(rc, rc.Name, opts)
		}
		return nil, err
	}
	if fi.IsDir() {
		// the meter needs to know which file ingest.ReadFile would read
		if p, ok := ingest.StoreFile(path); ok {
			return ReadHistory(p, opts)
		}
		return ingest.ReadFile(path, iopts) // its error
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	if fi.Mode().IsRegular() && !ingest.Compressed(head[:n]) {
		// Plain text: its size is its text, told before anything is read.
		if err := opts.Meter(fi.Size()); err != nil {
			return nil, err
		}
		f.Close()
		return ingest.ReadFile(path, iopts)
	}
	if fi.Mode().IsRegular() {
		if h, ok, err := readCompressedParallel(f, path, fi.Size(), opts); ok || err != nil {
			return h, err
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return ReadHistoryFrom(f, path, opts)
}

// readCompressedParallel reads the compressed regular file f (size bytes
// as stored) as ReadHistoryFrom does, decompressed and metered by
// opts.Meter (ReadHistory calls it only with one), but its text in
// parallel (ingest.ReadTextParallel) when it is large enough. ok
// is false when it must be read sequentially (f is then anywhere); a
// meter's error ends the read, as ReadHistoryFrom's. On 1M list-append
// txns of histgen's defaults in zstd (45 MB, 284 MB of text; 2026-12-07,
// two runs each, alternating) the read took 0.80-0.82 s instead of
// 1.31-1.61 s, as fast as the plain file's, and the check 1.52 s instead
// of 2.02-2.39 s, at 202 MB of peak RSS instead of 196.
func readCompressedParallel(f *os.File, path string, size int64, opts Options) (*model.History, bool, error) {
	iopts := readOptions(opts)
	text := ingest.TextSize(f, size)
	if !ingest.ParallelText(text, iopts) {
		return nil, false, nil
	}
	meter := opts.Meter
	// Within twice the size the file claims, and only that far: a text
	// near the memory cap is read sequentially, which stops at the cap
	// (a parallel read holds more at once, and at a cap of 1.4 GiB a
	// gzip bomb whose trailer understates its text ran the collector flat
	// out instead), and so is one that outgrows its claim (a multi-member
	// gzip's trailer gives its last member's size).
	if meter(2*text) != nil {
		return nil, false, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false, err
	}
	r, m, stop := meterText(f, meter)
	h, ok := ingest.ReadTextParallel(&claimReader{r: r, left: 2 * text}, path, text, iopts)
	stop()
	if m.err != nil {
		return nil, false, m.err // the meter stopped the read: its error says why
	}
	return h, ok, nil
}

// ReadHistoryFrom reads a history from r, named name, metered by
// opts.Meter when it is set.
func ReadHistoryFrom(r io.Reader, name string, opts Options) (*model.History, error) {
	iopts := readOptions(opts)
	if opts.Meter == nil {
		return ingest.Read(r, name, iopts)
	}
	text, m, stop := meterText(r, opts.Meter)
	h, err := ingest.Read(text, name, iopts)
	stop()
	if m.err != nil {
		// The meter stopped the read: whatever the parser made of the cut
		// text, the meter's error says why (without the parser's position).
		return nil, m.err
	}
	return h, err
}

// maxLayers bounds how many compressions are taken off one stream (a
// gzip of a gzip): every layer is decompressed here, so the meter counts
// the text the parser reads.
const maxLayers = 4

// meterText returns the text of r, decompressed (every gzip or zstd layer)
// and counted by meter, the meterReader counting it (its err is the
// meter's, once stop has returned) and a function to call when done
// reading. The decompression runs on a goroutine of its own, one chunk
// ahead.
func meterText(r io.Reader, meter func(int64) error) (io.Reader, *meterReader, func()) {
	var closers []func()
	src := io.Reader(r)
	layers := 0
	for ; layers < maxLayers; layers++ {
		br := bufio.NewReaderSize(src, 64<<10)
		head, _ := br.Peek(4)
		src = br
		if !ingest.Compressed(head) {
			break
		}
		// The decompressor's header is read through a recorder, so that a
		// header it cannot read goes to ingest unread, which says why.
		rec := &recorder{r: br, on: true}
		var dec io.Reader
		if head[0] == 0x1f {
			if zr, err := gzip.NewReader(rec); err == nil {
				dec = zr
				closers = append(closers, func() { zr.Close() })
			}
		} else if zr, err := zstd.NewReader(rec, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<28)); err == nil {
			dec = zr
			closers = append(closers, zr.Close)
		}
		if dec == nil {
			src = io.MultiReader(bytes.NewReader(rec.buf), br)
			break
		}
		rec.on, rec.buf = false, nil
		src = dec
	}
	m := &meterReader{r: src, meter: meter}
	if layers == 0 {
		return m, m, func() {}
	}
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 256<<10)
		_, err := io.CopyBuffer(pw, m, buf)
		pw.CloseWithError(err)
	}()
	return pr, m, func() {
		pr.CloseWithError(errors.New("read abandoned"))
		<-done
		for _, c := range closers {
			c()
		}
	}
}

// claimReader reads r until left bytes have been read, then fails
// (errPastClaim): a parallel read that gets more text than its file
// claimed gives up to the sequential one.
type claimReader struct {
	r    io.Reader
	left int64
}

var errPastClaim = errors.New("the text is larger than its file says")

func (c *claimReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errPastClaim
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(n)
	return n, err
}

// recorder keeps what is read through it while on.
type recorder struct {
	r   *bufio.Reader
	on  bool
	buf []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if r.on {
		r.buf = append(r.buf, p[:n]...)
	}
	return n, err
}

// ReadByte lets a decompressor read its header byte by byte, taking no more
// than the header.
func (r *recorder) ReadByte() (byte, error) {
	c, err := r.r.ReadByte()
	if err == nil && r.on {
		r.buf = append(r.buf, c)
	}
	return c, err
}

// meterReader counts what it reads and tells meter the total before
// returning the bytes; an error from meter ends the stream.
type meterReader struct {
	r     io.Reader
	meter func(int64) error
	n     int64
	err   error
}

func (m *meterReader) Read(p []byte) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	n, err := m.r.Read(p)
	if n > 0 {
		m.n += int64(n)
		if merr := m.meter(m.n); merr != nil && !errors.Is(merr, io.EOF) {
			m.err = merr
			return 0, merr
		}
	}
	return n, err
}
