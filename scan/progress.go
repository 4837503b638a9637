package scan

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress draws one bar on a terminal: histories done of total, bytes
// done of total, the average rate, the ETA, and how many invalid
// histories and bad anomaly instances were found so far. Bytes drive the
// bar, the rate and the ETA, since a history's cost grows with its size.
// A nil *progress draws nothing.
type progress struct {
	p           *mpb.Progress
	bar         *mpb.Bar
	total       atomic.Int64
	done        atomic.Int64
	invalid     atomic.Int64
	bad         atomic.Int64
	errors      atomic.Int64
	cachedCount atomic.Int64

	mu    sync.Mutex
	bytes int64 // the bar's total
}

// newProgress starts drawing on w, or returns nil when w is nil. The
// caller decides whether w is a terminal; the bar redraws itself in place
// regardless.
func newProgress(w io.Writer, histories int, bytes int64) *progress {
	if w == nil {
		return nil
	}
	pr := &progress{bytes: bytes}
	pr.total.Store(int64(histories))
	pr.p = mpb.New(mpb.WithOutput(w), mpb.WithAutoRefresh(), mpb.WithWidth(100))
	// A bar made with no total never completes by itself: stop completes
	// it, not the last archive's bytes while its last members are still
	// checked. Its total, shown and driving the ETA, is set at once and
	// grows with hold.
	pr.bar = pr.p.AddBar(0,
		mpb.PrependDecorators(
			decor.Any(func(decor.Statistics) string {
				return fmt.Sprintf("%d/%d histories", pr.done.Load(), pr.total.Load())
			}, decor.WCSyncSpaceR),
			decor.Counters(decor.SizeB1024(0), "% .1f / % .1f", decor.WCSyncSpace),
		),
		mpb.AppendDecorators(
			decor.AverageSpeed(decor.SizeB1024(0), "% .1f", decor.WCSyncSpace),
			decor.Name(" ETA "),
			decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO), "done"),
			decor.Any(func(decor.Statistics) string {
				s := fmt.Sprintf("  %d invalid, %d bad anomalies", pr.invalid.Load(), pr.bad.Load())
				if e := pr.errors.Load(); e > 0 {
					s += fmt.Sprintf(", %d unreadable", e)
				}
				if c := pr.cachedCount.Load(); c > 0 {
					s += fmt.Sprintf(", %d cached", c)
				}
				return s
			}),
		),
	)
	pr.bar.SetTotal(pr.bytes, false)
	return pr
}

// add records a finished history.
func (pr *progress) add(r *result) {
	if pr == nil {
		return
	}
	pr.done.Add(1)
	switch r.row.Verdict {
	case VerdictInvalid:
		pr.invalid.Add(1)
	case VerdictError:
		pr.errors.Add(1)
	}
	pr.bad.Add(r.bad)
	if r.cached {
		pr.cachedCount.Add(1)
	}
	switch {
	case !r.member:
		pr.bar.IncrInt64(r.row.SizeBytes)
	case r.held > 0:
		pr.bar.IncrInt64(r.held)
	}
}

// hold adds n bytes to do: those of a member the walk read past and set
// aside to check in a second read (hashMember), which its row counts.
func (pr *progress) hold(n int64) {
	if pr == nil {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.bytes += n
	pr.bar.SetTotal(pr.bytes, false)
}

// addTotal counts n more histories to do (found inside an archive).
func (pr *progress) addTotal(n int64) {
	if pr != nil {
		pr.total.Add(n)
	}
}

// read counts n bytes of an archive read (its members' rows count no
// bytes of their own).
func (pr *progress) read(n int64) {
	if pr != nil {
		pr.bar.IncrInt64(n)
	}
}

// stop finishes the bar (complete, or aborted when the scan was
// interrupted) and waits until it is drawn for the last time.
func (pr *progress) stop(aborted bool) {
	if pr == nil {
		return
	}
	if aborted {
		pr.bar.Abort(false)
	} else {
		pr.bar.SetTotal(-1, true)
	}
	pr.p.Wait()
}
