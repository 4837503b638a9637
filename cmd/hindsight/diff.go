package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/diff"
)

// diffCmd is `hindsight diff OLD NEW` (package diff; docs/ci.md).
func diffCmd(stdout io.Writer) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "diff [flags] OLD NEW",
		Short: "Compare two results or scans: what got worse (exit 1), what got better",
		Long: `Compare OLD with NEW. Each is check results (hindsight check --format
json, one object a line), a scan's output folder or histories.parquet, or a
history (then it is checked first, with the check flags given).

Histories are matched by their path below the set's root (the file name
for a set of one), then by the sha256 of their bytes (a rename). For each
history in both it prints the verdict change and the anomaly types added,
removed and changed in count; for several, the histories that turned
invalid, valid or unreadable, the anomaly types new across the archive,
and the histories new, missing and renamed. --format json for machines.

Exit status: 1 when something got worse (a verdict from valid to unknown or
invalid, or unknown to invalid; a bad anomaly type that appears; a history
that no longer reads), 0 otherwise, 3 when OLD or NEW cannot be read.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.options()
			if err != nil {
				return err
			}
			old, err := diff.Load(args[0], opts)
			if err != nil {
				return err
			}
			nw, err := diff.Load(args[1], opts)
			if err != nil {
				return err
			}
			r := diff.Compare(old, nw)
			if f.format == "json" {
				err = r.WriteJSON(stdout)
			} else {
				err = r.WriteText(stdout)
			}
			if err != nil {
				return err
			}
			if r.Worse {
				return exitError{exitInvalid}
			}
			return nil
		},
	}
	f.register(cmd)
	_ = cmd.Flags().MarkHidden("max-examples")
	return cmd
}
