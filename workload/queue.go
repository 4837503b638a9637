package workload

import (
	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/queue"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/queueview"
)

func init() {
	register(&Workload{
		Name: queue.Workload,
		Doc:  queue.Doc,
		Owns: func(k model.MopKind, _ bool) bool { return k == model.MopSend || k == model.MopPoll },
		Check: func(h *model.History, p model.Pairing, o Options) *analysis.Result {
			return queue.Check(h, p, queueOptions(o))
		},
		Flags:       []string{"ww-deps", "sub-via", "cycle-budget", "stall-threshold"},
		Types:       queue.Catalogue(),
		ExplainStep: queue.ExplainStep,
		Layout:      queueview.Layout{},
	})
}

// queueOptions turns the command's options into the queue checker's.
func queueOptions(o Options) queue.Options {
	qo := queue.Options{WWDeps: o.WWDeps, CycleBudget: o.CycleBudget, StallThreshold: o.StallThreshold, Series: o.Series,
		Cores: o.Cores}
	switch o.SubVia {
	case "assign":
		qo.SubVia = queue.SubAssign
	case "subscribe":
		qo.SubVia = queue.SubSubscribe
	}
	return qo
}
