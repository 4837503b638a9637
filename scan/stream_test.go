package scan

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/internal/storename"
	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// withStreamAbove sets the size from which archive members are streamed
// for the rest of the test, and records the members the walks set aside.
func withStreamAbove(t *testing.T, n int64) *setAsideLog {
	t.Helper()
	old := streamAbove
	streamAbove = n
	log := &setAsideLog{}
	testHooks.setAside = log.add
	testHooks.checkRead = func(p string) {
		log.mu.Lock()
		log.checked = append(log.checked, p)
		log.mu.Unlock()
	}
	t.Cleanup(func() { streamAbove, testHooks.setAside, testHooks.checkRead = old, nil, nil })
	return log
}

// setAsideLog is the paths of the members the walks set aside, and of
// the histories checked.
type setAsideLog struct {
	mu             sync.Mutex
	paths, checked []string
}

func (l *setAsideLog) add(p string) {
	l.mu.Lock()
	l.paths = append(l.paths, p)
	l.mu.Unlock()
}

// take returns the paths set aside and checked since the last take.
func (l *setAsideLog) take() (aside, checked []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	aside, checked = l.paths, l.checked
	l.paths, l.checked = nil, nil
	slices.Sort(aside)
	slices.Sort(checked)
	return aside, checked
}

// scanRows runs a scan of inputs and returns its summary and its rows
// without their check times (which differ from run to run).
func scanRows(t *testing.T, inputs []string, opts Options) (*Summary, map[string]map[string]any) {
	t.Helper()
	sum := mustRun(t, inputs, opts)
	rows := rowsByPath(t, opts.OutDir)
	for _, r := range rows {
		delete(r, "elapsed_ms")
	}
	return sum, rows
}

// TestArchiveStreamedAgreesWithBuffered scans archives of every kind
// twice: with each member held in memory for its check, and with every
// member stored without compression read twice and checked from the
// archive's stream (streamAbove at one byte). The rows, the skipped files
// and the counts must agree; only plain members are set aside, links to
// them and the targets of a second pass included; a rerun takes them all
// from the cache without a second read.
func TestArchiveStreamedAgreesWithBuffered(t *testing.T) {
	root, _ := buildStores(t)
	ms := treeMembers(t, root, "stores/")
	tb := testpack.Tar(t, ms)
	lt := linkTar(t)
	dir := t.TempDir()
	forms := map[string][]byte{
		"run.tar":    tb,
		"run.tar.gz": testpack.Gzip(t, tb),
		"run.zip":    testpack.Zip(t, ms, zip.Deflate),
		"ci.zip":     testpack.Zip(t, []member{{Name: "artifacts/run.tar.gz", Body: string(testpack.Gzip(t, tb))}}, zip.Deflate),
		"links.tar":  lt,
		"links.tgz":  testpack.Gzip(t, lt),
		// Two members of one name: the first is the row, the second
		// skipped, each read again as itself.
		"dups.tar": testpack.Tar(t, []member{
			{Name: "dup.edn", Body: string(readTestdata(t, "lost-write-invalid.edn"))},
			{Name: "dup.edn", Body: string(readTestdata(t, "two-keys-all-read-valid.edn"))},
		}),
	}
	for name, b := range forms {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			testpack.WriteFile(t, p, b)
			log := withStreamAbove(t, 1<<62)
			bopts := testOptions(t)
			var bprogress syncBuffer
			bopts.Progress = &bprogress
			bsum, want := scanRows(t, []string{p}, bopts)
			aside, bchecked := log.take()
			if len(aside) != 0 {
				t.Fatalf("buffered scan set aside %v", aside)
			}
			streamAbove = 1
			opts := testOptions(t)
			var progress syncBuffer
			opts.Progress = &progress
			ssum, got := scanRows(t, []string{p}, opts)
			opts.Progress = nil

			aside, checked := log.take()
			if len(aside) == 0 {
				t.Fatal("no member was set aside for streaming")
			}
			dropped := 0
			for _, a := range aside {
				if strings.HasSuffix(a, ".gz") || strings.HasSuffix(a, ".zst") {
					t.Errorf("compressed member %s set aside", a)
				}
				if got[a] != nil {
					continue
				}
				// A member a store folder's rule drops (history.json
				// beside history.edn) is not checked in the streaming
				// pass (the buffered scan may check it for nothing,
				// when it comes first and a worker is free); a member
				// with no row must be one such.
				if slices.Contains(checked, a) || !preferredBeside(got, a) {
					t.Errorf("%s set aside, has no row, and was checked: streamed %v, buffered %v; a store file it yields to has a row: %v",
						a, slices.Contains(checked, a), slices.Contains(bchecked, a), preferredBeside(got, a))
				}
				dropped++
			}
			// The bar ends when the last row is in, members read twice
			// included: all its histories done, those of the buffered
			// scan but the ones not checked for nothing.
			sd, st := lastCount(t, progress.String())
			bd, bt := lastCount(t, bprogress.String())
			if sd != st || bd != bt || st != bt-dropped {
				t.Errorf("progress ends at %d/%d, buffered at %d/%d, with %d dropped:\n%s", sd, st, bd, bt, dropped, progress.String())
			}

			if name == "links.tar" && !slices.Contains(aside, p+"!/named.edn") {
				t.Errorf("the link checked in its target's place (second pass) was not streamed: %v", aside)
			}
			if !maps.EqualFunc(got, want, func(a, b map[string]any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
				for path, w := range want {
					if fmt.Sprint(got[path]) != fmt.Sprint(w) {
						t.Errorf("%s:\nstreamed %v\nbuffered %v", path, got[path], w)
					}
				}
				t.Fatalf("streamed rows %v, buffered %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			if !slices.Equal(ssum.SkippedFiles, bsum.SkippedFiles) || ssum.Found != bsum.Found || ssum.Histories != bsum.Histories || ssum.ExitCode() != bsum.ExitCode() {
				t.Errorf("streamed summary %+v\nbuffered %+v", ssum, bsum)
			}
			rsum, again := scanRows(t, []string{p}, opts)
			if a, _ := log.take(); len(a) != 0 {
				t.Errorf("rerun set aside %v: the cache should have answered", a)
			}
			if rsum.Cached == 0 || rsum.Cached+bsum.Errors < bsum.Histories {
				t.Errorf("rerun: %d cached of %d histories (%d errors)", rsum.Cached, bsum.Histories, bsum.Errors)
			}
			for path, w := range want {
				if fmt.Sprint(again[path]) != fmt.Sprint(w) {
					t.Errorf("%s from the cache:\n%v\nwant %v", path, again[path], w)
				}
			}
		})
	}
}

