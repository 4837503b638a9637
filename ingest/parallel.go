package ingest

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hindsight-dev/hindsight/model"
)

// A plain history file of one op per line (EDN or JSON Lines) is read in
// parallel: a reader goroutine cuts the file into blocks of whole lines,
// and one worker per core decodes blocks with a decoder of its own, into a
// history of the block's own (its ops, micro-op stores, and keys, values
// and messages numbered in the order the block meets them). The blocks are
// then merged in file order, one at a time: each block's keys and messages,
// in the block's order, are interned into the history being built, which
// gives every one the id a sequential read gives it (a sequential read
// numbers them in order of first appearance, and so does this), and room
// is made for the block's ops at the end of the history's. What is left of
// a block, copying its ops (and their extras and workload spans) into that
// room and renumbering the ids in its stores (which the history adopts
// without copying), runs in parallel again. An invocation whose completion lies in a later block keeps its
// micro-ops unless the next op of its process carries them (as decoder.settle
// decides), which is settled as the later block is merged.
//
// Anything a block cannot decide on its own makes the whole file be read
// again sequentially, from the start, so that what the user sees never
// depends on the reading strategy: a syntax or decoding error anywhere (the
// sequential read then reports the first error in file order, with its
// message, position and excerpt), an op or form cut at the end of a block
// that is not the last (an op spread over lines, or an unclosed one), and a
// top-level vector or array. A file cut off mid-op is fine: only its last
// block meets the end.

// errSequential stops a parallel read: the file must be read sequentially.
var errSequential = errors.New("ingest: read sequentially")

// Sizes of a parallel read.
var (
	// parallelMin is the smallest file read in parallel.
	parallelMin int64 = 8 << 20
	// A block is a 32nd of the file, between blockFloor and blockCap,
	// unless that would make more than maxBlocks of them (files over
	// 2 GiB get larger blocks).
	blockFloor = 1 << 20
	blockCap   = 4 << 20
	maxBlocks  = 512
)

// opsWarning is a warning of a block whose last argument is the number of
// ops read before it, which is known only once the blocks before it are
// merged.
type opsWarning struct {
	format string
	args   []any // the last is the block's own count, an int64
	once   warnOnce
}

// warnOnce names a warning a history gives at most once (0: any other).
type warnOnce uint8

// The warnings given once.
const (
	onceTime warnOnce = 1 + iota // a :time that is not an integer
	onceKinds
)

// partOut is what a block's decoder collects beside its history.
type partOut struct {
	last    bool // the block ends the file
	warns   []opsWarning
	pending []pendingAt // invocations still open at the block's end
}

// pendingAt is an invocation open at the end of a block: its micro-ops were
// stored, in case its completion does not carry them.
type pendingAt struct {
	process int32
	pos     int64 // position in the block's ops
}

// block is a run of whole lines of the file.
type block struct {
	seq  int
	buf  []byte // the pooled buffer; data is buf[:n]
	data []byte
	off  int64 // absolute offset of data[0]
	line int64 // line number of data[0]
	// breaks is the number of line breaks in data (lineBreaks), which the
	// cutter counts for the next block's line and the decoder takes as
	// its hint of the block's ops: counted once, not by each (counting
	// newlines took 1.9 % of the CPU of a 1M-poll abort check when both
	// did, 1.0 % since, by perf)
	breaks int64
	last   bool
	prev   chan struct{} // closed when the block before is merged
	done   chan struct{} // closed when this block is merged
}

