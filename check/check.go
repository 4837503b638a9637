// Package check wires the pipeline together: read a history (package
// ingest), validate its structure (model.Pair), detect the workload and run
// its checker. The command line, the report and the scanner all go through
// it, so a history gets the same verdict whichever way it is checked.
//
// With Options.Meter set, the history's text is metered as it is read,
// after decompression (meter.go), so a memory cap stops a history too big
// for it before its ops are allocated, with a *MemoryCapError.
package check

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/archive"
	"github.com/hindsight-dev/hindsight/internal/par"
	"github.com/hindsight-dev/hindsight/internal/phase"
	"github.com/hindsight-dev/hindsight/internal/version"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// Options are the options of one check.
type Options struct {
	// Workload is "" (detect) or a workload's name (package workload).
	Workload string
	// Format forces the input format.
	Format ingest.Format
	// MaxBytes, when positive, bounds a history's text (ingest.Options).
	MaxBytes int64
	// Analysis are the checker's options.
	Analysis workload.Options
	// AfterRead, if set, is called once the history is read and before it
	// is analysed (the command line adapts its memory budget there), with
	// the workload that will check it; not when there is none.
	AfterRead func(w *workload.Workload)
	// NoTimes says that the caller reads no op's :time from the history
	// it gets back (it writes no HTML report): the column is dropped once
	// the history is read when the workload's check reads none either
	// (workload.Workload.IgnoresTimes), and History.Time is NoTime.
	NoTimes bool
	// Meter, if set, is told the history's text read so far, in bytes
	// after decompression, before the parser gets it; an error it returns
	// stops the read and is returned (wrapped in an InputError unless it
	// is a *MemoryCapError). See meter.go.
	Meter func(text int64) error
	// NoDigest leaves the result's sha256 and bytes out, for a caller
	// whose outputs show neither (check's text output): File and
	// ReadDigest then do not hash the history, a pass of SHA-256 over it
	// (5 to 11 % of the user time of a 1M-op check).
	NoDigest bool
	// tee hashes a file read in parallel as it is read (File).
	tee *ingest.Tee
}

// DefaultOptions are the command line's defaults.
func DefaultOptions() Options { return Options{Analysis: workload.DefaultOptions()} }

// InputError is an error in the input itself (unreadable, unparsable,
// malformed or of an unsupported workload): exit status 3.
type InputError struct{ Err error }

func (e *InputError) Error() string {
	// a file that cannot be opened: "h.edn: no such file or directory",
	// not the system call's "stat h.edn: ..."
	if pe, ok := e.Err.(*fs.PathError); ok {
		return pe.Path + ": " + pe.Err.Error()
	}
	return e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// IsInputError reports whether err is (or wraps) an InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// inputError wraps a reading error as an InputError, but for a
// MemoryCapError: the input may be fine, it is too big for the cap.
func inputError(err error) error {
	if mc, ok := AsMemoryCapError(err); ok {
		return mc
	}
	return &InputError{err}
}

// File reads and checks the history at path ("-" for standard input, or a
// Jepsen store directory). It returns the history too, for reports.
func File(path string, opts Options) (*analysis.Result, *model.History, error) {
	// The digest (the result's sha256 and bytes): a file read in parallel
	// is hashed by that read as its bytes come in (ingest.Tee), so that it
	// is read once, not twice (hashing it beside the read took a tenth of
	// the CPU of a 1M-poll abort check, read syscalls fighting the
	// parallel read's for half of it); any other is hashed beside the
	// read, from the page cache, and one whose parallel read fell back to
	// a sequential one beside the check. A file it cannot hash has none.
	var digest Digest
	var hashing par.Group
	var hw *hasher
	switch {
	case opts.NoDigest:
	case ingest.ReadsInParallel(path, readOptions(opts)):
		hw = newHasher()
		opts.tee = &ingest.Tee{W: hw}
	default:
		hashing.Go(func() { digest, _ = DigestFile(path) })
	}
	h, err := ReadHistory(path, opts)
	phase.Mark("read")
	if err != nil {
		if a := archiveGiven(path); a != nil {
			err = a
		}
		return nil, nil, inputError(err) // the digest is not waited for
	}
	if t := opts.tee; t != nil {
		if t.Done {
			digest = hw.Digest()
		} else {
			hashing.Go(func() { digest, _ = DigestFile(path) })
		}
	}
	res, err := History(h, opts)
	hashing.Wait()
	digest.Set(res)
	return res, h, err
}

// archiveGiven is the error for a history that could not be read because
// path is itself a tar or zip archive (`hindsight check runs.zip`): the
// parser's own error would point at its first bytes. Nil for any other
// path. Asked only once the read failed, so it costs a good file nothing.
func archiveGiven(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, _, err := archive.DetectFile(path)
	if err != nil || f == archive.NotArchive {
		return nil
	}
	return fmt.Errorf("%s: a %s archive, not a history: name one history in it as %s, or check them all with hindsight scan %s",
		path, f, archive.Join(path, "path/to/history.edn"), path)
}

// readOptions are ingest's options for opts, with every workload's value
// decoder installed: the workload is not known before the history is read.
func readOptions(opts Options) ingest.Options {
	return ingest.Options{Format: opts.Format, MaxBytes: opts.MaxBytes, Decoders: workload.Decoders(), Tee: opts.tee}
}

// Read reads a history from r (named name in messages) and checks it.
func Read(r io.Reader, name string, opts Options) (*analysis.Result, *model.History, error) {
	h, err := ReadHistoryFrom(r, name, opts)
	if err != nil {
		return nil, nil, inputError(err)
	}
	res, err := History(h, opts)
	return res, h, err
}

// History checks a parsed history: it pairs invocations with completions,
// finds the workload (opts.Workload, or workload.Detect) and runs its
// checker.
func History(h *model.History, opts Options) (*analysis.Result, error) {
	// Pairing and detection each go through every op (20 and 30 ms for a
	// million ops): they run at once. Errors keep their order: pairing's
	// first.
	var pairing model.Pairing
	var err error
	var pairs par.Group
	pairs.Go(func() { pairing, err = model.Pair(h) })
	w, werr := Workload(h, opts.Workload)
	if werr == nil && opts.AfterRead != nil {
		opts.AfterRead(w)
	}
	pairs.Wait()
	phase.Mark("pair and detect")
	if err != nil {
		return nil, &InputError{err}
	}
	if werr != nil {
		return nil, werr
	}
	if opts.NoTimes && w.IgnoresTimes {
		h.DropTimes()
	}
	res := w.Check(h, pairing, opts.Analysis)
	phase.Mark("check done")
	v := version.Current()
	res.Hindsight = &v
	return res, nil
}

// Workload finds the workload of h: the named one, or the detected one when
// name is "". Mixed micro-ops and workloads without a checker are input
// errors; an unknown name is a usage error.
func Workload(h *model.History, name string) (*workload.Workload, error) {
	var w *workload.Workload
	if name == "" {
		d, err := workload.Detect(h)
		if err != nil {
			return nil, &InputError{err}
		}
		w = d
	} else {
		l, ok := workload.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(workload.Names(), ", "))
		}
		w = l
	}
	if w.Check == nil {
		return nil, &InputError{fmt.Errorf("%s: this is a %s history; hindsight cannot check %s histories yet", h.Source, w.Name, w.Name)}
	}
	return w, nil
}
