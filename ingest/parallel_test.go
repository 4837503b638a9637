package ingest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

func init() {
	// set by TestPackageInBlocks for the run of the package's tests that
	// reads every seekable input in parallel
	if v := os.Getenv("HINDSIGHT_TEST_BLOCK"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			panic("HINDSIGHT_TEST_BLOCK must be a positive integer, not " + v)
		}
		testBlock = n
	}
}

// TestPackageInBlocks runs every other test of the package again with Read
// reading each seekable input in parallel, in blocks of a few bytes (every
// line a block of its own) and of a few hundred: the parallel reader must
// give what the tests expect of the sequential one, errors, warnings, ids
// and all.
func TestPackageInBlocks(t *testing.T) {
	if testBlock > 0 {
		t.Skip("already running in blocks")
	}
	if testing.Short() {
		t.Skip("runs the package's tests again: not in -short mode")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, bs := range []int{1, 300} {
		t.Run(fmt.Sprintf("blocks of %d bytes", bs), func(t *testing.T) {
			cmd := exec.Command(exe, "-test.run=^Test", "-test.skip=^(TestPackageInBlocks|TestParallelMatchesSequential|TestAllocations)$", "-test.count=1")
			cmd.Env = append(os.Environ(), "HINDSIGHT_TEST_BLOCK="+strconv.Itoa(bs))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// TestBlocksUsed checks, in the runs of TestPackageInBlocks, that Read
// does read in blocks.
func TestBlocksUsed(t *testing.T) {
	if testBlock == 0 {
		t.Skip("only when the package's tests run in blocks")
	}
	before := parallelReads.Load()
	readString(t, "x", threeOps, Options{})
	if parallelReads.Load() != before+1 {
		t.Fatal("Read did not read in blocks")
	}
}

// readBlocks reads data in parallel in blocks of about bs bytes with the
// given workers; ok is false when the reader fell back to reading
// sequentially.
func readBlocks(data []byte, name string, opts Options, workers, bs int) (*model.History, bool, error) {
	h, err := readParallel(bytes.NewReader(data), name, int64(len(data)), opts, workers, bs)
	if err == errSequential {
		return nil, false, nil
	}
	return h, true, err
}

// sameHistory reports how two reads of one input differ: ops, ids,
// warnings, truncation; "" when they do not.
func sameHistory(a, b *model.History) string {
	ra, rb := renderAll(a), renderAll(b)
	if len(ra) != len(rb) {
		return fmt.Sprintf("%d ops, want %d", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i] != rb[i] {
			return fmt.Sprintf("op %d: %s\nwant %s", i, ra[i], rb[i])
		}
		x, y := &a.Ops[i], &b.Ops[i]
		mx, my := a.MopsOf(x), b.MopsOf(y)
		if a.Line(i) != b.Line(i) || len(mx) != len(my) {
			return fmt.Sprintf("op %d: line %d, %d micro-ops; want %d, %d", i, a.Line(i), len(mx), b.Line(i), len(my))
		}
		for j := range mx {
			if mx[j].Key != my[j].Key || mx[j].Msg != my[j].Msg || mx[j].Kind != my[j].Kind {
				return fmt.Sprintf("op %d micro-op %d: %+v, want %+v", i, j, mx[j], my[j])
			}
			if mx[j].Kind == model.MopPoll {
				px, py := a.PollsOf(&mx[j]), b.PollsOf(&my[j])
				for k := range px {
					if px[k].Key != py[k].Key || fmt.Sprint(a.ReadsOf(&px[k])) != fmt.Sprint(b.ReadsOf(&py[k])) {
						return fmt.Sprintf("op %d poll %d: differs", i, k)
					}
				}
			}
		}
	}
	if fmt.Sprint(a.Keys) != fmt.Sprint(b.Keys) || fmt.Sprint(a.Values) != fmt.Sprint(b.Values) || fmt.Sprint(a.Msgs) != fmt.Sprint(b.Msgs) {
		return "intern tables differ"
	}
	if a.Truncated != b.Truncated || strings.Join(a.Warnings, "\n") != strings.Join(b.Warnings, "\n") {
		return fmt.Sprintf("truncated %v, warnings %q; want %v, %q", a.Truncated, a.Warnings, b.Truncated, b.Warnings)
	}
	if a.Source != b.Source || len(a.Extras) != len(b.Extras) || !slices.Equal(a.ExtraPos, b.ExtraPos) {
		return "source or extras differ"
	}
	return ""
}

// TestParallelMatchesSequential reads fixtures, corpus histories and
// synthetic ones in parallel, in blocks of many sizes, and compares with
// the sequential read.
func TestParallelMatchesSequential(t *testing.T) {
	inputs := map[string][]byte{
		"synthetic EDN": synthHistory(3000, false),
		"synthetic JSON lines": func() []byte {
			// synthHistory's JSON is an array; drop the brackets and commas
			s := string(synthHistory(3000, true))
			s = strings.TrimPrefix(strings.TrimSuffix(s, "]\n"), "[\n")
			return []byte(strings.ReplaceAll(s, "},\n", "}\n"))
		}(),
	}
	var files []string
	for _, w := range []string{"queue", "list-append", "rw-register"} {
		m, _ := filepath.Glob(filepath.Join(testpaths.Testdata(w), "*.edn"))
		files = append(files, m...)
	}
	if dir, ok := testpaths.FindCorpus(); ok {
		m, _ := filepath.Glob(filepath.Join(dir, "*", "*.edn"))
		files = append(files, m...)
		m, _ = filepath.Glob(filepath.Join(dir, "*", "*.json"))
		files = append(files, m...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)] = data
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			want, wantErr := read(bytes.NewReader(data), name, Options{}, 0)
			parallel := 0
			sizes := []int{100, 4096, 65536, len(data)/2 + 1}
			if len(data) < 100<<10 {
				sizes = append(sizes, 1)
			}
			for _, bs := range sizes {
				for _, w := range []int{2, 3} {
					got, ok, err := readBlocks(data, name, Options{}, w, bs)
					if !ok {
						continue
					}
					if wantErr != nil || err != nil {
						t.Fatalf("blocks of %d, %d workers: error %v, want %v (the parallel reader must leave errors to the sequential one)", bs, w, err, wantErr)
					}
					parallel++
					if d := sameHistory(got, want); d != "" {
						t.Fatalf("blocks of %d, %d workers: %s", bs, w, d)
					}
					if err := replay(got); err != nil {
						t.Fatal(err)
					}
				}
			}
			if parallel == 0 && strings.HasPrefix(name, "synthetic") {
				t.Errorf("never read in parallel")
			}
		})
	}
}

// TestTee: a parallel read gives Options.Tee the file's bytes, each once
// and in order, and sets Done; one that falls back to a sequential read
// leaves Done unset. ReadsInParallel says which files ReadFile tries in
// parallel.
func TestTee(t *testing.T) {
	defer func(m int64, f int) { parallelMin, blockFloor = m, f }(parallelMin, blockFloor)
	parallelMin, blockFloor = 1024, 256
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "{:index %d, :type :invoke, :process %d, :f :send, :value [[:send %d %d]]}\n", i, i%5, i%3, i)
	}
	one := b.String()
	spread := strings.ReplaceAll(one, ", :process", ",\n :process")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	opts := Options{Workers: 2}
	for _, c := range []struct {
		name, text string
		done       bool
	}{
		{"one op a line", one, true},
		{"ops over two lines", spread, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := write(strings.ReplaceAll(c.name, " ", "-")+".edn", c.text)
			if !ReadsInParallel(path, opts) {
				t.Errorf("ReadsInParallel(%s) = false", path)
			}
			var got bytes.Buffer
			o := opts
			o.Tee = &Tee{W: &got}
			h, err := ReadFile(path, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Ops) != 2000 {
				t.Errorf("%d ops", len(h.Ops))
			}
			if o.Tee.Done != c.done {
				t.Errorf("Done = %v, want %v", o.Tee.Done, c.done)
			}
			if c.done && got.String() != c.text {
				t.Errorf("the tee got %d bytes, not the file's %d", got.Len(), len(c.text))
			}
		})
	}
	small := write("small.edn", one[:500])
	gz := write("h.edn.gz", "\x1f\x8b\x08"+strings.Repeat("x", 2000))
	for _, c := range []struct {
		path string
		opts Options
	}{
		{small, opts}, // under parallelMin
		{gz, opts},    // compressed
		{write("big.edn", one), Options{Workers: 1}},                // one worker
		{write("max.edn", one), Options{Workers: 2, MaxBytes: 100}}, // past MaxBytes: the sequential read reports it
		{dir, opts}, // a folder with no history file
		{"-", opts}, // standard input
		{filepath.Join(dir, "missing.edn"), opts}, // no such file
	} {
		if ReadsInParallel(c.path, c.opts) {
			t.Errorf("ReadsInParallel(%s, %+v) = true", c.path, c.opts)
		}
	}
}
