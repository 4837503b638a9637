package proofcheck

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/gen"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

var referenceDir = flag.String("reference", "", "the reference folder (default: ../shared/reference beside the repository)")

// run checks h under opts and proof-checks every cycle instance; it
// returns the result and the number of cycle instances checked.
func run(t *testing.T, h *model.History, opts check.Options) (*analysis.Result, int) {
	t.Helper()
	res, err := check.History(h, opts)
	if err != nil {
		return nil, 0 // an input error: nothing to prove
	}
	c, err := New(h, res)
	if err != nil {
		t.Fatalf("%s: %v", h.Source, err)
	}
	for _, e := range c.Check() {
		t.Errorf("%s: %v", h.Source, e)
	}
	return res, cycles(res)
}

func cycles(res *analysis.Result) int {
	n := 0
	for _, ins := range res.Anomalies {
		for i := range ins {
			if c := ins[i].InstanceCycle(); c != nil && len(c.Steps) > 0 {
				n++
			}
		}
	}
	return n
}

func readFile(t *testing.T, path string) *model.History {
	t.Helper()
	h, err := ingest.ReadFile(path, ingest.Options{})
	if err != nil {
		return nil
	}
	return h
}

// optionSets are the option sets each fixture runs under: the defaults,
// and every version-order source (rw-register) and ww edges (queue) on.
func optionSets() []check.Options {
	def := check.DefaultOptions()
	all := check.DefaultOptions()
	all.Analysis.WWDeps = true
	all.Analysis.WFRKeys, all.Analysis.SequentialKeys, all.Analysis.LinearizableKeys = true, true, true
	weak := check.DefaultOptions()
	weak.Analysis.Models = []string{"read-uncommitted"}
	return []check.Options{def, all, weak}
}

// TestFixtures proof-checks every cycle of every fixture in testdata/,
// under each option set.
func TestFixtures(t *testing.T) {
	root := testpaths.Root()
	var files []string
	for _, pat := range []string{"testdata/*/*.edn", "testdata/*/*.json", "testdata/*/*.jsonl"} {
		fs, _ := filepath.Glob(filepath.Join(root, pat))
		for _, f := range fs {
			if !strings.HasSuffix(f, ".expected.json") && !strings.HasSuffix(f, ".expect.json") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d fixtures", len(files))
	}
	total, assumed := 0, 0
	for _, f := range files {
		h := readFile(t, f)
		if h == nil {
			continue
		}
		for _, o := range optionSets() {
			res, n := run(t, h, o)
			total += n
			assumed += notProven(res)
		}
	}
	t.Logf("%d fixtures, %d cycle instances checked (%d not proven)", len(files), total, assumed)
	if total < 50 {
		t.Errorf("only %d cycle instances", total)
	}
}

func notProven(res *analysis.Result) int {
	n := 0
	if res == nil {
		return 0
	}
	for _, ins := range res.Anomalies {
		for i := range ins {
			if c := ins[i].InstanceCycle(); c != nil && c.Proof != "" && c.Proof != analysis.Proven {
				n++
			}
		}
	}
	return n
}

// TestReference proof-checks every cycle of the reference histories of
// ../shared/reference/txn under each model Elle ran them with.
func TestReference(t *testing.T) {
	dir := *referenceDir
	if dir == "" {
		dir = testpaths.Reference(t)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "txn", "*.elle.json"))
	if len(files) == 0 {
		t.Fatal("no reference histories in ../shared/reference/txn")
	}
	if testing.Short() {
		t.Skip("the reference histories take a while; not with -short")
	}
	total := 0
	byProof := map[string]int{}
	for _, f := range files {
		var ref struct {
			Runs []struct {
				Models []string `json:"consistency_models"`
			} `json:"runs"`
		}
		testhist.ReadJSON(t, f, &ref)
		h := readFile(t, strings.TrimSuffix(f, ".elle.json")+".edn.gz")
		if h == nil {
			t.Fatalf("%s: unreadable", f)
		}
		for _, r := range ref.Runs {
			o := check.DefaultOptions()
			o.Analysis.Models = r.Models
			res, n := run(t, h, o)
			total += n
			for _, ins := range res.Anomalies {
				for i := range ins {
					if c := ins[i].InstanceCycle(); c != nil && c.Proof != "" {
						byProof[c.Proof]++
					}
				}
			}
		}
	}
	t.Logf("reference: %d cycle instances checked: %v", total, byProof)
	if total == 0 {
		t.Error("no cycles in the reference histories")
	}
}

