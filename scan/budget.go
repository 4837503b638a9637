package scan

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hindsight-dev/hindsight/check"
)

// budget is the memory budget of a scan (Options.MemoryBudget): histories
// hold leases on it, taken at admission for their first estimate and grown
// as their text is metered while it is read (see the package doc,
// "Admission").
//
// Admissions are served first come, first served. A lease that must grow
// is served before any admission: it gets what it asks for as soon as it
// fits. It waits for it only while some other lease is not itself waiting
// to grow (that one will finish or grow and fail, either way releasing);
// when every lease alive is waiting to grow, the one that finds this
// fails, gives everything back and runs again alone (errRerun). So the
// leases never hold more than the budget, and never all wait on each
// other.
type budget struct {
	size int64

	mu      sync.Mutex
	held    int64 // the sum of the leases
	peak    int64 // the most held at once
	leases  int   // leases alive
	growers int   // leases waiting to grow
	next    int64 // admission tickets: the next to give
	serving int64 // and the one served now
	// canceled are tickets given up before their turn.
	canceled map[int64]bool
	changed  chan struct{}
}

// errRerun is the meter's error for a history that could not grow its
// lease while every other was waiting too: it gives back its lease and is
// read again alone.
var errRerun = errors.New("memory budget: read again alone")

func newBudget(size int64) *budget {
	return &budget{size: size, changed: make(chan struct{}), canceled: map[int64]bool{}}
}

// notify wakes every waiter; b.mu is held.
func (b *budget) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// wait releases b.mu until the budget changes or ctx ends, then takes it
// again.
func (b *budget) wait(ctx context.Context) error {
	ch := b.changed
	b.mu.Unlock()
	defer b.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lease is what one history holds of the budget.
type lease struct {
	b    *budget
	held int64
}

// acquire admits a history for n bytes (at most the budget), in turn.
func (b *budget) acquire(ctx context.Context, n int64) (*lease, error) {
	n = min(n, b.size)
	b.mu.Lock()
	defer b.mu.Unlock()
	ticket := b.next
	b.next++
	for b.serving != ticket || b.growers > 0 || b.held+n > b.size {
		if err := b.wait(ctx); err != nil {
			if b.serving == ticket {
				b.advance()
			} else {
				b.canceled[ticket] = true // passed over when its turn comes
			}
			b.notify()
			return nil, err
		}
	}
	b.advance()
	b.take(n)
	b.leases++
	b.notify()
	return &lease{b: b, held: n}, nil
}

// advance serves the next ticket, passing over those canceled; b.mu is
// held.
func (b *budget) advance() {
	b.serving++
	for b.canceled[b.serving] {
		delete(b.canceled, b.serving)
		b.serving++
	}
}

// take adds n to what is held; b.mu is held.
func (b *budget) take(n int64) {
	b.held += n
	b.peak = max(b.peak, b.held)
}

// Peak returns the most the leases held at once.
func (b *budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// grow raises the lease to n bytes (n <= the budget), waiting if others
// can still release; errRerun when every other lease is waiting too.
func (l *lease) grow(ctx context.Context, n int64) error {
	b := l.b
	b.mu.Lock()
	defer b.mu.Unlock()
	waiting := false
	defer func() {
		if waiting {
			b.growers--
			b.notify()
		}
	}()
	for {
		if b.held-l.held+n <= b.size {
			b.take(n - l.held)
			l.held = n
			return nil
		}
		others := b.growers
		if waiting {
			others--
		}
		if others+1 >= b.leases || l.held >= b.size {
			return errRerun // nobody else can release: give way
		}
		if !waiting {
			waiting = true
			b.growers++
		}
		if err := b.wait(ctx); err != nil {
			return err
		}
	}
}

// shrink lowers the lease to n bytes.
func (l *lease) shrink(n int64) {
	if n >= l.held {
		return
	}
	b := l.b
	b.mu.Lock()
	b.held -= l.held - n
	l.held = n
	b.notify()
	b.mu.Unlock()
}

// release gives the lease back; a released lease holds nothing.
func (l *lease) release() {
	if l == nil || l.b == nil {
		return
	}
	b := l.b
	b.mu.Lock()
	b.held -= l.held
	b.leases--
	b.notify()
	b.mu.Unlock()
	l.held, l.b = 0, nil
}

// meter is check.Options.Meter for the history at path holding l: its
// text times factor, plus extra bytes held besides (an archive member's),
// must fit its lease, grown as needed; past the whole budget, it cannot be
// judged within it (a *check.MemoryCapError).
func (l *lease) meter(ctx context.Context, path string, factor, extra int64) func(int64) error {
	b := l.b
	return func(text int64) error {
		need := memoryCost(text, factor, 1<<62) + extra
		if need <= l.held {
			return nil
		}
		if need > b.size {
			return &check.MemoryCapError{Path: path, Cap: b.size, Flag: "--memory",
				Why: fmt.Sprintf("its text passed %s, which takes about %s to check; stopped reading", check.FormatBytes(text), check.FormatBytes(need))}
		}
		// Grow with room to spare, so a growing history does not come
		// back for every chunk.
		return l.grow(ctx, min(b.size, max(need, need+need/4)))
	}
}
