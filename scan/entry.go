package scan

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"unsafe"
)

// entryMagic begins every cache entry. An entry is this line, then its
// head, then its anomaly rows:
//
//	head     uvarint length, then JSON {"schema", "row", "bad", "anomalies"}:
//	         SchemaVersion, the HistoryRow, how many anomaly rows are bad,
//	         and how many follow
//	row      type, a byte 1 and the key or a byte 0, the values and the
//	         skipped (each a uvarint count and strings), the witness (a
//	         uvarint count and zigzag varints), a byte for bad, the
//	         instance's JSON
//	string   uvarint length, then the bytes
//
// and last the entry's length (entryTrailer).
//
// Until 2026-12-07 an entry was one JSON document, rows and all, written
// and read with encoding/json. A history whose check finds millions of
// instances (an anomaly storm: 1.8M garbage reads and 300k internal reads
// in 108 MB of rw-register txns) made an entry of 452 MB, its instance
// JSON quoted inside JSON, that took a third of a 40 s scan to write and
// read back. This codec is hand-written because the libraries are much
// slower on that path: a round trip of 300k rows of that shape (a
// throwaway benchmark, one run each, 2026-12-07) took 1.47 s with
// encoding/json (219 bytes a row), 0.56 s with encoding/gob (130) and
// 0.10 s with a first cut of this format (124); BenchmarkEntryCodec, this
// code on the same rows, 0.21 to 0.34 s (124.5 bytes a row), most of it
// zeroing the rows' arrays and the collector, and 0.09 to 0.36 s once the
// rows were read back a window at a time (readEntryRows, 2026-12-08).
const entryMagic = "hindsight.scan cache entry 2\n"

// entryTrailer is the size of an entry's last field: the entry's length in
// bytes, trailer included (little-endian), so that a cut or grown entry is
// a miss even where only its head is read (cache.head).
const entryTrailer = 8

// trailerFits reports whether end, an entry's last entryTrailer bytes,
// gives size as the entry's length: an entry cut or grown since it was
// written does not fit.
func trailerFits(end []byte, size int64) bool {
	return size >= int64(len(entryMagic)+entryTrailer) && binary.LittleEndian.Uint64(end) == uint64(size)
}

// maxEntryHead bounds the head a reader accepts: a history row is a few
// kilobytes; a corrupt length must not make a reader allocate gigabytes.
const maxEntryHead = 64 << 20

// errBadEntry is any entry that does not decode: a miss.
var errBadEntry = errors.New("scan: corrupt cache entry")

// entryHead is the JSON of an entry's head.
type entryHead struct {
	Schema    string     `json:"schema"`
	Row       HistoryRow `json:"row"`
	Bad       int64      `json:"bad"`
	Anomalies int64      `json:"anomalies"`
}

// encodeEntry writes the entry of row and its anomaly rows to w.
func encodeEntry(w io.Writer, row *HistoryRow, anoms rowSource) error {
	head, err := json.Marshal(entryHead{Schema: SchemaVersion, Row: *row, Bad: anoms.bad(), Anomalies: anoms.count()})
	if err != nil {
		return err
	}
	b := binary.AppendUvarint([]byte(entryMagic), uint64(len(head)))
	b = append(b, head...)
	if _, err := w.Write(b); err != nil {
		return err
	}
	n := uint64(len(b)) // written so far
	err = anoms.encode(func(rows []byte) error {
		n += uint64(len(rows))
		_, err := w.Write(rows)
		return err
	})
	if err != nil {
		return err
	}
	_, err = w.Write(binary.LittleEndian.AppendUint64(nil, n+entryTrailer))
	return err
}