// part is a decoded block, waiting to be merged.
type part struct {
	b      *model.Builder
	h      *model.History
	ops    []model.Op
	out    *partOut
	keyMap []model.KeyID
	msgMap []model.MsgID
	extras []model.OpExtra
	end    int64 // offset in the file where the block ends
	// the block's stores, adopted by the history, to renumber
	mopChunks  [][]model.Mop
	pollChunks [][]model.KeyPoll
	readChunks [][]model.Read
	elemChunks [][]model.MsgID
	xrecChunks [][]model.ExtRec
	xkeyChunks [][]model.KeyID
	mopBase    int32
	// where merge placed the block in the history, for place to fill
	opsDst    []model.Op
	extrasDst []model.OpExtra
	// extraPos are the positions of the ops with extras, in the block;
	// extraPosDst in the history
	extraPos    []int32
	extraPosDst []int32
	spansDst    []model.Span // the ops before the block's first with none, then the block's
	spans       []model.Span
	xrecB       int32
	base        int64
	pollB       int32
	readB       int32
	elemB       int32
	xwordB      int32
	xkeyB       int32
	// the block's MopWide, which renumber rewrites in place and finish
	// appends to the history's, at wideB
	wide  []int64
	wideB int32
}

// parallelRead holds the state of one parallel read.
type parallelRead struct {
	name   string
	json   bool
	bom    bool
	noFast bool
	hooks  []ValueDecoder

	failed atomic.Bool

	// Merge state: touched by the block being merged only (turn order).
	gb       *model.Builder
	gi       *decoder // the global interning caches (no lexer)
	ops      []model.Op
	indices  model.Runs
	lines    model.Runs
	times    model.Times
	extraPos []int32
	n        int64
	size     int64
	mops     model.Store[model.Mop]
	polls    model.Store[model.KeyPoll]
	reads    model.Store[model.Read]
	elems    model.Store[model.MsgID]
	xrecs    model.Store[model.ExtRec]
	xwords   model.Store[int64]
	xkeys    model.Store[model.KeyID]
	extSpans []model.Span
	extras   []model.OpExtra
	// wide holds each merged block's MopWide, in order, for finish; nWide
	// counts their entries
	wide    [][]int64
	nWide   int64
	pending map[int32]int64 // process -> global position of its open invocation
	// warned marks the warnings given once that an earlier block gave
	warned [onceKinds]bool
	drop   []int64 // invocations whose micro-ops their completion carries
	// placing counts the merged blocks whose ops, extras and spans are
	// still being copied into ops, extras and extSpans (part.place):
	// merge waits for them before it moves those slices.
	placing sync.WaitGroup
}

// workers is the number of blocks decoded at once for opts: one per core
// unless Options.Workers says otherwise.
func workers(opts Options) int {
	if opts.Workers > 0 {
		return opts.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// readFileParallel reads the plain regular file f in parallel when it is
// large enough and there is more than one core; ok is false when it must be
// read sequentially, and then f is back at its start.
func readFileParallel(f *os.File, name string, opts Options) (h *model.History, ok bool, err error) {
	fi, err := f.Stat()
	if err != nil || !parallelFile(fi, opts) {
		return nil, false, nil
	}
	h, err = readParallel(f, name, fi.Size(), opts, workers(opts), blockSize(fi.Size()))
	if err == errSequential {
		_, err = f.Seek(0, io.SeekStart)
		return nil, false, err
	}
	if err == nil && opts.Tee != nil {
		opts.Tee.Done = true
	}
	return h, err == nil, err
}

// parallelFile reports whether a file described by fi is large enough to
// be read in parallel under opts, and there is more than one core.
func parallelFile(fi os.FileInfo, opts Options) bool {
	return fi.Mode().IsRegular() && fi.Size() >= parallelMin && workers(opts) >= 2 &&
		(opts.MaxBytes <= 0 || fi.Size() <= opts.MaxBytes) // else the sequential read reports it
}

// ReadsInParallel reports whether ReadFile would read the history at path
// in parallel (a plain regular file, or a store directory's, of 8 MiB or
// more, on more than one core), unless its content makes it fall back to
// a sequential read (a form spread over lines, a top-level vector, an
// error). It reads the file's first bytes to tell a compressed one.
func ReadsInParallel(path string, opts Options) bool {
	file, ok := StoreFile(path)
	if !ok || path == "-" {
		return false
	}
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !parallelFile(fi, opts) {
		return false
	}
	var head [8]byte
	n, _ := io.ReadFull(f, head[:])
	return !Compressed(head[:n])
}

// blockSize is the block size for a file of size bytes.
//
// The read holds workers+1 buffers of a block and a quarter each, in use
// or waiting: 15 MiB with 4 MiB blocks on two cores, most of the read's
// memory for a file of a few tens of MB (and half of its transient peak),
// so blocks shrink with the file.
func blockSize(size int64) int {
	bs := min(max(int(size/32), blockFloor), blockCap)
	return max(bs, int(size/int64(maxBlocks))+1)
}

// sniff looks at the start of a plain file: whether it is JSON, whether it
// starts with a byte order mark, and whether it can be read in parallel
// (its first op map is not inside a top-level vector or array).
func sniff(head []byte, format Format) (json, bom, ok bool) {
	if bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}) {
		head, bom = head[3:], true
	}
	l := newLexer(bytes.NewReader(head))
	switch format {
	case FormatJSON:
		json = true
	case FormatEDN:
	default:
		json = l.looksJSON()
	}
	// the first byte that is not blank or an EDN comment
	i := 0
	for i < len(head) {
		c := head[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' && !json:
			i++
		case c == ';' && !json:
			for i < len(head) && head[i] != '\n' && head[i] != '\r' {
				i++
			}
		default:
			return json, bom, c != '[' && c != '('
		}
	}
	return json, bom, false
}

