package workload_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/analysis/txn"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testfixture"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// These tests hold the catalogue to its promise (package catalog): every
// anomaly type a checker can report has exactly one entry per workload,
// and that entry is the only place its name is spelled. Each failure
// message says which file a contributor edits.

// root is the repository's root, from this package's folder.
const root = ".."

// Reasons of noFixture.
const (
	shadowed = "a projection's cycle is reported only when no typed cycle (G0, G1c, G-single-item ...) rules its model out; " +
		"every small cycle is found as a typed one, which shadows it (docs/list-append.md#model-cycle-exists)"
)

// noFixture lists the entries (workload/name) no small fixture under
// testdata/ produces, each with its reason. An entry here still needs its
// docs section, and sampleInstance gives it an instance to render.
var noFixture = map[string]string{
	"list-append/PL-1-cycle-exists":                              shadowed,
	"list-append/PL-2-cycle-exists":                              shadowed,
	"list-append/PL-SI-cycle-exists":                             shadowed,
	"list-append/PL-2.99-cycle-exists":                           shadowed,
	"list-append/PL-3-cycle-exists":                              shadowed,
	"list-append/PL-SS-cycle-exists":                             shadowed,
	"list-append/strong-PL-1-cycle-exists":                       shadowed,
	"list-append/strong-PL-2-cycle-exists":                       shadowed,
	"list-append/strong-session-PL-1-cycle-exists":               shadowed,
	"list-append/strong-session-PL-2-cycle-exists":               shadowed,
	"list-append/strong-session-serializable-cycle-exists":       shadowed,
	"list-append/strong-session-snapshot-isolation-cycle-exists": shadowed,
	"rw-register/PL-1-cycle-exists":                              shadowed,
	"rw-register/PL-2-cycle-exists":                              shadowed,
	"rw-register/PL-SI-cycle-exists":                             shadowed,
	"rw-register/PL-2.99-cycle-exists":                           shadowed,
	"rw-register/PL-3-cycle-exists":                              shadowed,
	"rw-register/PL-SS-cycle-exists":                             shadowed,
	"rw-register/strong-PL-1-cycle-exists":                       shadowed,
	"rw-register/strong-PL-2-cycle-exists":                       shadowed,
	"rw-register/strong-session-PL-1-cycle-exists":               shadowed,
	"rw-register/strong-session-PL-2-cycle-exists":               shadowed,
	"rw-register/strong-session-serializable-cycle-exists":       shadowed,
	"rw-register/strong-session-snapshot-isolation-cycle-exists": shadowed,
	"rw-register/strong-snapshot-isolation-cycle-exists":         shadowed,
}

// sampleInstance is a hand-made instance of an entry in noFixture, so
// that its rendering is checked too: a two-txn cycle (wr, then rw) for
// the cycle types, the fields of a timeout for cycle-search-timeout.
func sampleInstance(name string) analysis.Instance {
	if strings.HasSuffix(name, "cycle-search-timeout") {
		n := int64(4)
		return &txn.Instance{SpecType: "G-single-item", SCCSize: &n, DoesNotContain: []string{"G0", "G1c"}}
	}
	k, v0, v1 := analysis.AtomValuePtr(model.KeywordAtom("x")), analysis.AtomValue(model.IntAtom(1)), analysis.AtomValue(model.IntAtom(2))
	return &txn.Instance{Not: "serializable", Subgraph: "ww+wr+rw", Evidence: analysis.Evidence{Witness: []int64{0, 1, 2, 3}},
		CycleFields: &analysis.CycleFields{Cycle: []int64{1, 3}, Steps: []analysis.Step{{From: 1, To: 3, Rel: "wr", Key: k, Value: &v0},
			{From: 3, To: 1, Rel: "rw", Key: k, Values: []analysis.Value{v0, v1}}}}}
}

// entries lists every catalogue entry, keyed workload/name.
func entries(t *testing.T) map[string]workload.AnomalyType {
	t.Helper()
	es := map[string]workload.AnomalyType{}
	for _, w := range workload.All() {
		for _, e := range w.Types {
			if e.Workload != w.Name {
				t.Errorf("%s/%s: the entry says workload %q", w.Name, e.Name, e.Workload)
			}
			es[w.Name+"/"+e.Name] = e
		}
	}
	return es
}

