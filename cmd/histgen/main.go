// Command histgen writes a deterministic Jepsen-shaped history (see package
// gen): the same flags always give the same bytes. It writes Kafka queue
// histories (the default) or Elle's list-append and rw-register
// transactional histories, or the abort workload's.
//
//	histgen --seed 1 --ops 1000000 --concurrency 10 --keys 8 --txn 0.2 \
//	    --info 0.01 --fail 0.01 [--subscribe] [--crash-rate 0.007] [--poll-all-keys] \
//	    [--fault lost-write=3 ...] [--format edn|json] [-o FILE]
//	histgen --workload list-append|rw-register --txns 1000000 --concurrency 10 \
//	    --keys 8 --max-txn-len 4 --max-writes-per-key 32 --info 0.01 --fail 0.01 \
//	    [--read-lag N] [--no-f] [--nemesis] [--fault stale-read=2 ...] [-o FILE]
//	histgen --huge-scc [--seed N] [-o FILE]
//	histgen --workload abort --ops 10000 --concurrency 10 [--topics N] \
//	    [--after-abort advance|rewind] [--abort-rate P] [--rebalance P] \
//	    [--crash-rate P] [--info P] [--max-poll N] [--fault abort-other=2 ...] [-o FILE]
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
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/gen"
)

type options struct {
	workload string
	cfg      gen.Config    // queue
	tcfg     gen.TxnConfig // list-append, rw-register
	acfg     gen.AbortConfig
	after    string // --after-abort
	hugeSCC  bool
	faults   []string
	format   string
	out      string
	quiet    bool
	verbose  bool
}

