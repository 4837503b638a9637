package workload

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/abort"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/abortview"
)

// registerAbort registers the abort workload and its value decoder. It
// runs from workload.go's init, after queue.go's and txn.go's (a package's
// init functions run in the order of its files' names), so that abort
// comes last in the registry: the workloads before it keep their order in
// listings and the scanner's columns.
func registerAbort() {
	register(&Workload{
		Name:      abort.Workload,
		Doc:       abort.Doc,
		Owns:      func(model.MopKind, bool) bool { return false }, // its polls carry maps, not micro-ops
		Recognise: abort.Recognise,
		Check: func(h *model.History, p model.Pairing, o Options) *analysis.Result {
			return abort.Check(h, p, abortOptions(o))
		},
		Flags:        []string{"abort-contract"},
		Memory:       MemoryTwiceFile,
		IgnoresTimes: true,
		Types:        abort.Catalogue(),
		Layout:       abortview.Layout{},
		ValueEDN:     abort.EDN,
	})
	registerDecoder(abort.Workload, abort.Decoder{})
}

// abortOptions turns the command's options into the abort checker's; an
// unknown contract (the command line rejects one) is the default.
func abortOptions(o Options) abort.Options {
	c, _ := abort.ParseContract(o.AbortContract)
	return abort.Options{Contract: c}
}

// ValidateAbortContract checks an --abort-contract value: kafka or rewind
// ("" is kafka).
func ValidateAbortContract(s string) error {
	_, err := abort.ParseContract(s)
	return err
}
