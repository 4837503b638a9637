package archive

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// file is a member to pack: a name as stored, and its content.
type file = testpack.File

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// recorder is a Visitor that keeps what it saw: members with their
// content, problems, and name lists.
type recorder struct {
	members  []string // "PATH=CONTENT (ARCHIVE|NAME|SIZE)"
	problems []Problem
	links    []*Link
	names    map[string][]string
	read     int // read only this many bytes of each member (-1: all)
}

func (r *recorder) Member(m *Member) error {
	var b []byte
	var err error
	if r.read < 0 {
		b, err = io.ReadAll(m.Body)
	} else {
		b = make([]byte, r.read)
		var n int
		n, err = io.ReadFull(m.Body, b)
		b = b[:n]
		if err == io.ErrUnexpectedEOF {
			err = nil
		}
	}
	s := m.Path + "=" + string(b) + " (" + m.Archive + "|" + m.Name + "|" + itoa(m.Size) + ")"
	if err != nil {
		s += " ERR " + err.Error()
	}
	r.members = append(r.members, s)
	return nil
}

func (r *recorder) Problem(p Problem) { r.problems = append(r.problems, p) }

func (r *recorder) Link(l *Link) error {
	r.links = append(r.links, l)
	return nil
}

func (r *recorder) Names(a string, names []string) {
	if r.names == nil {
		r.names = map[string][]string{}
	}
	r.names[a] = names
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func walk(t *testing.T, path string, read int) *recorder {
	t.Helper()
	r := &recorder{read: read}
	if err := WalkFile(path, r, Options{}, nil); err != nil {
		t.Fatalf("WalkFile(%s): %v", path, err)
	}
	return r
}

var sample = []file{
	{Name: "store/t/1/history.edn", Body: "{:a 1}"},
	{Name: "./store/t/2/history.edn", Body: "{:b 2}"},
	{Name: "loose/x.json", Body: "[]"},
}

// TestWalkFormats walks the same files packed every way and checks each
// member's name, archive, size and content.
func TestWalkFormats(t *testing.T) {
	dir := t.TempDir()
	tb := testpack.Tar(t, sample)
	want := []string{
		"A!/store/t/1/history.edn={:a 1} (A|store/t/1/history.edn|6)",
		"A!/store/t/2/history.edn={:b 2} (A|store/t/2/history.edn|6)",
		"A!/loose/x.json=[] (A|loose/x.json|2)",
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"a.tar", tb}, {"a.tar.gz", testpack.Gzip(t, tb)}, {"a.tgz", testpack.Gzip(t, tb)}, {"a.tar.zst", testpack.Zstd(t, tb)},
		{"a.zip", testpack.Zip(t, sample, zip.Deflate)}, {"stored.zip", testpack.Zip(t, sample, zip.Store)},
		{"no-extension", testpack.Gzip(t, tb)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, c.name, c.b)
			r := walk(t, p, -1)
			var got []string
			for _, m := range r.members {
				got = append(got, strings.ReplaceAll(m, p, "A"))
			}
			if !slices.Equal(got, want) {
				t.Errorf("members:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if len(r.problems) != 0 {
				t.Errorf("problems: %v", r.problems)
			}
			if n := r.names[p]; !slices.Equal(n, []string{"store/t/1/history.edn", "store/t/2/history.edn", "loose/x.json"}) {
				t.Errorf("names: %v", n)
			}
		})
	}
}

