package check

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/ingest"
)

// TestDigest: a result's sha256 and bytes are those of the bytes as
// stored, whichever way the history is named (file, store folder,
// standard input), as scan rows have them.
func TestDigest(t *testing.T) {
	text := []byte("{:index 0 :type :invoke :process 0 :f :send :value [[:send 1 2]]}\n{:index 1 :type :ok :process 0 :f :send :value [[:send 1 [0 2]]]}\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	os.Mkdir(store, 0o755)
	os.WriteFile(filepath.Join(store, "history.edn"), text, 0o644)
	os.WriteFile(filepath.Join(dir, "h.edn"), text, 0o644)
	os.WriteFile(filepath.Join(dir, "h.edn.gz"), gz.Bytes(), 0o644)
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	cases := []struct {
		name string
		path string
		want []byte
	}{
		{"plain file - its bytes", filepath.Join(dir, "h.edn"), text},
		{"gzip file - the compressed bytes", filepath.Join(dir, "h.edn.gz"), gz.Bytes()},
		{"store folder - its history.edn", store, text},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _, err := File(c.path, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if res.SHA256 != sum(c.want) || res.Bytes != int64(len(c.want)) {
				t.Errorf("got %s %d, want %s %d", res.SHA256, res.Bytes, sum(c.want), len(c.want))
			}
		})
	}
	t.Run("standard input - the bytes read", func(t *testing.T) {
		res, _, err := ReadDigest(bytes.NewReader(text), "-", DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.SHA256 != sum(text) || res.Bytes != int64(len(text)) {
			t.Errorf("got %s %d", res.SHA256, res.Bytes)
		}
	})
}

// TestDigestNotRegular: a pipe or a device is never opened a second time
// for its digest (a second reader of a pipe would steal the history's
// bytes).
func TestDigestNotRegular(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip(err)
	}
	if _, err := DigestFile(os.DevNull); err == nil {
		t.Errorf("%s: digest of a device", os.DevNull)
	}
}

// TestDigestLarge: a file large enough to be read in parallel is hashed by
// that read (ingest.Tee), a file or a store folder's; one whose parallel
// read falls back to a sequential one (an op spread over two lines, which
// a block's end cuts) is hashed afterwards. Either way the digest is the
// file's bytes'.
func TestDigestLarge(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 9<<20; i++ {
		fmt.Fprintf(&b, "{:index %d, :time %d, :type :invoke, :process %d, :f :send, :value [[:send %d %d]]}\n", 2*i, 10*i, i%7, i%5, i)
		fmt.Fprintf(&b, "{:index %d, :time %d, :type :ok, :process %d, :f :send, :value [[:send %d [%d %d]]]}\n", 2*i+1, 10*i+5, i%7, i%5, i/5, i)
	}
	one := []byte(b.String())
	spread := []byte(strings.ReplaceAll(b.String(), ", :type", ",\n :type"))
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	os.Mkdir(store, 0o755)
	os.WriteFile(filepath.Join(store, "history.edn"), one, 0o644)
	os.WriteFile(filepath.Join(dir, "one.edn"), one, 0o644)
	os.WriteFile(filepath.Join(dir, "spread.edn"), spread, 0o644)
	for _, c := range []struct {
		name string
		path string
		want []byte
	}{
		{"one op a line", filepath.Join(dir, "one.edn"), one},
		{"a store folder's", store, one},
		{"ops over two lines", filepath.Join(dir, "spread.edn"), spread},
	} {
		t.Run(c.name, func(t *testing.T) {
			if runtime.GOMAXPROCS(0) > 1 && !ingest.ReadsInParallel(c.path, readOptions(DefaultOptions())) {
				t.Errorf("%s: not read in parallel", c.path)
			}
			res, h, err := File(c.path, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if want := bytes.Count(one, []byte("\n")); len(h.Ops) != want {
				t.Errorf("%d ops, want %d", len(h.Ops), want)
			}
			if res.SHA256 != sum(c.want) || res.Bytes != int64(len(c.want)) {
				t.Errorf("got %s %d, want %s %d", res.SHA256, res.Bytes, sum(c.want), len(c.want))
			}
		})
	}
}