// readParallel reads a plain history of size bytes from r (at its start)
// with the given number of workers. It returns errSequential when the file
// must be read sequentially instead (r is then at an unknown position).
func readParallel(r io.Reader, name string, size int64, opts Options, workers, bs int) (*model.History, error) {
	head := make([]byte, min(int64(4096), size))
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, errSequential
	}
	json, bom, ok := sniff(head, opts.Format)
	if !ok || Compressed(head) {
		return nil, errSequential
	}
	pr := &parallelRead{name: name, json: json, bom: bom, gb: model.NewBuilder(name),
		size: size, pending: map[int32]int64{}, noFast: opts.noFast, hooks: opts.Decoders}
	pr.gi = newDecoder(&lexer{}, pr.gb, name)

	blocks := make(chan *block, workers)
	// a buffer for each worker's block and one the cutter fills: one more
	// (a block cut ahead) saved no time and held 2 to 5 MiB more at the
	// peak (1M rw-register and list-append txns, bench/ab.sh, 2026-12-07)
	pool := make(chan []byte, workers+1)
	for range workers + 1 {
		pool <- nil
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(blocks)
		in := io.MultiReader(bytes.NewReader(head), r)
		if opts.Tee != nil {
			in = io.TeeReader(in, opts.Tee.W)
		}
		pr.cut(in, bs, pool, blocks)
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r room // reused from block to block
			for b := range blocks {
				r = pr.work(b, pool, r)
			}
		}()
	}
	wg.Wait()
	if pr.failed.Load() {
		return nil, errSequential
	}
	return pr.finish(), nil
}

// maxBlockLine is the most a block grows to hold one line whole: a file
// with a longer line is read sequentially. Op lines are far shorter (a poll of 500,000
// messages is about 8 MB).
const maxBlockLine = 16 << 20