// TestArchiveStreamedMemory checks what streaming is for: a member whose
// check fits the memory budget, but not with a copy of its bytes beside
// it, is checked from the archive as it would be loose, where a buffered
// read calls it over the budget.
func TestArchiveStreamedMemory(t *testing.T) {
	var hist bytes.Buffer
	if _, err := gen.Write(&hist, gen.Config{Seed: 7, Ops: 16000, Concurrency: 4, Keys: 3}); err != nil {
		t.Fatal(err)
	}
	size := int64(hist.Len())
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose", "history.edn")
	testpack.WriteFile(t, loose, hist.Bytes())
	p := filepath.Join(dir, "run.tar")
	testpack.WriteFile(t, p, testpack.Tar(t, []member{{Name: "r/history.edn", Body: hist.String()}}))
	budget := memoryCost(size, MemoryFactor, 1<<62) + size/2
	run := func(above int64, in string) map[string]any {
		withStreamAbove(t, above)
		opts := testOptions(t)
		opts.MemoryBudget = budget
		_, rows := scanRows(t, []string{in}, opts)
		if len(rows) != 1 {
			t.Fatalf("%d rows", len(rows))
		}
		for _, r := range rows {
			return r
		}
		return nil
	}
	l := run(1<<62, loose)
	if l["verdict"] != VerdictValid {
		t.Fatalf("the loose history of %d bytes under a budget of %d: %v %v", size, budget, l["verdict"], l["error"])
	}
	b := run(1<<62, p)
	if b["verdict"] != VerdictError || !strings.Contains(fmt.Sprint(b["error"]), "--memory") {
		t.Errorf("buffered: %v %v; want an error naming --memory (a copy beside the check passes %d bytes)", b["verdict"], b["error"], budget)
	}
	s := run(size/2, p)
	for col, v := range l {
		switch col {
		case "path", "archive":
			continue
		}
		if fmt.Sprint(s[col]) != fmt.Sprint(v) {
			t.Errorf("streamed %s = %v, loose %v", col, s[col], v)
		}
	}
}

// TestArchiveStreamedAllocs scans a member of 48 MiB of NUL bytes, as a
// tar of a preallocated or sparse file holds (a 10 KB sparse tar of 3 GB
// made the scan allocate 3 GB, where streaming reads it in buffers): the
// streamed scan allocates under half the member's size (about 10 MiB of
// read buffers and tables; the buffered scan over 56 MiB), and its
// row is the buffered scan's.
func TestArchiveStreamedAllocs(t *testing.T) {
	const size = 48 << 20
	p := filepath.Join(t.TempDir(), "z.tar")
	testpack.WriteFile(t, p, testpack.Tar(t, []member{{Name: "z/history.edn", Body: strings.Repeat("\x00", size)}}))
	var rows [2]map[string]any
	for i, above := range []int64{1 << 62, 1 << 20} {
		withStreamAbove(t, above)
		opts := testOptions(t)
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		mustRun(t, []string{p}, opts)
		runtime.ReadMemStats(&b)
		alloc := b.TotalAlloc - a.TotalAlloc
		_, rs := scanRows(t, []string{p}, opts) // from the cache
		rows[i] = rs[p+"!/z/history.edn"]
		switch {
		case i == 0 && alloc < size:
			t.Errorf("buffered: %d MiB allocated, less than the member's %d MiB: the test no longer measures the copy", alloc>>20, size>>20)
		case i == 1 && alloc > size/2:
			t.Errorf("streamed: %d MiB allocated for a member of %d MiB", alloc>>20, size>>20)
		}
	}
	if rows[0] == nil || fmt.Sprint(rows[0]) != fmt.Sprint(rows[1]) {
		t.Errorf("streamed row %v\nbuffered %v", rows[1], rows[0])
	}
}

