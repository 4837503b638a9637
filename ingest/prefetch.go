package ingest

import (
	"io"
	"sync"
)

// prefetchSize is the size of each decompressed chunk handed to the lexer.
const prefetchSize = 256 << 10

type chunk struct {
	buf []byte
	err error
}

// prefetch reads its source in a goroutine of its own, one chunk ahead of
// its reader, so that decompression runs on the second core while the
// parser works on the first. Errors of the source (io.EOF,
// io.ErrUnexpectedEOF of a cut stream, corruption) reach the reader
// unchanged, after the data that came before them.
type prefetch struct {
	full    chan chunk
	free    chan []byte
	done    chan struct{}
	wg      sync.WaitGroup
	release func()

	cur []byte
	off int
	err error
}

func newPrefetch(src io.Reader, release func()) *prefetch {
	p := &prefetch{full: make(chan chunk, 1), free: make(chan []byte, 2), done: make(chan struct{}), release: release}
	p.free <- make([]byte, prefetchSize)
	p.free <- make([]byte, prefetchSize)
	p.wg.Add(1)
	go p.fill(src)
	return p
}

func (p *prefetch) fill(src io.Reader) {
	defer p.wg.Done()
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		case <-p.done:
			return
		}
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = src.Read(buf[n:])
			n += k
		}
		select {
		case p.full <- chunk{buf[:n], err}:
		case <-p.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements io.Reader.
func (p *prefetch) Read(b []byte) (int, error) {
	for p.off == len(p.cur) {
		if p.err != nil {
			return 0, p.err
		}
		if p.cur != nil {
			p.free <- p.cur[:cap(p.cur)]
			p.cur = nil
		}
		c := <-p.full
		p.cur, p.off, p.err = c.buf, 0, c.err
	}
	n := copy(b, p.cur[p.off:])
	p.off += n
	return n, nil
}

// stop ends the goroutine, waiting for a read of the source it may be in,
// so the source is never touched after stop returns, then releases the
// decompressor.
func (p *prefetch) stop() {
	close(p.done)
	p.wg.Wait()
	if p.release != nil {
		p.release()
	}
}
