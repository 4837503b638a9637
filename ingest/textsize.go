package ingest

import (
	"bytes"
	"encoding/binary"
	"io"
)

// Compression ratios assumed when a compressed file does not say how big
// its content is (a zstd frame without content size, a gzip trailer that
// cannot be right). Generated histories compress 4.5 to 6.5 times; Jepsen's
// own, with longer values, compress more, so the estimate errs high.
const (
	gzipRatio = 8
	zstdRatio = 8
	// maxRatio bounds a ratio read from a file: beyond it the size field is
	// taken to be garbage (a truncated gzip's last bytes are not its trailer).
	maxRatio = 64
)

// TextSize returns the uncompressed size of the file f of size bytes:
// its size when it is not compressed; for gzip, the ISIZE trailer (the
// content size modulo 2^32, corrected for histories over 4 GiB); for zstd,
// the frame's content size when the header has one; otherwise size times an
// assumed ratio. It reads at most 18 bytes and leaves f's offset anywhere.
// The scan weighs a history by it, and check and report size their memory
// budget by it (cmd/hindsight).
func TextSize(f io.ReaderAt, size int64) int64 {
	var head [18]byte
	n, _ := f.ReadAt(head[:], 0)
	h := head[:n]
	switch {
	case bytes.HasPrefix(h, gzipMagic):
		var tail [4]byte
		if size < 18+4 {
			return size * gzipRatio
		}
		if _, err := f.ReadAt(tail[:], size-4); err != nil {
			return size * gzipRatio
		}
		u := int64(binary.LittleEndian.Uint32(tail[:]))
		for u < size/2 && size > 1<<20 {
			u += 1 << 32 // ISIZE wrapped: the content is over 4 GiB
		}
		if u > size*maxRatio {
			return size * gzipRatio
		}
		return u
	case bytes.HasPrefix(h, zstdMagic):
		if u, ok := zstdContentSize(h); ok && u <= size*maxRatio {
			return max(u, size)
		}
		return size * zstdRatio
	}
	return size
}

// zstdContentSize reads Frame_Content_Size from the header of a zstd frame
// (RFC 8878 §3.1.1.1) starting at h[0] (the magic number).
func zstdContentSize(h []byte) (int64, bool) {
	if len(h) < 5 {
		return 0, false
	}
	fhd := h[4]
	fcsFlag := fhd >> 6
	single := fhd&0x20 != 0
	didSize := [4]int{0, 1, 2, 4}[fhd&3]
	pos := 5
	if !single {
		pos++ // Window_Descriptor
	}
	pos += didSize
	var fcsSize int
	switch fcsFlag {
	case 0:
		if !single {
			return 0, false // no content size
		}
		fcsSize = 1
	case 1:
		fcsSize = 2
	case 2:
		fcsSize = 4
	case 3:
		fcsSize = 8
	}
	if len(h) < pos+fcsSize {
		return 0, false
	}
	b := h[pos : pos+fcsSize]
	switch fcsSize {
	case 1:
		return int64(b[0]), true
	case 2:
		return int64(binary.LittleEndian.Uint16(b)) + 256, true
	case 4:
		return int64(binary.LittleEndian.Uint32(b)), true
	}
	v := binary.LittleEndian.Uint64(b)
	if v > 1<<62 {
		return 0, false
	}
	return int64(v), true
}

// Compressed reports whether head, the first bytes of a file, starts with
// gzip's or zstd's magic number: whether ReadFile would decompress it.
func Compressed(head []byte) bool {
	return bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, zstdMagic)
}
