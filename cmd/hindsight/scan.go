package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hindsight-dev/hindsight/scan"
)

// exitInterrupted is the status of a scan stopped by SIGINT or SIGTERM
// (128 + SIGINT, the shell's convention): not a verdict.
const exitInterrupted = 130

// scanCmd is `hindsight scan [check flags] DIR|FILE...`: check an archive
// of histories in parallel into Parquet tables (package scan).
func scanCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		f        checkFlags
		o        scan.Options
		shard    string
		shards   int
		memory   string
		maxBytes string
		maxTypes int
		verbose  bool
		exitZero bool
	)
	cmd := &cobra.Command{
		Use:   "scan [flags] DIR|FILE...",
		Short: "Check an archive of histories in parallel into Parquet tables (exit status over all histories)",
		Long: `Walk each DIR for Jepsen store folders (a folder holding history.edn,
history.json or history.jsonl) and loose .edn, .json and .jsonl files, plain,
.gz or .zst, and read the same inside .tar, .tar.gz, .tgz, .tar.zst and .zip
archives in place (never unpacked; a history inside is named
ARCHIVE!/path/in/archive); check every history found, -j at a time within a
memory budget; write the results to -o as two Parquet tables,
histories.parquet (one row per history) and anomalies.parquet (one row per
anomaly instance), and print a summary. A history that cannot be read or
parsed becomes a row with its error; a file whose first value is not an op
(results.edn, test.json, tool configs) is skipped and counted.

Results are cached by content under -o/.cache: running the same scan again
(after an interruption, or over a grown archive) checks only new or changed
histories. Output files are written under temporary names and renamed when
complete. --shard i/n scans the i-th of n parts of the inputs (0 <= i < n,
split by path hash) and names the tables histories-i-of-n.parquet and so on,
so n machines can split an archive into one folder; --shard auto takes i
from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) and n from --shards or
JOB_COMPLETIONS.

--memory is the budget of the histories checked at once: each is admitted
for an estimate and metered while it is read, whatever its header claims; one
that cannot fit even alone becomes an error row naming the budget. Finished
rows are written as the scan goes to part files in -o
(histories.part-*.parquet, anomalies.part-*.parquet), merged into the tables
at the end and removed: a scan that is interrupted or killed keeps every row
it flushed there.

Exit status over all histories: 3 if any could not be read or parsed, else 4
if any could not be judged within --memory, else 1 if any is invalid, else 2
if any is unknown, else 0 (--exit-zero: 0 for all of these); 130 if
interrupted (the finished rows are in the part files; run again to finish).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.options()
			if err != nil {
				return err
			}
			readyForLargeHeap() // many histories, several at once
			o.Check = opts
			switch {
			case shard == "auto":
				if o.Shard, err = scan.ShardFromEnv(os.Getenv, shards); err != nil {
					return usageError{err}
				}
			case shards != 0:
				return usageError{errors.New("--shards goes with --shard auto (with --shard i/n, n is the count)")}
			case shard != "":
				if o.Shard, err = scan.ParseShard(shard); err != nil {
					return usageError{err}
				}
			}
			if maxBytes != "" {
				if o.MaxHistoryBytes, err = parseBytes(maxBytes); err != nil {
					return usageError{fmt.Errorf("--max-history-bytes: %w", err)}
				}
			}
			if memory != "" {
				if o.MemoryBudget, err = parseBytes(memory); err != nil {
					return usageError{fmt.Errorf("--memory: %w", err)}
				}
			}
			// The ceiling is check's default cap (memcap.go): the machine's
			// memory, or what ulimit -v leaves; under ulimit -v the default
			// budget is half of it, leaving the analyses room.
			ceiling, _ := newMemCap("")
			o.MemoryCeiling = max(ceiling.limit, o.MemoryBudget)
			if _, ok := addressLimit(); ok && memory == "" {
				o.MemoryBudget = min(scan.DefaultMemoryBudget(), max(ceiling.limit/2, minCap))
				o.MemoryCeiling = ceiling.limit
			}
			o.OnCeiling = func(err error) {
				fmt.Fprintf(stderr, "hindsight: %v\n", err)
				exitProcess(exitMemory)
			}
			if o.Jobs < 0 {
				return usageError{errors.New("-j must not be negative")}
			}
			if file, ok := stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
				o.Progress = stderr
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				stop() // a second signal kills at once
			}()
			sum, err := scan.Run(ctx, args, o)
			switch {
			case errors.Is(err, scan.ErrNoHistories):
				if verbose && sum != nil {
					_ = sum.WriteSkipped(stderr)
				}
				return usageError{err}
			case err != nil && ctx.Err() != nil && sum != nil:
				fmt.Fprintf(stderr, "hindsight: scan interrupted after %d of %d histories; their rows are in %d part files in %s "+
					"(DuckDB reads them: SELECT * FROM '%s'). Run the same command again to finish: the %d done are cached.\n",
					sum.Done, sum.Histories, len(sum.Files), o.OutDir, filepath.Join(o.OutDir, "histories*.part-*.parquet"), sum.Done)
				return exitError{exitInterrupted}
			case err != nil:
				return err
			}
			if err := f.scanJUnit(sum); err != nil {
				return err
			}
			switch f.format {
			case "junit":
				err = f.writeJUnit(stdout)
			case "json":
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				err = enc.Encode(sum)
			default:
				err = sum.WriteText(stdout, maxTypes)
			}
			if err == nil && f.format != "junit" {
				err = f.writeJUnit(stdout)
			}
			if err != nil {
				return err
			}
			if verbose && f.format == "text" {
				if err := sum.WriteSkipped(stdout); err != nil {
					return err
				}
			}
			if code := sum.ExitCode(); code != exitValid && !exitZero {
				return exitError{code}
			}
			return nil
		},
	}
	f.register(cmd)
	f.registerJUnit(cmd)
	_ = cmd.Flags().MarkHidden("max-examples")
	fl := cmd.Flags()
	fl.IntVarP(&o.Jobs, "jobs", "j", 0, "histories checked at once (default: the number of cores)")
	fl.StringVarP(&o.OutDir, "output", "o", "results", "directory for the result tables")
	fl.StringVar(&shard, "shard", "", "scan only part i of n of the inputs, as i/n with 0 <= i < n (split by path hash); auto: from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, and --shards or JOB_COMPLETIONS)")
	fl.IntVar(&shards, "shards", 0, "with --shard auto: the number of shards (the Job's completions), if JOB_COMPLETIONS is not set")
	fl.StringVar(&maxBytes, "max-history-bytes", "", "largest history read, after decompression (512MiB, 4GB); a bigger one is an error row; default a quarter of the machine's (or cgroup's) memory")
	fl.BoolVarP(&verbose, "verbose", "v", false, "list the files skipped as not histories")
	fl.BoolVar(&exitZero, "exit-zero", false, "exit 0 when the scan finished, whatever the verdicts (they are in the tables); for batch schedulers")
	fl.BoolVar(&o.IPC, "ipc", false, "also write the tables as Arrow IPC files (.arrow)")
	fl.StringVar(&o.HTMLDir, "html-dir", "", "write an HTML report per invalid or unknown history, and an index.html, into this directory")
	fl.StringVar(&memory, "memory", "", "memory budget for histories checked at once, in bytes or with a unit (512MiB, 4GB); default a quarter of the machine's (or cgroup's) memory")
	fl.StringVar(&o.CacheDir, "cache-dir", "", "per-history result cache (default OUTPUT/.cache)")
	fl.BoolVar(&o.Rescan, "rescan", false, "check every history again, ignoring cached results")
	fl.IntVar(&maxTypes, "max-types", 15, "anomaly types listed in the text summary (0: all)")
	return cmd
}

// parseBytes reads a byte count: digits, optionally followed by a unit
// (B, K/KB, M/MB, G/GB, T/TB in powers of 1000; KiB, MiB, GiB, TiB in powers
// of 1024; case-insensitive).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a positive size", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q", s, unit)
	}
	return int64(v * mult), nil
}
