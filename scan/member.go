package scan

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/internal/storename"
)

// SkippedFile is a file the scan did not take for a history.
type SkippedFile struct {
	// Path names it (ARCHIVE!/NAME inside an archive).
	Path string `json:"path"`
	// Reason says why: "not a history" (its first value is not an op), or
	// "duplicate" (an earlier member of the archive has the same name).
	Reason string `json:"reason"`
}

// Reasons of a SkippedFile.
const (
	SkipNotHistory = "not a history"
	SkipDuplicate  = "duplicate"
)

// collector gathers the results of the workers and of the archive readers.
type collector struct {
	pr *progress
	// found counts the history files found inside archives, all shards
	// together (and the rows of archives that could not be read);
	// inShard those of this shard, loose files included.
	found, inShard atomic.Int64

	parts *partWriter // nil in tests that build a collector alone

	mu         sync.Mutex
	results    []*result
	superseded map[string]bool // member paths a store folder's rule drops
	explicit   map[string]bool // members named by an argument, never dropped
	links      []linkRow       // rows that take the result of another
}

// linkRow is the row of a link member of an archive: the result of the
// member at target (the regular member it resolves to, or another link
// to the same member that was checked in its place), under the link's own
// path.
type linkRow struct {
	path, archive, target string
	seq                   int64
}

// addLink records a link's row, built by finish from its target's result.
func (c *collector) addLink(l linkRow) {
	c.mu.Lock()
	c.links = append(c.links, l)
	c.mu.Unlock()
}

// linkResults builds the rows of the links from their targets' results:
// the same verdict, counts, sha256, size, anomalies and report, under the
// link's path. The target's result is that of the first member of its
// name, as for duplicates.
func (c *collector) linkResults() {
	if len(c.links) == 0 {
		return
	}
	first := map[string]*result{}
	for _, r := range c.results {
		if !r.member {
			continue
		}
		if old, ok := first[r.row.Path]; !ok || r.seq < old.seq {
			first[r.row.Path] = r
		}
	}
	for _, l := range c.links {
		t := first[l.target]
		if t == nil {
			row := errorRow(l.path, 0, "", fmt.Errorf("%s: a link to %s, which could not be read", l.path, l.target))
			row.Archive = l.archive
			c.results = append(c.results, &result{row: row, member: true, seq: l.seq})
			continue
		}
		r := *t
		r.seq = l.seq
		r.row.Warnings = slices.Clone(t.row.Warnings)
		r.row.relocate(l.path, t.row.SizeBytes, l.archive)
		r.anoms = slices.Clone(t.anoms)
		c.results = append(c.results, &r)
	}
}

func (c *collector) add(r *result) {
	c.mu.Lock()
	c.results = append(c.results, r)
	c.mu.Unlock()
	if c.parts != nil {
		c.parts.add(r)
	}
	switch {
	case !r.skipped:
		c.pr.add(r)
	default:
		c.pr.addTotal(-1) // counted when found, but not a history
	}
	if testHooks.done != nil {
		testHooks.done()
	}
}

// mine is the number of histories of this shard found so far.
func (c *collector) mine() int { return int(c.inShard.Load()) }

