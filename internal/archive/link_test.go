package archive

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpack"
)

// linkEntries is a tar with every kind of link: a hard link to an earlier
// file (as GNU tar stores the second name of a hard-linked file), symbolic
// links to a later file, through a symlinked folder, outside the archive,
// to an absolute path, to nothing, in a loop, and to a folder.
var linkEntries = []testpack.Entry{
	{Name: "a/", Dir: true},
	{Name: "a/h.edn", Body: "{:a 1}"},
	{Name: "b/h.edn", Hardlink: "a/h.edn"},
	{Name: "b/hh.edn", Hardlink: "./b/h.edn"}, // a hard link to a hard link
	{Name: "c/s.edn", Symlink: "../z/later.edn"},
	{Name: "latest", Symlink: "a"},
	{Name: "via.edn", Symlink: "latest/h.edn"},
	{Name: "esc.edn", Symlink: "../../secret.edn"},
	{Name: "abs.edn", Symlink: "/etc/passwd"},
	{Name: "absin.edn", Symlink: "/z/later.edn"}, // absolute, within the archive
	{Name: "dangling.edn", Symlink: "nope.edn"},
	{Name: "loop1.edn", Symlink: "loop2.edn"},
	{Name: "loop2.edn", Symlink: "./loop1.edn"},
	{Name: "dir.edn", Symlink: "a"},
	{Name: "hard-missing.edn", Hardlink: "gone.edn"},
	{Name: "z/later.edn", Body: "{:z 26}"},
}

// linkWant is what each link of linkEntries resolves to: a target name, or
// the error it wraps.
var linkWant = []struct {
	name, target string
	err          error
}{
	{"b/h.edn", "a/h.edn", nil},
	{"b/hh.edn", "a/h.edn", nil},
	{"c/s.edn", "z/later.edn", nil},
	{"latest", "", ErrLinkFolder},
	{"via.edn", "a/h.edn", nil},
	{"esc.edn", "", ErrLinkOutside},
	{"abs.edn", "", ErrLinkMissing},
	{"absin.edn", "z/later.edn", nil},
	{"dangling.edn", "", ErrLinkMissing},
	{"loop1.edn", "", ErrLinkLoop},
	{"loop2.edn", "", ErrLinkLoop},
	{"dir.edn", "", ErrLinkFolder},
	{"hard-missing.edn", "", ErrLinkMissing},
}

// linkArchives writes linkEntries as a plain tar and a .tar.gz in a
// folder of their own, next to a file the escaping link would reach if
// anything were resolved on disk, and a zip holding the .tar.gz.
func linkArchives(t *testing.T) (tarPath, tgzPath, zipPath string) {
	dir := t.TempDir()
	write(t, dir, "secret.edn", []byte("{:secret 1}"))
	sub := filepath.Join(dir, "x", "y")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tb := testpack.TarEntries(t, linkEntries)
	tarPath = write(t, sub, "a.tar", tb)
	tgzPath = write(t, sub, "a.tar.gz", testpack.Gzip(t, tb))
	zipPath = write(t, sub, "ci.zip", testpack.Zip(t, []file{{Name: "run.tar.gz", Body: string(testpack.Gzip(t, tb))}}, zip.Deflate))
	return
}

