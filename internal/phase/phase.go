// Package phase prints, for performance work, how long each phase of a
// check takes. It is off unless the environment variable HINDSIGHT_PHASES
// is set when the process starts:
//
//	HINDSIGHT_PHASES=time       wall and CPU time of each phase
//	HINDSIGHT_PHASES=heap       also the live heap at the end of each phase,
//	                            after a forced collection (which slows the
//	                            run and changes its peak memory)
//	HINDSIGHT_PHASES=heap@NAME  as heap, and writes a heap profile
//	                            (go tool pprof reads it) at the end of
//	                            phase NAME to hindsight-NAME.heap in the
//	                            temporary folder
//
// Each Mark prints one line on standard error: the phase's name, the
// wall time since the process started, and the wall and CPU time since
// the previous Mark (CPU of every thread: on two cores a phase that keeps
// both busy shows about twice its wall time). bench/README.md shows how
// the project reads them. Off, a Mark costs one branch.
package phase

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/hindsight-dev/hindsight/internal/cputime"
)

// config is what HINDSIGHT_PHASES asks for.
type config struct {
	on, heap bool
	profile  string // the phase whose end writes a heap profile
}

// parse reads the value of HINDSIGHT_PHASES.
func parse(v string) config {
	switch {
	case v == "":
		return config{}
	case v == "heap":
		return config{on: true, heap: true}
	case strings.HasPrefix(v, "heap@"):
		return config{on: true, heap: true, profile: strings.TrimPrefix(v, "heap@")}
	}
	return config{on: true}
}

var (
	cfg   = parse(os.Getenv("HINDSIGHT_PHASES"))
	start = time.Now()

	mu      sync.Mutex
	out     io.Writer = os.Stderr
	lastAt  time.Duration
	lastCPU time.Duration
)

// On reports whether phases are being timed.
func On() bool { return cfg.on }

// Mark ends the phase called name (and begins the next): with
// HINDSIGHT_PHASES set it prints the phase's times, and the live heap if
// asked; otherwise it does nothing. Safe from any goroutine, though a
// phase is only meaningful on the goroutine that runs the check.
func Mark(name string) {
	if !cfg.on {
		return
	}
	mark(name)
}

func mark(name string) {
	mu.Lock()
	defer mu.Unlock()
	at, cpu := time.Since(start), cputime.Used()
	line := fmt.Sprintf("phase %-24s at %7.1f ms  wall +%7.1f ms  cpu +%7.1f ms", name, ms(at), ms(at-lastAt), ms(cpu-lastCPU))
	if cfg.heap {
		runtime.GC()
		var st runtime.MemStats
		runtime.ReadMemStats(&st)
		line += fmt.Sprintf("  live heap %7.1f MB", float64(st.HeapAlloc)/1e6)
		if name == cfg.profile {
			line += "  profile " + writeProfile(name)
		}
	}
	fmt.Fprintln(out, line)
	// the collection and the printing are not the next phase's
	lastAt, lastCPU = time.Since(start), cputime.Used()
}

// writeProfile writes the heap profile for phase name and returns where,
// or why not.
func writeProfile(name string) string {
	path := filepath.Join(os.TempDir(), "hindsight-"+name+".heap")
	f, err := os.Create(path)
	if err != nil {
		return err.Error()
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err.Error()
	}
	return path
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
