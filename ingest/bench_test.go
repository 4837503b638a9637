package ingest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// synthHistory generates a queue history of about n ops in the shapes Jepsen
// and Maelstrom write: sends, polls and transactions of 8 processes over 32
// keys, completions mostly ok with a few info timeouts.
func synthHistory(n int, json bool) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	const keys = 32
	var next [keys]int64 // next offset per key
	var vals [keys]int64 // next value per key
	tm := int64(10_000_000)
	type pend struct {
		f     string
		sends [][2]int64 // key, value
		poll  bool
	}
	const procs = 8
	var open [procs]*pend
	if json {
		buf.WriteString("[\n")
	}
	kw := func(s string) string {
		if json {
			return `"` + s + `"`
		}
		return ":" + s
	}
	sep := ", " // between map entries
	vsep := " " // between vector elements
	colon := " "
	if json {
		colon = ": "
		vsep = ", "
	}
	field := func(name string) string {
		if json {
			return `"` + name + `"` + colon
		}
		return ":" + name + colon
	}
	key := func(k int64, polled bool) string {
		if json && polled {
			return `"` + strconv.FormatInt(k, 10) + `"`
		}
		return strconv.FormatInt(k, 10)
	}
	for i := 0; i < n; i++ {
		p := rng.IntN(procs)
		tm += int64(rng.IntN(2_000_000))
		var b []byte
		b = append(b, '{')
		b = append(b, field("index")...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, sep...)
		b = append(b, field("time")...)
		b = strconv.AppendInt(b, tm, 10)
		b = append(b, sep...)
		var mops []string
		var typ, f string
		if open[p] == nil {
			typ = "invoke"
			pd := &pend{}
			switch r := rng.IntN(10); {
			case r < 4:
				pd.f = "send"
				k := rng.Int64N(keys)
				pd.sends = append(pd.sends, [2]int64{k, vals[k]})
				vals[k]++
			case r < 8:
				pd.f = "poll"
				pd.poll = true
			default:
				pd.f = "txn"
				for j := rng.IntN(3) + 1; j > 0; j-- {
					k := rng.Int64N(keys)
					pd.sends = append(pd.sends, [2]int64{k, vals[k]})
					vals[k]++
				}
				pd.poll = true
			}
			open[p] = pd
			f = pd.f
			for _, s := range pd.sends {
				mops = append(mops, "["+kw("send")+vsep+key(s[0], false)+vsep+strconv.FormatInt(s[1], 10)+"]")
			}
			if pd.poll {
				mops = append(mops, "["+kw("poll")+"]")
			}
		} else {
			pd := open[p]
			open[p] = nil
			f = pd.f
			typ = "ok"
			if rng.IntN(50) == 0 {
				typ = "info"
			}
			for _, s := range pd.sends {
				if typ == "info" {
					mops = append(mops, "["+kw("send")+vsep+key(s[0], false)+vsep+strconv.FormatInt(s[1], 10)+"]")
					continue
				}
				off := next[s[0]]
				next[s[0]] += int64(1 + rng.IntN(2))
				mops = append(mops, "["+kw("send")+vsep+key(s[0], false)+vsep+"["+strconv.FormatInt(off, 10)+vsep+strconv.FormatInt(s[1], 10)+"]]")
			}
			if pd.poll {
				if typ == "info" {
					mops = append(mops, "["+kw("poll")+"]")
				} else {
					m := "[" + kw("poll") + vsep + "{"
					for j, nk := 0, rng.IntN(3)+1; j < nk; j++ {
						k := rng.Int64N(keys)
						if j > 0 {
							m += sep
						}
						m += key(k, true) + colon + "["
						start := max(0, next[k]-int64(rng.IntN(12)))
						for o, c := start, 0; o < next[k] && c < 8; o, c = o+1, c+1 {
							if c > 0 {
								m += vsep
							}
							m += "[" + strconv.FormatInt(o, 10) + vsep + strconv.FormatInt(o/2, 10) + "]"
						}
						m += "]"
					}
					mops = append(mops, m+"}]")
				}
			}
		}
		b = append(b, field("type")...)
		b = append(b, kw(typ)...)
		b = append(b, sep...)
		b = append(b, field("process")...)
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, sep...)
		b = append(b, field("f")...)
		b = append(b, kw(f)...)
		b = append(b, sep...)
		b = append(b, field("value")...)
		b = append(b, '[')
		for j, m := range mops {
			if j > 0 {
				b = append(b, vsep...)
			}
			b = append(b, m...)
		}
		b = append(b, ']')
		if typ == "info" {
			b = append(b, sep...)
			b = append(b, field("error")...)
			b = append(b, kw("net-timeout")...)
		}
		b = append(b, '}')
		if json && i < n-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		buf.Write(b)
	}
	if json {
		buf.WriteString("]\n")
	}
	return buf.Bytes()
}

