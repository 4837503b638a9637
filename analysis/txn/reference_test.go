package txn

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/consistency"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

type elleRun struct {
	Models []string       `json:"consistency_models"`
	Valid  any            `json:"valid"`
	Types  []string       `json:"anomaly_types"`
	Counts map[string]int `json:"anomaly_counts"`
	Not    []string       `json:"not"`
	Also   []string       `json:"also_not"`
}

type elleReference struct {
	Model string    `json:"model"`
	Runs  []elleRun `json:"runs"`
}

// TestReferenceListAppend checks hindsight against Elle on the generated
// list-append histories of shared/reference/txn, under each model Elle was
// run with: the same verdict and the same not/also_not always. Where Elle's
// search finished (no cycle-search-timeout), also the same anomalies up to
// Elle's implication lattice (hindsight's search is complete where Elle's
// breadth-first search keeps the first cycle it meets, so it may find a
// type that implies the one Elle reported in a component, and then, as
// Elle does, skip the implied one), and the same non-cycle types with the
// same counts (lost-update: at most Elle's, see the package doc). Where
// Elle timed out, its types vary between runs; then every non-cycle type
// it found must be found here too.
func TestReferenceListAppend(t *testing.T) {
	runReference(t, "list-append", CheckListAppend)
}

// TestReferenceRWRegister does the same for the generated rw-register
// histories (Elle ran them with its default options: no version-order
// source beyond the initial state), and, as Elle's search finished on all
// of them, requires exactly Elle's anomaly types under every model.
func TestReferenceRWRegister(t *testing.T) {
	runReference(t, "rw-register", func(h *model.History, p model.Pairing, o Options) *analysis.Result {
		res := CheckRWRegister(h, p, o)
		if len(rwRuns[h.Source]) == 0 {
			t.Fatalf("no Elle runs recorded for %s", h.Source)
		}
		for _, run := range rwRuns[h.Source] {
			if slices.Equal(run.Models, o.Models) && !slices.Equal(res.AnomalyTypes, nonNil(run.Types)) {
				t.Errorf("%s %v: types %v, Elle %v", h.Source, o.Models, res.AnomalyTypes, run.Types)
			}
		}
		return res
	})
}

// rwRuns are Elle's runs of each rw-register reference history, by the
// history's source name (filled by runReference).
var rwRuns = map[string][]elleRun{}

func runReference(t *testing.T, workload string, check func(*model.History, model.Pairing, Options) *analysis.Result) {
	files, _ := filepath.Glob(filepath.Join(testpaths.Reference(t), "txn", "*.elle.json"))
	if len(files) == 0 {
		t.Fatal("no Elle reference results in ../shared/reference/txn")
	}
	for _, f := range files {
		var ref elleReference
		testhist.ReadJSON(t, f, &ref)
		if ref.Model != workload {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".elle.json")
		rwRuns[strings.TrimSuffix(f, ".elle.json")+".edn.gz"] = ref.Runs
		t.Run(name, func(t *testing.T) {
			h, p := testhist.File(t, strings.TrimSuffix(f, ".elle.json")+".edn.gz")
			for _, run := range ref.Runs {
				res := check(h, p, Options{Models: run.Models, CycleBudget: DefaultOptions().CycleBudget})
				compareElleRun(t, run, res)
			}
		})
	}
}

func compareElleRun(t *testing.T, run elleRun, res *analysis.Result) {
	t.Helper()
	wantV := map[any]analysis.Verdict{true: analysis.Valid, false: analysis.Invalid, "unknown": analysis.Unknown}[run.Valid]
	if res.Verdict != wantV {
		t.Errorf("%v: verdict %s, Elle %v", run.Models, res.Verdict, run.Valid)
	}
	if !slices.Equal(res.Not, nonNil(run.Not)) || !slices.Equal(res.AlsoNot, nonNil(run.Also)) {
		t.Errorf("%v: not %v also_not %v, Elle %v and %v", run.Models, res.Not, res.AlsoNot, run.Not, run.Also)
	}
	if len(analysis.InstancesOf[*Instance](res, CycleSearchTimeout)) > 0 {
		t.Errorf("%v: hindsight's search ran out of its budget", run.Models)
	}
	ours := map[string]int{}
	for typ, ins := range res.Anomalies {
		ours[typ] = len(ins)
	}
	_, elleTimedOut := run.Counts[CycleSearchTimeout]
	for typ, n := range run.Counts {
		if consistency.IsCycleType(typ) || typ == CycleSearchTimeout {
			continue
		}
		switch {
		case ours[typ] == 0:
			t.Errorf("%v: Elle found %d %s, hindsight none", run.Models, n, typ)
		case elleTimedOut:
		case typ == LostUpdate && ours[typ] <= n:
		case ours[typ] != n:
			t.Errorf("%v: %d %s, Elle %d", run.Models, ours[typ], typ, n)
		}
	}
	if elleTimedOut {
		return
	}
	for typ := range ours {
		if !consistency.IsCycleType(typ) && run.Counts[typ] == 0 {
			t.Errorf("%v: hindsight found %s, Elle did not", run.Models, typ)
		}
	}
	ci := consistency.ImpliedAnomalies(res.AnomalyTypes...).Sorted()
	ce := consistency.ImpliedAnomalies(run.Types...).Sorted()
	if !slices.Equal(ci, ce) {
		t.Errorf("%v: types %v, Elle %v: not the same up to implication", run.Models, res.AnomalyTypes, run.Types)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
