package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/internal/atomicfile"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/shrink"
)

// shrinkCmd is `hindsight shrink [check flags] HISTORY --anomaly TYPE`:
// cut a history down to a small one that still shows an instance of TYPE
// (package shrink), and write it as EDN.
func shrinkCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var (
		f            checkFlags
		anomaly, out string
		budget       time.Duration
	)
	cmd := withHistory(&cobra.Command{
		Use:   "shrink [flags] HISTORY --anomaly TYPE -o small.edn",
		Short: "Cut a history down to a small one that still shows an anomaly",
		Long: `Delta-debug HISTORY down to a small history that still shows an instance
of --anomaly TYPE when checked with the same flags, keeping each invocation
with its completion and the original op indices. Writes it as EDN to -o (or
standard output) and prints how many ops remain.`,
		Args: cobra.ExactArgs(1),
	}, &f, stderr, firstArg,
		func(_ *cobra.Command, args []string, opts check.Options, _ *memCap) error {
			readyForLargeHeap() // it checks the history again and again
			var (
				h   *model.History
				err error
			)
			if args[0] == "-" {
				h, err = check.ReadHistoryFrom(stdin, "-", opts)
			} else {
				h, err = check.ReadHistory(args[0], opts)
			}
			if err != nil {
				return err
			}
			p, err := model.Pair(h)
			if err != nil {
				return err
			}
			w, err := check.Workload(h, opts.Workload)
			if err != nil {
				return err
			}
			if _, ok := w.Type(anomaly); !ok {
				return usageError{fmt.Errorf("--anomaly must be one of the %s types: %s", w.Name, strings.Join(w.TypeNames(), ", "))}
			}
			run := func(h *model.History, p model.Pairing) *analysis.Result { return w.Check(h, p, opts.Analysis) }
			r, err := shrink.Shrink(h, p, anomaly, run, budget)
			if err != nil {
				return err
			}
			positions := make([]int32, len(r.History.Ops))
			for i := range positions {
				positions[i] = int32(i)
			}
			var buf bytes.Buffer
			fmt.Fprintf(&buf, "; shrunk from %s (%d ops) by hindsight shrink --anomaly %s: %d ops remain\n",
				filepath.Base(h.Source), len(h.Ops), anomaly, len(r.History.Ops))
			if err := shrink.WriteEDN(&buf, r.History, r.Pairing, positions, w.ValueEDN); err != nil {
				return err
			}
			if out == "" || out == "-" {
				if _, err := stdout.Write(buf.Bytes()); err != nil {
					return err
				}
			} else if err := atomicfile.Write(out, atomicfile.Options{}, func(w io.Writer) error {
				_, err := w.Write(buf.Bytes())
				return err
			}); err != nil {
				return err
			}
			note := ""
			if r.Exhausted {
				note = " (budget ran out: smaller may exist)"
			}
			fmt.Fprintf(stderr, "hindsight: %d of %d ops remain after %d checks%s\n", len(r.History.Ops), len(h.Ops), r.Tests, note)
			return nil
		})
	cmd.Flags().StringVar(&anomaly, "anomaly", "", "the anomaly type to keep (required)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "where to write the small history (default: standard output)")
	cmd.Flags().DurationVar(&budget, "budget", 2*time.Minute, "stop shrinking after this long (0: no limit)")
	_ = cmd.MarkFlagRequired("anomaly")
	return cmd
}