// Flags that belong to one family of workloads only.
var (
	queueFlags = []string{"ops", "txn", "subscribe", "stall-duration", "crash-rate", "poll-all-keys"}
	txnFlags   = []string{"txns", "max-txn-len", "max-writes-per-key", "read-lag", "no-f", "nemesis", "huge-scc"}
	abortFlags = []string{"topics", "after-abort", "abort-rate", "rebalance", "max-poll"} // and --crash-rate, shared with queue
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   "histgen",
		Short: "Write a deterministic Jepsen queue, list-append or rw-register history",
		Long: `histgen simulates a store and Jepsen's clients and writes the history, one op
per line.

--workload queue (the default) simulates a Kafka-like broker. A history without
--fault is valid (docs/queue.md); each --fault KIND=N injects N faults of
that kind: ` + strings.Join(names(gen.FaultKinds()), ", ") + `.
--crash-rate P crashes a worker's client during a send, poll or txn with
probability P: the op completes :info ("indeterminate: ...", as Jepsen writes
it) and the worker comes back as a new process. --poll-all-keys makes every
assign take every key (a new process assigns first), so every poll lists all
--keys keys, most with an empty list.

--workload list-append or rw-register simulates a transactional store, Elle's
workloads (docs/list-append.md, docs/rw-register.md). A history without --fault and --read-lag is strict
serializable; each --fault KIND=N injects N fault scripts of that kind:
` + strings.Join(names(gen.TxnFaultKinds()), ", ") + `
(incompatible-order, duplicate-element, future-read and dirty-update need
list-append; each needs --concurrency 3 or more). --huge-scc writes a 10,000-txn list-append
history whose dependency graph is one huge strongly connected component
(flags given explicitly override its settings).

--workload abort simulates topics of one partition and one transactional
consumer per client (docs/abort.md): every poll is a transaction that
commits, or aborts on purpose (--abort-rate); after an abort the consumer
keeps its position (--after-abort advance, Kafka's behaviour: valid under
--abort-contract kafka) or returns to where the transaction began (rewind:
valid under both contracts). --rebalance P sends the consumer back to the
committed position during a poll, --crash-rate P replaces a client, --info P
makes a poll's outcome unknown (it also replaces the client). Each --fault
KIND=N injects N instances of the anomaly type KIND, bad under both
contracts: ` + strings.Join(names(gen.AbortFaultKinds()), ", ") + `.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: false,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := resolve(&o, cmd.Flags().Changed); err != nil {
				return err
			}
			return run(o, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.workload, "workload", "queue", "queue, list-append, rw-register or abort")
	f.Int64Var(&o.cfg.Seed, "seed", 1, "random seed")
	f.IntVar(&o.cfg.Concurrency, "concurrency", 10, "client workers")
	f.IntVar(&o.cfg.Keys, "keys", 8, "keys (queue: topic-partitions; txn: keys in use at a time)")
	f.Float64Var(&o.cfg.InfoRate, "info", 0.01, "probability that an op completes :info")
	f.Float64Var(&o.cfg.FailRate, "fail", 0.01, "probability that an op completes :fail")
	f.StringArrayVar(&o.faults, "fault", nil, "inject faults: KIND or KIND=COUNT (repeatable)")
	f.StringVar(&o.format, "format", "edn", "output format: edn or json (default json when FILE contains .json)")
	f.StringVarP(&o.out, "output", "o", "", "output file (.gz/.zst compress); default stdout")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no summary on stderr")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also list every injected fault on stderr")

	f.IntVar(&o.cfg.Ops, "ops", 100000, "queue, abort: number of op lines (invocations and completions)")
	f.Float64Var(&o.cfg.TxnFraction, "txn", 0, "queue: fraction of ops that are transactions")
	f.BoolVar(&o.cfg.Subscribe, "subscribe", false, "queue: consumers subscribe instead of assign")
	f.DurationVar(&o.cfg.StallDuration, "stall-duration", gen.DefaultStallDuration, "queue: simulated duration of a stall fault")
	f.Float64Var(&o.cfg.CrashRate, "crash-rate", 0, "queue and abort: probability that an op's client crashes, a new process following (queue: a send, poll or txn, default 0; abort: default 0.01)")
	f.BoolVar(&o.cfg.PollAllKeys, "poll-all-keys", false, "queue: every assign takes every key, so every poll lists them all")

	f.IntVar(&o.tcfg.Txns, "txns", 100000, "txn: number of transactions")
	f.IntVar(&o.tcfg.MaxTxnLen, "max-txn-len", gen.DefaultMaxTxnLen, "txn: most micro-ops per transaction")
	f.IntVar(&o.tcfg.MaxWritesPerKey, "max-writes-per-key", gen.DefaultMaxWritesPerKey, "txn: writes before a key is retired for a fresh one")
	f.IntVar(&o.tcfg.ReadLag, "read-lag", 0, "txn: serve reads from snapshots up to N commits old (stale reads)")
	f.BoolVar(&o.tcfg.OmitF, "no-f", false, "txn: leave :f out of client ops")
	f.BoolVar(&o.tcfg.Nemesis, "nemesis", false, "txn: add nemesis partition ops")
	f.BoolVar(&o.hugeSCC, "huge-scc", false, "txn: a 10,000-txn list-append history that is one huge SCC")

	f.IntVar(&o.acfg.Topics, "topics", 0, "abort: topics, one partition each (default: one per worker)")
	f.StringVar(&o.after, "after-abort", "advance", "abort: the consumer's position after an abort: advance (kafka) or rewind")
	f.Float64Var(&o.acfg.AbortRate, "abort-rate", gen.DefaultAbortRate, "abort: probability that a poll aborts on purpose")
	f.Float64Var(&o.acfg.RebalanceRate, "rebalance", 0.05, "abort: probability of a rebalance during a poll")
	f.IntVar(&o.acfg.MaxPoll, "max-poll", gen.DefaultMaxPoll, "abort: most records one poll returns")
	return cmd
}

func names[K fmt.Stringer](ks []K) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.String())
	}
	return out
}

// resolve checks that the flags fit the workload and fills the txn config.
func resolve(o *options, changed func(name string) bool) error {
	if !changed("format") && strings.Contains(filepath.Base(o.out), ".json") {
		o.format = "json"
	}
	if o.hugeSCC && !changed("workload") {
		o.workload = gen.ListAppend.String()
	}
	w, err := gen.ParseWorkload(o.workload)
	if err != nil {
		return err
	}
	var foreign []string
	switch w {
	case gen.Queue:
		foreign = append(txnFlags, abortFlags...)
	case gen.Abort:
		foreign = append(slices.DeleteFunc(slices.Clone(queueFlags), func(n string) bool { return n == "ops" || n == "crash-rate" }), txnFlags...)
		foreign = append(foreign, "keys", "fail")
	default:
		foreign = append(slices.Clone(queueFlags), abortFlags...)
	}
	for _, name := range foreign {
		if changed(name) {
			return fmt.Errorf("--%s does not apply to --workload %s", name, w)
		}
	}
	o.tcfg.Workload = w
	switch w {
	case gen.Queue:
		return nil
	case gen.Abort:
		a := &o.acfg
		a.Seed, a.Ops, a.Concurrency, a.InfoRate = o.cfg.Seed, o.cfg.Ops, o.cfg.Concurrency, o.cfg.InfoRate
		a.CrashRate = 0.01 // the abort simulation's default
		if changed("crash-rate") {
			a.CrashRate = o.cfg.CrashRate
		}
		if a.AfterAbort, err = gen.ParseAfterAbort(o.after); err != nil {
			return err
		}
		a.Faults, err = parseFaults(o.faults, gen.ParseAbortFault)
		return err
	}
	if o.hugeSCC && w != gen.ListAppend {
		return fmt.Errorf("--huge-scc needs --workload list-append")
	}
	t := &o.tcfg
	t.Workload = w
	t.Seed, t.Concurrency, t.Keys = o.cfg.Seed, o.cfg.Concurrency, o.cfg.Keys
	t.InfoRate, t.FailRate = o.cfg.InfoRate, o.cfg.FailRate
	if o.hugeSCC {
		p := gen.HugeSCCConfig(t.Seed)
		keep := func(name string, dst *int, v int) {
			if !changed(name) {
				*dst = v
			}
		}
		keep("txns", &t.Txns, p.Txns)
		keep("concurrency", &t.Concurrency, p.Concurrency)
		keep("keys", &t.Keys, p.Keys)
		keep("max-txn-len", &t.MaxTxnLen, p.MaxTxnLen)
		keep("max-writes-per-key", &t.MaxWritesPerKey, p.MaxWritesPerKey)
		keep("read-lag", &t.ReadLag, p.ReadLag)
		if !changed("info") {
			t.InfoRate = p.InfoRate
		}
		if !changed("fail") {
			t.FailRate = p.FailRate
		}
	}
	return nil
}

// result is what a generator reports back.
type result struct {
	summary    string
	injections []string
}

// resultOf is the result of a run with the one-line summary summary and
// the injections ins.
func resultOf[I fmt.Stringer](summary string, ins []I) result {
	r := result{summary: summary}
	for _, in := range ins {
		r.injections = append(r.injections, in.String())
	}
	return r
}

// parseFaults reads each --fault value with parse.
func parseFaults[F any](faults []string, parse func(string) (F, error)) ([]F, error) {
	var fs []F
	for _, s := range faults {
		f, err := parse(s)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// generator writes a history to w.
type generator func(w io.Writer) (result, error)

// generatorOf is the generator that writes with write and cfg and reports
// what its stats say with report.
func generatorOf[C, S any](write func(io.Writer, C) (S, error), cfg C, report func(*S) result) generator {
	return func(w io.Writer) (result, error) {
		st, err := write(w, cfg)
		return report(&st), err
	}
}

func run(o options, stderr io.Writer) error {
	format, err := gen.ParseFormat(o.format)
	if err != nil {
		return err
	}
	var g generator
	switch o.tcfg.Workload {
	case gen.Abort:
		cfg := o.acfg // its faults are parsed by resolve
		cfg.Format = format
		g = generatorOf(gen.WriteAbort, cfg, func(st *gen.AbortStats) result { return resultOf(st.String(), st.Injections) })
	case gen.Queue:
		cfg := o.cfg
		cfg.Format = format
		if cfg.Faults, err = parseFaults(o.faults, gen.ParseFault); err != nil {
			return err
		}
		g = generatorOf(gen.Write, cfg, func(st *gen.Stats) result { return resultOf(st.String(), st.Injections) })
	default:
		cfg := o.tcfg
		cfg.Format = format
		if cfg.Faults, err = parseFaults(o.faults, gen.ParseTxnFault); err != nil {
			return err
		}
		g = generatorOf(gen.WriteTxn, cfg, func(st *gen.TxnStats) result { return resultOf(st.String(), st.Injections) })
	}
	start := time.Now()
	var r result
	if o.out == "" || o.out == "-" {
		bw := bufio.NewWriterSize(os.Stdout, 1<<20)
		if r, err = g(bw); err == nil {
			err = bw.Flush()
		}
	} else {
		r, err = writeFile(o.out, g)
	}
	if err != nil {
		return err
	}
	if !o.quiet {
		dest := o.out
		if dest == "" {
			dest = "stdout"
		}
		_, err = fmt.Fprintf(stderr, "histgen: %s in %.2fs: %s\n", dest, time.Since(start).Seconds(), r.summary)
	}
	if o.verbose {
		for _, in := range r.injections {
			if _, err := fmt.Fprintf(stderr, "histgen: injected %s\n", in); err != nil {
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
func writeFile(path string, g generator) (r result, err error) {
	if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return r, err
		}
		r, err = encode(f, path, g)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return r, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return r, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if r, err = encode(tmp, path, g); err != nil {
		return r, err
	}
	if err = tmp.Close(); err != nil {
		return r, err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return r, err
	}
	return r, os.Rename(tmp.Name(), path)
}

// encode writes the history to f, compressed by path's extension, and
// closes the compressor (not f).
func encode(f io.Writer, path string, g generator) (r result, err error) {
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
			return r, zerr
		}
		w, closer = zw, zw
	}
	if r, err = g(w); err != nil {
		return r, err
	}
	if closer != nil {
		if err = closer.Close(); err != nil {
			return r, err
		}
	}
	return r, bw.Flush()
}