// cut reads r into blocks of whole lines of about bs bytes and sends them
// in order.
func (pr *parallelRead) cut(r io.Reader, bs int, pool chan []byte, blocks chan<- *block) {
	var carry []byte
	off, line := int64(0), int64(1)
	prev := make(chan struct{})
	close(prev)
	for seq := 0; !pr.failed.Load(); seq++ {
		// A block is about bs bytes: what was left of the last line of the
		// block before, then new input. The buffer has room for a long
		// leftover line, so that buffers are reused.
		buf := <-pool
		if cap(buf) < bs+len(carry) {
			buf = make([]byte, bs+max(bs/4, len(carry)))
		}
		buf = buf[:max(bs, len(carry)+bs/4)]
		n := copy(buf, carry)
		eof := false
		for {
			k, err := io.ReadFull(r, buf[n:])
			n += k
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					pr.failed.Store(true) // the sequential read reports it
					return
				}
				eof = true
				break
			}
			if bytes.IndexByte(buf[n-k:n], '\n') >= 0 || n-k == 0 && bytes.IndexByte(buf[:n], '\n') >= 0 {
				break
			}
			// a line longer than the buffer: grow it, unless the file
			// breaks its lines with a lone '\r' or ends in NUL bytes (read
			// sequentially, which holds neither in memory: a CR-only file
			// would be one block)
			if bytes.IndexByte(buf[n-k:n], '\r') >= 0 || bytes.IndexByte(buf[n-k:n], 0) >= 0 {
				pr.failed.Store(true)
				return
			}
			// nor when the line is past maxBlockLine: a block must hold its
			// lines whole, and a hostile line of 256 MB of blanks took
			// 650 MB here; the sequential read keeps at most a few MB of a
			// line that is not an op's, and an op's bytes as it reads them
			if len(buf) >= maxBlockLine {
				pr.failed.Store(true)
				return
			}
			nb := make([]byte, min(2*len(buf), maxBlockLine))
			copy(nb, buf[:n])
			buf = nb
		}
		end := n
		if !eof {
			end = bytes.LastIndexByte(buf[:n], '\n') + 1
		}
		carry = append(carry[:0], buf[end:n]...)
		b := &block{seq: seq, buf: buf, data: buf[:end], off: off, line: line, last: eof,
			prev: prev, done: make(chan struct{})}
		b.breaks = lineBreaks(b.data)
		off += int64(end)
		line += b.breaks
		prev = b.done
		blocks <- b
		if eof {
			return
		}
	}
}

// lineBreaks counts the line breaks in data as the lexer does (lexer.newline):
// each '\n', and each '\r' not followed by '\n'.
func lineBreaks(data []byte) int64 {
	n := bytes.Count(data, []byte{'\n'})
	if bytes.IndexByte(data, '\r') >= 0 {
		n += bytes.Count(data, []byte{'\r'}) - bytes.Count(data, []byte("\r\n"))
	}
	return int64(n)
}

// room is a worker's scratch space, reused from block to block: room for
// a block's ops and their extras, which place copies into the history.
// (Growing a block's extras afresh by appending cost about 0.2 CPU-seconds
// on the 1M-poll abort history of bench/bench.sh, a third of whose ops
// carry an :error.)
type room struct {
	ops      []model.Op
	extras   []model.OpExtra
	extraPos []int32
	// the ops' column of workload records (model.History.ExtSpans), which
	// grew by doubling in every block, in fresh memory
	spans []model.Span
	// the decoder's pending invocations (empty between blocks) and its
	// buffers for their micro-ops: a fresh set per block grew its table of
	// processes again in every block (0.6 CPU-seconds of 5M list-append
	// txns, whose clients crash and come back as ever higher processes)
	pending  pendingSet
	freeMops [][]model.Mop
}

// work decodes block b, waits for its turn, merges it, places and
// renumbers it. r is room for the block; it returns room for the next.
func (pr *parallelRead) work(b *block, pool chan<- []byte, r room) room {
	var p *part
	if !pr.failed.Load() {
		p = pr.decode(b, &r)
	}
	pool <- b.buf
	<-b.prev
	if p == nil || pr.failed.Load() {
		pr.failed.Store(true)
		close(b.done)
		return r
	}
	ok := pr.merge(p)
	close(b.done)
	if !ok {
		pr.failed.Store(true)
		return r
	}
	p.place()
	pr.placing.Done()
	p.renumber()
	return room{ops: p.ops[:0], extras: p.extras[:0], extraPos: p.extraPos[:0], spans: p.spans[:0],
		pending: r.pending, freeMops: r.freeMops}
}