// TestWalkNested walks a zip of tarballs, a tarball holding a zip, and a
// zip holding a stored zip: one level down is read, two levels are a
// Problem.
func TestWalkNested(t *testing.T) {
	dir := t.TempDir()
	inner := testpack.Gzip(t, testpack.Tar(t, sample[:1]))
	innerZip := testpack.Zip(t, sample[2:], zip.Deflate)
	deep := testpack.Zip(t, []file{{Name: "x/deeper.tar.gz", Body: string(inner)}}, zip.Deflate)
	outer := testpack.Zip(t, []file{
		{Name: "ci/run1.tar.gz", Body: string(inner)},
		{Name: "ci/run2.zip", Body: string(innerZip)},
		{Name: "ci/notes.txt", Body: "hello"},
		{Name: "ci/deep.zip", Body: string(deep)},
	}, zip.Store)
	p := write(t, dir, "ci.zip", outer)
	r := walk(t, p, -1)
	want := []string{
		"A!/ci/run1.tar.gz!/store/t/1/history.edn={:a 1} (A!/ci/run1.tar.gz|store/t/1/history.edn|6)",
		"A!/ci/run2.zip!/loose/x.json=[] (A!/ci/run2.zip|loose/x.json|2)",
		"A!/ci/notes.txt=hello (A|ci/notes.txt|5)",
	}
	var got []string
	for _, m := range r.members {
		got = append(got, strings.ReplaceAll(m, p, "A"))
	}
	if !slices.Equal(got, want) {
		t.Errorf("members:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.problems) != 1 || r.problems[0].Path != p+"!/ci/deep.zip!/x/deeper.tar.gz" || !errors.Is(r.problems[0].Err, ErrTooDeep) {
		t.Errorf("problems %v; want the archive two levels down, ErrTooDeep", r.problems)
	}

	// A tarball holding a zip (read into memory) and a tarball.
	tb := testpack.Gzip(t, testpack.Tar(t, []file{{Name: "a/in.zip", Body: string(innerZip)}, {Name: "a/in.tar.gz", Body: string(inner)}}))
	p2 := write(t, dir, "outer.tar.gz", tb)
	r2 := walk(t, p2, -1)
	if len(r2.members) != 2 || !strings.Contains(r2.members[0], "outer.tar.gz!/a/in.zip!/loose/x.json=[]") ||
		!strings.Contains(r2.members[1], "outer.tar.gz!/a/in.tar.gz!/store/t/1/history.edn={:a 1}") {
		t.Errorf("tar of zip and tarball: %v (problems %v)", r2.members, r2.problems)
	}
	// The in-memory copy is bounded.
	r3 := &recorder{read: -1}
	if err := WalkFile(p2, r3, Options{MaxBuffer: 10}, nil); err != nil {
		t.Fatal(err)
	}
	if len(r3.problems) != 1 || !strings.Contains(r3.problems[0].Err.Error(), "--max-history-bytes") || len(r3.members) != 1 {
		t.Errorf("MaxBuffer 10: members %v, problems %v", r3.members, r3.problems)
	}
}

// TestWalkBroken walks cut and garbled archives: what comes before the
// damage is read, the damage is a Problem, and the walk never fails.
func TestWalkBroken(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("{:index 0, :type :invoke}\n", 4000)
	files := []file{{Name: "a/first.edn", Body: "{:x 1}"}, {Name: "a/big.edn", Body: big}, {Name: "a/last.edn", Body: "{:y 2}"}}
	tgz := testpack.Gzip(t, testpack.Tar(t, files))
	garbled := bytes.Clone(tgz)
	for i := len(garbled) / 2; i < len(garbled)/2+32; i++ {
		garbled[i] ^= 0x55
	}
	zb := testpack.Zip(t, files, zip.Deflate)
	// Flip a byte of the first member's stored data (stored zip: find it).
	badCRC := testpack.Zip(t, files, zip.Store)
	i := bytes.Index(badCRC, []byte("{:x 1}"))
	badCRC[i+3] = 'z'
	for _, c := range []struct {
		name        string
		b           []byte
		members     int    // members seen
		problemHas  string // in the one problem
		problemPath string // relative to the archive's path
	}{
		{"cut.tar.gz", tgz[:len(tgz)/2], 2, "cut off", ""},
		{"cut.tar", testpack.Tar(t, files)[:1024+len(big)/2], 2, "", ""},
		{"garbled.tar.gz", garbled, 2, "", ""},
		{"cut.zip", zb[:len(zb)-30], 0, "cut off short", ""},
		{"not-really.tar.gz", testpack.Gzip(t, []byte("just text, no tar")), 0, "not a tar or zip", ""},
		{"crc.zip", badCRC, 3, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, c.name, c.b)
			r := walk(t, p, -1)
			if len(r.members) != c.members {
				t.Errorf("%d members, want %d: %v", len(r.members), c.members, r.members)
			}
			switch c.name {
			case "crc.zip":
				if len(r.members) == 0 || !strings.Contains(r.members[0], "checksum") {
					t.Errorf("the damaged member must fail its read: %v", r.members)
				}
				if len(r.problems) != 0 {
					t.Errorf("problems %v", r.problems)
				}
				return
			}
			if len(r.problems) != 1 || r.problems[0].Path != p || !strings.Contains(r.problems[0].Err.Error(), c.problemHas) {
				t.Errorf("problems %v; want one about %s mentioning %q", r.problems, p, c.problemHas)
			}
			if len(r.members) > 0 && !strings.HasPrefix(r.members[0], p+"!/a/first.edn={:x 1}") {
				t.Errorf("the first member before the damage: %v", r.members[0])
			}
			if len(r.members) > 1 && !strings.Contains(r.members[1], " ERR ") {
				t.Errorf("the member cut by the damage must fail its read: %.200s", r.members[1])
			}
		})
	}
}

