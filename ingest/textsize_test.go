package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

func TestTextSize(t *testing.T) {
	var plain bytes.Buffer
	for i := range 20000 { // a history's lines, each its own
		fmt.Fprintf(&plain, "{:index %d, :time %d, :type :ok, :process %d, :f :txn, :value [[:append %d %d]]}\n", i, i*1000, i%7, i%13, i)
	}
	p := plain.Bytes()
	gz := testpack.Gzip(t, p)
	streamZst := testpack.Zstd(t, p) // streaming: no content size in the header
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	oneShotZst := enc.EncodeAll(p, nil) // one shot: content size in the header
	n := int64(len(p))
	cases := []struct {
		name     string
		data     []byte
		lo, high int64
	}{
		{"plain - its size", p, n, n},
		{"gzip - ISIZE trailer, exact", gz, n, n},
		{"zstd with content size - exact", oneShotZst, n, n},
		{"zstd without content size - ratio", streamZst, int64(len(streamZst)) * zstdRatio, int64(len(streamZst)) * zstdRatio},
		{"truncated gzip - no trailer, ratio bound", gz[:len(gz)/2], 1, int64(len(gz)/2) * maxRatio},
		{"empty - 0", nil, 0, 0},
		{"tiny gzip header - ratio", gz[:10], 10 * gzipRatio, 10 * gzipRatio},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, "f")
		testpack.WriteFile(t, path, c.data)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got := TextSize(f, int64(len(c.data)))
		f.Close()
		if got < c.lo || got > c.high {
			t.Errorf("%s: estimate %d, want %d..%d", c.name, got, c.lo, c.high)
		}
	}
}

func TestZstdContentSize(t *testing.T) {
	magic := []byte{0x28, 0xb5, 0x2f, 0xfd}
	cases := []struct {
		name string
		hdr  []byte
		want int64
		ok   bool
	}{
		{"single segment, 1-byte size", []byte{0x20, 200}, 200, true},
		{"2-byte size, +256", []byte{0x40, 0x00, 0x10, 0x00}, 0x10 + 256, true}, // window byte, then size
		{"4-byte size", []byte{0x80, 0x00, 0x01, 0x02, 0x03, 0x04}, 0x04030201, true},
		{"no size", []byte{0x00, 0x00}, 0, false},
		{"cut short", []byte{0xc0, 0x00, 1, 2}, 0, false},
	}
	for _, c := range cases {
		got, ok := zstdContentSize(append(bytes.Clone(magic), c.hdr...))
		if got != c.want || ok != c.ok {
			t.Errorf("%s: %d, %v; want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
