package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/internal/version"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report"
	"github.com/hindsight-dev/hindsight/samples"
	"github.com/hindsight-dev/hindsight/workload"
)

// Exit statuses of docs/README.md#exit-status.
const (
	exitValid   = 0
	exitInvalid = 1
	exitUnknown = 2
	exitInput   = 3
	// exitInternal is a failure of hindsight itself (a panic while
	// checking a history): not a verdict, and not the input's fault.
	exitInternal = 5
)

// usageError marks a mistake on the command line: exit status 3.
type usageError struct{ error }

// exitError carries an exit status decided by a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// checkFlags are the flags every analysing command shares.
type checkFlags struct {
	format         string
	wwDeps         bool
	subVia         string
	abortContract  string
	cycleBudget    time.Duration
	stallThreshold time.Duration
	maxExamples    int
	workload       string
	models         []string
	inputFormat    string
	html           string // check --html FILE (report.go)
	command        string // the command line, for the --html report's header
	// rw-register's version-order sources
	wfrKeys, sequentialKeys, linearizableKeys bool
	transactionOrder                          string    // a JSON file
	junit                                     *junitOut // --format junit, --junit FILE (junit.go)
	annotate                                  bool      // check: GitHub Actions annotations (annotate.go)
}

func (f *checkFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "text", "output format: text or json (check and scan: or junit)")
	fl.BoolVar(&f.wwDeps, "ww-deps", false, "add write-write dependencies (version order) to the dependency graph")
	fl.StringVar(&f.subVia, "sub-via", "", "treat every consumer as using assign or subscribe (default: per process, from its ops)")
	fl.StringVar(&f.abortContract, "abort-contract", "kafka", "abort: what a consumer must do after an abort, kafka (keep its position; a rebalance may send it back) or rewind (return to where the aborted transaction began)")
	fl.DurationVar(&f.cycleBudget, "cycle-budget", 10*time.Second, "work limit for the cycle search in each strongly connected component, as a duration at 25M search steps/s, the same on every machine (0: none)")
	fl.DurationVar(&f.stallThreshold, "stall-threshold", 10*time.Second, "shortest stall reported as stalled-consumer")
	fl.IntVar(&f.maxExamples, "max-examples", 3, "examples shown per anomaly type (text output; JSON has every instance)")
	fl.StringVar(&f.workload, "workload", "", "force the workload ("+strings.Join(workload.Names(), ", ")+"); detected from the micro-ops by default")
	fl.StringVar(&f.inputFormat, "input-format", "", "force the input format: edn or json (detected by default)")
	fl.StringSliceVar(&f.models, "model", nil, "consistency model a transactional history must satisfy (repeatable; Elle's names, e.g. serializable, snapshot-isolation; default strict-serializable)")
	fl.BoolVar(&f.wfrKeys, "wfr-keys", false, "rw-register: assume writes follow reads within a transaction (a read of v then a write of v' puts v before v')")
	fl.BoolVar(&f.sequentialKeys, "sequential-keys", false, "rw-register: assume each key is sequentially consistent (process order orders its versions)")
	fl.BoolVar(&f.linearizableKeys, "linearizable-keys", false, "rw-register: assume each key is linearizable (real-time order orders its versions)")
	fl.StringVar(&f.transactionOrder, "transaction-order", "", "rw-register: a JSON file giving each transaction's commit position, {\"<completion index>\": position, ...} (orders each key's writes)")
}