func benchRead(b *testing.B, data []byte, n int) {
	benchReadSized(b, data, int64(len(data)), n)
}

func benchReadSized(b *testing.B, data []byte, size int64, n int) {
	benchReadOpts(b, data, size, n, Options{})
}

func benchReadOpts(b *testing.B, data []byte, size int64, n int, opts Options) {
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h, err := Read(bytes.NewReader(data), "bench", opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(h.Ops) != n {
			b.Fatalf("got %d ops, want %d", len(h.Ops), n)
		}
	}
}

// BenchmarkReadEDN reads a synthetic 200k-op EDN queue history from memory.
func BenchmarkReadEDN(b *testing.B) {
	const n = 200_000
	benchRead(b, synthHistory(n, false), n)
}

// BenchmarkReadEDNDecoders reads the history of BenchmarkReadEDN with a
// workload's value decoder installed (hook_test.go), which it never
// claims anything of: what every queue history costs once a workload has
// a decoder.
func BenchmarkReadEDNDecoders(b *testing.B) {
	const n = 200_000
	data := synthHistory(n, false)
	benchReadOpts(b, data, int64(len(data)), n, abortOpts)
}

// BenchmarkReadAbort reads a 200k-op abort-style history through the
// test decoder (hook_test.go): every op's value is a map it decodes.
func BenchmarkReadAbort(b *testing.B) {
	const n = 100_000
	data := abortHistory(n)
	benchReadOpts(b, data, int64(len(data)), 2*n, abortOpts)
}

// BenchmarkReadJSON reads the same history as a JSON array.
func BenchmarkReadJSON(b *testing.B) {
	const n = 200_000
	benchRead(b, synthHistory(n, true), n)
}

// BenchmarkReadGzip reads the EDN history compressed with gzip; MB/s are of
// the uncompressed text.
func BenchmarkReadGzip(b *testing.B) { benchReadPacked(b, testpack.Gzip) }

// BenchmarkReadZstd reads the EDN history compressed with zstd; MB/s are of
// the uncompressed text.
func BenchmarkReadZstd(b *testing.B) { benchReadPacked(b, testpack.Zstd) }

// benchReadPacked reads the history of BenchmarkReadEDN compressed with
// pack; MB/s are of the uncompressed text.
func benchReadPacked(b *testing.B, pack func(testing.TB, []byte) []byte) {
	const n = 200_000
	plain := synthHistory(n, false)
	benchReadSized(b, pack(b, plain), int64(len(plain)), n)
}

// TestAllocations checks that reading costs far fewer allocations than ops:
// integers, keywords, field names, skipped fields and repeated errors
// allocate nothing; ops, micro-ops and reads come from chunks.
func TestAllocations(t *testing.T) {
	var sb strings.Builder
	const n = 5000
	for i := range n {
		fmt.Fprintf(&sb, "{:index %d, :time %d, :type :ok, :process %d, :f :poll, :value [[:poll {\"k%d\" [[%d %d] [%d %d]]}]], "+
			":extra {:a [1 2 #{3}] :b #object[x 0x1 \"y\"] :c \"str\"}, :error :net-timeout, \"s\" (1 2)}\n",
			i, i*10, i%5, i%7, i, i, i+1, i+1)
	}
	src := sb.String()
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := Read(strings.NewReader(src), "x", Options{}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > n/10 {
		t.Errorf("%v allocations for %d ops, want at most %d", allocs, n, n/10)
	}
}

// BenchmarkReadCorpus reads the largest real queue history of the shared
// corpus from memory (skipped when the corpus is absent).
func BenchmarkReadCorpus(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testpaths.Corpus(b), "maelstrom-kafka-yjcsivsuk/history.edn"))
	if err != nil {
		b.Fatal(err)
	}
	benchRead(b, data, 32856)
}