// TestArchiveStreamedChanged changes the archive between the walk and the
// streaming pass: a member whose bytes differ on the second read is an
// error row saying so (and is not cached), and a member gone is an error
// row saying that.
func TestArchiveStreamedChanged(t *testing.T) {
	valid, lost := readTestdata(t, "two-keys-all-read-valid.edn"), readTestdata(t, "lost-write-invalid.edn")
	first := testpack.Tar(t, []member{{Name: "a/history.edn", Body: string(valid)}, {Name: "b/history.edn", Body: string(valid)}})
	for _, c := range []struct {
		name   string
		second []byte
		want   string
	}{
		{"changed", testpack.Tar(t, []member{{Name: "a/history.edn", Body: string(lost)}, {Name: "b/history.edn", Body: string(valid)}}), "changed between the archive's two reads"},
		// a replaced by another member: b keeps its place.
		{"gone", testpack.Tar(t, []member{{Name: "c/history.edn", Body: string(valid)}, {Name: "b/history.edn", Body: string(valid)}}), "did not find this member again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "run.tar")
			testpack.WriteFile(t, p, first)
			withStreamAbove(t, 1)
			testHooks.bigPass = func(string) { testpack.WriteFile(t, p, c.second) }
			t.Cleanup(func() { testHooks.bigPass = nil })
			opts := testOptions(t)
			sum, rows := scanRows(t, []string{p}, opts)
			a := rows[p+"!/a/history.edn"]
			if a == nil || a["verdict"] != VerdictError || !strings.Contains(fmt.Sprint(a["error"]), c.want) {
				t.Errorf("a: %v; want an error row saying %q", a, c.want)
			}
			if b := rows[p+"!/b/history.edn"]; b == nil || b["verdict"] != VerdictValid {
				t.Errorf("b: %v; want valid", b)
			}
			if sum.ExitCode() != ExitInput {
				t.Errorf("exit %d", sum.ExitCode())
			}
			// The first content again, read twice alike: its verdict,
			// not an error the cache kept.
			testHooks.bigPass = nil
			testpack.WriteFile(t, p, first)
			_, rows = scanRows(t, []string{p}, opts)
			if a := rows[p+"!/a/history.edn"]; a == nil || a["verdict"] != VerdictValid {
				t.Errorf("a, read again: %v; want valid", a)
			}
		})
	}
}

// TestProgressHeldBytes checks the bar's bytes for a member read twice:
// its bytes are added to the total when it is set aside, and counted when
// its row comes, so the bar does not end while it is still checked.
func TestProgressHeldBytes(t *testing.T) {
	pr := newProgress(io.Discard, 0, 100)
	pr.read(100) // the walk: the whole archive, the member's bytes in it
	pr.hold(60)  // the member set aside
	if c, total := pr.bar.Current(), pr.bytes; c != 100 || total != 160 {
		t.Errorf("after the walk: %d of %d bytes, want 100 of 160", c, total)
	}
	pr.add(&result{member: true, held: 60, row: HistoryRow{SizeBytes: 60, Verdict: VerdictValid}})
	if c := pr.bar.Current(); c != 160 || pr.bar.Completed() {
		t.Errorf("after its row: %d bytes, completed %v; want 160, not completed before stop", c, pr.bar.Completed())
	}
	pr.stop(false)
}

// lastCount returns the last "N/M histories" a progress bar drew.
func lastCount(t *testing.T, out string) (done, total int) {
	t.Helper()
	m := regexp.MustCompile(`(\d+)/(\d+) histories`).FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no count of histories in the progress bar:\n%s", out)
	}
	last := m[len(m)-1]
	done, _ = strconv.Atoi(last[1])
	total, _ = strconv.Atoi(last[2])
	return done, total
}

// preferredBeside reports whether member a is a store folder's history
// file that another of its folder, preferred to it (storename.Names), has a
// row for in rows: the one the store's rule keeps.
func preferredBeside(rows map[string]map[string]any, a string) bool {
	dir, base := path.Split(a)
	i := slices.Index(storename.Names, base)
	for _, n := range storename.Names[:max(i, 0)] {
		if rows[dir+n] != nil {
			return true
		}
	}
	return false
}