// TestNames checks CleanName and that members with .. or absolute names
// are named, not resolved: Open finds them by that name and nothing is
// written anywhere.
func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.edn": "a/b.edn", "./a/b.edn": "a/b.edn", "/abs/b.edn": "abs/b.edn", "//x//y.edn": "x/y.edn",
		"a/../b.edn": "b.edn", "../../etc/x.edn": "../../etc/x.edn", "a\\b\\c.edn": "a/b/c.edn",
		"a/./b/../c.edn": "a/c.edn",
	} {
		if got := CleanName(in); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
	for name, want := range map[string]bool{
		"x.tar": true, "x.tar.gz": true, "X.TGZ": true, "x.tar.zst": true, "x.tzst": true, "x.zip": true,
		"x.gz": false, "x.edn": false, ".x.zip": false, ".tar": false, "tar": false,
	} {
		if got := IsName(name); got != want {
			t.Errorf("IsName(%q) = %v", name, got)
		}
	}

	dir := t.TempDir()
	files := []file{{Name: "../../escape.edn", Body: "up"}, {Name: "/etc/abs.edn", Body: "abs"}, {Name: "ok/h.edn", Body: "ok"}}
	before := testpack.Files(filepath.Dir(dir))
	for _, c := range []struct {
		name string
		b    []byte
	}{{"evil.tar.gz", testpack.Gzip(t, testpack.Tar(t, files))}, {"evil.zip", testpack.Zip(t, files, zip.Deflate)}} {
		p := write(t, dir, c.name, c.b)
		r := walk(t, p, -1)
		want := []string{p + "!/../../escape.edn=up", p + "!/etc/abs.edn=abs", p + "!/ok/h.edn=ok"}
		if len(r.members) != 3 {
			t.Fatalf("%s: %v", c.name, r.members)
		}
		for i, m := range r.members {
			if !strings.HasPrefix(m, want[i]+" ") {
				t.Errorf("%s: member %q, want %q", c.name, m, want[i])
			}
		}
		for _, m := range []string{"../../escape.edn", "etc/abs.edn", "/etc/abs.edn", "ok/h.edn"} {
			rc, err := Open(p + Sep + m)
			if err != nil {
				t.Errorf("Open(%s!/%s): %v", c.name, m, err)
				continue
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			if len(b) == 0 {
				t.Errorf("Open(%s!/%s): empty", c.name, m)
			}
		}
	}
	after := testpack.Files(filepath.Dir(dir))
	if len(after) != len(before)+2 { // the two archives this test wrote
		t.Errorf("files appeared outside the archives: before %d, after %d: %v", len(before), len(after), after)
	}
}

// TestOpen opens members of plain, compressed and nested archives, and
// fails clearly on a missing member or a path that names no archive.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	inner := testpack.Gzip(t, testpack.Tar(t, sample))
	p := write(t, dir, "ci.zip", testpack.Zip(t, []file{{Name: "run.tar.gz", Body: string(inner)}, {Name: "z.zip", Body: string(testpack.Zip(t, sample, zip.Deflate))}}, zip.Deflate))
	tz := write(t, dir, "a.tar.zst", testpack.Zstd(t, testpack.Tar(t, sample)))
	for _, c := range []struct{ path, want string }{
		{tz + "!/store/t/2/history.edn", "{:b 2}"},
		{tz + "!/./store/t/2/history.edn", "{:b 2}"},
		{p + "!/run.tar.gz!/store/t/1/history.edn", "{:a 1}"},
		{p + "!/z.zip!/loose/x.json", "[]"},
	} {
		if b, _, err := openRead(c.path); err != nil || b != c.want {
			t.Errorf("Open(%s) = %q, %v; want %q", c.path, b, err, c.want)
		}
	}
	for _, bad := range []string{tz + "!/nope.edn", p + "!/run.tar.gz!/nope.edn", dir + "/missing.zip!/x.edn"} {
		if _, err := Open(bad); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%s) = %v, want fs.ErrNotExist", bad, err)
		}
	}
	if a, m, ok := Split(p + "!/run.tar.gz!/x"); !ok || a != p || m != "run.tar.gz!/x" {
		t.Errorf("Split = %q %q %v", a, m, ok)
	}
}

