package check

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/hindsight-dev/hindsight/ingest"
)

// queueText is a valid queue history of n send pairs, about 120 bytes a
// pair.
func queueText(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "{:index %d, :type :invoke, :process 0, :f :send, :value [[:send :x %d]]}\n", 2*i, i)
		fmt.Fprintf(&b, "{:index %d, :type :ok, :process 0, :f :send, :value [[:send :x [%d %d]]]}\n", 2*i+1, i, i)
	}
	return b.Bytes()
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// capMeter is a meter failing past limit bytes of text, and the largest
// total it was told.
func capMeter(path string, limit int64, seen *int64) func(int64) error {
	return func(n int64) error {
		*seen = max(*seen, n)
		if n > limit {
			return &MemoryCapError{Path: path, Cap: limit, Why: "test"}
		}
		return nil
	}
}

// TestMeterCountsDecompressedText: a meter sees the text after
// decompression, whatever the file (plain, gzip with a forged trailer,
// zstd, gzip of gzip, standard input), and its error stops the read with
// a MemoryCapError, not a parse error of the cut text.
func TestMeterCountsDecompressedText(t *testing.T) {
	text := queueText(20000) // about 2.4 MB
	gz := gzipped(t, text)
	var zs bytes.Buffer
	zw, _ := zstd.NewWriter(&zs)
	zw.Write(text)
	zw.Close()
	dir := t.TempDir()
	files := map[string][]byte{
		"plain.edn": text, "h.edn.gz": gz,
		"h.edn.zst": zs.Bytes(), "twice.edn.gz": gzipped(t, gz),
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			var seen int64
			opts := DefaultOptions()
			opts.Meter = capMeter(p, 1<<40, &seen)
			res, h, err := File(p, opts)
			if err != nil {
				t.Fatal(err)
			}
			if seen != int64(len(text)) || len(h.Ops) != 40000 || res.Stats.Ops != 40000 {
				t.Errorf("meter saw %d bytes, want %d; %d ops", seen, len(text), len(h.Ops))
			}
			seen = 0
			opts.Meter = capMeter(p, 1<<20, &seen)
			_, _, err = File(p, opts)
			mc, ok := AsMemoryCapError(err)
			if !ok || mc.Path != p || IsInputError(err) {
				t.Fatalf("over the cap: %v, want a MemoryCapError naming %s", err, p)
			}
			if name != "plain.edn" && seen > 2<<20 {
				t.Errorf("read %d bytes of text past a cap of 1 MiB", seen)
			}
			if !strings.Contains(err.Error(), "could not be judged within the memory cap of 1.0 MiB") {
				t.Errorf("message: %v", err)
			}
		})
	}
	t.Run("stdin", func(t *testing.T) {
		var seen int64
		opts := DefaultOptions()
		opts.Meter = capMeter("-", 1<<20, &seen)
		_, _, err := Read(bytes.NewReader(gz), "-", opts)
		if _, ok := AsMemoryCapError(err); !ok {
			t.Fatalf("%v, want a MemoryCapError", err)
		}
	})
}

