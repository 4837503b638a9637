package scan

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// linkTar is a tar with links as archives hold them: a hard link to an
// earlier history (GNU tar's second name of a hard-linked file), a
// symbolic link to a later one, a link named like a history to a file
// named like none, a folder symlink (Jepsen's "latest"), and links that
// lead nowhere in the archive.
func linkTar(t *testing.T) []byte {
	valid, lost := readTestdata(t, "two-keys-all-read-valid.edn"), readTestdata(t, "lost-write-invalid.edn")
	return testpack.TarEntries(t, []testpack.Entry{
		{Name: "r/1/history.edn", Body: string(valid)},
		{Name: "r/2/history.edn", Body: string(lost)},
		{Name: "r/3/history.edn", Hardlink: "r/2/history.edn"},
		{Name: "early/link.edn", Symlink: "../r/9/history.edn"},
		{Name: "latest", Symlink: "r/1"},
		{Name: "named.edn", Hardlink: "data/blob.bin"},
		{Name: "esc.edn", Symlink: "../../etc/passwd"},
		{Name: "abs.edn", Symlink: "/etc/passwd"},
		{Name: "dangling.edn", Symlink: "nope.edn"},
		{Name: "loop.edn", Symlink: "loop.edn"},
		{Name: "data/blob.bin", Body: string(valid)},
		{Name: "r/9/history.edn", Body: string(lost)},
	})
}

// linkWantRows is what a scan of linkTar holds under each path below the
// archive: a link's row is the row of the file it names (copied from
// that path), or an error naming the problem.
var linkWantRows = map[string]string{
	"r/1/history.edn": VerdictValid,
	"r/2/history.edn": VerdictInvalid,
	"r/3/history.edn": "=r/2/history.edn",
	"early/link.edn":  "=r/9/history.edn",
	"named.edn":       VerdictValid,
	"r/9/history.edn": VerdictInvalid,
	"esc.edn":         `a symbolic link to "../../etc/passwd": the target lies outside the archive`,
	"abs.edn":         `a symbolic link to "/etc/passwd": the target names no file in the archive`,
	"dangling.edn":    `a symbolic link to "nope.edn": the target names no file in the archive`,
	"loop.edn":        `a symbolic link to "loop.edn": following it takes more than 16 links (a loop)`,
	"":                "", // no row for the archive itself
}

// checkLinkRows checks the rows of a scan of linkTar at p (pre is the
// prefix of member paths) against linkWantRows, and the anomaly rows of
// the links against their targets'.
func checkLinkRows(t *testing.T, got map[string]map[string]any, anoms []map[string]any, pre string) {
	t.Helper()
	if len(got) != len(linkWantRows)-1 {
		t.Errorf("%d rows, want %d: %v", len(got), len(linkWantRows)-1, mapKeys(got))
	}
	perPath := map[string]int{}
	for _, a := range anoms {
		perPath[fmt.Sprint(a["path"])]++
	}
	for sub, want := range linkWantRows {
		if sub == "" {
			continue
		}
		r, ok := got[pre+sub]
		if !ok {
			t.Errorf("no row %s", sub)
			continue
		}
		switch {
		case strings.HasPrefix(want, "="):
			tr := got[pre+want[1:]]
			for col, v := range tr {
				switch col {
				case "path", "elapsed_ms":
					continue
				}
				if norm(r[col]) != norm(v) {
					t.Errorf("%s: %s = %s, its target %s has %s", sub, col, norm(r[col]), want[1:], norm(v))
				}
			}
			if n := perPath[pre+want[1:]]; n == 0 || perPath[pre+sub] != n {
				t.Errorf("%s: %d anomaly rows, its target %d", sub, perPath[pre+sub], n)
			}
		case want == VerdictValid || want == VerdictInvalid:
			if r["verdict"] != want || fmt.Sprint(r["ops"]) == "0" {
				t.Errorf("%s: verdict %v, %v ops; want %s", sub, r["verdict"], r["ops"], want)
			}
		default:
			if r["verdict"] != VerdictError || !strings.Contains(fmt.Sprint(r["error"]), pre+sub+": "+want) {
				t.Errorf("%s: verdict %v, error %v; want %q", sub, r["verdict"], r["error"], want)
			}
		}
	}
}