// stringConsts returns the values of the string constants of a Go file.
func stringConsts(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		gd, ok := n.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			return true
		}
		for _, s := range gd.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
		}
		return false
	})
	return out
}

// TestCatalogueCoversCheckers: every type constant of a checker
// (analysis/queue/types.go, analysis/txn/types.go) has a catalogue entry
// in a workload that checker serves.
func TestCatalogueCoversCheckers(t *testing.T) {
	es := entries(t)
	for file, workloads := range map[string][]string{
		"analysis/queue/types.go": {"queue"},
		"analysis/txn/types.go":   {"list-append", "rw-register"},
		"analysis/abort/types.go": {"abort"},
	} {
		for _, name := range stringConsts(t, filepath.Join(root, file)) {
			found := false
			for _, w := range workloads {
				_, ok := es[w+"/"+name]
				found = found || ok
			}
			if !found {
				t.Errorf("%s declares %s, but no catalogue of %v has an entry for it (add one to the catalogue.go beside it)", file, name, workloads)
			}
		}
	}
}

// TestCatalogueDocumented: every entry has its section on its workload's
// page: a heading that is its name, or, for the cycle-exists family that
// shares one section, a table row anchored by its Doc anchor and naming
// it.
func TestCatalogueDocumented(t *testing.T) {
	pages := map[string]string{}
	for key, e := range entries(t) {
		path, anchor, _ := strings.Cut(e.Doc, "#")
		page, ok := pages[path]
		if !ok {
			raw, err := os.ReadFile(filepath.Join(root, path))
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			page = string(raw)
			pages[path] = page
		}
		heading, family := false, false
		for _, sec := range strings.Split(page, "\n## ")[1:] {
			h, body, _ := strings.Cut(sec, "\n")
			h = strings.Trim(h, "`")
			heading = heading || h == e.Name
			family = family || inFamily(h, e.Name) && strings.Contains(body, `<a id="`+anchor+`">`)
		}
		if !heading && !family {
			t.Errorf("%s: %s has no section headed %q (Doc %s)", key, path, e.Name, e.Doc)
		}
		if heading && anchor != catalog.Anchor(e.Name) {
			t.Errorf("%s: Doc anchor %q, but its heading's anchor is %q", key, anchor, catalog.Anchor(e.Name))
		}
	}
}

// inFamily reports whether a section heading that names a family of types
// with a placeholder ("<model>-cycle-exists") covers name.
func inFamily(heading, name string) bool {
	pre, rest, ok := strings.Cut(heading, "<")
	if !ok {
		return false
	}
	_, suf, ok := strings.Cut(rest, ">")
	return ok && len(name) > len(pre)+len(suf) && strings.HasPrefix(name, pre) && strings.HasSuffix(name, suf)
}

// fixture is what a fixture's expectation file says: the options it is
// checked under and the types it shows.
type fixture struct {
	Workload     string                  `json:"workload"`
	Options      testhist.FixtureOptions `json:"options"`
	AnomalyTypes []string                `json:"anomaly_types"`
}