// decode reads one block into a history of its own, with the worker's
// room r, whose pending set and micro-op buffers it takes and gives back;
// nil when the file must be read sequentially.
func (pr *parallelRead) decode(b *block, r *room) *part {
	l := &lexer{buf: b.data, end: len(b.data), eof: true, base: b.off, line: b.line, lineStart: b.off,
		opStart: -1, capStart: -1, json: pr.json}
	if b.seq == 0 && pr.bom {
		l.pos, l.lineStart = 3, 3
	}
	if b.last {
		l.trackNUL(0) // the NUL bytes that end the file, if any (lexer.nulTail)
	}
	lb := model.NewBuilder(pr.name)
	lb.ReuseExtras(r.extras, r.extraPos)
	lb.ReuseExtSpans(r.spans)
	d := newDecoder(l, lb, pr.name)
	d.pending, d.freeMops = r.pending, r.freeMops // empty between blocks (settleAll)
	d.noFast = pr.noFast
	d.setHooks(pr.hooks)
	d.part = &partOut{last: b.last}
	d.ops.hint = int(b.breaks) + 1
	d.times.Grow(d.ops.hint)
	if cap(r.ops) >= d.ops.hint {
		d.ops.cur = r.ops[:0]
	}
	if err := d.run(); err != nil {
		r.pending, r.freeMops = pendingSet{}, nil // left unsettled: not for another block
		return nil
	}
	for _, p := range d.pending.Processes() {
		pi, _ := d.pending.Get(p)
		d.part.pending = append(d.part.pending, pendingAt{p, pi.pos})
	}
	d.settleAll() // kept for now; merge drops those a later block completes
	r.pending, r.freeMops = d.pending, d.freeMops
	h := lb.History()
	h.Ops, h.Indices, h.Lines, h.Times = d.ops.cur, d.indices, d.lines, d.times // (merge copies the ops: a hint far too high wastes nothing)
	if len(d.ops.full) > 0 {
		h.Ops = d.ops.join()
	}
	h.MopStore.Trim()
	h.PollStore.Trim()
	h.ReadStore.Trim()
	h.ElemStore.Trim()
	h.ExtRecs.Trim()
	h.ExtWords.Trim()
	h.ExtKeys.Trim()
	return &part{b: lb, h: h, ops: h.Ops, out: d.part, end: b.off + int64(len(b.data))}
}