// TestWalkLinks walks a tar with links, plain and nested in a zip: a link
// is never a member of its own (GNU tar's second name of a hard-linked
// file used to be read as an empty file), every link is reported resolved
// to the file it names or with the reason it names none, and link names
// are among the archive's names.
func TestWalkLinks(t *testing.T) {
	tarPath, _, zipPath := linkArchives(t)
	for _, arch := range []string{tarPath, zipPath + "!/run.tar.gz"} {
		file := strings.Split(arch, "!/")[0]
		r := walk(t, file, -1)
		if len(r.members) != 2 || !strings.HasPrefix(r.members[0], arch+"!/a/h.edn={:a 1} ") || !strings.HasPrefix(r.members[1], arch+"!/z/later.edn={:z 26} ") {
			t.Errorf("%s: members %q; want only the two files", arch, r.members)
		}
		if len(r.problems) != 0 {
			t.Errorf("%s: problems %v", arch, r.problems)
		}
		if len(r.links) != len(linkWant) {
			t.Fatalf("%s: %d links, want %d", arch, len(r.links), len(linkWant))
		}
		for i, w := range linkWant {
			l := r.links[i]
			if l.Path != arch+"!/"+w.name || l.Archive != arch || l.Name != w.name {
				t.Errorf("link %d: %s (%s|%s), want %s", i, l.Path, l.Archive, l.Name, w.name)
			}
			switch {
			case w.err == nil && (l.Err != nil || l.TargetName != w.target || l.Target != arch+"!/"+w.target || l.Size == 0):
				t.Errorf("%s: target %q (%q, %d bytes), err %v; want %s", w.name, l.TargetName, l.Target, l.Size, l.Err, w.target)
			case w.err != nil && !errors.Is(l.Err, w.err):
				t.Errorf("%s: target %q, err %v; want %v", w.name, l.TargetName, l.Err, w.err)
			case w.err != nil && !strings.HasPrefix(l.Err.Error(), l.Path+": a "):
				t.Errorf("%s: the error %q must start with the link's path and say what it is", w.name, l.Err)
			}
		}
		if n := r.names[arch]; len(n) != 2+len(linkWant) || n[1] != "b/h.edn" {
			t.Errorf("%s: names %v; want the files and the links", arch, n)
		}
	}
}

// TestOpenLinks opens links: a hard link to an earlier file (the second
// read of the archive reaches it), a symbolic link to a later one, a name
// in a symlinked folder, in a tar, a tar.gz and a tar.gz inside a zip; a
// link that leads nowhere in the archive fails in words, and nothing
// outside the archive is read.
func TestOpenLinks(t *testing.T) {
	tarPath, tgzPath, zipPath := linkArchives(t)
	for _, arch := range []string{tarPath, tgzPath, zipPath + "!/run.tar.gz"} {
		for _, c := range []struct{ name, want string }{
			{"b/h.edn", "{:a 1}"}, {"b/hh.edn", "{:a 1}"}, {"c/s.edn", "{:z 26}"}, {"via.edn", "{:a 1}"},
			{"latest/h.edn", "{:a 1}"}, {"absin.edn", "{:z 26}"}, {"a/h.edn", "{:a 1}"},
		} {
			rc, err := Open(arch + "!/" + c.name)
			if err != nil {
				t.Errorf("Open(%s!/%s): %v", arch, c.name, err)
				continue
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || string(b) != c.want || rc.Size != int64(len(c.want)) {
				t.Errorf("Open(%s!/%s) = %q (size %d), %v; want %q", arch, c.name, b, rc.Size, err, c.want)
			}
		}
		for _, w := range linkWant {
			if w.err == nil {
				continue
			}
			p := arch + "!/" + w.name
			rc, err := Open(p)
			if err == nil {
				b, _ := io.ReadAll(rc)
				rc.Close()
				t.Errorf("Open(%s) read %q; want %v", p, b, w.err)
				continue
			}
			if !errors.Is(err, w.err) || !strings.Contains(err.Error(), p+": a ") {
				t.Errorf("Open(%s): %v; want %v, naming the link", p, err, w.err)
			}
		}
		if _, err := Open(arch + "!/latest/nope.edn"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a missing name in a symlinked folder: %v, want fs.ErrNotExist", err)
		}
	}
}

// TestZipBadDirectoryOffset damages the offset of a zip's central
// directory (in its end record) both ways: every file's offset then points
// outside the file, or to no file header. The walk reports one problem for
// the archive, in words, not one per member, and Open says the same.
func TestZipBadDirectoryOffset(t *testing.T) {
	dir := t.TempDir()
	var files []file
	for i := range 20 {
		files = append(files, file{Name: fmt.Sprintf("r/%02d/history.edn", i), Body: fmt.Sprintf("{:index %d}", i)})
	}
	zb := testpack.Zip(t, files, zip.Deflate)
	end := bytes.LastIndex(zb, []byte("PK\x05\x06"))
	off := binary.LittleEndian.Uint32(zb[end+16:])
	for _, c := range []struct {
		name  string
		delta int64
	}{{"past.zip", 1000}, {"before.zip", -100}} {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(zb)
			binary.LittleEndian.PutUint32(b[end+16:], uint32(int64(off)+c.delta))
			p := write(t, dir, c.name, b)
			r := walk(t, p, -1)
			if len(r.members) != 0 {
				t.Errorf("members %v", r.members)
			}
			if len(r.problems) != 1 || r.problems[0].Path != p || !errors.Is(r.problems[0].Err, ErrZipDirectory) {
				t.Fatalf("%d problems %v; want one for the archive, ErrZipDirectory", len(r.problems), r.problems)
			}
			msg := r.problems[0].Err.Error()
			if !strings.Contains(msg, "not a readable zip archive: its central directory points outside the file") || strings.Contains(msg, "readat") {
				t.Errorf("problem %q", msg)
			}
			if _, err := Open(p + "!/r/03/history.edn"); !errors.Is(err, ErrZipDirectory) {
				t.Errorf("Open: %v, want ErrZipDirectory", err)
			}
		})
	}
}

