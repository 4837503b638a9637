// Package memwatch is the watchdog behind the command's memory cap and the
// scan's memory ceiling: it reads the runtime's memory (what the process
// has mapped and not given back) at an interval and reports the first
// reading over a limit.
package memwatch

import (
	"runtime/metrics"
	"time"
)

// Watch reads the memory every interval and calls over, once, with the
// first reading above limit, then stops reading. The returned function
// stops the watchdog and returns once it has stopped (after over returns,
// when it is running).
func Watch(limit int64, every time.Duration, over func(used int64)) (stop func()) {
	stopc, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stopc:
				return
			case <-t.C:
			}
			metrics.Read(samples)
			// all the runtime has mapped, less the heap it gave back
			if used := int64(samples[0].Value.Uint64()) - int64(samples[1].Value.Uint64()); used > limit {
				over(used)
				return
			}
		}
	}()
	return func() {
		close(stopc)
		<-done
	}
}
