// Package check wires the pipeline together: read a history (package
// ingest), validate its structure (model.Pair), detect the workload and run
// its checker. The command line, the report and the scanner all go through
// it, so a history gets the same verdict whichever way it is checked.
package check

import (
	"errors"
	"fmt"
	"io"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
)

// Options are the options of one check.
type Options struct {
	// Workload is "" (detect), or "queue". list-append and rw-register are
	// recognised and refused until their checkers exist.
	Workload string
	// Format forces the input format.
	Format ingest.Format
	// Queue are the queue checker's options.
	Queue queue.Options
	// AfterRead, if set, is called once the history is read and before it
	// is analysed (the command line adapts its memory budget there).
	AfterRead func(h *model.History)
}

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
	h, err := ingest.ReadFile(path, ingest.Options{Format: opts.Format})
	if err != nil {
		return nil, nil, &InputError{err}
	}
	res, err := History(h, opts)
	return res, h, err
}

// Read reads a history from r (named name in messages) and checks it.
func Read(r io.Reader, name string, opts Options) (*analysis.Result, *model.History, error) {
	h, err := ingest.Read(r, name, ingest.Options{Format: opts.Format})
	if err != nil {
		return nil, nil, &InputError{err}
	}
	res, err := History(h, opts)
	return res, h, err
}

// History checks a parsed history.
func History(h *model.History, opts Options) (*analysis.Result, error) {
	if opts.AfterRead != nil {
		opts.AfterRead(h)
	}
	pairing, err := model.Pair(h)
	if err != nil {
		return nil, &InputError{err}
	}
	w := opts.Workload
	if w == "" {
		w = Detect(h)
	}
	switch w {
	case "queue":
		return queue.Check(h, pairing, opts.Queue), nil
	case "list-append", "rw-register", "other":
		return nil, &InputError{fmt.Errorf("%s: this is not a queue history (its micro-ops are not :send/:poll); "+
			"only the queue workload is implemented so far", h.Source)}
	}
	return nil, fmt.Errorf("unknown workload %q (known: queue)", w)
}

// Detect names the workload of h from its micro-ops: "queue" when any op
// sends or polls, "other" when ops carry only other micro-ops, and "queue"
// for a history with no micro-ops at all (nothing to tell it apart).
func Detect(h *model.History) string {
	other := false
	for i := range h.Ops {
		for _, m := range h.MopsOf(&h.Ops[i]) {
			switch m.Kind {
			case model.MopSend, model.MopPoll:
				return "queue"
			case model.MopOther:
				other = true
			}
		}
	}
	if other {
		return "other"
	}
	return "queue"
}
