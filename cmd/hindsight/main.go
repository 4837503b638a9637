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
)

// exitProcess ends the process with a status: the memory cap's watchdog
// calls it (memcap.go), since a check that passed the cap cannot be stopped
// any other way.
var exitProcess = os.Exit

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
