package check

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
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