// finish returns the rows sorted by path, without those a store folder
// rule drops (see Names), and the files skipped, sorted by path. Of
// several members of one archive with the same name, the first in the
// archive is kept and the others are skipped as duplicates. A link
// member's row is its target's (linkResults).
func (c *collector) finish() ([]*result, []SkippedFile) {
	c.linkResults()
	var rows []*result
	skipped := []SkippedFile{}
	for _, r := range c.results {
		if c.isSuperseded(r.row.Path) {
			continue
		}
		if r.skipped {
			skipped = append(skipped, SkippedFile{Path: strings.ToValidUTF8(r.row.Path, "\uFFFD"), Reason: SkipNotHistory})
			continue
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b *result) int {
		if c := strings.Compare(a.row.Path, b.row.Path); c != 0 {
			return c
		}
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	out := make([]*result, 0, len(rows))
	for _, r := range rows {
		if len(out) > 0 && r.row.Path == out[len(out)-1].row.Path {
			skipped = append(skipped, SkippedFile{Path: r.row.Path, Reason: SkipDuplicate})
			continue
		}
		out = append(out, r)
	}
	slices.SortStableFunc(skipped, func(a, b SkippedFile) int { return strings.Compare(a.Path, b.Path) })
	return out, skipped
}

// dropped reports whether the row of the member at p will not be kept:
// a store folder's rule drops it (as far as the names seen so far tell),
// and no link takes its result.
func (c *collector) dropped(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.isSuperseded(p) {
		return false
	}
	for _, l := range c.links {
		if l.target == p {
			return false
		}
	}
	return true
}

// isSuperseded reports whether p, or the nested archive p lies in, is
// dropped by the store folder rule.
func (c *collector) isSuperseded(p string) bool {
	if c.explicit[p] {
		return false
	}
	if c.superseded[p] {
		return true
	}
	for i := 0; ; {
		j := strings.Index(p[i:], archive.Sep)
		if j < 0 {
			return false
		}
		if c.superseded[p[:i+j]] {
			return true
		}
		i += j + len(archive.Sep)
	}
}

// IsMemberHistory reports whether a member of an archive called name (as
// archive.CleanName gives it) is taken for a history: its base name is a
// history's (IsHistoryName) and no element of its path is hidden.
func IsMemberHistory(name string) bool {
	for _, e := range strings.Split(name, "/") {
		if strings.HasPrefix(e, ".") && e != ".." {
			return false
		}
	}
	return IsHistoryName(path.Base(name))
}

// supersededNames applies the store folder rule of Discover to the names
// of an archive's files: in a folder holding a Jepsen history file (the
// first of storename.Names), that file is the one input, and nothing else in
// the folder or below it is; the shallowest such folder wins. It returns
// the names so dropped.
func supersededNames(names []string) []string {
	pref := map[string]int{} // folder -> rank of its best store file
	for _, n := range names {
		if r := slices.Index(storename.Names, path.Base(n)); r >= 0 {
			d := path.Dir(n)
			if old, ok := pref[d]; !ok || r < old {
				pref[d] = r
			}
		}
	}
	if len(pref) == 0 {
		return nil
	}
	var out []string
	for _, n := range names {
		// the shallowest store folder above n
		var store string
		found := false
		for d := path.Dir(n); ; d = path.Dir(d) {
			if _, ok := pref[d]; ok {
				store, found = d, true
			}
			if d == "." || d == "/" || d == ".." || strings.HasSuffix(d, "/..") {
				break
			}
		}
		if found && n != path.Join(store, storename.Names[pref[store]]) {
			out = append(out, n)
		}
	}
	return out
}

// memberJob is an archive member handed to a worker. The archive's reader
// waits until the worker has read the member's bytes (done), since the
// next member comes from the same stream.
type memberJob struct {
	m    *archive.Member
	seq  int64
	once sync.Once
	done chan struct{}
	// v, in the walks that may set a large member aside for the
	// streaming pass (bigPass), is the visitor that keeps it (nil in that
	// pass), and src where the member's bytes are in the walk: their path
	// (m.Path, or the target's when m is a link checked in its target's
	// place) and their place among the walk's members.
	v   *archiveVisitor
	src memberPlace
	// stream, in the streaming pass, is the member set aside: its bytes go
	// straight into its check.
	stream *bigMember
}

// finished tells the archive's reader that the member's bytes are read.
func (j *memberJob) finished() { j.once.Do(func() { close(j.done) }) }

// archiveVisitor hands an archive's members to the workers.
type archiveVisitor struct {
	s    *scanner
	ctx  context.Context
	jobs chan<- job
	col  *collector
	seq  int64
	only string // Input.Only
	hits int    // members in the part asked for
	// handed holds the paths of the members handed to the workers, and
	// pending the links whose target was not (by target path, in the
	// archive's order): their targets are read in a second pass.
	handed  map[string]bool
	pending map[string][]pendingLink
	order   []string // the keys of pending, in the order first seen
	// members counts the members the walk has visited (memberPlace).
	members int
	// big holds the large members set aside for the streaming pass, by
	// their place. Workers add to it before they let the walk go on
	// (memberJob.finished), so the walk's goroutine reads it without a
	// lock.
	big map[memberPlace]*bigMember
}

// pendingLink is a link whose target this scan did not check in its walk
// of the archive.
type pendingLink struct {
	l   *archive.Link
	seq int64
}

// wanted reports whether the member (or problem) at p is in the part of
// the archive asked for, and whether it was named exactly.
func (v *archiveVisitor) wanted(p string) (in, exact bool) {
	if v.only == "" {
		return true, false
	}
	if p == v.only {
		return true, true
	}
	return strings.HasPrefix(p, v.only+"/") || strings.HasPrefix(p, v.only+archive.Sep), false
}

// take reports whether the member (file or link) at p, named name, is a
// history to check: in the part of the archive asked for and a history
// by its name, or named exactly. It counts the hit and notes an exact
// name; err is the walk's cancellation.
func (v *archiveVisitor) take(p, name string) (bool, error) {
	if err := v.ctx.Err(); err != nil {
		return false, err
	}
	in, exact := v.wanted(p)
	if in {
		v.hits++
	}
	if !in || !exact && !IsMemberHistory(name) {
		return false, nil
	}
	if exact {
		v.col.mu.Lock()
		v.col.explicit[p] = true
		v.col.mu.Unlock()
	}
	return true, nil
}

// inShard counts a history found at p and reports whether it is in this
// scan's shard, counting it there too.
func (v *archiveVisitor) inShard(p string) bool {
	v.col.found.Add(1)
	if !v.s.opts.Shard.Contains(p) {
		return false
	}
	v.col.inShard.Add(1)
	return true
}

func (v *archiveVisitor) Member(m *archive.Member) error {
	v.members++
	if take, err := v.take(m.Path, m.Name); !take {
		return err
	}
	if !v.inShard(m.Path) {
		return nil
	}
	v.col.pr.addTotal(1)
	v.seq++
	v.handed[m.Path] = true
	return v.hand(&memberJob{m: m, seq: v.seq, src: memberPlace{m.Path, v.members}, v: v})
}

// hand gives mj to a worker and waits until its bytes are read.
func (v *archiveVisitor) hand(mj *memberJob) error {
	mj.done = make(chan struct{})
	select {
	case v.jobs <- job{m: mj}:
	case <-v.ctx.Done():
		return v.ctx.Err()
	}
	<-mj.done // the worker reads the member, or gives up on cancel
	return nil
}

// Link takes a link member of the archive for a history as Member takes
// a file, by its own name: its row is its target's result (see
// linkResults), or an error row when it resolves to no file of the
// archive. A target this walk did not check (not a history by its name,
// outside the part asked for, in another shard) is read in a second pass
// (secondPass).
func (v *archiveVisitor) Link(l *archive.Link) error {
	if take, err := v.take(l.Path, l.Name); !take {
		return err
	}
	if l.Err == nil && archive.IsName(path.Base(l.TargetName)) {
		l.Err = fmt.Errorf("%s: a link to %s, an archive, not a history: its histories are rows under its own name", l.Path, l.Target)
	}
	if l.Err != nil {
		v.problem(archive.Problem{Path: l.Path, Err: l.Err}, l.Archive)
		return nil
	}
	if !v.inShard(l.Path) {
		return nil
	}
	v.seq++
	if v.handed[l.Target] {
		v.col.addLink(linkRow{path: l.Path, archive: l.Archive, target: l.Target, seq: v.seq})
		return nil
	}
	if v.pending == nil {
		v.pending = map[string][]pendingLink{}
	}
	if _, ok := v.pending[l.Target]; !ok {
		v.order = append(v.order, l.Target)
	}
	v.pending[l.Target] = append(v.pending[l.Target], pendingLink{l, v.seq})
	return nil
}

func (v *archiveVisitor) Problem(p archive.Problem) {
	if in, _ := v.wanted(p.Path); !in && !strings.HasPrefix(v.only, p.Path+archive.Sep) {
		return // a problem of another part of the archive, or the archive's own
	}
	v.problem(p, p.Path)
}

// problem records the error row of p, whose archive column is archivePath.
func (v *archiveVisitor) problem(p archive.Problem, archivePath string) {
	v.col.found.Add(1)
	if !v.s.opts.Shard.Contains(p.Path) {
		return
	}
	v.col.inShard.Add(1)
	v.col.pr.addTotal(1)
	row := errorRow(p.Path, 0, "", p.Err)
	row.Archive = archivePath
	v.seq++
	v.col.add(&result{row: row, member: true, seq: v.seq})
}

func (v *archiveVisitor) Names(archivePath string, names []string) {
	drop := supersededNames(names)
	if len(drop) == 0 {
		return
	}
	v.col.mu.Lock()
	defer v.col.mu.Unlock()
	for _, n := range drop {
		p := archive.Join(archivePath, n)
		if in, exact := v.wanted(p); !in || exact {
			continue // not seen, or asked for by name
		}
		v.col.superseded[p] = true
		if IsMemberHistory(n) {
			v.col.found.Add(-1) // counted when seen; the loose walk never sees it
		}
	}
}

// walkArchive reads the archive in, handing its members to the workers
// through jobs. An archive that cannot be opened is a row of this shard's
// when its path hashes here.
func (s *scanner) walkArchive(ctx context.Context, in Input, jobs chan<- job, col *collector) {
	v := &archiveVisitor{s: s, ctx: ctx, jobs: jobs, col: col, only: in.Only, handed: map[string]bool{}}
	if in.Err != nil {
		v.Problem(archive.Problem{Path: in.Path, Err: in.Err})
		return
	}
	left := in.Size // the bytes the progress bar counts for this archive
	read := func(n int64) {
		n = min(n, left)
		left -= n
		col.pr.read(n)
	}
	err := archive.WalkFile(in.Path, v, archive.Options{MaxBuffer: s.opts.MaxHistoryBytes}, read)
	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		v.Problem(archive.Problem{Path: in.Path, Err: err})
	case in.Only != "" && v.hits == 0:
		v.problem(archive.Problem{Path: in.Only, Err: fmt.Errorf("%s: %s holds no file at or below this path: %w", in.Only, in.Path, fs.ErrNotExist)}, in.Path)
	}
	// The walk reports a damaged archive to the visitor (err is only a
	// file that cannot be opened, or a stop), so the passes below read a cut
	// archive again as far as it goes.
	if len(v.pending) > 0 {
		v.secondPass(in.Path)
	}
	if len(v.big) > 0 {
		v.bigPass(in.Path)
	}
}

// secondPass reads the archive at path again for the targets of the links
// whose target the first walk did not hand to a worker: the first link to
// each target is checked with the target's bytes under its own name, and
// the other links to it take its result. A target not found again (the
// archive changed in between) leaves its links an error row.
func (v *archiveVisitor) secondPass(path string) {
	err := v.reread(path, v.linkTarget)
	if v.ctx.Err() != nil {
		return
	}
	for _, t := range v.order {
		for _, p := range v.pending[t] {
			why := fmt.Errorf("%s: a link to %s, which a second read of the archive did not find", p.l.Path, t)
			if err != nil {
				why = fmt.Errorf("%s: a link to %s, which a second read of the archive could not reach: %w", p.l.Path, t, err)
			}
			v.col.pr.addTotal(1)
			v.lost(p.l.Path, p.l.Archive, 0, p.seq, 0, why)
		}
	}
}

// linkTarget, in an archive's second pass, hands the target of pending
// links at place to a worker, under the first link's name; the other
// links take its result.
func (v *archiveVisitor) linkTarget(m *archive.Member, place memberPlace) error {
	links, ok := v.pending[m.Path]
	if !ok {
		return nil
	}
	delete(v.pending, m.Path)
	first := links[0].l
	for _, p := range links[1:] {
		v.col.addLink(linkRow{path: p.l.Path, archive: p.l.Archive, target: first.Path, seq: p.seq})
	}
	v.col.pr.addTotal(1)
	lm := &archive.Member{Path: first.Path, Archive: first.Archive, Name: first.Name, Size: m.Size, Body: m.Body}
	return v.hand(&memberJob{m: lm, seq: links[0].seq, src: place, v: v})
}

// rereadVisitor is the visitor of a read of an archive after its walk
// (secondPass, bigPass): it gives handle each member with its place and
// ignores everything else, which the walk reported.
type rereadVisitor struct {
	ctx     context.Context
	members int // visited so far (memberPlace)
	handle  func(m *archive.Member, place memberPlace) error
}

func (r *rereadVisitor) Member(m *archive.Member) error {
	r.members++
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return r.handle(m, memberPlace{m.Path, r.members})
}

func (r *rereadVisitor) Problem(archive.Problem) {}

func (r *rereadVisitor) Link(*archive.Link) error { return nil }

func (r *rereadVisitor) Names(string, []string) {}

// reread reads the archive at path again, giving handle each member.
func (v *archiveVisitor) reread(path string, handle func(*archive.Member, memberPlace) error) error {
	return archive.WalkFile(path, &rereadVisitor{ctx: v.ctx, handle: handle}, archive.Options{MaxBuffer: v.s.opts.MaxHistoryBytes}, nil)
}

// lost records the error row, at place seq, of a history whose bytes a
// second read of the archive did not reach; held is what the progress
// bar waits for of it (result.held).
func (v *archiveVisitor) lost(path, archivePath string, size, seq, held int64, why error) {
	row := errorRow(path, size, "", why)
	row.Archive = archivePath
	v.col.add(&result{row: row, member: true, seq: seq, held: held})
}

// member checks one history read from an archive: it is admitted against
// the memory budget for its bytes and its check, read into memory (then
// the archive's reader goes on), skipped if it is not a history, taken
// from the cache or checked. It returns nil when ctx was canceled.
func (s *scanner) member(ctx context.Context, j *memberJob) *result {
	defer j.finished()
	m := j.m
	fail := func(sha string, err error) *result {
		row := errorRow(m.Path, m.Size, sha, err)
		row.Archive = m.Archive
		return &result{row: row, member: true, seq: j.seq}
	}
	if s.tooLarge(m.Size) {
		return fail("", s.tooBig(m.Path, m.Size))
	}
	if j.stream != nil {
		return s.streamMember(ctx, j)
	}
	body := &ctxReader{ctx: ctx, r: m.Body}
	br := bufio.NewReaderSize(body, 4096)
	head, _ := br.Peek(18)
	if j.v != nil && m.Size >= streamAbove && !compressed(head) {
		return s.hashMember(ctx, j, br, fail)
	}
	l, err := s.mem.acquire(ctx, s.weight(ingest.TextSize(bytes.NewReader(head), m.Size), m.Size))
	if err != nil {
		return nil
	}
	defer l.release()

	buf := make([]byte, m.Size)
	_, err = io.ReadFull(br, buf)
	j.finished()
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = fmt.Errorf("the archive ends inside this member: %w", io.ErrUnexpectedEOF)
		}
		return fail("", fmt.Errorf("%s: %w", m.Path, err))
	}
	if notHistoryFile(headOf(buf)) {
		return &result{skipped: true, row: HistoryRow{Path: m.Path}, member: true, seq: j.seq}
	}
	sum := sha256.Sum256(buf)
	sha := hex.EncodeToString(sum[:])
	key := s.cache.key(sha)
	if r, ok := s.cached(key, m.Path, m.Size, m.Archive); ok {
		r.member, r.seq = true, j.seq
		return r
	}
	// Now the whole member is here, a gzip member's trailer tells its
	// size: give back what the first estimate took beyond it (the meter
	// takes more if the trailer lied).
	l.shrink(s.weight(ingest.TextSize(bytes.NewReader(buf), m.Size), m.Size))
	if testHooks.checking != nil {
		testHooks.checking(1)
		defer testHooks.checking(-1)
	}
	open := func() (io.Reader, *ctxReader, error) { return bytes.NewReader(buf), nil, nil }
	r := s.check(ctx, open, l, m.Size, m.Path, m.Size, sha, key, m.Archive)
	if r != nil {
		r.member, r.seq = true, j.seq
	}
	return r
}
