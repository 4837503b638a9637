package scan

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true}, {"3/4", Shard{3, 4}, true}, {"0/4", Shard{0, 4}, true},
		{"4/4", Shard{}, false}, {"-1/4", Shard{}, false}, {"1/0", Shard{}, false},
		{"1", Shard{}, false}, {"a/b", Shard{}, false}, {"", Shard{}, false}, {"1/2/3", Shard{}, false},
	} {
		got, err := ParseShard(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseShard(%q) = %v, %v", c.in, got, err)
		}
	}
}

// TestShardPartition checks that for every n the shards 0/n..n-1/n split
// any set of paths into disjoint parts that together hold every path, and
// that the split is the same on every call (and every machine: the golden
// assignments below pin the hash).
func TestShardPartition(t *testing.T) {
	var ps []string
	for i := range 1000 {
		ps = append(ps, fmt.Sprintf("store/queue/2024%04d/history.edn", i))
	}
	again := map[string]bool{}
	for _, p := range ps {
		again[p] = (Shard{1, 7}).Contains(p)
	}
	for _, p := range ps {
		if (Shard{1, 7}).Contains(p) != again[p] {
			t.Fatalf("Contains(%s) changed between calls", p)
		}
	}
	for n := 1; n <= 9; n++ {
		sizes := make([]int, n)
		for _, p := range ps {
			owners := 0
			for i := range n {
				if (Shard{i, n}).Contains(p) {
					owners++
					sizes[i]++
				}
			}
			if owners != 1 {
				t.Fatalf("n=%d: %s is in %d shards", n, p, owners)
			}
		}
		for i, s := range sizes {
			if n > 1 && (s < 1000/n/2 || s > 1000/n*2) {
				t.Errorf("n=%d: shard %d has %d of 1000 paths: badly balanced", n, i, s)
			}
		}
	}
	// Golden: FNV-1a 64 of the slash path, modulo n.
	for _, g := range []struct {
		path string
		n, i int
	}{
		{"store/queue/20240101T000000.000Z/history.edn", 4, goldenShard("store/queue/20240101T000000.000Z/history.edn", 4)},
	} {
		if !(Shard{g.i, g.n}).Contains(g.path) {
			t.Errorf("%s not in shard %d/%d", g.path, g.i, g.n)
		}
	}
	if !(Shard{}).Contains("x") || (Shard{}).Sharded() || (Shard{0, 1}).Sharded() {
		t.Errorf("the zero shard and 0/1 must select everything")
	}
}

// goldenShard computes FNV-1a 64 by hand, independently of hash/fnv.
func goldenShard(path string, n int) int {
	h := uint64(14695981039346656037)
	for i := 0; i < len(path); i++ {
		h ^= uint64(path[i])
		h *= 1099511628211
	}
	return int(h % uint64(n))
}

// TestRunShards scans an archive as three shards into one folder and
// checks the shard files together hold exactly the rows of a full scan.
func TestRunShards(t *testing.T) {
	root, want := buildArchive(t)
	full := testOptions(t)
	mustRun(t, []string{root}, full)
	_, fullRows := readParquet(t, filepath.Join(full.OutDir, "histories.parquet"))
	_, fullAnoms := readParquet(t, filepath.Join(full.OutDir, "anomalies.parquet"))

	out := testOptions(t).OutDir
	var rows, anoms []map[string]any
	seen := map[string]int{}
	for i := range 3 {
		opts := testOptions(t)
		opts.OutDir, opts.Shard = out, Shard{i, 3}
		sum := mustRun(t, []string{root}, opts)
		if sum.Found != len(want) {
			t.Errorf("shard %d found %d histories, want %d", i, sum.Found, len(want))
		}
		_, r := readParquet(t, filepath.Join(out, fmt.Sprintf("histories-%d-of-3.parquet", i)))
		_, a := readParquet(t, filepath.Join(out, fmt.Sprintf("anomalies-%d-of-3.parquet", i)))
		if len(r) != sum.Histories {
			t.Errorf("shard %d: %d rows, summary says %d", i, len(r), sum.Histories)
		}
		for _, p := range paths(r) {
			seen[p]++
		}
		rows, anoms = append(rows, r...), append(anoms, a...)
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s in %d shards", p, n)
		}
	}
	if got, want := paths(rows), paths(fullRows); !slices.Equal(got, want) {
		t.Errorf("union of shards:\n%v\nfull scan:\n%v", got, want)
	}
	sortRows(rows)
	sortRows(fullRows)
	if tableText(rows) != tableText(fullRows) {
		t.Errorf("shard rows differ from the full scan's")
	}
	if len(anoms) != len(fullAnoms) {
		t.Errorf("%d anomaly rows over the shards, %d in the full scan", len(anoms), len(fullAnoms))
	}
}

func sortRows(rows []map[string]any) {
	slices.SortStableFunc(rows, func(a, b map[string]any) int {
		switch pa, pb := a["path"].(string), b["path"].(string); {
		case pa < pb:
			return -1
		case pa > pb:
			return 1
		}
		return 0
	})
}