// merge interns block p's keys and messages into the history being built,
// appends its ops, adopts its stores and settles the invocations left
// open by earlier blocks. It runs in block order. It reports false when the
// stores cannot adopt the block's.
func (pr *parallelRead) merge(p *part) bool {
	h := p.h
	p.keyMap = make([]model.KeyID, len(h.Keys))
	for k, a := range h.Keys {
		if p.b.KeyWeak(model.KeyID(k)) {
			p.keyMap[k] = pr.gb.KeyText(a.Text)
		} else {
			p.keyMap[k] = pr.gb.Key(a)
		}
	}
	p.msgMap = make([]model.MsgID, len(h.Msgs))
	gi := pr.gi
	for m, mm := range h.Msgs {
		k := p.keyMap[mm.Key]
		v := h.Values[mm.Val]
		if v.Kind == model.KInt {
			a := satom{kind: model.KInt, i: v.Int}
			p.msgMap[m] = gi.msg(k, &a)
			continue
		}
		gi.arena = append(gi.arena[:0], v.Text...)
		a := satom{kind: v.Kind, n: uint32(len(v.Text))}
		p.msgMap[m] = gi.msg(k, &a)
	}
	// the messages so far, extrapolated to the whole file: the table
	// grows to that once, not by doubling (Builder.ExpectMsgs)
	pr.gb.ExpectMsgs(estimate(pr.gb.NumMsgs(), true, pr.size, p.end))
	p.mopChunks, p.pollChunks = h.MopStore.Chunks(), h.PollStore.Chunks()
	p.readChunks, p.elemChunks = h.ReadStore.Chunks(), h.ElemStore.Chunks()
	p.xrecChunks, p.xkeyChunks = h.ExtRecs.Chunks(), h.ExtKeys.Chunks()
	var ok [7]bool
	var xrecB int32
	p.mopBase, ok[0] = pr.mops.Adopt(&h.MopStore)
	p.pollB, ok[1] = pr.polls.Adopt(&h.PollStore)
	p.readB, ok[2] = pr.reads.Adopt(&h.ReadStore)
	p.elemB, ok[3] = pr.elems.Adopt(&h.ElemStore)
	xrecB, ok[4] = pr.xrecs.Adopt(&h.ExtRecs)
	p.xwordB, ok[5] = pr.xwords.Adopt(&h.ExtWords)
	p.xkeyB, ok[6] = pr.xkeys.Adopt(&h.ExtKeys)
	if ok != [7]bool{true, true, true, true, true, true, true} || pr.nWide+int64(len(h.MopWide)) > math.MaxInt32 {
		return false
	}
	p.wide, p.wideB = h.MopWide, int32(pr.nWide)
	pr.wide = append(pr.wide, h.MopWide)
	pr.nWide += int64(len(h.MopWide))
	// room for the ops, their extras and their spans, which place fills
	// once the block's turn is over
	base := pr.n
	p.base, p.xrecB = base, xrecB
	p.extras, p.extraPos, p.spans = h.Extras, h.ExtraPos, h.ExtSpans
	nspans := 0
	if len(h.ExtSpans) > 0 {
		nspans = int(base) - len(pr.extSpans) + len(h.ExtSpans)
	}
	if len(pr.ops)+len(p.ops) > cap(pr.ops) || len(pr.extras)+len(h.Extras) > cap(pr.extras) ||
		len(pr.extSpans)+nspans > cap(pr.extSpans) {
		pr.placing.Wait() // the slices move: every block before must be in place
		pr.ops = reserve(pr.ops, len(p.ops), pr.size, p.end)
		pr.extras = reserve(pr.extras, len(h.Extras), pr.size, p.end)
		pr.extraPos = reserve(pr.extraPos, len(h.Extras), pr.size, p.end)
		pr.extSpans = reserve(pr.extSpans, nspans, pr.size, p.end)
	}
	pr.placing.Add(1)
	p.opsDst = extend(&pr.ops, len(p.ops))
	p.extrasDst = extend(&pr.extras, len(h.Extras))
	p.extraPosDst = extend(&pr.extraPos, len(h.Extras))
	p.spansDst = extend(&pr.extSpans, nspans)
	pr.n += int64(len(p.ops))
	pr.indices.Concat(&p.h.Indices)
	pr.lines.Concat(&p.h.Lines)
	if n := p.h.Times.Len(); n > pr.times.Room() {
		pr.times.Grow(estimate(pr.times.Len()+n, pr.times.Len() > 0, pr.size, p.end) - pr.times.Len())
	}
	pr.times.Concat(&p.h.Times)
	// invocations of earlier blocks: the first op of their process here
	// decides (decoder.settle)
	if len(pr.pending) > 0 {
		for i := range p.ops {
			op := &p.ops[i]
			pos, open := pr.pending[op.Process]
			if !open || op.Process == model.NoProcess {
				continue
			}
			if op.Type != model.Invoke && !op.Mops.Empty() {
				pr.drop = append(pr.drop, pos)
			}
			delete(pr.pending, op.Process)
			if len(pr.pending) == 0 {
				break
			}
		}
	}
	for _, pa := range p.out.pending {
		pr.pending[pa.process] = base + pa.pos
	}
	for _, w := range p.out.warns {
		if w.once != 0 {
			if pr.warned[w.once] {
				continue
			}
			pr.warned[w.once] = true
		}
		args := slices.Clone(w.args)
		args[len(args)-1] = args[len(args)-1].(int64) + base
		pr.gb.Warn(w.format, args...)
	}
	if h.Truncated {
		pr.gb.SetTruncated()
	}
	return true
}

