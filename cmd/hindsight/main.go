// Command hindsight reads the histories written by Jepsen-style tests, finds
// consistency anomalies in them and reports them. See README.md and
// `hindsight --help`.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