// TestArchiveLinks scans a tar with links, plain, gzipped and inside a
// zip: each link to a file is a row of its own with the result of the
// file it names (a hard link used to be an empty history: unknown, 0 ops),
// a link to nothing in the archive an error row in words, a folder
// symlink no row; nothing outside the archive is read.
func TestArchiveLinks(t *testing.T) {
	dir := t.TempDir()
	tb := linkTar(t)
	for name, c := range map[string]struct {
		b   []byte
		pre string
	}{
		"a.tar":    {tb, "!/"},
		"a.tar.gz": {testpack.Gzip(t, tb), "!/"},
		"ci.zip":   {testpack.Zip(t, []member{{Name: "run.tar.gz", Body: string(testpack.Gzip(t, tb))}}, zip.Deflate), "!/run.tar.gz!/"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, "x", "y", name)
			testpack.WriteFile(t, p, c.b)
			testpack.WriteFile(t, filepath.Join(dir, "etc", "passwd"), readTestdata(t, "two-keys-all-read-valid.edn"))
			opts := testOptions(t)
			sum := mustRun(t, []string{p}, opts)
			_, anoms := readParquet(t, filepath.Join(opts.OutDir, "anomalies.parquet"))
			checkLinkRows(t, rowsByPath(t, opts.OutDir), anoms, p+c.pre)
			if sum.Histories != len(linkWantRows)-1 || sum.Found != sum.Histories || sum.Skipped != 0 {
				t.Errorf("summary: %d histories, %d found, %d skipped", sum.Histories, sum.Found, sum.Skipped)
			}
		})
	}
}

// TestArchiveLinkShards scans the tar of links as three shards: a link's
// row is in its own path's shard even when its target is checked in
// another (the shard reads the archive again for it), and the shards
// together hold the rows of the full scan.
func TestArchiveLinkShards(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.tar")
	testpack.WriteFile(t, p, linkTar(t))
	full := testOptions(t)
	mustRun(t, []string{p}, full)
	fullRows := rowsByPath(t, full.OutDir)
	out := testOptions(t).OutDir
	got := map[string]map[string]any{}
	var anoms []map[string]any
	for i := range 3 {
		opts := testOptions(t)
		opts.OutDir, opts.Shard = out, Shard{i, 3}
		mustRun(t, []string{p}, opts)
		_, rows := readParquet(t, filepath.Join(out, fmt.Sprintf("histories-%d-of-3.parquet", i)))
		_, a := readParquet(t, filepath.Join(out, fmt.Sprintf("anomalies-%d-of-3.parquet", i)))
		anoms = append(anoms, a...)
		for _, r := range rows {
			path := fmt.Sprint(r["path"])
			if _, dup := got[path]; dup {
				t.Errorf("%s in two shards", path)
			}
			if (Shard{i, 3}).Contains(path) == false {
				t.Errorf("%s in shard %d", path, i)
			}
			got[path] = r
		}
	}
	checkLinkRows(t, got, anoms, p+"!/")
	if g, w := mapKeys(got), mapKeys(fullRows); len(g) != len(w) {
		t.Errorf("shards: %v\nfull: %v", g, w)
	}
	for path, r := range fullRows {
		if norm(got[path]["verdict"]) != norm(r["verdict"]) || norm(got[path]["sha256"]) != norm(r["sha256"]) {
			t.Errorf("%s: shards %v %v, full %v %v", path, got[path]["verdict"], got[path]["sha256"], r["verdict"], r["sha256"])
		}
	}
}