// reserve returns s with room for n more elements. When it must grow, it
// makes room for the whole file's worth (size bytes) at the elements per
// byte of the blocks merged so far (the first end bytes), with a margin:
// the ops, their extras and their workload records are not held twice, as
// growing by doubling would, and a part of the file denser than its start
// only costs another estimate.
func reserve[E any](s []E, n int, size, end int64) []E {
	need := len(s) + n
	if need <= cap(s) {
		return s
	}
	out := make([]E, len(s), estimate(need, len(s) > 0, size, end))
	copy(out, s)
	return out
}

// estimate is how many elements the whole file (size bytes) holds, need
// of them in its first end bytes, with a margin of 4 % on a first estimate
// and 2 % on a later one; at least need.
func estimate(need int, later bool, size, end int64) int {
	margin := 1.04
	if later {
		margin = 1.02
	}
	return max(need, int(float64(need)*float64(size)/float64(max(1, end))*margin)+1024)
}

// extend lengthens *s by n elements, within its capacity, and returns
// them.
func extend[E any](s *[]E, n int) []E {
	l := len(*s)
	*s = (*s)[:l+n]
	return (*s)[l : l+n : l+n]
}

// place copies block p's ops, extras and workload spans into the room
// merge made for them in the history, in the history's numbering. Blocks
// do this in parallel, after their turn: each writes only its own room,
// and merge waits for them before it moves the slices (parallelRead.placing).
func (p *part) place() {
	for i := range p.ops {
		op := &p.ops[i]
		op.Mops = op.Mops.Rebase(p.mopBase)
	}
	copy(p.opsDst, p.ops)
	copy(p.extrasDst, p.extras)
	for i, pos := range p.extraPos {
		p.extraPosDst[i] = pos + int32(p.base)
	}
	if len(p.spansDst) > 0 {
		// the column beside the ops: none for the ops before the block
		// that have none
		gap := len(p.spansDst) - len(p.spans)
		clear(p.spansDst[:gap])
		for i, sp := range p.spans {
			p.spansDst[gap+i] = sp.Rebase(p.xrecB)
		}
	}
	p.opsDst, p.extrasDst, p.extraPosDst, p.spansDst = nil, nil, nil, nil
}

// renumber rewrites the ids and spans in block p's stores, now adopted by
// the history, into the history's numbering. Blocks do this in parallel:
// each touches only its own chunks.
func (p *part) renumber() {
	km, mm := p.keyMap, p.msgMap
	for _, c := range p.mopChunks {
		for i := range c {
			m := &c[i]
			switch m.Kind {
			case model.MopSend:
				m.Key, m.Msg = km[m.Key], mm[m.Msg]
				m.Rebase(p.wide, 0, p.wideB)
			case model.MopAppend, model.MopWrite:
				m.Key, m.Msg = km[m.Key], mm[m.Msg]
			case model.MopRead:
				m.Key = km[m.Key]
				if m.Msg != model.NoMsg {
					m.Msg = mm[m.Msg]
				}
			case model.MopReadList:
				m.Key = km[m.Key]
				m.Rebase(p.wide, p.elemB, p.wideB)
			case model.MopPoll:
				m.Rebase(p.wide, p.pollB, p.wideB)
			}
		}
	}
	for _, c := range p.pollChunks {
		for i := range c {
			kp := &c[i]
			kp.Key = km[kp.Key]
			kp.Reads = kp.Reads.Rebase(p.readB)
		}
	}
	for _, c := range p.readChunks {
		for i := range c {
			c[i].Msg = mm[c[i].Msg]
		}
	}
	for _, c := range p.elemChunks {
		for i := range c {
			c[i] = mm[c[i]]
		}
	}
	for _, c := range p.xrecChunks {
		for i := range c {
			r := &c[i]
			r.Words = r.Words.Rebase(p.xwordB)
			r.Keys = r.Keys.Rebase(p.xkeyB)
		}
	}
	for _, c := range p.xkeyChunks {
		for i := range c {
			c[i] = km[c[i]]
		}
	}
	for i := range p.extras {
		e := p.extras[i].More
		if e == nil {
			continue
		}
		for j, k := range e.Keys {
			e.Keys[j] = km[k]
		}
		for j, k := range e.Rebalance {
			e.Rebalance[j] = km[k]
		}
	}
}