// TestMeterKeepsErrors: with a meter, a damaged or cut history reads as it
// does without one.
func TestMeterKeepsErrors(t *testing.T) {
	gz := gzipped(t, queueText(2000))
	for name, body := range map[string][]byte{
		"cut.edn.gz":     gz[:len(gz)/2],
		"header.edn.gz":  gz[:5],
		"garbage.edn.gz": append([]byte{0x1f, 0x8b, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, gz...),
		"bad.edn":        []byte("{:type :invoke, :process 0, :f :send, :value 3}\n"),
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			os.WriteFile(p, body, 0o644)
			plain := DefaultOptions()
			_, h1, err1 := File(p, plain)
			metered := DefaultOptions()
			metered.Meter = func(int64) error { return nil }
			_, h2, err2 := File(p, metered)
			if fmt.Sprint(err1) != fmt.Sprint(err2) || (h1 == nil) != (h2 == nil) {
				t.Fatalf("without a meter: %v; with one: %v", err1, err2)
			}
			if h1 != nil && (len(h1.Ops) != len(h2.Ops) || fmt.Sprint(h1.Warnings) != fmt.Sprint(h2.Warnings)) {
				t.Errorf("ops %d vs %d, warnings %v vs %v", len(h1.Ops), len(h2.Ops), h1.Warnings, h2.Warnings)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 1536: "1.5 KiB", 3 << 30: "3.0 GiB", 64 << 20: "64.0 MiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCompressedReadInParallel: a compressed history of more than 8 MiB of
// text is read in parallel through its meter (readCompressedParallel), to
// the same result as its plain twin, gzip, zstd and gzip of gzip alike; a
// text the parallel reader leaves to the sequential one (ops over two
// lines) reads the same through the fallback; and a meter's error stops
// the parallel read with a MemoryCapError.
func TestCompressedReadInParallel(t *testing.T) {
	text := queueText(80000) // about 9.6 MB
	spread := bytes.ReplaceAll(text, []byte(", :process"), []byte(",\n :process"))
	zst := func(b []byte) []byte { // one frame that says its content size, as the zstd tool writes a file
		zw, _ := zstd.NewWriter(nil)
		defer zw.Close()
		return zw.EncodeAll(b, nil)
	}
	dir := t.TempDir()
	write := func(name string, body []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	resultOf := func(p string, meter func(int64) error) (string, error) {
		opts := DefaultOptions()
		opts.Meter = meter
		res, _, err := File(p, opts)
		if err != nil {
			return "", err
		}
		res.Stats.ElapsedMS, res.Source, res.SHA256, res.Bytes = 0, "", "", 0
		b, err := json.Marshal(res)
		return string(b), err
	}
	plain := write("plain.edn", text)
	none := func(int64) error { return nil }
	want, err := resultOf(plain, none)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"h.edn.gz": gzipped(t, text), "h.edn.zst": zst(text), "twice.edn.gz": gzipped(t, gzipped(t, text)),
		"spread.edn.zst": zst(spread),
	} {
		t.Run(name, func(t *testing.T) {
			p := write(name, body)
			// read in parallel, but for the text that must be read in
			// one pass, and the gzip of gzip, whose outer trailer gives
			// the size of the inner file only (under 8 MiB)
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			var seen int64
			metered := DefaultOptions()
			metered.Meter = capMeter(p, 1<<40, &seen)
			h, parallel, err := readCompressedParallel(f, p, fi.Size(), metered)
			f.Close()
			wantParallel := name == "h.edn.gz" || name == "h.edn.zst"
			if err != nil || parallel != wantParallel || parallel && len(h.Ops) != 160000 {
				t.Errorf("read in parallel: %v (want %v), %v", parallel, wantParallel, err)
			}
			seen = 0
			got, err := resultOf(p, capMeter(p, 1<<40, &seen))
			if err != nil || got != want {
				t.Errorf("%v\ngot  %.300s\nwant %.300s", err, got, want)
			}
			// the whole text, and before it twice what the file claims
			// (readCompressedParallel asks whether that would fit)
			if seen < int64(len(text)) {
				t.Errorf("the meter saw %d bytes of text, want %d", seen, len(text))
			}
			seen = 0
			_, err = resultOf(p, capMeter(p, 1<<20, &seen))
			if mc, ok := AsMemoryCapError(err); !ok || mc.Path != p {
				t.Errorf("over the cap: %v, want a MemoryCapError naming %s", err, p)
			}
		})
	}
}

// TestCompressedReadPastItsClaim: a gzip file of two members claims the
// text of its last one only (its trailer); a parallel read that gets more
// than twice that gives up, and the sequential read reads it all, to the
// same result as the plain text.
func TestCompressedReadPastItsClaim(t *testing.T) {
	text := queueText(160000) // about 19 MB
	cut := bytes.IndexByte(text[len(text)/2+1:], '\n') + len(text)/2 + 2
	body := append(gzipped(t, text[:cut]), gzipped(t, text[cut:])...)
	dir := t.TempDir()
	p := filepath.Join(dir, "two.edn.gz")
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	claim := ingest.TextSize(f, fi.Size())
	var seen int64
	metered := DefaultOptions()
	metered.Meter = capMeter(p, 1<<40, &seen)
	_, parallel, err := readCompressedParallel(f, p, fi.Size(), metered)
	f.Close()
	if claim >= int64(len(text))/2 || parallel || err != nil {
		t.Fatalf("a text of %d bytes claiming %d: read in parallel %v, %v; want a claim under half, and no parallel read", len(text), claim, parallel, err)
	}
	res, h, err := File(p, metered)
	if err != nil || len(h.Ops) != 320000 || res.Stats.Ops != 320000 {
		t.Fatalf("%v; %d ops, want 320000", err, len(h.Ops))
	}
}
