package scan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/hindsight-dev/hindsight/internal/archive"
)

// streamAbove is the size from which an archive member stored without
// compression is checked straight from the archive's stream rather than
// from a copy in memory. The walk cannot wait for a check (the next member
// comes from the same stream) and must know a member's SHA-256 before its
// check (the cache is keyed by it), so such a member is read twice: the
// walk hashes it and looks it up in the cache, and a miss is set aside;
// once the walk is over, a second read of the archive (bigPass) hands each
// member set aside to a worker whose check reads it as the walk goes. The
// copy this saves is as large as the member, which is about what checking
// it takes besides (a 284 MB list-append history: 316 MB peak loose, 673
// MB in a tar with the copy); below this size it is not worth reading the
// archive again. A compressed member keeps its copy, which is the small side of
// it. A variable so tests can stream every member.
var streamAbove int64 = 64 << 20

// memberPlace is where a member's bytes are in a walk of its archive: its
// path, and its place among all the members the walk visits (1 for the
// first), which tells apart members of the same name. Every read of an
// unchanged archive visits its members in the same order; in a changed
// one a member whose place moved is not found again, which bigPass
// reports (a count per path would survive some changes, but would hold
// every member's name for the length of the walk).
type memberPlace struct {
	path string
	n    int
}

// bigMember is an archive member set aside for the streaming pass.
type bigMember struct {
	m        archive.Member // the row's path, archive, name and size; no Body
	seq      int64          // its place among the archive's rows
	sha, key string         // its SHA-256 as the first read found it, and its cache key
}

// hashMember is the first read of a large uncompressed member: it is
// skipped if it is not a history, taken from the cache, or set aside for
// bigPass (and then has no result yet: nil). body reads the member.
func (s *scanner) hashMember(ctx context.Context, j *memberJob, body io.Reader, fail func(sha string, err error) *result) *result {
	m := j.m
	// The head notHistoryFile looks at is read as far as it looks
	// (usually its first size), and hashed with the rest.
	var head []byte
	peek := func(n int) []byte {
		if k := min(int64(n), m.Size); int64(len(head)) < k {
			head = slices.Grow(head, int(k)-len(head))
			r, _ := io.ReadFull(body, head[len(head):k])
			head = head[:len(head)+r]
		}
		return head[:min(n, len(head))]
	}
	if notHistoryFile(peek) {
		return &result{skipped: true, row: HistoryRow{Path: m.Path}, member: true, seq: j.seq}
	}
	h := sha256.New()
	h.Write(head)
	n, err := io.Copy(h, body)
	n += int64(len(head))
	if ctx.Err() != nil {
		return nil
	}
	if err == nil && n < m.Size {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("the archive ends inside this member: %w", err)
		}
		return fail("", fmt.Errorf("%s: %w", m.Path, err))
	}
	sha := hex.EncodeToString(h.Sum(nil))
	key := s.cache.key(sha)
	if r, ok := s.cached(key, m.Path, m.Size, m.Archive); ok {
		r.member, r.seq = true, j.seq
		return r
	}
	v := j.v
	if v.big == nil {
		v.big = map[memberPlace]*bigMember{}
	}
	v.col.pr.hold(m.Size)
	v.big[j.src] = &bigMember{m: archive.Member{Path: m.Path, Archive: m.Archive, Name: m.Name, Size: m.Size}, seq: j.seq, sha: sha, key: key}
	if testHooks.setAside != nil {
		testHooks.setAside(m.Path)
	}
	return nil
}

// bigPass reads the archive at path again for the members set aside by
// the walk (hashMember) and hands each to a worker to be checked as it is
// read. A member not found again (the archive changed in between, or broke
// before it) is an error row.
func (v *archiveVisitor) bigPass(path string) {
	if testHooks.bigPass != nil {
		testHooks.bigPass(path)
	}
	err := v.reread(path, v.streamBig)
	if v.ctx.Err() != nil {
		return
	}
	for _, bm := range v.big { // not found again; finish sorts the rows
		why := fmt.Errorf("%s: a second read of the archive did not find this member again", bm.m.Path)
		if err != nil {
			why = fmt.Errorf("%s: a second read of the archive could not reach this member: %w", bm.m.Path, err)
		}
		v.lost(bm.m.Path, bm.m.Archive, bm.m.Size, bm.seq, bm.m.Size, why)
	}
}

// streamBig, in the streaming pass, hands the member at place to a
// worker if it was set aside.
func (v *archiveVisitor) streamBig(m *archive.Member, place memberPlace) error {
	bm, ok := v.big[place]
	if !ok {
		return nil
	}
	delete(v.big, place)
	if v.col.dropped(bm.m.Path) {
		// A store folder's rule dropped it once the walk saw the
		// folder's other files: its row would not be kept.
		v.col.pr.addTotal(-1)
		v.col.pr.read(bm.m.Size)
		return nil
	}
	sm := bm.m
	sm.Size, sm.Body = m.Size, m.Body
	return v.hand(&memberJob{m: &sm, seq: bm.seq, stream: bm})
}

// streamMember checks a member of the streaming pass as its bytes come
// from the archive: admitted for its check alone (no copy is held), and
// let go (j.finished) as soon as its last byte is read. Its bytes must
// hash as they did in the walk, or its row is an error (not cached).
func (s *scanner) streamMember(ctx context.Context, j *memberJob) *result {
	m := j.m
	// A member of the same bytes may have been checked since the walk.
	if r, ok := s.cached(j.stream.key, m.Path, m.Size, m.Archive); ok {
		r.member, r.seq, r.held = true, j.seq, j.stream.m.Size
		return r
	}
	// An uncompressed member's text is its size, so the lease is exact
	// and the check's meter never needs to grow (which would read the
	// member again: see check).
	l, end, err := s.admit(ctx, s.weight(m.Size, 0))
	if err != nil {
		return nil
	}
	defer end()
	opened := false
	open := func() (io.Reader, *ctxReader, error) {
		if opened {
			return nil, nil, fmt.Errorf("%s: an archive member read from the archive's stream cannot be read a second time", m.Path)
		}
		opened = true
		vr := &verifyReader{r: m.Body, h: sha256.New(), size: m.Size, sha: j.stream.sha, path: m.Path, done: j.finished}
		rr := &ctxReader{ctx: ctx, r: vr}
		return rr, rr, nil
	}
	r := s.check(ctx, open, l, 0, m.Path, m.Size, j.stream.sha, j.stream.key, m.Archive)
	if r != nil {
		r.member, r.seq, r.held = true, j.seq, j.stream.m.Size
	}
	return r
}

// errChanged is the error of a member whose bytes differ between the
// archive's two reads.
var errChanged = errors.New("the member changed between the archive's two reads")

// verifyReader reads a member of the streaming pass, hashing it: at its
// end it calls done (the walk goes on) and fails if the bytes are not the
// first read's. After its end it never reads r again, since r is then
// the archive's stream, past this member.
type verifyReader struct {
	r    io.Reader
	h    hash.Hash
	n    int64
	size int64
	sha  string
	path string
	done func()
	end  error // set at the end: io.EOF, or why the bytes are not the first read's
}

func (v *verifyReader) Read(p []byte) (int, error) {
	if v.end != nil {
		return 0, v.end
	}
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if err == nil {
		return n, nil
	}
	switch {
	case err != io.EOF:
		v.end = err
	case v.n != v.size || hex.EncodeToString(v.h.Sum(nil)) != v.sha:
		v.end = fmt.Errorf("%s: %w", v.path, errChanged)
	default:
		v.end = io.EOF
	}
	v.done()
	return n, v.end
}
