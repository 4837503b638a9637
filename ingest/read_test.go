package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

const threeOps = `{:index 0, :time 1, :type :invoke, :process 0, :f :send, :value [[:send "a" 1]]}
{:index 1, :time 2, :type :ok, :process 0, :f :send, :value [[:send "a" [0 1]]]}
{:index 2, :time 3, :type :invoke, :process 0, :f :poll, :value [[:poll]]}
`

// TestTruncated checks that input cut off mid-op keeps the complete ops,
// marks the history truncated and warns once, naming where the cut op began.
func TestTruncated(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ops  int
		warn string // a part of the single warning
	}{
		{"EDN last op cut mid-line - truncated",
			threeOps + `{:index 3, :time 4, :type :ok, :process 0, :f :poll, :value [[:poll {"a" [[0`, 3, "h:4:1: the input ends in the middle of the op"},
		{"EDN cut inside a string - truncated",
			threeOps + `{:index 3, :type :info, :error "conn`, 3, "h:4:1:"},
		{"EDN cut inside a keyword - truncated",
			threeOps + `{:index 3, :ty`, 3, "h:4:1:"},
		{"EDN cut inside a tagged record - truncated",
			threeOps + "#jepsen.history.Op{:index 3", 3, "h:4:1:"},
		{"EDN cut after a tag - truncated",
			threeOps + "#jepsen.hist", 3, "h:4:1:"},
		{"EDN cut inside a string escape - truncated",
			threeOps + `{:index 3, :error "a\u00`, 3, "h:4:1:"},
		{"EDN cut inside a discarded form - truncated",
			threeOps + `{:index 3 #_ [1 2`, 3, "h:4:1:"},
		{"EDN cut after a lone hash - truncated",
			threeOps + `  #`, 3, "h:4:3:"},
		{"EDN top-level vector not closed - truncated",
			"[" + threeOps, 3, "h:1:1: the input ends inside the top-level vector"},
		{"EDN op cut inside the top-level vector - truncated",
			"[" + threeOps + "{:index 3", 3, "h:4:1: the input ends in the middle of the op"},
		{"JSON object cut - truncated",
			"{\"type\": \"invoke\", \"process\": 0}\n{\"type\": \"ok\", \"pro", 1, "h:2:1:"},
		{"JSON array cut between ops - truncated",
			"[{\"type\": \"invoke\", \"process\": 0},\n", 1, "h:1:1: the input ends inside the top-level array"},
		{"JSON string cut - truncated",
			"[{\"type\": \"invoke\", \"process\": 0},\n {\"type\": \"ok\", \"error\": \"a\\", 1, "h:2:2:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := readString(t, "h", tc.in, Options{})
			if len(h.Ops) != tc.ops || !h.Truncated {
				t.Errorf("got %d ops, truncated %v; want %d, true", len(h.Ops), h.Truncated, tc.ops)
			}
			if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], tc.warn) {
				t.Errorf("warnings %q, want one containing %q", h.Warnings, tc.warn)
			}
		})
	}
	h := readString(t, "h", strings.TrimSuffix(threeOps, "\n"), Options{})
	if h.Truncated || len(h.Ops) != 3 || len(h.Warnings) != 0 {
		t.Errorf("a complete last op without a newline: truncated %v, %d ops, %q", h.Truncated, len(h.Ops), h.Warnings)
	}
}

// TestCompressed checks that gzip and zstd input, recognised by magic
// bytes whatever the name, reads the same as plain input.
func TestCompressed(t *testing.T) {
	for _, format := range []string{"edn", "json"} {
		plain := synthHistory(3000, format == "json")
		want := renderAll(readString(t, "plain", string(plain), Options{}))
		for _, c := range []struct {
			name string
			data []byte
		}{{"gzip", testpack.Gzip(t, plain)}, {"zstd", testpack.Zstd(t, plain)}} {
			t.Run(format+" "+c.name+" round trip - same ops", func(t *testing.T) {
				h := readString(t, "history.txt", string(c.data), Options{})
				if h.Truncated || len(h.Warnings) > 0 {
					t.Errorf("truncated %v, warnings %q", h.Truncated, h.Warnings)
				}
				equalLines(t, renderAll(h), want)
			})
		}
	}
}