// BenchmarkResolveLongName resolves links to a name 800 KB deep through a
// folder symlinked to itself, 16 times over: the cost is linear in the
// name's length (a folder-by-folder lookup would be quadratic).
func BenchmarkResolveLongName(b *testing.B) {
	t := newLinkTable()
	t.add("a", entry{kind: kindSymlink, target: "."})
	t.add("l.edn", entry{kind: kindSymlink, target: strings.Repeat("a/", 400000) + "x.edn"})
	t.add("x.edn", entry{kind: kindFile})
	for b.Loop() {
		if _, err := t.resolve("l.edn"); !errors.Is(err, ErrLinkLoop) {
			b.Fatal(err)
		}
	}
}

// zipLinks returns a zip holding a file and symbolic links as zip -y
// stores them (the target as content, a symlink's Unix mode).
func zipLinks(t *testing.T) []byte {
	return testpack.ZipEntries(t, []testpack.Entry{
		{Name: "s.edn", Symlink: "r/h.edn"},
		{Name: "r/h.edn", Body: "{:r 1}"},
		{Name: "latest", Symlink: "r"},
		{Name: "esc.edn", Symlink: "../../secret.edn"},
		{Name: "loop.edn", Symlink: "loop.edn"},
	})
}

// TestZipLinks walks and opens a zip's symbolic links: resolved like a
// tar's, never outside the archive.
func TestZipLinks(t *testing.T) {
	p := write(t, t.TempDir(), "l.zip", zipLinks(t))
	r := walk(t, p, -1)
	if len(r.members) != 1 || !strings.HasPrefix(r.members[0], p+"!/r/h.edn={:r 1} ") {
		t.Errorf("members %v", r.members)
	}
	want := map[string]error{"s.edn": nil, "latest": ErrLinkFolder, "esc.edn": ErrLinkOutside, "loop.edn": ErrLinkLoop}
	if len(r.links) != len(want) {
		t.Fatalf("links %v", r.links)
	}
	for _, l := range r.links {
		if w := want[l.Name]; !errors.Is(l.Err, w) || w == nil && l.TargetName != "r/h.edn" {
			t.Errorf("%s: target %q, err %v; want %v", l.Name, l.TargetName, l.Err, w)
		}
	}
	for _, m := range []string{"s.edn", "latest/h.edn"} {
		rc, err := Open(p + "!/" + m)
		if err != nil {
			t.Errorf("Open(%s): %v", m, err)
			continue
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "{:r 1}" {
			t.Errorf("Open(%s) = %q", m, b)
		}
	}
	if _, err := Open(p + "!/esc.edn"); !errors.Is(err, ErrLinkOutside) {
		t.Errorf("Open(esc.edn): %v", err)
	}
}
