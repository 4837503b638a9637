package archive

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"path"
	"strings"

	"github.com/hindsight-dev/hindsight/internal/storename"
)

// MaxLinks is the most links followed to resolve one link member (a
// symbolic link to a symbolic link ... or a link through a symlinked
// folder each count one); a longer chain is taken for a loop.
const MaxLinks = 16

// Errors of a link member that does not resolve to a file of its archive
// (Link.Err wraps one of them).
var (
	// ErrLinkOutside: the target lies outside the archive (a relative
	// target climbing above the archive's root with ".."). It is not
	// followed: nothing outside an archive is ever read.
	ErrLinkOutside = errors.New("the target lies outside the archive, and nothing outside an archive is read")
	// ErrLinkMissing: no member of the archive has the target's name.
	ErrLinkMissing = errors.New("the target names no file in the archive")
	// ErrLinkLoop: following the link takes more than MaxLinks links.
	ErrLinkLoop = fmt.Errorf("following it takes more than %d links (a loop)", MaxLinks)
	// ErrLinkFolder: the target is a folder, not a file.
	ErrLinkFolder = errors.New("the target is a folder, not a file")
)

// Link is a hard or symbolic link member of a tar archive, or a symbolic
// link of a zip, resolved to the regular member it names (see
// Visitor.Link).
type Link struct {
	// Path, Archive and Name name the link member, as for Member.
	Path, Archive, Name string
	// Symbolic tells a symbolic link from a hard link.
	Symbolic bool
	// LinkTo is the target as stored in the link's header.
	LinkTo string
	// Target is the full path (ARCHIVE!/NAME) of the regular member the
	// link resolves to, TargetName that member's cleaned name, and Size
	// its size; all empty when Err is set.
	Target, TargetName string
	Size               int64
	// Err says why the link resolves to no regular member of the archive:
	// it wraps ErrLinkOutside, ErrLinkMissing, ErrLinkLoop or ErrLinkFolder.
	Err error
}

type entryKind uint8

const (
	kindFile entryKind = iota + 1
	kindDir
	kindHardlink
	kindSymlink
)

// entry is what a tar archive holds under a name.
type entry struct {
	kind   entryKind
	target string // a link's target as stored
	size   int64
	err    error // why a link's target could not be read
}

// linkTable holds the names of an archive's members, to resolve its links
// once all are known (a symbolic link may name a later member).
//
// Names may be long (a PAX header holds up to a MiB), so the folders of a
// name are found by hashing its prefixes in one pass (maphash, seeded per
// table): the cost is linear in the length of a name, never quadratic.
type linkTable struct {
	entries map[string]entry
	links   []string // names of the link members, in archive order
	seed    maphash.Seed
	byHash  map[uint64]string // link names by their hash
	dirs    map[uint64]bool   // hashes of the folders members lie in
}

func newLinkTable() *linkTable {
	return &linkTable{entries: map[string]entry{}, seed: maphash.MakeSeed(), byHash: map[uint64]string{}}
}

// add records the member called name (cleaned); of several members of one
// name the first counts, as everywhere in this package.
func (t *linkTable) add(name string, e entry) {
	if _, ok := t.entries[name]; ok {
		return
	}
	t.entries[name] = e
	if e.kind == kindHardlink || e.kind == kindSymlink {
		t.links = append(t.links, name)
		t.byHash[maphash.String(t.seed, name)] = name
	}
}

// prefixes calls f with the hash of each proper prefix of p that ends
// before a '/', shortest first, and its length, until f returns false.
// Cost: O(len(p)) hashing.
func (t *linkTable) prefixes(p string, f func(h uint64, n int) bool) {
	var h maphash.Hash
	h.SetSeed(t.seed)
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		h.WriteString(p[start:i])
		start = i
		if !f(h.Sum64(), i) {
			return
		}
	}
}

// isDir reports whether name is a folder of the archive: a member of its
// own, or a folder some member's name lies in.
func (t *linkTable) isDir(name string) bool {
	if t.entries[name].kind == kindDir {
		return true
	}
	if t.dirs == nil {
		t.dirs = map[uint64]bool{}
		for n := range t.entries {
			t.prefixes(n, func(h uint64, _ int) bool {
				t.dirs[h] = true
				return true
			})
		}
	}
	return t.dirs[maphash.String(t.seed, name)]
}

// step returns the name a link member called name (entry e) points to,
// cleaned and relative to the archive's root: a hard link's target is a
// member name; a symbolic link's is relative to the link's folder, or,
// when absolute, to the archive's root (the way CleanName drops a leading
// '/' from member names).
func step(name string, e entry) (string, error) {
	if e.err != nil {
		return "", e.err
	}
	t := strings.ReplaceAll(e.target, "\\", "/")
	var p string
	if e.kind == kindHardlink || strings.HasPrefix(t, "/") {
		p = CleanName(t)
	} else {
		if name == ".." || strings.HasPrefix(name, "../") {
			return "", ErrLinkOutside // a link stored outside has nothing inside
		}
		p = path.Join(path.Dir(name), t)
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", ErrLinkOutside
	}
	return p, nil
}