// finish assembles the history once every block is merged.
func (pr *parallelRead) finish() *model.History {
	for _, pos := range pr.drop {
		pr.ops[pos].Mops = model.MopRef{}
	}
	pr.gb.SetExtOwners(hookNames(pr.hooks))
	h := pr.gb.History()
	h.Ops, h.Indices, h.Lines, h.Times = pr.ops, pr.indices, pr.lines, pr.times
	h.MopStore, h.PollStore, h.ReadStore, h.ElemStore = pr.mops, pr.polls, pr.reads, pr.elems
	h.ExtSpans, h.ExtRecs, h.ExtWords, h.ExtKeys = pr.extSpans, pr.xrecs, pr.xwords, pr.xkeys
	h.Extras, h.ExtraPos = pr.extras, pr.extraPos
	h.MopWide = slices.Concat(pr.wide...)
	h.CompactElems()
	return h
}

// testBlock, when set (by the tests, from HINDSIGHT_TEST_BLOCK), makes Read
// read any seekable input in parallel in blocks of about that many bytes,
// whatever its size, so that every test of the package runs through the
// parallel reader too.
var testBlock int

// parallelReads counts the reads readForTest made in parallel.
var parallelReads atomic.Int64

// readForTest is Read's parallel path under testBlock.
func readForTest(r io.Reader, name string, opts Options) (*model.History, bool, error) {
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		return nil, false, nil
	}
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, false, nil
	}
	end, err := rs.Seek(0, io.SeekEnd)
	if err != nil || end-start < 1 {
		_, err = rs.Seek(start, io.SeekStart)
		return nil, false, err
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return nil, false, err
	}
	h, err := readParallel(rs, name, end-start, opts, max(2, workers(opts)), testBlock)
	if err == nil {
		parallelReads.Add(1)
	}
	if err == errSequential {
		_, err = rs.Seek(start, io.SeekStart)
		return nil, false, err
	}
	return h, err == nil, err
}

// ParallelText reports whether ReadTextParallel would try a text of about
// size bytes under opts: one of 8 MiB or more, within opts.MaxBytes, on
// more than one core.
func ParallelText(size int64, opts Options) bool {
	return size >= parallelMin && workers(opts) >= 2 && (opts.MaxBytes <= 0 || size <= opts.MaxBytes)
}

// ReadTextParallel reads the plain text r, about size bytes (a compressed
// file's decompressed text, sized by TextSize), in parallel, as ReadFile
// reads a plain file, when ParallelText says so. ok is false when the text
// must be read sequentially instead, from its start (r is then partly
// consumed): a text the parallel reader leaves to the sequential one (a
// form over several lines, an error: the sequential read says where), a
// read of r that fails, a text past opts.MaxBytes. opts.Tee is not used.
func ReadTextParallel(r io.Reader, name string, size int64, opts Options) (h *model.History, ok bool) {
	if !ParallelText(size, opts) {
		return nil, false
	}
	o := opts
	o.Tee = nil
	h, err := readParallel(limit(r, opts.MaxBytes), name, size, o, workers(opts), blockSize(size))
	return h, err == nil
}
