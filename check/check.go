// Package check wires the pipeline together: read a history (package
// ingest), validate its structure (model.Pair), detect the workload and run
// its checker. The command line, the report and the scanner all go through
// it, so a history gets the same verdict whichever way it is checked.
package check

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/ingest"
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
	// the workload workload.Detect finds in it (nil when it finds none: a
	// history of mixed micro-ops), whatever Workload says.
	AfterRead func(h *model.History, detected *workload.Workload)
}

// DefaultOptions are the command line's defaults.
func DefaultOptions() Options { return Options{Analysis: workload.DefaultOptions()} }

// InputError is an error in the input itself (unreadable, unparsable,
// malformed or of an unsupported workload): exit status 3.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// IsInputError reports whether err is (or wraps) an InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// File reads and checks the history at path ("-" for standard input, or a
// Jepsen store directory). It returns the history too, for reports.
func File(path string, opts Options) (*analysis.Result, *model.History, error) {
	h, err := ingest.ReadFile(path, ingest.Options{Format: opts.Format, MaxBytes: opts.MaxBytes})
	if err != nil {
		return nil, nil, &InputError{err}
	}
	res, err := History(h, opts)
	return res, h, err
}

// Read reads a history from r (named name in messages) and checks it.
func Read(r io.Reader, name string, opts Options) (*analysis.Result, *model.History, error) {
	h, err := ingest.Read(r, name, ingest.Options{Format: opts.Format, MaxBytes: opts.MaxBytes})
	if err != nil {
		return nil, nil, &InputError{err}
	}
	res, err := History(h, opts)
	return res, h, err
}

// History checks a parsed history: it pairs invocations with completions,
// finds the workload (opts.Workload, or workload.Detect) and runs its
// checker.
func History(h *model.History, opts Options) (*analysis.Result, error) {
	// Pairing and detection each go through every op (20 and 30 ms for a
	// million ops): they run at once, and detection once, for AfterRead
	// and Workload alike. Errors keep their order: pairing's first.
	var pairing model.Pairing
	var err error
	paired := make(chan struct{})
	go func() {
		defer close(paired)
		pairing, err = model.Pair(h)
	}()
	var detected *workload.Workload
	var detectErr error
	if opts.Workload == "" || opts.AfterRead != nil {
		detected, detectErr = workload.Detect(h)
	}
	if opts.AfterRead != nil {
		opts.AfterRead(h, detected)
	}
	<-paired
	if err != nil {
		return nil, &InputError{err}
	}
	w, err := pick(h, opts.Workload, detected, detectErr)
	if err != nil {
		return nil, err
	}
	res := w.Check(h, pairing, opts.Analysis)
	v := version.Current()
	res.Hindsight = &v
	return res, nil
}

// Workload finds the workload of h: the named one, or the detected one when
// name is "". Mixed micro-ops and workloads without a checker are input
// errors; an unknown name is a usage error.
func Workload(h *model.History, name string) (*workload.Workload, error) {
	var detected *workload.Workload
	var err error
	if name == "" {
		detected, err = workload.Detect(h)
	}
	return pick(h, name, detected, err)
}

// pick is Workload once workload.Detect has given detected and detectErr
// (needed only when name is "").
func pick(h *model.History, name string, detected *workload.Workload, detectErr error) (*workload.Workload, error) {
	var w *workload.Workload
	if name == "" {
		if detectErr != nil {
			return nil, &InputError{detectErr}
		}
		w = detected
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
