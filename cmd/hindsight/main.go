// Command hindsight reads the histories written by Jepsen-style tests, finds
// consistency anomalies in them and reports them. See README.md and
// `hindsight --help`.
//
// default.pgo beside this file is a CPU profile of hindsight checking,
// reporting and scanning generated histories of every workload; the go
// command builds this package with it (profile-guided optimisation: hot
// calls inlined, hot code laid out together). It changes how the code is
// compiled, never what it does. scripts/pgo.sh remakes it; bench/README.md
// (Profile-guided optimisation) gives what it gained.
package main

import (
	"os"
	"runtime/debug"

	"github.com/hindsight-dev/hindsight/internal/exepages"
)

// gcPercent is the garbage collector's target unless GOGC is set: a history
// is read once into memory that stays live to the end, so collecting at 30%
// growth instead of Go's default 100% trims peak memory by about a quarter
// for a few percent more CPU (measured on a 1M-op history: 425 -> 326 MB
// peak RSS, no change in wall time).
const gcPercent = 30

// exitProcess ends the process with a status: the memory cap's watchdog
// calls it (memcap.go), since a check that passed the cap cannot be stopped
// any other way.
var exitProcess = os.Exit

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	// the binary's pages its initialisers touched and it will not need
	// again: 6 to 10 MiB less at the peaks internal/exepages measured
	exepages.Release()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