// produced runs every fixture under testdata/ that has an expectation file
// (NAME.expect.json or NAME.expected.json) under its options, and returns
// one instance of each workload/type the checkers reported, from the first
// fixture (in path order) that shows it.
func produced(t *testing.T) map[string]analysis.Instance {
	t.Helper()
	got := map[string]analysis.Instance{}
	var expects []string
	err := filepath.WalkDir(filepath.Join(root, "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(p, ".expect.json") || strings.HasSuffix(p, ".expected.json")) {
			expects = append(expects, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, exp := range expects {
		var f fixture
		testhist.ReadJSON(t, exp, &f)
		hist := strings.TrimSuffix(strings.TrimSuffix(exp, ".expect.json"), ".expected.json") + ".edn"
		file, err := os.Open(hist)
		if err != nil {
			continue // an expectation of a history in another format
		}
		h, err := ingest.Read(file, hist, ingest.Options{Decoders: workload.Decoders()})
		file.Close()
		if err != nil {
			continue // a fixture of an input error
		}
		w, err := workload.Detect(h)
		if f.Workload != "" {
			w, err = workload.MustLookup(f.Workload), nil
		}
		if err != nil || w.Check == nil {
			continue
		}
		p, err := model.Pair(h)
		if err != nil {
			continue
		}
		res := w.Check(h, p, testfixture.Options(t, &f.Options))
		for _, typ := range res.AnomalyTypes {
			if key := w.Name + "/" + typ; len(res.Anomalies[typ]) > 0 {
				if _, ok := got[key]; !ok {
					got[key] = res.Anomalies[typ][0]
				}
			}
		}
	}
	return got
}

// TestCatalogueProducedAndRendered: every entry is produced by a fixture
// under testdata/ (or is in noFixture, with its reason), and its Explain
// words that fixture's instance (or its sample instance) in a sentence of
// its own, not the fallback; a cycle's steps are worded too.
func TestCatalogueProducedAndRendered(t *testing.T) {
	es := entries(t)
	got := produced(t)
	for key, e := range es {
		in, ok := got[key]
		reason := noFixture[key]
		switch {
		case ok && reason != "":
			t.Errorf("%s is in noFixture (%q), but a fixture produces it: drop the exemption", key, reason)
		case !ok && reason == "":
			t.Errorf("%s: no fixture under testdata/ produces it (add one, or an exemption with its reason to noFixture)", key)
			continue
		case !ok:
			in = sampleInstance(e.Name)
		}
		if e.Explain == nil {
			t.Errorf("%s: no Explain", key)
			continue
		}
		s := e.Explain(in, nil)
		if s == "" || s == catalog.Fallback(e.Name, in) {
			t.Errorf("%s: Explain gives %q for %+v", key, s, in)
		}
		w := workload.MustLookup(e.Workload)
		var steps []analysis.Step
		if c := in.InstanceCycle(); c != nil {
			steps = c.Steps
		}
		for _, st := range steps {
			if w.ExplainStep == nil || w.ExplainStep(st, nil) == "" {
				t.Errorf("%s: step %+v has no words", key, st)
			}
		}
	}
	for key := range got {
		if _, ok := es[key]; !ok {
			t.Errorf("a fixture produces %s, which has no catalogue entry", key)
		}
	}
	for key := range noFixture {
		if _, ok := es[key]; !ok {
			t.Errorf("noFixture lists %s, which no catalogue has", key)
		}
	}
}

// literalExempt are string literals in report/, scan/, check/ and cmd/
// that equal a type's name but do not name the type, each with its
// reason, keyed file:literal.
var literalExempt = map[string]string{
	"scan/member.go:duplicate":          "SkipDuplicate, the reason a scan skips an archive member whose name repeats",
	"report/queueview/series.go:unseen": "the unseen-values chart's kind and axis, names the page script knows",
}

// TestNoTypeNameLiterals: no anomaly type's name is spelled as a Go
// string literal in report/, scan/, check/ or cmd/ outside tests; they
// reach a type through its catalogue entry (workload.Describe). Nor is a
// type's or a workload's name spelled as a string in an action of a page
// template under report/: the page asks the workload's layout for its
// parts (page.Parts) rather than branch on which workload it shows.
func TestNoTypeNameLiterals(t *testing.T) {
	names := map[string]bool{}
	for _, w := range workload.All() {
		for _, e := range w.Types {
			names[e.Name] = true
		}
	}
	found := templateLiterals(t, names)
	for _, dir := range []string{"report", "scan", "check", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && names[s] && literalExempt[rel+":"+s] == "" {
					found = append(found, fmt.Sprintf("%s: %q", rel, s))
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(found) > 0 {
		t.Errorf("%d anomaly type names spelled as literals (use the catalogue entry instead):\n%s", len(found), strings.Join(found, "\n"))
	}
}

// templateAction and templateString find the quoted strings inside the
// actions ({{ ... }}) of a page template.
var (
	templateAction = regexp.MustCompile(`(?s){{.*?}}`)
	templateString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// templateLiterals lists, as file: "literal", the strings in the actions
// of the page templates under report/ that name an anomaly type (one of
// types) or a workload, but for those literalExempt lists.
func templateLiterals(t *testing.T, types map[string]bool) []string {
	t.Helper()
	names := maps.Clone(types)
	for _, w := range workload.All() {
		names[w.Name] = true
	}
	var found []string
	err := filepath.WalkDir(filepath.Join(root, "report"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tmpl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, action := range templateAction.FindAllString(string(b), -1) {
			for _, m := range templateString.FindAllStringSubmatch(action, -1) {
				if names[m[1]] && literalExempt[rel+":"+m[1]] == "" {
					found = append(found, fmt.Sprintf("%s: %q", rel, m[1]))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
