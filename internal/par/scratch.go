package par

import "sync"

// Scratches collects what each worker of Each, EachRange or Pieces keeps
// of its own (counts, lists of findings), for merging once the pass is
// done: a worker's start function calls New for its scratch, and All
// lists them afterwards, in the order the workers started (which depends
// on the scheduler: a merge that must not depend on it orders by content).
type Scratches[S any] struct {
	mu  sync.Mutex
	all []S
}

// New returns s, having kept it for All. It may be called from any
// goroutine.
func (x *Scratches[S]) New(s S) S {
	x.mu.Lock()
	x.all = append(x.all, s)
	x.mu.Unlock()
	return s
}

// All returns every scratch New was given.
func (x *Scratches[S]) All() []S { return x.all }