// TestGenerated proof-checks the cycles of small generated histories with
// each fault kind of the generators (queue, list-append, rw-register).
func TestGenerated(t *testing.T) {
	total := 0
	for _, k := range gen.FaultKinds() {
		var buf bytes.Buffer
		cfg := gen.Config{Seed: 1, Ops: 600, Concurrency: 6, Keys: 3, TxnFraction: 0.3, Faults: []gen.Fault{{Kind: k, Count: 2}}}
		if _, err := gen.Write(&buf, cfg); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		h, err := ingest.Read(&buf, "queue-"+k.String(), ingest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		for _, o := range optionSets() {
			_, n := run(t, h, o)
			total += n
		}
	}
	for _, w := range []gen.Workload{gen.ListAppend, gen.RWRegister} {
		for _, k := range gen.TxnFaultKinds() {
			var buf bytes.Buffer
			cfg := gen.TxnConfig{Seed: 1, Workload: w, Txns: 400, Concurrency: 6, Keys: 4, InfoRate: 0.02, FailRate: 0.02,
				Faults: []gen.TxnFault{{Kind: k, Count: 2}}}
			if _, err := gen.WriteTxn(&buf, cfg); err != nil {
				continue // a fault the workload has not
			}
			h, err := ingest.Read(&buf, fmt.Sprintf("%v-%v", w, k), ingest.Options{})
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			for _, o := range optionSets() {
				_, n := run(t, h, o)
				total += n
			}
		}
	}
	t.Logf("generated: %d cycle instances checked", total)
	if total == 0 {
		t.Error("no cycles in the generated histories")
	}
}

// TestFuzzCorpus proof-checks the cycles of every parser fuzz seed that is
// a history.
func TestFuzzCorpus(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join(testpaths.Root(), "ingest", "testdata", "fuzz", "*", "*"))
	if len(seeds) == 0 {
		t.Fatal("no fuzz corpus in ingest/testdata/fuzz")
	}
	for _, s := range seeds {
		raw, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			i, j := strings.Index(line, "("), strings.LastIndex(line, ")")
			if i < 0 || j < i {
				continue
			}
			body, err := strconv.Unquote(line[i+1 : j])
			if err != nil {
				continue
			}
			h, err := ingest.Read(strings.NewReader(body), filepath.Base(s), ingest.Options{})
			if err != nil {
				continue
			}
			for _, o := range optionSets() {
				run(t, h, o)
			}
		}
	}
}

// TestSimPrefixRegressions are issue 18's two false claims, on excerpts of
// the reference histories sim-prefix-2k and sim-prefix-20k: a ww step
// placed an element after a key's order as "never read" although another
// read showed it. Each cycle is still found (same type), says it assumes
// the order of the key, names the read that shows the element, and passes
// the proof checker.
func TestSimPrefixRegressions(t *testing.T) {
	for _, tc := range []struct {
		file, typ, key string
		cycle          []int64
		reader         int64
	}{
		{"sim-prefix-2k-g0-assumed-order-invalid.edn", "G0", "10", []int64{178, 214}, 178},
		{"sim-prefix-20k-g-single-assumed-order-invalid.edn", "G-single-item", "8", []int64{162, 198}, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			h := readFile(t, filepath.Join(testpaths.Root(), "testdata", "proofs", tc.file))
			if h == nil {
				t.Fatal("unreadable")
			}
			res, _ := run(t, h, check.DefaultOptions())
			var in *analysis.CycleFields
			for _, ai := range res.Anomalies[tc.typ] {
				if c := ai.InstanceCycle(); c != nil && slices.Equal(c.Cycle, tc.cycle) {
					in = c
				}
			}
			if in == nil {
				t.Fatalf("no %s cycle %v: %v", tc.typ, tc.cycle, res.AnomalyTypes)
			}
			if in.Proof != analysis.Assumes {
				t.Errorf("proof %q", in.Proof)
			}
			found := false
			for _, st := range in.Steps {
				if st.Key == nil || st.Key.String() != tc.key {
					continue
				}
				if st.Unread {
					t.Errorf("step %d → %d calls %s never read", st.From, st.To, st.Values[1])
				}
				if st.Contested && st.Placed && (tc.reader == 0 || slices.Contains(st.ContradictedBy, tc.reader)) {
					found = true
				}
			}
			if !found {
				t.Errorf("no placed, contested step on key %s naming the read: %+v", tc.key, in.Steps)
			}
		})
	}
}