// appendAnomalyRow appends the encoding of a (all but its Path, which
// the reader sets) to b.
func appendAnomalyRow(b []byte, a *AnomalyRow) []byte {
	b = appendEntryString(b, a.Type)
	if a.Key != nil {
		b = appendEntryString(append(b, 1), *a.Key)
	} else {
		b = append(b, 0)
	}
	for _, l := range [2][]string{a.Values, a.Skipped} {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, s := range l {
			b = appendEntryString(b, s)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(a.Witness)))
	for _, w := range a.Witness {
		b = binary.AppendVarint(b, w)
	}
	if a.Bad {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return appendEntryString(b, a.Instance)
}

func appendEntryString[S string | []byte](b []byte, s S) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// entryReader is what readEntryHead reads from: a bufio.Reader over an
// entry's file, or a bytes.Reader over the whole entry.
type entryReader interface {
	io.Reader
	io.ByteReader
}

// readEntryHead reads an entry's magic line and head from r, leaving r at
// its first anomaly row, and returns the entry without its rows and how
// many rows follow.
func readEntryHead(r entryReader) (*cacheEntry, int64, error) {
	magic := make([]byte, len(entryMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != entryMagic {
		return nil, 0, errBadEntry
	}
	n, err := binary.ReadUvarint(r)
	if err != nil || n > maxEntryHead {
		return nil, 0, errBadEntry
	}
	head := make([]byte, n)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, 0, errBadEntry
	}
	var h entryHead
	if json.Unmarshal(head, &h) != nil || h.Schema != SchemaVersion || h.Anomalies < 0 || h.Bad < 0 || h.Bad > h.Anomalies {
		return nil, 0, errBadEntry
	}
	return &cacheEntry{Row: h.Row, Bad: h.Bad}, h.Anomalies, nil
}

// readEntryRows reads an entry's head and then its rows from r, which
// ends where the entry's trailer begins, and calls fn with each row in
// order. A row and its strings are valid only during the call: they share
// a window of the entry's bytes (rowWindow) that the next rows reuse, so
// that a scan writing an anomaly storm's 3M rows to its tables holds a
// few of them, not the entry's 521 MB and a struct for each row (a scan
// of that one 84 MB history peaked at 2.3 GB reading its entry whole). It
// returns the entry without its rows. An entry that does not decode, or
// holds other numbers of rows or of bad rows than its head says, is
// errBadEntry, after fn has seen the rows before the fault; an error of
// fn ends the read and is returned.
func readEntryRows(r io.Reader, fn func(*AnomalyRow) error) (*cacheEntry, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	e, rows, err := readEntryHead(br)
	if err != nil {
		return nil, err
	}
	w := rowWindow{r: br}
	var bad int64
	for range rows {
		var a AnomalyRow
		if !w.next(&a) {
			return nil, errBadEntry
		}
		if a.Bad {
			bad++
		}
		if err := fn(&a); err != nil {
			return nil, err
		}
	}
	if bad != e.Bad || !w.atEnd() {
		return nil, errBadEntry
	}
	return e, nil
}

// rowWindow decodes anomaly rows from r through a window of its bytes,
// which grows to hold the longest row (never past what r holds: a corrupt
// length runs into r's end).
type rowWindow struct {
	r   io.Reader
	buf []byte
	p   int // where the next row starts in buf
	end bool
}

// windowMin is a rowWindow's least size.
const windowMin = 1 << 20

// next decodes the next row into a; false when r ends before it does, or
// its bytes are not a row.
func (w *rowWindow) next(a *AnomalyRow) bool {
	for {
		rest := w.buf[w.p:]
		d := entryDecoder{b: rest, s: unsafe.String(unsafe.SliceData(rest), len(rest))}
		*a = AnomalyRow{}
		d.anomalyRow(a)
		if !d.bad {
			w.p += d.p
			return true
		}
		if !w.fill() {
			return false
		}
	}
}

// fill moves the bytes not decoded yet to the front of the window, grows
// it when they leave less room than they take (or than half its least
// size), and fills the rest from r; false when r has no more.
func (w *rowWindow) fill() bool {
	if w.end {
		return false
	}
	n := copy(w.buf[:cap(w.buf)], w.buf[w.p:])
	w.buf, w.p = w.buf[:n], 0
	if free := cap(w.buf) - n; free < n || free < windowMin/2 {
		nb := make([]byte, n, max(windowMin, 2*cap(w.buf)))
		copy(nb, w.buf)
		w.buf = nb
	}
	// the window filled, not just read into: a reader that gives a byte
	// at a time must not have a long row decoded again for each
	m, err := io.ReadFull(w.r, w.buf[n:cap(w.buf)])
	w.buf = w.buf[:n+m]
	if err != nil {
		w.end = true
	}
	return m > 0
}

// atEnd reports whether every byte of r has been decoded.
func (w *rowWindow) atEnd() bool {
	if w.p != len(w.buf) {
		return false
	}
	var one [1]byte
	n, _ := io.ReadFull(w.r, one[:])
	return n == 0
}

// entryDecoder reads a row of an entry from b, whose bytes s shares (the
// row's strings are slices of s); bad is set, and every read after
// returns zero values, once b runs out or holds a malformed number.
type entryDecoder struct {
	b   []byte
	s   string
	p   int
	bad bool
}

func (d *entryDecoder) uvarint() uint64 { return number(d, binary.Uvarint) }

func (d *entryDecoder) varint() int64 { return number(d, binary.Varint) }

// number reads one number of d with decode (binary.Uvarint or Varint).
func number[T uint64 | int64](d *entryDecoder, decode func([]byte) (T, int)) T {
	v, n := decode(d.b[d.p:])
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.p += n
	return v
}

func (d *entryDecoder) byte() byte {
	if d.p >= len(d.b) {
		d.bad = true
		return 0
	}
	d.p++
	return d.s[d.p-1]
}

func (d *entryDecoder) string() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.p) {
		d.bad = true
		return ""
	}
	d.p += int(n)
	return d.s[d.p-int(n) : d.p]
}

// count reads a count of items of at least one byte each.
func (d *entryDecoder) count() int {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.p) {
		d.bad = true
		return 0
	}
	return int(n)
}

// anomalyRow reads one row into a (appendAnomalyRow's encoding).
func (d *entryDecoder) anomalyRow(a *AnomalyRow) {
	a.Type = d.string()
	switch d.byte() {
	case 1:
		k := d.string()
		a.Key = &k
	case 0:
	default:
		d.bad = true
	}
	for _, l := range [2]*[]string{&a.Values, &a.Skipped} {
		*l = make([]string, d.count())
		for j := range *l {
			(*l)[j] = d.string()
		}
	}
	a.Witness = make([]int64, d.count())
	for j := range a.Witness {
		a.Witness[j] = d.varint()
	}
	switch d.byte() {
	case 1:
		a.Bad = true
	case 0:
	default:
		d.bad = true
	}
	a.Instance = d.string()
}
