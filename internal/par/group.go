package par

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Group runs functions on goroutines of their own and waits for them, as
// sync.WaitGroup does, but a panic on one of them is not the end of the
// process: it is caught there and raised again by Wait, on the waiting
// goroutine, where the command's recover (one history's internal error,
// exit status 5) or a scan's (an error row, and the scan goes on) can
// take it. A goroutine's panic cannot be recovered anywhere else.
//
// The first panic is kept, as a *Panic with the stack it happened on;
// the zero Group is ready to use.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first *Panic
}

// Panic is a panic caught on a Group's goroutine: its value and the stack
// of the goroutine it happened on.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string {
	return fmt.Sprintf("%v\n\n(on a worker goroutine:)\n%s", p.Value, p.Stack)
}

// Go runs f on a goroutine of its own.
func (g *Group) Go(f func()) {
	g.wg.Go(func() {
		defer g.catch()
		f()
	})
}

// catch keeps a panic of the calling goroutine, the first of the group.
func (g *Group) catch() {
	p := recover()
	if p == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.first == nil {
		g.first = &Panic{Value: p, Stack: debug.Stack()}
	}
}

// Wait waits for every function Go started to return, then panics with a
// *Panic if one of them panicked.
func (g *Group) Wait() {
	g.wg.Wait()
	g.mu.Lock()
	first := g.first
	g.mu.Unlock()
	if first != nil {
		panic(first)
	}
}

// Failed reports whether a function of the group has panicked so far: a
// loop that waits on the group's work can stop waiting.
func (g *Group) Failed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.first != nil
}

// guard returns f(), or the zero value when f panics (the panic is kept
// as those of Go's functions are, for Wait) or when a function of g
// panicked before (f is not called).
func guard[T any](g *Group, f func() T) (out T) {
	if g.Failed() {
		return out
	}
	defer g.catch()
	return f()
}