// resolve follows the link member called name to the regular member it
// names, through links to links and symbolically linked folders, at most
// MaxLinks of them. Cost: O(MaxLinks × the length of a name) map lookups.
func (t *linkTable) resolve(name string) (string, error) {
	p, err := step(name, t.entries[name])
	if err != nil {
		return "", err
	}
	return t.resolvePath(p, 1)
}

// resolvePath resolves the cleaned name p, reached through hops links
// already, as resolve does.
func (t *linkTable) resolvePath(p string, hops int) (string, error) {
	var err error
	for err == nil {
		e, ok := t.entries[p]
		switch {
		case ok && e.kind == kindFile:
			return p, nil
		case ok && e.kind == kindDir:
			return "", ErrLinkFolder
		case ok:
			if hops++; hops > MaxLinks {
				return "", ErrLinkLoop
			}
			p, err = step(p, e)
			continue
		}
		// Not a member: maybe a folder on its way is a symbolic link.
		via := -1
		t.prefixes(p, func(h uint64, i int) bool {
			if n, ok := t.byHash[h]; ok && n == p[:i] {
				via = i
				return false
			}
			return true
		})
		if via < 0 {
			if t.isDir(p) {
				return "", ErrLinkFolder
			}
			return "", ErrLinkMissing
		}
		if hops++; hops > MaxLinks {
			return "", ErrLinkLoop
		}
		var q string
		q, err = step(p[:via], t.entries[p[:via]])
		p = path.Join(q, p[via+1:])
	}
	return "", err
}

// resolveName resolves want, a name no regular member of the archive at
// archivePath has, to the regular member it reaches as a link or through
// symbolically linked folders. The error wraps fs.ErrNotExist when want is
// no link and lies in no linked folder (or names a folder); a link that
// leads nowhere in the archive gives its Link.Err.
func (t *linkTable) resolveName(archivePath, want string) (string, error) {
	if e := t.entries[want]; e.kind == kindHardlink || e.kind == kindSymlink {
		l := t.link(archivePath, want, false)
		return l.TargetName, l.Err
	}
	if _, ok := t.entries[want]; ok || want == ".." || strings.HasPrefix(want, "../") {
		return "", fs.ErrNotExist
	}
	target, err := t.resolvePath(want, 0)
	switch {
	case err == nil:
		return target, nil
	case errors.Is(err, ErrLinkMissing), errors.Is(err, ErrLinkFolder):
		return "", fs.ErrNotExist
	}
	return "", fmt.Errorf("%s: the path goes through a symbolic link: %w", Join(archivePath, want), err)
}

// link resolves the link member called name of the archive at archivePath
// into a Link; partial says the archive could not be read to its end.
func (t *linkTable) link(archivePath, name string, partial bool) *Link {
	e := t.entries[name]
	l := &Link{Path: Join(archivePath, name), Archive: archivePath, Name: name, Symbolic: e.kind == kindSymlink, LinkTo: e.target}
	target, err := t.resolve(name)
	if err != nil {
		what := "a hard link"
		if l.Symbolic {
			what = "a symbolic link"
		}
		switch {
		case partial && errors.Is(err, ErrLinkMissing):
			err = fmt.Errorf("%w (in the part of the archive that could be read)", err)
		case l.Symbolic && strings.HasPrefix(e.target, "/") && errors.Is(err, ErrLinkMissing):
			err = fmt.Errorf("%w (an absolute target is taken from the archive's root: nothing outside the archive is read)", err)
		}
		l.Err = fmt.Errorf("%s: %s to %q: %w", l.Path, what, shorten(e.target), err)
		return l
	}
	l.Target, l.TargetName, l.Size = Join(archivePath, target), target, t.entries[target].size
	return l
}

// shorten cuts a link's target for a message at 200 bytes (a PAX header
// may hold a MiB).
func shorten(s string) string {
	if len(s) <= 200 {
		return s
	}
	return strings.ToValidUTF8(s[:200], "") + "..."
}

// storeIn returns the history file of want when want is a folder of the
// archive that is a Jepsen store folder (the first of storename.Names it
// holds, followed through links like any name), and whether it is one.
func (t *linkTable) storeIn(want string) (string, bool) {
	if !t.isDir(want) {
		return "", false
	}
	var file string
	_, ok := storename.Pick(func(n string) bool {
		p, err := t.resolvePath(path.Join(want, n), 0)
		if err == nil {
			file = p
		}
		return err == nil
	})
	return file, ok
}