// TestArchiveGNUHardlinks packs, with GNU tar, a folder holding a history
// and a hard link to it (ln), as users meet the bug: tar stores the second
// name as a hard link. Both rows must be the history's, as in a folder
// scan; before, the second was an empty history (unknown, 0 ops).
func TestArchiveGNUHardlinks(t *testing.T) {
	tarBin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar here")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	lost := readTestdata(t, "lost-write-invalid.edn")
	testpack.WriteFile(t, filepath.Join(src, "store", "a", "history.edn"), lost)
	if err := os.MkdirAll(filepath.Join(src, "store", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(src, "store", "a", "history.edn"), filepath.Join(src, "store", "b", "history.edn")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	p := filepath.Join(dir, "run.tar.gz")
	if out, err := exec.Command(tarBin, "-czf", p, "-C", src, "store").CombinedOutput(); err != nil {
		t.Skipf("tar: %v\n%s", err, out)
	}
	opts := testOptions(t)
	mustRun(t, []string{p}, opts)
	got := rowsByPath(t, opts.OutDir)
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2: %v", len(got), mapKeys(got))
	}
	var shas []string
	for path, r := range got {
		if r["verdict"] != VerdictInvalid || fmt.Sprint(r["ops"]) == "0" || !slices.Contains(r["bad_types"].([]any), any("lost-write")) {
			t.Errorf("%s: verdict %v, %v ops, bad %v; want invalid, lost-write", path, r["verdict"], r["ops"], r["bad_types"])
		}
		shas = append(shas, fmt.Sprint(r["sha256"]))
	}
	if shas[0] != shas[1] {
		t.Errorf("sha256 %v: the two names hold the same bytes", shas)
	}
}

// TestArchiveZipBadDirectory scans a zip of twenty histories whose
// central directory's offset is damaged: one error row for the archive,
// in words, not twenty rows of "readat: negative offset".
func TestArchiveZipBadDirectory(t *testing.T) {
	valid := readTestdata(t, "two-keys-all-read-valid.edn")
	var ms []member
	for i := range 20 {
		ms = append(ms, member{Name: fmt.Sprintf("r/%02d/history.edn", i), Body: string(valid)})
	}
	zb := testpack.Zip(t, ms, zip.Deflate)
	end := bytes.LastIndex(zb, []byte("PK\x05\x06"))
	binary.LittleEndian.PutUint32(zb[end+16:], binary.LittleEndian.Uint32(zb[end+16:])+1000)
	p := filepath.Join(t.TempDir(), "ci.zip")
	testpack.WriteFile(t, p, zb)
	opts := testOptions(t)
	sum := mustRun(t, []string{p}, opts)
	got := rowsByPath(t, opts.OutDir)
	r := got[p]
	if len(got) != 1 || r == nil {
		t.Fatalf("%d rows %v; want one, the archive's", len(got), mapKeys(got))
	}
	if e := fmt.Sprint(r["error"]); !strings.Contains(e, p+": not a readable zip archive: its central directory points outside the file") || strings.Contains(e, "readat") {
		t.Errorf("error %q", e)
	}
	if sum.ExitCode() != ExitInput {
		t.Errorf("exit %d", sum.ExitCode())
	}
}

// TestArchiveLinkArgument scans links named by ARCHIVE!/path: the link
// alone (its target lies outside the part asked for, so the archive is
// read a second time for it), and a folder holding a link.
func TestArchiveLinkArgument(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.tar.gz")
	testpack.WriteFile(t, p, testpack.Gzip(t, linkTar(t)))
	for arg, want := range map[string]map[string]string{
		p + "!/r/3/history.edn": {"r/3/history.edn": VerdictInvalid},
		p + "!/early":           {"early/link.edn": VerdictInvalid},
		p + "!/named.edn":       {"named.edn": VerdictValid},
	} {
		opts := testOptions(t)
		mustRun(t, []string{arg}, opts)
		got := rowsByPath(t, opts.OutDir)
		if len(got) != len(want) {
			t.Errorf("%s: rows %v, want %v", arg, mapKeys(got), want)
		}
		for sub, v := range want {
			if r := got[p+"!/"+sub]; r == nil || r["verdict"] != v || fmt.Sprint(r["ops"]) == "0" {
				t.Errorf("%s: row %s = %v; want %s", arg, sub, r, v)
			}
		}
	}
}

// TestArchiveZipLinks scans a zip holding a history and a symbolic link
// to it (zip -y): the link is a row with the history's result.
func TestArchiveZipLinks(t *testing.T) {
	zipped := testpack.ZipEntries(t, []testpack.Entry{
		{Name: "run/latest.edn", Symlink: "1/history.edn"},
		{Name: "run/1/history.edn", Body: string(readTestdata(t, "lost-write-invalid.edn"))},
	})
	p := filepath.Join(t.TempDir(), "l.zip")
	testpack.WriteFile(t, p, zipped)
	opts := testOptions(t)
	mustRun(t, []string{p}, opts)
	got := rowsByPath(t, opts.OutDir)
	a, b := got[p+"!/run/latest.edn"], got[p+"!/run/1/history.edn"]
	if len(got) != 2 || a == nil || b == nil || a["verdict"] != VerdictInvalid || norm(a["sha256"]) != norm(b["sha256"]) || norm(a["ops"]) != norm(b["ops"]) {
		t.Errorf("rows %v", got)
	}
}
