package scan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/memwatch"
)

// The budget bounds what the histories in flight are expected to take, by
// their text; an analysis can still take more than its lease (a history of
// millions of anomaly instances keeps each of them). Options.MemoryCeiling
// is the last guard: a watchdog reads the runtime's memory (what it has
// mapped and not given back) every ceilingInterval, and when the process
// passes the ceiling it stops the scan at once, since a running check
// cannot be stopped any other way: the histories being checked get error
// rows naming the ceiling, which go with every finished row not yet in a
// part to a last part file, and Options.OnCeiling is called (the command
// prints the error and exits 4). Those rows are not cached: a rerun checks
// those histories again.
const ceilingInterval = 5 * time.Millisecond

// watchCeiling starts the watchdog when a ceiling is set; the returned
// function stops it.
func (s *scanner) watchCeiling() func() {
	if s.opts.MemoryCeiling <= 0 || s.opts.OnCeiling == nil {
		return func() {}
	}
	return memwatch.Watch(s.opts.MemoryCeiling, ceilingInterval, func(used int64) {
		s.opts.OnCeiling(s.overCeiling(used))
	})
}

// overCeiling records error rows for the histories being checked, flushes
// every finished row to a part file, and returns the scan's error.
func (s *scanner) overCeiling(used int64) error {
	fl := s.inflight.snapshot()
	paths := slices.Sorted(maps.Keys(fl))
	why := fmt.Sprintf("the scan's memory reached %s while it was being checked; the scan stopped", check.FormatBytes(used))
	for _, p := range paths {
		f := fl[p]
		row := errorRow(p, f.size, f.sha, &check.MemoryCapError{Path: p, Cap: s.opts.MemoryCeiling, Flag: "the scan's memory ceiling", Why: why})
		row.Archive = f.archive
		s.parts.add(&result{row: row, ceiling: true})
	}
	parts, err := s.parts.finish(true)
	msg := fmt.Sprintf("scan stopped: its memory reached %s, over the ceiling of %s, while checking %s", check.FormatBytes(used),
		check.FormatBytes(s.opts.MemoryCeiling), strings.Join(paths, ", "))
	if err != nil {
		return fmt.Errorf("%s; the finished rows could not all be written: %w", msg, err)
	}
	return fmt.Errorf("%s; the finished rows are in %d part files in %s (run again with a smaller --memory or -j)", msg, len(parts), s.opts.OutDir)
}

// flight is a history being checked.
type flight struct {
	size         int64
	sha, archive string
}

// flights are the histories being checked, by path; a nil *flights keeps
// none.
type flights struct {
	mu sync.Mutex
	m  map[string]flight
}

func (f *flights) add(path string, x flight) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.m[path] = x
	f.mu.Unlock()
}

func (f *flights) remove(path string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	delete(f.m, path)
	f.mu.Unlock()
}

func (f *flights) snapshot() map[string]flight {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.m)
}