// TestCompressedTruncated cuts compressed streams short.
func TestCompressedTruncated(t *testing.T) {
	plain := synthHistory(3000, false)
	full := readString(t, "plain", string(plain), Options{})
	for _, c := range []struct {
		name string
		data []byte
	}{{"gzip", testpack.Gzip(t, plain)}, {"zstd", testpack.Zstd(t, plain)}} {
		t.Run(c.name+" stream cut in the middle - truncated", func(t *testing.T) {
			cut := c.data[:len(c.data)/2]
			h := readString(t, "h.edn.gz", string(cut), Options{})
			if !h.Truncated || len(h.Warnings) != 1 {
				t.Fatalf("truncated %v, warnings %q", h.Truncated, h.Warnings)
			}
			if len(h.Ops) == 0 || len(h.Ops) >= len(full.Ops) {
				t.Fatalf("%d ops of %d kept", len(h.Ops), len(full.Ops))
			}
			want := renderAll(full)[:len(h.Ops)]
			equalLines(t, renderAll(h), want)
			if !strings.HasPrefix(h.Warnings[0], "h.edn.gz:") {
				t.Errorf("warning %q does not name the file", h.Warnings[0])
			}
		})
		t.Run(c.name+" stream cut in the header - truncated and empty", func(t *testing.T) {
			h := readString(t, "h", string(c.data[:5]), Options{})
			if !h.Truncated || len(h.Ops) != 0 || len(h.Warnings) != 1 {
				t.Errorf("truncated %v, %d ops, warnings %q", h.Truncated, len(h.Ops), h.Warnings)
			}
		})
	}
	t.Run("corrupt compressed data - an error with a position, or a history", func(t *testing.T) {
		for _, data := range [][]byte{testpack.Gzip(t, plain), testpack.Zstd(t, plain)} {
			for i := 0; i < len(data); i += len(data)/40 + 1 {
				bad := bytes.Clone(data)
				bad[i] ^= 0xa5
				h, err := Read(bytes.NewReader(bad), "h", Options{})
				if err != nil {
					if e := asError(t, err); e.Line < 1 || e.Col < 1 {
						t.Errorf("byte %d: error at %d:%d", i, e.Line, e.Col)
					}
				} else if err := checkHistory(h); err != nil {
					t.Errorf("byte %d: %v", i, err)
				}
			}
		}
	})
	t.Run("gzip corrupt data - error", func(t *testing.T) {
		data := testpack.Gzip(t, plain)
		for i := 20; i < len(data)-8; i += 97 {
			data[i] ^= 0x55
		}
		_, err := Read(bytes.NewReader(data), "h", Options{})
		if e := asError(t, err); e.Err == nil || e.Line < 1 || e.Col < 1 {
			t.Errorf("got %v, want an *Error with a cause and a position", err)
		}
	})
}