// TestDetect tells archives from histories by content.
func TestDetect(t *testing.T) {
	tb := testpack.Tar(t, sample)
	for _, c := range []struct {
		name string
		b    []byte
		f    Format
		c    Compression
	}{
		{"tar", tb, Tar, Plain}, {"tgz", testpack.Gzip(t, tb), Tar, Gzip}, {"tzst", testpack.Zstd(t, tb), Tar, Zstd},
		{"zip", testpack.Zip(t, sample, zip.Deflate), Zip, Plain},
		{"edn", []byte("{:index 0}"), NotArchive, Plain}, {"edn.gz", testpack.Gzip(t, []byte("{:index 0}")), NotArchive, Plain},
		{"empty", nil, NotArchive, Plain},
	} {
		if f, comp := Detect(c.b); f != c.f || comp != c.c {
			t.Errorf("%s: Detect = %v %v, want %v %v", c.name, f, comp, c.f, c.c)
		}
	}
}

// TestOpenStore: a Jepsen store folder named in an archive reads its
// history file, as a store folder on disk does (package storename: EDN
// before JSON, a plain file before its compressed copies), in a tar read
// twice and in a zip alike, nested too; Name says which file. A folder
// holding no history file is not found, and says it is a folder.
func TestOpenStore(t *testing.T) {
	dir := t.TempDir()
	files := []file{
		{Name: "runs/a/history.json", Body: "json"},
		{Name: "runs/a/history.edn.gz", Body: "edn.gz"},
		{Name: "runs/a/results.edn", Body: "results"},
		{Name: "runs/b/history.jsonl", Body: "jsonl"},
		{Name: "runs/b/history.jsonl.zst", Body: "jsonl.zst"},
		{Name: "runs/c/test.edn", Body: "test"},
	}
	tgz := write(t, dir, "runs.tar.gz", testpack.Gzip(t, testpack.Tar(t, files)))
	zp := write(t, dir, "runs.zip", testpack.Zip(t, files, zip.Deflate))
	outer := write(t, dir, "ci.zip", testpack.Zip(t, []file{{Name: "in.tar.gz", Body: string(testpack.Gzip(t, testpack.Tar(t, files)))}}, zip.Deflate))
	for _, c := range []struct{ path, name, want string }{
		{tgz + "!/runs/a", tgz + "!/runs/a/history.edn.gz", "edn.gz"},
		{tgz + "!/runs/b/", tgz + "!/runs/b/history.jsonl", "jsonl"},
		{zp + "!/runs/a", zp + "!/runs/a/history.edn.gz", "edn.gz"},
		{zp + "!/runs/b", zp + "!/runs/b/history.jsonl", "jsonl"},
		{outer + "!/in.tar.gz!/runs/b", outer + "!/in.tar.gz!/runs/b/history.jsonl", "jsonl"},
		{zp + "!/runs/a/history.json", zp + "!/runs/a/history.json", "json"},
	} {
		if b, name, err := openRead(c.path); err != nil || b != c.want || name != c.name {
			t.Errorf("Open(%s) = %q (%s), %v; want %q (%s)", c.path, b, name, err, c.want, c.name)
		}
	}
	for _, bad := range []string{tgz + "!/runs/c", zp + "!/runs/c", zp + "!/runs", tgz + "!/runs/d"} {
		_, err := Open(bad)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%s) = %v, want fs.ErrNotExist", bad, err)
			continue
		}
		if folder := !strings.HasSuffix(bad, "/d"); folder != strings.Contains(err.Error(), "a folder of") {
			t.Errorf("Open(%s) = %v: says it is a folder: %v, want %v", bad, err, !folder, folder)
		}
	}
}

// openRead opens the member at path and reads it whole: its content and
// the name it is known by (ReadCloser.Name).
func openRead(path string) (body, name string, err error) {
	rc, err := Open(path)
	if err != nil {
		return "", "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), rc.Name, err
}
