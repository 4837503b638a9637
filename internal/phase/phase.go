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
//	HINDSIGHT_PHASES=rss        also the process's resident memory at the
//	                            end of each phase and its peak so far
//	                            (VmRSS and VmHWM of /proc/self/status,
//	                            Linux only), with no collection: where a
//	                            run's peak RSS is reached
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
	on, heap, rss bool
	profile       string // the phase whose end writes a heap profile
}

// parse reads the value of HINDSIGHT_PHASES.
func parse(v string) config {
	switch {
	case v == "":
		return config{}
	case v == "heap":
		return config{on: true, heap: true}
	case v == "rss":
		return config{on: true, rss: true}
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

// Note prints one line of context with HINDSIGHT_PHASES set, such as a
// choice the run made that its times depend on ("note: " and the line);
// otherwise it does nothing.
func Note(line string) {
	if !cfg.on {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintln(out, "note: "+line)
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
	if cfg.rss {
		line += "  " + rss(procStatus)
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

// procStatus is where rss reads the process's memory figures.
var procStatus = "/proc/self/status"

// rss returns the resident memory now and at its peak so far, in MiB, as
// the file at path (a /proc/PID/status) gives them, or why it cannot.
func rss(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "rss unknown (" + err.Error() + ")"
	}
	kib := func(field string) string {
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, field+":"); ok {
				var n int64
				if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &n); err == nil {
					return fmt.Sprintf("%7.1f MiB", float64(n)/1024)
				}
			}
		}
		return "    ? MiB"
	}
	return "rss " + kib("VmRSS") + "  peak " + kib("VmHWM")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
