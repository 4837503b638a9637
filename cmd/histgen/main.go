// Command histgen writes a deterministic, Jepsen-shaped Kafka queue history
// (see package gen): the same flags always give the same bytes.
//
//	histgen --seed 1 --ops 1000000 --concurrency 10 --keys 8 --txn 0.2 \
//	    --info 0.01 --fail 0.01 [--subscribe] [--fault lost-write=3 ...] \
//	    [--format edn|json] [-o FILE]
//
// FILE ending in .gz or .zst is compressed accordingly; without -o the
// history goes to stdout. A file is written to a temporary name next to it
// and renamed into place only when complete. A one-line summary goes to
// stderr, and with -v one line per injected fault.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/gen"
)

type options struct {
	cfg     gen.Config
	faults  []string
	format  string
	out     string
	quiet   bool
	verbose bool
}

func main() {
	if err := newRootCmd().Execute(); err != nil {
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   "histgen",
		Short: "Write a deterministic Jepsen Kafka queue history",
		Long: `histgen simulates a Kafka-like broker and Jepsen's queue workload clients and
writes the history, one op per line. A history without --fault is valid under
spec/queue.md; each --fault KIND=N injects N faults of that kind:
` + "  " + strings.Join(faultNames(), ", ") + `.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: false,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("format") && strings.Contains(filepath.Base(o.out), ".json") {
				o.format = "json"
			}
			return run(o, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.Int64Var(&o.cfg.Seed, "seed", 1, "random seed")
	f.IntVar(&o.cfg.Ops, "ops", 100000, "number of op lines (invocations and completions)")
	f.IntVar(&o.cfg.Concurrency, "concurrency", 10, "client workers")
	f.IntVar(&o.cfg.Keys, "keys", 8, "keys (topic-partitions)")
	f.Float64Var(&o.cfg.TxnFraction, "txn", 0, "fraction of ops that are transactions")
	f.Float64Var(&o.cfg.InfoRate, "info", 0.01, "probability that an op completes :info")
	f.Float64Var(&o.cfg.FailRate, "fail", 0.01, "probability that an op completes :fail")
	f.BoolVar(&o.cfg.Subscribe, "subscribe", false, "consumers subscribe instead of assign")
	f.DurationVar(&o.cfg.StallDuration, "stall-duration", gen.DefaultStallDuration, "simulated duration of a stall fault")
	f.StringArrayVar(&o.faults, "fault", nil, "inject faults: KIND or KIND=COUNT (repeatable)")
	f.StringVar(&o.format, "format", "edn", "output format: edn or json (default json when FILE contains .json)")
	f.StringVarP(&o.out, "output", "o", "", "output file (.gz/.zst compress); default stdout")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no summary on stderr")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also list every injected fault on stderr")
	return cmd
}

func faultNames() []string {
	var names []string
	for _, k := range gen.FaultKinds() {
		names = append(names, k.String())
	}
	return names
}

func run(o options, stderr io.Writer) error {
	cfg := o.cfg
	var err error
	if cfg.Format, err = gen.ParseFormat(o.format); err != nil {
		return err
	}
	for _, s := range o.faults {
		f, err := gen.ParseFault(s)
		if err != nil {
			return err
		}
		cfg.Faults = append(cfg.Faults, f)
	}
	start := time.Now()
	var st gen.Stats
	if o.out == "" || o.out == "-" {
		bw := bufio.NewWriterSize(os.Stdout, 1<<20)
		if st, err = gen.Write(bw, cfg); err == nil {
			err = bw.Flush()
		}
	} else {
		st, err = writeFile(o.out, cfg)
	}
	if err != nil {
		return err
	}
	if !o.quiet {
		dest := o.out
		if dest == "" {
			dest = "stdout"
		}
		_, err = fmt.Fprintf(stderr, "histgen: %s in %.2fs: %s\n", dest, time.Since(start).Seconds(), st.String())
	}
	if o.verbose {
		for _, in := range st.Injections {
			if _, err := fmt.Fprintf(stderr, "histgen: injected %s\n", in.String()); err != nil {
				return err
			}
		}
	}
	return err
}

// writeFile writes the history to a temporary file next to path, compressed
// by path's extension, and renames it into place once everything is closed.
// A path that exists and is not a regular file (/dev/null, a pipe) is
// written in place instead: renaming over it would replace the device.
func writeFile(path string, cfg gen.Config) (st gen.Stats, err error) {
	if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return st, err
		}
		st, err = encode(f, path, cfg)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return st, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return st, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if st, err = encode(tmp, path, cfg); err != nil {
		return st, err
	}
	if err = tmp.Close(); err != nil {
		return st, err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return st, err
	}
	return st, os.Rename(tmp.Name(), path)
}

// encode writes the history to f, compressed by path's extension, and
// closes the compressor (not f).
func encode(f io.Writer, path string, cfg gen.Config) (st gen.Stats, err error) {
	bw := bufio.NewWriterSize(f, 1<<20)
	var w io.Writer = bw
	var closer io.Closer
	switch {
	case strings.HasSuffix(path, ".gz"):
		zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
		w, closer = zw, zw
	case strings.HasSuffix(path, ".zst"):
		zw, zerr := zstd.NewWriter(bw, zstd.WithEncoderLevel(zstd.SpeedDefault))
		if zerr != nil {
			return st, zerr
		}
		w, closer = zw, zw
	}
	if st, err = gen.Write(w, cfg); err != nil {
		return st, err
	}
	if closer != nil {
		if err = closer.Close(); err != nil {
			return st, err
		}
	}
	return st, bw.Flush()
}