// mutation corrupts a copy of a real instance; apply reports false when
// the instance has nothing it corrupts.
type mutation struct {
	name  string
	apply func(typ *string, in *corrupted) bool
}

// corrupted is what a mutation corrupts: a copy of a real cycle
// instance's shared pieces, an analysis.Instance of its own.
type corrupted struct {
	analysis.Subject
	*analysis.CycleFields
	analysis.Evidence
}

func clone(ai analysis.Instance) *corrupted {
	c, ev := *ai.InstanceCycle(), *ai.InstanceEvidence()
	out := &corrupted{Subject: analysis.Subject{Key: ai.InstanceKey()}, CycleFields: &c, Evidence: ev}
	in := out
	out.Cycle = slices.Clone(in.Cycle)
	out.Witness = slices.Clone(in.Witness)
	out.Given = slices.Clone(in.Given)
	out.Assumes = slices.Clone(in.Assumes)
	out.Steps = slices.Clone(in.Steps)
	for i := range out.Steps {
		st := &out.Steps[i]
		st.Values = slices.Clone(st.Values)
		st.Mops = slices.Clone(st.Mops)
		st.ContradictedBy = slices.Clone(st.ContradictedBy)
		st.OrderOps = slices.Clone(st.OrderOps)
	}
	return out
}

var bogus = analysis.AtomValue(model.IntAtom(-987654321))

var mutations = []mutation{
	{"a step's value", func(_ *string, in *corrupted) bool {
		for i := range in.Steps {
			st := &in.Steps[i]
			switch {
			case len(st.Values) == 2:
				st.Values[1] = bogus
				return true
			case st.Value != nil:
				v := bogus
				st.Value = &v
				return true
			}
		}
		return false
	}},
	{"a step's first value", func(_ *string, in *corrupted) bool {
		for i := range in.Steps {
			if st := &in.Steps[i]; len(st.Values) == 2 && st.Rel == "ww" {
				st.Values[0] = bogus
				return true
			}
		}
		return false
	}},
	{"a step's relation", func(_ *string, in *corrupted) bool {
		swap := map[string]string{"wr": "ww", "ww": "wr", "rw": "ww", "process": "wr", "realtime": "wr"}
		for i := range in.Steps {
			if r, ok := swap[in.Steps[i].Rel]; ok {
				in.Steps[i].Rel = r
				return true
			}
		}
		return false
	}},
	{"the type", func(typ *string, in *corrupted) bool {
		if strings.HasSuffix(*typ, "-cycle-exists") {
			return false
		}
		rw := 0
		for _, st := range in.Steps {
			if st.Rel == "rw" {
				rw++
			}
		}
		sfx := ""
		for _, s := range []string{"-process", "-realtime"} {
			if strings.HasSuffix(*typ, s) {
				sfx = s
			}
		}
		if rw == 0 {
			*typ = "G-single-item" + sfx
		} else {
			*typ = "G0" + sfx
		}
		return true
	}},
	{"the form of the type", func(typ *string, in *corrupted) bool {
		switch {
		case strings.HasSuffix(*typ, "-cycle-exists"):
			return false
		case strings.HasSuffix(*typ, "-realtime"), strings.HasSuffix(*typ, "-process"):
			*typ = strings.TrimSuffix(strings.TrimSuffix(*typ, "-realtime"), "-process")
		default:
			*typ += "-realtime"
		}
		return true
	}},
	{"a witness op", func(_ *string, in *corrupted) bool {
		in.Witness = slices.DeleteFunc(in.Witness, func(x int64) bool { return x == in.Steps[0].From })
		return true
	}},
	{"the order op's witness", func(_ *string, in *corrupted) bool {
		for _, st := range in.Steps {
			if st.OrderOp != nil && !slices.Contains(in.Cycle, *st.OrderOp) {
				in.Witness = slices.DeleteFunc(in.Witness, func(x int64) bool { return x == *st.OrderOp })
				return true
			}
		}
		return false
	}},
	{"an assumed order's read in the witness", func(_ *string, in *corrupted) bool {
		for _, a := range in.Assumes {
			if a.OrderOp != nil {
				in.Witness = slices.DeleteFunc(in.Witness, func(x int64) bool { return x == *a.OrderOp })
				return true
			}
		}
		return false
	}},
	{"the chain", func(_ *string, in *corrupted) bool {
		in.Cycle[0], in.Cycle[1] = in.Cycle[1], in.Cycle[0]
		return true
	}},
	{"a step's end", func(_ *string, in *corrupted) bool {
		in.Steps[0].To = in.Steps[0].From
		return true
	}},
	{"a dropped step", func(_ *string, in *corrupted) bool {
		in.Steps = in.Steps[:len(in.Steps)-1]
		return true
	}},
	{"the proof state", func(_ *string, in *corrupted) bool {
		if in.Proof == analysis.Proven {
			in.Proof = analysis.Assumes
		} else {
			in.Proof = analysis.Proven
		}
		return true
	}},
	{"a contested step made proven", func(_ *string, in *corrupted) bool {
		for i := range in.Steps {
			if st := &in.Steps[i]; st.Contested {
				st.Contested, st.ContradictedBy, st.Placed = false, nil, false
				in.Assumes = nil
				in.Proof = analysis.Proven
				return true
			}
		}
		return false
	}},
	{"a proven step made contested", func(_ *string, in *corrupted) bool {
		for i := range in.Steps {
			if st := &in.Steps[i]; !st.Contested && (st.Rel == "ww" || st.Rel == "rw") {
				st.Contested, st.ContradictedBy = true, []int64{st.From}
				in.Assumes = append(in.Assumes, analysis.Assumption{Key: st.Key, ContradictedBy: []int64{st.From}})
				in.Proof = analysis.Assumes
				return true
			}
		}
		return false
	}},
	{"a read element called unread", func(_ *string, in *corrupted) bool {
		for i := range in.Steps {
			if st := &in.Steps[i]; st.Placed {
				st.Placed, st.Unread = false, true
				return true
			}
		}
		return false
	}},
	{"a contradicting read", func(_ *string, in *corrupted) bool {
		for i := range in.Steps {
			if st := &in.Steps[i]; st.Contested {
				st.ContradictedBy[0] = 1 << 40 // no op of the history
				return true
			}
		}
		return false
	}},
}