func (f *checkFlags) options() (check.Options, error) {
	o := check.DefaultOptions()
	o.Workload = f.workload
	switch f.format {
	case "text", "json":
	case "junit":
		if f.junit == nil {
			return o, usageError{fmt.Errorf("--format must be text or json, not %q", f.format)}
		}
	default:
		if f.junit != nil {
			return o, usageError{fmt.Errorf("--format must be text, json or junit, not %q", f.format)}
		}
		return o, usageError{fmt.Errorf("--format must be text or json, not %q", f.format)}
	}
	switch f.subVia {
	case "", "assign", "subscribe":
		o.Analysis.SubVia = f.subVia
	default:
		return o, usageError{fmt.Errorf("--sub-via must be assign or subscribe, not %q", f.subVia)}
	}
	if err := workload.ValidateAbortContract(f.abortContract); err != nil {
		return o, usageError{err}
	}
	o.Analysis.AbortContract = f.abortContract
	switch f.inputFormat {
	case "":
	case "edn":
		o.Format = ingest.FormatEDN
	case "json":
		o.Format = ingest.FormatJSON
	default:
		return o, usageError{fmt.Errorf("--input-format must be edn or json, not %q", f.inputFormat)}
	}
	if _, ok := workload.Lookup(f.workload); f.workload != "" && !ok {
		return o, usageError{fmt.Errorf("--workload must be one of %s, not %q", strings.Join(workload.Names(), ", "), f.workload)}
	}
	if f.cycleBudget < 0 || f.stallThreshold < 0 || f.maxExamples < 0 {
		return o, usageError{errors.New("--cycle-budget, --stall-threshold and --max-examples must not be negative")}
	}
	if len(f.models) > 0 {
		if err := workload.ValidateModels(f.models); err != nil {
			return o, usageError{fmt.Errorf("--model: %w", err)}
		}
		o.Analysis.Models = f.models
	}
	o.Analysis.WFRKeys, o.Analysis.SequentialKeys, o.Analysis.LinearizableKeys = f.wfrKeys, f.sequentialKeys, f.linearizableKeys
	if f.transactionOrder != "" {
		order, err := readTransactionOrder(f.transactionOrder)
		if err != nil {
			return o, usageError{fmt.Errorf("--transaction-order: %w", err)}
		}
		o.Analysis.TransactionOrder = order
	}
	o.Analysis.WWDeps = f.wwDeps
	o.Analysis.CycleBudget = f.cycleBudget
	o.Analysis.StallThreshold = f.stallThreshold
	return o, nil
}

// readTransactionOrder reads a commit order for --transaction-order: a
// JSON object from completion op indices (as strings, JSON's only keys) to
// positions, as Elle's :transaction-order map.
func readTransactionOrder(path string) (map[int64]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw map[string]int64
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object of op index to position, like {\"3\": 1, \"7\": 2}: %w", path, err)
	}
	order := make(map[int64]int64, len(raw))
	for k, v := range raw {
		i, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: key %q is not an op index", path, k)
		}
		order[i] = v
	}
	return order, nil
}

// The version template's function: cobra's template functions are global
// to the process, so it is registered once, not at every run.
func init() { cobra.AddTemplateFunc("hindsightVersion", versionLine) }

// versionLine says which build this is, for --version: the module version
// and VCS revision from the build information, and the ECharts the HTML
// report embeds.
func versionLine() string {
	e := report.EChartsVersion()
	if e == "" {
		e = "not embedded (run scripts/assets.sh and rebuild)"
	}
	return version.Current().String() + "; ECharts " + e
}

// worse combines exit statuses over several histories: an internal error
// outranks an input error, which outranks the memory cap, which outranks
// invalid, which outranks unknown, which outranks valid (0 < 2 < 1 < 4 <
// 3 < 5).
func worse(a, b int) int {
	rank := map[int]int{exitValid: 0, exitUnknown: 1, exitInvalid: 2, exitMemory: 3, exitInput: 4, exitInternal: 5}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		// A panic is hindsight's failure, not a verdict: exit 5 (check
		// recovers per history, in checkOne; this catches the others).
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "hindsight: internal error: %v (a bug in hindsight: please report it, with the history if you can)\n%s", p, debug.Stack())
			code = exitInternal
		}
	}()
	root := &cobra.Command{
		Use:           "hindsight",
		Short:         "Find consistency anomalies in Jepsen-style test histories",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// The version line is made only when --version asks for it: it reads
	// the embedded ECharts script (a megabyte) for its version, which
	// took 14 % of the CPU of checking a one-line history.
	root.Version = "(see --version)" // not empty: cobra adds --version
	root.SetVersionTemplate("{{hindsightVersion}}\n")
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(checkCmd(stdin, stdout, stderr), demoCmd(stdout, stderr), reportCmd(stdin, stdout, stderr))
	root.AddCommand(shrinkCmd(stdin, stdout, stderr))
	root.AddCommand(scanCmd(stdout, stderr))
	root.AddCommand(diffCmd(stdout))
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// Profiles for a user whose history hindsight reads slowly: the two
	// files, sent with the history's size and shape, say where the time
	// and the memory went (go tool pprof reads them; README.md).
	var cpuProfile, memProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof reads it)")
	root.PersistentFlags().StringVar(&memProfile, "memprofile", "", "write a memory profile to this file at exit: every allocation, and what was in use at the last collection")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		return pprof.StartCPUProfile(f)
	}
	defer func() {
		if cpuProfile != "" {
			pprof.StopCPUProfile()
		}
		if memProfile != "" {
			if f, err := os.Create(memProfile); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
		}
	}()
	err := root.ExecuteContext(context.WithValue(context.Background(), argvKey{}, args))
	var ee exitError
	switch {
	case err == nil:
		return exitValid
	case errors.As(err, &ee):
		return ee.code
	case isMemoryCap(err):
		fmt.Fprintf(stderr, "hindsight: %v\n", err)
		return exitMemory
	default:
		fmt.Fprintf(stderr, "hindsight: %v\n", err)
		return exitInput
	}
}

func checkCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var (
		f      checkFlags
		memory string
	)
	cmd := &cobra.Command{
		Use:   "check [flags] HISTORY...",
		Short: "Analyse histories and print a verdict (exit 0 valid, 1 invalid, 2 unknown, 3 unreadable, 4 over the memory cap)",
		Long: `Analyse each HISTORY (an .edn, .json or .jsonl file, optionally gzip- or
zstd-compressed, a Jepsen store directory holding history.edn, history.json or
history.jsonl, a file or store directory inside an archive named
ARCHIVE!/path/in/archive, or - for standard input) and print a summary, or with --format json one JSON object per
history (JSON Lines). The exit status is the worst over all histories.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.options()
			if err != nil {
				return err
			}
			if err := f.checkHTML(len(args), &opts); err != nil {
				return err
			}
			f.command = commandLine(cmd)
			mc, err := newMemCap(memory)
			if err != nil {
				return err
			}
			var code atomic.Int32
			mc.trip = memoryTrip(&f, &code, stdout, stderr)
			defer mc.watch()()
			for _, path := range args {
				code.Store(int32(worse(int(code.Load()), checkOne(path, stdin, opts, mc, &f, stdout, stderr))))
			}
			if err := f.writeJUnit(stdout); err != nil {
				return err
			}
			if c := int(code.Load()); c != exitValid {
				return exitError{c}
			}
			return nil
		},
	}
	f.register(cmd)
	memoryFlag(cmd, &memory)
	f.registerJUnit(cmd)
	f.annotate = true
	cmd.Flags().StringVar(&f.html, "html", "", "also write the HTML report of the (single) history to this file")
	return cmd
}

// testPanic, when set by a test, is called by checkOne with each path.
var testPanic func(path string)

// checkOne checks one history, prints its result and returns its exit
// status. A panic while checking it is reported as an internal error
// (exit 5), not taken for a verdict.
// memoryTrip is what check does when its watchdog finds the process past
// the memory cap in the middle of a history: the message, the JUnit XML
// with the suites already made and an error suite for that history, and
// exit 4 (or the worse status of the histories before it).
func memoryTrip(f *checkFlags, code *atomic.Int32, stdout, stderr io.Writer) func(*check.MemoryCapError) {
	return func(err *check.MemoryCapError) {
		fmt.Fprintf(stderr, "hindsight: %v\n", err)
		f.addJUnitError(err.Path, err)
		if werr := f.writeJUnit(stdout); werr != nil {
			fmt.Fprintf(stderr, "hindsight: %v\n", werr)
		}
		exitProcess(worse(int(code.Load()), exitMemory))
	}
}

func checkOne(path string, stdin io.Reader, opts check.Options, mc *memCap, f *checkFlags, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "hindsight: %s: internal error: %v (a bug in hindsight: please report it, with the history if you can)\n%s", path, p, debug.Stack())
			code = exitInternal
		}
	}()
	if testPanic != nil {
		testPanic(path)
	}
	var (
		res *analysis.Result
		h   *model.History
		err error
	)
	opts.Meter = mc.meter(path)
	// the text output shows no digest: the file need not be hashed
	opts.NoDigest = f.format == "text" && !f.wantsJUnit() && f.html == ""
	// only the HTML report shows the ops' times
	opts.NoTimes = f.html == ""
	if path == "-" {
		res, h, err = check.ReadDigest(stdin, "-", opts)
	} else {
		restore, afterRead := memoryBudget(path, budgetRatio, mc)
		opts.AfterRead = afterRead
		res, h, err = check.File(path, opts)
		restore()
	}
	if _, ok := check.AsMemoryCapError(err); ok {
		fmt.Fprintf(stderr, "hindsight: %v\n", err)
		f.addJUnitError(path, err)
		return exitMemory
	}
	if err != nil {
		// Unreadable input and internal failures alike: exit 3.
		fmt.Fprintf(stderr, "hindsight: %v\n", err)
		f.addJUnitError(path, err)
		return exitInput
	}
	return emit(res, h, f, stdout, stderr)
}

func emit(res *analysis.Result, h *model.History, f *checkFlags, stdout, stderr io.Writer) int {
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "hindsight: warning: %s\n", w)
	}
	var err error
	f.addJUnit(res, h)
	if f.annotate {
		annotate(res, h, os.Getenv, stderr)
	}
	switch f.format {
	case "junit":
	case "json":
		err = report.JSON(stdout, res)
	default:
		err = report.Text(stdout, res, report.HistoryLookup(h), f.maxExamples)
	}
	phase.Mark("output written")
	if err != nil {
		fmt.Fprintf(stderr, "hindsight: writing the result: %v\n", err)
		return exitInput
	}
	return emitHTML(f.html, f.command, res, h, res.Verdict.ExitCode(), stderr)
}

func demoCmd(stdout, stderr io.Writer) *cobra.Command {
	var f checkFlags
	return withHistory(&cobra.Command{
		Use:   "demo [flags]",
		Short: "Check the sample queue history built into hindsight",
		Long: `Check a small queue history embedded in the binary, in which a stale
leader acknowledged writes that were later truncated, a timed-out send was
retried into a duplicate, and a consumer got stuck: a quick look at what
hindsight reports. Takes the same flags as check.`,
		Args: cobra.NoArgs,
	}, &f, stderr, func([]string) string { return samples.QueueName },
		func(_ *cobra.Command, _ []string, opts check.Options, _ *memCap) error {
			h, err := check.ReadHistoryFrom(samples.QueueReader(), samples.QueueName, opts)
			if err != nil {
				return err
			}
			res, err := check.History(h, opts)
			if err != nil {
				return err
			}
			if d, err := check.DigestReader(samples.QueueReader()); err == nil {
				d.Set(res)
			}
			if code := emit(res, h, &f, stdout, stderr); code != exitValid {
				return exitError{code}
			}
			return nil
		})
}

// withHistory completes c, a command of one history (demo, report,
// shrink): it registers f's check flags and --memory on c, and runs run
// with the options they give while the watch of the memory cap is on
// (oneHistory; the history's name, for the meter, is name of the
// command's arguments).
func withHistory(c *cobra.Command, f *checkFlags, stderr io.Writer, name func(args []string) string,
	run func(cmd *cobra.Command, args []string, opts check.Options, mc *memCap) error) *cobra.Command {
	var memory string
	c.RunE = func(cmd *cobra.Command, args []string) error {
		opts, mc, stop, err := f.oneHistory(memory, name(args), stderr)
		if err != nil {
			return err
		}
		defer stop()
		return run(cmd, args, opts, mc)
	}
	f.register(c)
	memoryFlag(c, &memory)
	return c
}

// firstArg is the history a command of one history reads: its argument.
func firstArg(args []string) string { return args[0] }

// tripExit is memCap.trip for a command of one history: it prints the
// error and exits 4.
func tripExit(stderr io.Writer) func(*check.MemoryCapError) {
	return func(err *check.MemoryCapError) {
		fmt.Fprintf(stderr, "hindsight: %v\n", err)
		exitProcess(exitMemory)
	}
}

// oneHistory reads the check flags of a command of one history (demo,
// report, shrink) and starts the watch of its --memory cap mc, which on
// tripping prints the error and exits 4 (tripExit); opts.Meter meters the
// reading of name. The caller (withHistory) defers stop.
func (f *checkFlags) oneHistory(memory, name string, stderr io.Writer) (opts check.Options, mc *memCap, stop func(), err error) {
	opts, err = f.options()
	if err != nil {
		return opts, nil, nil, err
	}
	mc, err = newMemCap(memory)
	if err != nil {
		return opts, nil, nil, err
	}
	mc.trip = tripExit(stderr)
	stop = mc.watch()
	opts.Meter = mc.meter(name)
	return opts, mc, stop, nil
}
