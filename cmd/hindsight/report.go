package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report"
)

// reportCmd is `hindsight report [check flags] HISTORY -o FILE`: check one
// history and write the HTML report; the exit status is the verdict's, as
// for check.
func reportCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var (
		f    checkFlags
		out  string
		view report.ViewOptions
	)
	cmd := withHistory(&cobra.Command{
		Use:   "report [flags] HISTORY -o FILE",
		Short: "Check a history and write a self-contained HTML report (exit status as for check)",
		Long: `Check HISTORY as check does and write one HTML file that opens offline: the
verdict, statistics and options, a table of anomaly types, and for each
anomaly instance its explanation, witness ops and, for cycles, a drawing.
A queue history also gets an offset timeline per key with the anomalies
marked, and unseen-over-time and realtime-lag charts; a list-append history
the models ruled out, a transaction timeline (one lane per process, the
transactions of each anomaly marked), its incompatible reads side by side
and each key's version order. Big histories are downsampled and instance
lists capped; the page says what it left out. -o - writes the page to
standard output.`,
		Args: cobra.ExactArgs(1),
	}, &f, stderr, firstArg,
		func(cmd *cobra.Command, args []string, opts check.Options, mc *memCap) error {
			if out == "" {
				return usageError{errors.New("report needs -o FILE (or -o - for standard output)")}
			}
			if err := report.AssetsAvailable(); err != nil {
				return err
			}
			opts.Analysis.Series = true
			var (
				res *analysis.Result
				h   *model.History
				err error
			)
			if args[0] == "-" {
				res, h, err = check.ReadDigest(stdin, "-", opts)
			} else {
				restore, afterRead := memoryBudget(args[0], reportBudgetRatio, mc)
				defer restore()
				opts.AfterRead = afterRead
				res, h, err = check.File(args[0], opts)
			}
			if err != nil {
				return err
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(stderr, "hindsight: warning: %s\n", w)
			}
			w := stdout
			if out != "-" {
				w = nil
			}
			view.Command = commandLine(cmd)
			if err := writeReport(out, w, res, h, view); err != nil {
				return err
			}
			if out != "-" {
				fmt.Fprintf(stderr, "hindsight: %s: %s; report written to %s\n", res.Source, res.Verdict, out)
			}
			if code := res.Verdict.ExitCode(); code != exitValid {
				return exitError{code}
			}
			return nil
		})
	fl := cmd.Flags()
	// check's output flags mean nothing here
	_ = fl.MarkHidden("format")
	_ = fl.MarkHidden("max-examples")
	fl.StringVarP(&out, "output", "o", "", "the HTML file to write (- for standard output)")
	fl.IntVar(&view.MaxInstances, "max-instances", 20, "instances shown in detail per anomaly type (all are counted)")
	fl.IntVar(&view.MaxPoints, "max-points", 2000, "points per drawn series before downsampling")
	fl.IntVar(&view.MaxTxns, "max-txns", 10_000, "transactions drawn on a list-append timeline before sampling (those in anomalies always are)")
	return cmd
}

// argvKey keys run's arguments in the context of its commands.
type argvKey struct{}

// commandLine is the command line of the run cmd is part of, as a shell
// reads it back ("hindsight" and run's arguments), for a report's header.
func commandLine(cmd *cobra.Command) string {
	var args []string
	if ctx := cmd.Context(); ctx != nil {
		args, _ = ctx.Value(argvKey{}).([]string)
	}
	return report.ShellJoin(append([]string{"hindsight"}, args...))
}

// clock is when a report is made, for its header; a test fixes it.
var clock = time.Now

// writeReport builds the view of res and writes the page to path, or to w
// when w is not nil. The file appears only when complete.
func writeReport(path string, w io.Writer, res *analysis.Result, h *model.History, opts report.ViewOptions) error {
	opts.Made = clock()
	v := report.BuildView(res, h, opts)
	phase.Mark("report view")
	defer phase.Mark("report page")
	if w != nil {
		return report.WriteHTML(w, v)
	}
	if err := report.WriteHTMLFile(path, v); err != nil {
		return fmt.Errorf("writing the report %s: %w", path, err)
	}
	return nil
}

// checkHTML validates check --html before any history is read (one
// history only, and ECharts must be in this build) and asks the checker
// for the time series the report draws.
func (f *checkFlags) checkHTML(histories int, opts *check.Options) error {
	if f.html == "" {
		return nil
	}
	opts.Analysis.Series = true
	if histories != 1 {
		return usageError{fmt.Errorf("--html writes the report of one history; %d were given (use hindsight report for each)", histories)}
	}
	return report.AssetsAvailable()
}

// emitHTML writes the report for check --html, after the verdict was
// printed. It returns an exit status: exitInput on failure, else code.
// command is the command line for the report's header.
func emitHTML(path, command string, res *analysis.Result, h *model.History, code int, stderr io.Writer) int {
	if path == "" {
		return code
	}
	if err := writeReport(path, nil, res, h, report.ViewOptions{Command: command}); err != nil {
		fmt.Fprintf(stderr, "hindsight: %v\n", err)
		return exitInput
	}
	return code
}
