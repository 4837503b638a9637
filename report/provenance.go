package report

import (
	"strings"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
)

// CheckCommand is the hindsight check --html command that makes again the
// report of res, the check of the history at history, into the file html:
// the workload and the options the result echoes (analysis.Options; the
// cycle budget and stall threshold when not the defaults of 10s). An
// rw-register's --transaction-order file is not in the result, so it
// cannot be named: the command then says so with a placeholder.
func CheckCommand(res *analysis.Result, history, html string) string {
	args := []string{"hindsight", "check", "--html", html}
	if res.Workload != "" {
		args = append(args, "--workload", res.Workload)
	}
	o := res.Options
	flag := func(p *bool, name string) {
		if p != nil && *p {
			args = append(args, name)
		}
	}
	flag(o.WWDeps, "--ww-deps")
	flag(o.WFRKeys, "--wfr-keys")
	flag(o.SequentialKeys, "--sequential-keys")
	flag(o.LinearizableKeys, "--linearizable-keys")
	if o.SubVia != "" && o.SubVia != "auto" {
		args = append(args, "--sub-via", o.SubVia)
	}
	if o.CycleBudgetS != 10 {
		args = append(args, "--cycle-budget", durationFlag(o.CycleBudgetS))
	}
	if o.StallThreshold != nil && *o.StallThreshold != 10 {
		args = append(args, "--stall-threshold", durationFlag(*o.StallThreshold))
	}
	if o.TransactionOrder != nil {
		args = append(args, "--transaction-order", "ORDER.json")
	}
	for _, m := range res.Models {
		args = append(args, "--model", m)
	}
	return ShellJoin(append(args, history))
}

func durationFlag(s float64) string {
	return time.Duration(s * 1e9).String()
}

// ShellJoin joins args into one command line a POSIX shell reads back as
// args: an argument with anything but letters, digits and -_./=:,+@% is
// put in single quotes.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(a string) string {
	if a == "" {
		return "''"
	}
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return a
}
