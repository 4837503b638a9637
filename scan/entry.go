package scan

import (
	"bytes"
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
// zeroing the rows' arrays and the collector.
const entryMagic = "hindsight.scan cache entry 2\n"

// entryTrailer is the size of an entry's last field: the entry's length in
// bytes, trailer included (little-endian), so that a cut or grown entry is
// a miss even where only its head is read (cache.head).
const entryTrailer = 8

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
	b := append(make([]byte, 0, 1<<17), entryMagic...)
	b = binary.AppendUvarint(b, uint64(len(head)))
	b = append(b, head...)
	var n uint64 // written so far
	err = anoms.each(func(a *AnomalyRow) error {
		b = appendAnomalyRow(b, a)
		if len(b) < 1<<16 {
			return nil
		}
		_, err := w.Write(b)
		n += uint64(len(b))
		b = b[:0]
		return err
	})
	if err != nil {
		return err
	}
	b = binary.LittleEndian.AppendUint64(b, n+uint64(len(b))+entryTrailer)
	_, err = w.Write(b)
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

func appendEntryString(b []byte, s string) []byte {
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

// decodeEntry decodes a whole entry, its anomaly rows included. Their
// strings share b's bytes, so b must not change afterwards: one
// allocation for all of them, where an anomaly storm's entry holds
// millions.
func decodeEntry(b []byte) (*cacheEntry, error) {
	if len(b) < len(entryMagic)+entryTrailer || binary.LittleEndian.Uint64(b[len(b)-entryTrailer:]) != uint64(len(b)) {
		return nil, errBadEntry
	}
	b = b[:len(b)-entryTrailer]
	br := bytes.NewReader(b)
	e, rows, err := readEntryHead(br)
	if err != nil {
		return nil, err
	}
	d := entryDecoder{b: b, s: unsafe.String(unsafe.SliceData(b), len(b)), p: len(b) - br.Len()}
	// every row takes at least 6 bytes: a count past that is corruption
	if rows > int64(len(d.s)-d.p)/6 {
		return nil, errBadEntry
	}
	e.Anomalies = make([]AnomalyRow, rows)
	for i := range e.Anomalies {
		d.anomalyRow(&e.Anomalies[i])
	}
	if d.bad || d.p != len(d.s) || countBad(e.Anomalies) != e.Bad {
		return nil, errBadEntry
	}
	return e, nil
}

// entryDecoder reads the rows of an entry from b, whose bytes s shares
// (the rows' strings are slices of s); bad is set, and every read after
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