// TestMutations corrupts the steps, values, types, proof states and
// witnesses of real instances (fixtures, generated histories and the
// sim-prefix excerpts) and requires the checker to reject every corrupted
// one, and to accept every real one.
func TestMutations(t *testing.T) {
	root := testpaths.Root()
	var files []string
	for _, dir := range []string{"list-append", "list-append-cases", "rw-register", "rw-register-cases", "queue", "types", "proofs"} {
		fs, _ := filepath.Glob(filepath.Join(root, "testdata", dir, "*.edn"))
		files = append(files, fs...)
	}
	caught := map[string]int{}
	for _, f := range files {
		h := readFile(t, f)
		if h == nil {
			continue
		}
		for _, o := range optionSets() {
			res, err := check.History(h, o)
			if err != nil {
				continue
			}
			c, err := New(h, res)
			if err != nil {
				t.Fatal(err)
			}
			for typ, ins := range res.Anomalies {
				for i := range ins {
					cyc := ins[i].InstanceCycle()
					if cyc == nil || len(cyc.Steps) == 0 {
						continue
					}
					if err := c.Instance(typ, ins[i]); err != nil {
						t.Fatalf("%s: the real %s %v fails: %v", f, typ, cyc.Cycle, err)
					}
					for _, m := range mutations {
						mt, mi := typ, clone(ins[i])
						if !m.apply(&mt, mi) {
							continue
						}
						if err := c.Instance(mt, mi); err == nil {
							t.Errorf("%s: %s %v with %s corrupted passes", filepath.Base(f), typ, cyc.Cycle, m.name)
						} else {
							caught[m.name]++
						}
					}
				}
			}
		}
	}
	for _, m := range mutations {
		if caught[m.name] == 0 {
			t.Errorf("no instance had %s to corrupt", m.name)
		}
	}
	t.Logf("mutations caught: %v", caught)
}
