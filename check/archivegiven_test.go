package check

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchiveGiven: an archive named as a history is an input error that
// says it is an archive and how to check what it holds, not the parser's
// complaint about its first bytes; a history that fails to parse keeps the
// parser's error.
func TestArchiveGiven(t *testing.T) {
	dir := t.TempDir()
	const hist = "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append 1 1]]}\n"
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	w, err := zw.Create("run1/history.edn")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(hist))
	zw.Close()
	var tg bytes.Buffer
	gz := gzip.NewWriter(&tg)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "run1/history.edn", Mode: 0o644, Size: int64(len(hist))})
	tw.Write([]byte(hist))
	tw.Close()
	gz.Close()
	files := map[string][]byte{"runs.zip": z.Bytes(), "runs.tar.gz": tg.Bytes(), "bad.edn": []byte("{:index 0, :type}\n")}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"runs.zip": "a zip archive, not a history", "runs.tar.gz": "a tar archive, not a history"} {
		p := filepath.Join(dir, name)
		_, _, err := File(p, Options{})
		if err == nil || !IsInputError(err) {
			t.Fatalf("%s: error %v, want an input error", name, err)
		}
		if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "hindsight scan "+p) || !strings.Contains(msg, p+"!/") {
			t.Errorf("%s: error %q, want it to say %q and how to name a member or scan", name, msg, want)
		}
	}
	_, _, err = File(filepath.Join(dir, "bad.edn"), Options{})
	if err == nil || strings.Contains(err.Error(), "archive") || !strings.Contains(err.Error(), "bad.edn:1:") {
		t.Errorf("bad.edn: error %v, want the parser's, with its line", err)
	}
}

// TestMissingFileError: a history that cannot be opened is an input error
// that names the file and why, without the system call ("stat h.edn: ...").
func TestMissingFileError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gone.edn")
	_, _, err := File(p, Options{})
	if !IsInputError(err) || err.Error() != p+": no such file or directory" {
		t.Errorf("error %v, want an input error %q", err, p+": no such file or directory")
	}
}