// TestReadFile reads files and Jepsen store directories.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	edn := write("store/a/history.edn", threeOps)
	write("store/a/history.json", `{"type": "invoke", "process": 9}`)
	write("store/b/history.json", `{"type": "invoke", "process": 9}`)
	write("store/c/history.jsonl", `{"type": "invoke", "process": 8}`)
	write("store/d/results.edn", `{:valid? true}`)
	gz := write("h.edn.zst", string(testpack.Gzip(t, []byte(threeOps))))
	// compressed in the store folder, beside a JSON history: EDN first
	storeGz := write("store/e/history.edn.gz", string(testpack.Gzip(t, []byte(threeOps))))
	write("store/e/history.json", `{"type": "invoke", "process": 9}`)

	tests := []struct {
		name, path, source string
		ops                int
		first              string
	}{
		{"file - read", edn, edn, 3, `0 invoke p0 send send("a",1) t=1`},
		{"store directory with history.edn - reads it", filepath.Join(dir, "store/a"), edn, 3, `0 invoke p0 send send("a",1) t=1`},
		{"store directory with history.json only - reads it", filepath.Join(dir, "store/b"), filepath.Join(dir, "store/b/history.json"), 1, "0 invoke p9 other:"},
		{"store directory with history.jsonl only - reads it", filepath.Join(dir, "store/c"), filepath.Join(dir, "store/c/history.jsonl"), 1, "0 invoke p8 other:"},
		{"gzip named .zst - read by magic", gz, gz, 3, `0 invoke p0 send send("a",1) t=1`},
		{"store directory with history.edn.gz and history.json - reads the EDN", filepath.Join(dir, "store/e"), storeGz, 3, `0 invoke p0 send send("a",1) t=1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadFile(tc.path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if h.Source != tc.source || len(h.Ops) != tc.ops || render(h, &h.Ops[0]) != tc.first {
				t.Errorf("source %q, %d ops, first %q; want %q, %d, %q", h.Source, len(h.Ops), render(h, &h.Ops[0]), tc.source, tc.ops, tc.first)
			}
		})
	}
	t.Run("store directory without a history - error", func(t *testing.T) {
		_, err := ReadFile(filepath.Join(dir, "store/d"), Options{})
		if err == nil || !strings.Contains(err.Error(), "store/d") {
			t.Errorf("got %v, want an error naming the directory", err)
		}
	})
	t.Run("store root with a latest run - error naming it", func(t *testing.T) {
		write("store/t/20261207T101010.000Z/history.edn", threeOps)
		if err := os.Symlink("20261207T101010.000Z", filepath.Join(dir, "store/t/latest")); err != nil {
			t.Skip("no symlinks here:", err)
		}
		latest := filepath.Join(dir, "store/t/latest")
		_, err := ReadFile(filepath.Join(dir, "store/t"), Options{})
		if err == nil || !strings.Contains(err.Error(), "its latest run is "+latest+" (hindsight check "+latest+")") {
			t.Errorf("got %v, want an error naming %s", err, latest)
		}
		if _, err := ReadFile(latest, Options{}); err != nil {
			t.Errorf("the latest run: %v", err)
		}
	})
	t.Run("missing file - error", func(t *testing.T) {
		if _, err := ReadFile(filepath.Join(dir, "nope.edn"), Options{}); err == nil {
			t.Errorf("no error")
		}
	})
	t.Run("syntax error - names the file", func(t *testing.T) {
		p := write("bad.edn", threeOps+"{:type :ok]")
		_, err := ReadFile(p, Options{})
		if e := asError(t, err); e.File != p || e.Line != 4 || e.Col != 11 {
			t.Errorf("got %v, want %s:4:11", err, p)
		}
	})
}

// TestFixtures reads every specification fixture of the three workloads:
// one op per line, indices 0..n-1 in file order.
func TestFixtures(t *testing.T) {
	var files []string
	for _, w := range []string{"queue", "list-append", "rw-register"} {
		m, _ := filepath.Glob(filepath.Join(testpaths.Testdata(w), "*.edn"))
		if len(m) == 0 {
			t.Fatalf("no fixtures in %s", testpaths.Testdata(w))
		}
		files = append(files, m...)
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := 0
			for _, l := range strings.Split(string(data), "\n") {
				if strings.TrimSpace(l) != "" {
					lines++
				}
			}
			h, err := ReadFile(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Ops) != lines || h.Truncated || len(h.Warnings) > 0 {
				t.Errorf("%d ops for %d lines, truncated %v, warnings %q", len(h.Ops), lines, h.Truncated, h.Warnings)
			}
			if err := checkHistory(h); err != nil {
				t.Error(err)
			}
			// This one keeps the sparse indices of Elle's test (its README says
			// why); only their order is checked.
			sparse := filepath.Base(f) == "cyclic-versions-bug-regression-valid.edn"
			for i := range h.Ops {
				if h.Line(i) != i+1 || !sparse && h.Index(i) != int64(i) || i > 0 && h.Index(i) <= h.Index(i-1) {
					t.Errorf("op %d: line %d, index %d", i, h.Line(i), h.Index(i))
					break
				}
			}
		})
	}
}

// corpusFiles lists the histories of the shared corpus: history.edn and
// other .edn files except results.edn, and .json files. It skips the test
// when the corpus is not beside the repository.
func corpusFiles(t testing.TB) []string {
	all, _ := filepath.Glob(filepath.Join(testpaths.Corpus(t), "*", "*"))
	var files []string
	for _, f := range all {
		b := filepath.Base(f)
		if b != "results.edn" && (strings.HasSuffix(b, ".edn") || strings.HasSuffix(b, ".json")) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no histories in the corpus")
	}
	return files
}

// TestCorpus reads every real history of the shared corpus.
func TestCorpus(t *testing.T) {
	for _, f := range corpusFiles(t) {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			h, err := ReadFile(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Ops) == 0 || h.Truncated || len(h.Warnings) > 0 {
				t.Errorf("%d ops, truncated %v, warnings %q", len(h.Ops), h.Truncated, h.Warnings)
			}
			if err := checkHistory(h); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCorpusValues spot-checks decoded values of real histories.
func TestCorpusValues(t *testing.T) {
	corpus := testpaths.Corpus(t)
	tests := []struct {
		name, file string
		ops        int
		check      map[int]string // op position -> rendering
	}{
		{"maelstrom kafka - first ops and a poll", "maelstrom-kafka-yjcsivsuk/history.edn", 32856, map[int]string{
			0: "0 invoke p0 poll poll t=10538416",
			1: "1 invoke p1 crash t=13099208",
			4: "4 ok p0 poll poll{} t=17814958",
			5: `5 ok p3 send send("9",1)@0 t=20521000`,
		}},
		{"maelstrom kafka timeouts - info ops with errors", "maelstrom-kafka-emmanuel32-tiny-timeouts/history.edn", 18, map[int]string{
			4:  `4 info p1 poll poll err=":net-timeout" t=5014009632`,
			17: `17 fail p8 assign keys=["9"] err=":net-timeout" t=20018955328`,
		}},
		{"braft - nemesis ops", "braft-rw-register-all-info/history.edn", 3988, map[int]string{
			0: "0 invoke p3 other:read r(9) r(9) t=1941385253",
			5: "5 info p- other:resume t=7180157884",
		}},
		{"elle paper example - no f, no process", "elle-paper-example/paper-example.edn", 8, map[int]string{
			3: "3 ok p? txn append(255,8) r(253,[1 3 4])",
		}},
		{"elle-cli JSON paper example", "elle-cli-paper-example-json/paper-example.json", 8, map[int]string{
			2: "2 invoke p1 txn append(255,8) r(253)",
		}},
		{"elle-cli rw-register JSON and EDN - same", "elle-cli-rw-register/rw-register.json", 6, map[int]string{
			0: `1 invoke p0 txn w("x",2)`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadFile(filepath.Join(corpus, tc.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Ops) != tc.ops {
				t.Errorf("%d ops, want %d", len(h.Ops), tc.ops)
			}
			for i, want := range tc.check {
				if got := render(h, &h.Ops[i]); got != want {
					t.Errorf("op %d:\n got: %s\nwant: %s", i, got, want)
				}
			}
		})
	}
	h, err := ReadFile(filepath.Join(corpus, "maelstrom-kafka-yjcsivsuk/history.edn"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	op := h.Ops[0]
	if h.Index(0) != 0 || h.Time(0) != 10538416 || op.Type != model.Invoke || op.Process != 0 || op.F != model.FPoll || h.Line(0) != 1 {
		t.Errorf("first op %+v", op)
	}
}

// TestInterning checks that the decoder's interning caches give exactly the
// ids the builder gives.
func TestInterning(t *testing.T) {
	inputs := map[string][]byte{"synthetic EDN": synthHistory(20000, false)}
	if corpus, ok := testpaths.FindCorpus(); ok {
		data, err := os.ReadFile(filepath.Join(corpus, "maelstrom-kafka-yjcsivsuk/history.edn"))
		if err != nil {
			t.Fatal(err)
		}
		inputs["maelstrom kafka"] = data
	}
	var sb strings.Builder
	for i := range 3000 {
		// sparse and negative values, values shared between keys
		fmt.Fprintf(&sb, "{:type :ok :process 0 :f :txn :value [[:send %d [%d %d]] [:poll {%d [[1 %d] [2 %d]]}]]}\n",
			i%7, i, (i*7919)%100000-50, i%5, i*3, i%11)
	}
	inputs["sparse values"] = []byte(sb.String())
	for name, data := range inputs {
		t.Run(name+" - same ids as the builder", func(t *testing.T) {
			h := readString(t, "h", string(data), Options{})
			if err := replay(h); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestNonIntegerTime: a :time that is not an integer (a float, a string, a
// keyword) leaves its op without a time, and the history gets one
// warning, at the first such :time in file order, however the file is
// read: in one piece, in EDN or JSON, and in parallel blocks, where a
// later block may be decoded before the block of the first (nil is a
// missing time, no warning).
func TestNonIntegerTime(t *testing.T) {
	op := func(i int, tm string, json bool) string {
		if json {
			return fmt.Sprintf(`{"index": %d, "time": %s, "type": "invoke", "process": 0, "f": "poll", "value": null}`+"\n", i, tm)
		}
		return fmt.Sprintf("{:index %d, :time %s, :type :invoke, :process 0, :f :poll, :value nil}\n", i, tm)
	}
	for _, json := range []bool{false, true} {
		times := map[int]string{1: "nil", 700: "1.5", 1500: "2.5", 2900: `"soon"`}
		if !json {
			times[1200] = ":soon"
		}
		want := 700
		field := ":time"
		if json {
			times[1] = "null"
			field = `"time"`
		}
		var b strings.Builder
		col := 0
		for i := range 3000 {
			tm, ok := times[i]
			if !ok {
				tm = strconv.Itoa(1000 + i)
			}
			line := op(i, tm, json)
			if i == want {
				col = strings.Index(line, tm) + 1
			}
			b.WriteString(line)
		}
		data := b.String()
		name := map[bool]string{false: "t.edn", true: "t.jsonl"}[json]
		h := readString(t, name, data, Options{})
		wantWarn := fmt.Sprintf("%s:%d:%d: %s is %s, not an integer", name, want+1, col, field, times[want])
		if len(h.Warnings) != 1 || !strings.HasPrefix(h.Warnings[0], wantWarn) || !strings.HasSuffix(h.Warnings[0], fmt.Sprintf("after %d ops)", want)) {
			t.Fatalf("%s: warnings %q, want one starting %q", name, h.Warnings, wantWarn)
		}
		for i := range h.Ops {
			_, bad := times[i]
			if got := h.Time(i); bad != (got == model.NoTime) || !bad && got != int64(1000+i) {
				t.Fatalf("%s: op %d has time %d", name, i, got)
			}
		}
		parallel := 0
		for _, bs := range []int{200, 4096, 30000} {
			got, ok, err := readBlocks([]byte(data), name, Options{}, 3, bs)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			parallel++
			if d := sameHistory(got, h); d != "" {
				t.Fatalf("%s in blocks of %d: %s", name, bs, d)
			}
		}
		if parallel == 0 {
			t.Errorf("%s: never read in parallel", name)
		}
	}
}
