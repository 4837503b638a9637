package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/workload"
)

// JUnit XML, in the Ant/Jenkins dialect that GitHub (test-reporter
// actions), GitLab (artifacts:reports:junit) and Jenkins (the junit step)
// all render: <testsuites> holding one <testsuite> per history, each with
// <properties> and one <testcase> per anomaly type the workload knows
// (docs/ci.md):
//
//   - a type not found passes;
//   - a bad type fails (<failure>), with its count, meaning, docs anchor and
//     the first examples in words, as the text summary has them;
//   - a type found but allowed, or informational, is skipped (<skipped>);
//   - a type that leaves the verdict undecided, and an unknown verdict
//     without one, is an error (<error>), as is a history that could not
//     be read (a suite with the single case "read").
//
// Each suite's properties name the workload, the models checked, the
// hindsight build, the verdict and the history's sha256 and bytes.

// JUnitSuites is the document: every history's suite.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one history.
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is a name and a value.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one anomaly type of one history; at most one of Failure,
// Error and Skipped is set (none: passed).
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitMessage `xml:"failure,omitempty"`
	Error     *JUnitMessage `xml:"error,omitempty"`
	Skipped   *JUnitMessage `xml:"skipped,omitempty"`
}

// JUnitMessage is a failure, an error or a skip: a one-line message, a
// type, and the details as text.
type JUnitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	// Text is written as CDATA, its lines kept as they are.
	Text string `xml:",cdata"`
}

// JUnitSummary is what a suite is built from: a check result's summary,
// or a scan row's (package scan reads them back). Examples, when set,
// gives the first instances of a type in words.
type JUnitSummary struct {
	Source, Workload string
	Models           []string
	SHA256           string
	Bytes            int64
	Hindsight        string
	// Verdict is valid, invalid or unknown.
	Verdict        string
	UnknownReasons []string
	// Types are the anomaly types found, as TypeRows gives them.
	Types     []TypeRow
	ElapsedMS int64
	Examples  func(typ string) []string
}

// JUnitResult summarises a check result for JUnitSuiteOf: the first
// maxExamples instances of each type explained as the text summary
// explains them.
func JUnitResult(r *analysis.Result, lookup OpLookup, maxExamples int) JUnitSummary {
	s := JUnitSummary{
		Source: r.Source, Workload: r.Workload, Models: r.Models, SHA256: r.SHA256, Bytes: r.Bytes,
		Verdict: r.Verdict.String(), UnknownReasons: r.UnknownReasons, Types: TypeRows(r), ElapsedMS: r.Stats.ElapsedMS,
	}
	if r.Hindsight != nil {
		s.Hindsight = r.Hindsight.String()
	}
	s.Examples = func(typ string) []string {
		ins := r.Anomalies[typ]
		var out []string
		for i := range ins {
			if i == maxExamples {
				out = append(out, fmt.Sprintf("… and %d more (hindsight check --format json has every instance)", len(ins)-maxExamples))
				break
			}
			line := textExplanation(ExplainIn(r.Workload, typ, ins[i], lookup))
			if note := page.ProofNote(ins[i]); note != "" {
				line += "\n  " + note
			}
			if w := ins[i].InstanceEvidence().Witness; len(w) > 0 {
				line += "\n  witness: ops " + textWitness(w)
			}
			out = append(out, line)
		}
		return out
	}
	return s
}

// JUnitSuiteOf builds the suite of one history: one case per type the
// workload knows (in its order), then any other type found.
func JUnitSuiteOf(s JUnitSummary) JUnitSuite {
	suite := JUnitSuite{Name: s.Source, Time: seconds(s.ElapsedMS)}
	prop := func(n, v string) { suite.Properties = append(suite.Properties, JUnitProperty{n, v}) }
	prop("source", s.Source)
	prop("workload", s.Workload)
	if len(s.Models) > 0 {
		prop("models", strings.Join(s.Models, ","))
	}
	prop("verdict", s.Verdict)
	if s.SHA256 != "" {
		prop("sha256", s.SHA256)
		prop("bytes", strconv.FormatInt(s.Bytes, 10))
	}
	if s.Hindsight != "" {
		prop("hindsight", s.Hindsight)
	}
	found := map[string]TypeRow{}
	for _, t := range s.Types {
		found[t.Type] = t
	}
	var names []string
	if w, ok := workload.Lookup(s.Workload); ok {
		names = w.TypeNames()
	}
	for _, t := range s.Types {
		if !slices.Contains(names, t.Type) {
			names = append(names, t.Type)
		}
	}
	undecided := false
	for _, name := range names {
		c := JUnitCase{Name: name, Classname: s.Source, Time: "0"}
		t, ok := found[name]
		if ok {
			msg := fmt.Sprintf("%s: %d found, %s", name, t.Count, t.Status)
			var text strings.Builder
			if d, ok := workload.Describe(s.Workload, name); ok {
				fmt.Fprintf(&text, "%s [%s]\n", d.Meaning, d.Doc)
			}
			if s.Examples != nil {
				for _, e := range s.Examples(name) {
					fmt.Fprintf(&text, "- %s\n", e)
				}
			}
			m := &JUnitMessage{Message: msg, Type: name, Text: xmlText(text.String())}
			switch {
			case strings.HasPrefix(t.Status, "bad"):
				c.Failure = m
			case t.Status == "unknown":
				c.Error = m
				undecided = true
			default:
				c.Skipped = m
			}
		}
		suite.Cases = append(suite.Cases, c)
	}
	if s.Verdict == "unknown" && !undecided {
		suite.Cases = append(suite.Cases, JUnitCase{Name: "verdict", Classname: s.Source, Time: "0",
			Error: &JUnitMessage{Message: "verdict unknown", Type: "unknown", Text: xmlText(strings.Join(s.UnknownReasons, "\n"))}})
	}
	suite.count()
	return suite
}

// JUnitUnreadable is the suite of a history that could not be read or
// checked: one case, "read", in error.
func JUnitUnreadable(source, sha string, bytes int64, err string) JUnitSuite {
	suite := JUnitSuite{Name: source, Time: "0"}
	suite.Properties = append(suite.Properties, JUnitProperty{"source", source}, JUnitProperty{"verdict", "error"})
	if sha != "" {
		suite.Properties = append(suite.Properties, JUnitProperty{"sha256", sha}, JUnitProperty{"bytes", strconv.FormatInt(bytes, 10)})
	}
	suite.Cases = []JUnitCase{{Name: "read", Classname: source, Time: "0",
		Error: &JUnitMessage{Message: firstLine(err), Type: "unreadable", Text: xmlText(err)}}}
	suite.count()
	return suite
}

func (s *JUnitSuite) count() {
	s.Tests, s.Failures, s.Errors, s.Skipped = len(s.Cases), 0, 0, 0
	for _, c := range s.Cases {
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
}

// WriteJUnit writes the suites as one JUnit XML document, rendered into a
// buffer first (a failed write leaves nothing half-written in w's file
// when w is one; design habit 9). Strings from histories are escaped, and
// characters XML 1.0 cannot hold become U+FFFD (encoding/xml).
func WriteJUnit(w io.Writer, suites []JUnitSuite) error {
	doc := JUnitSuites{Name: "hindsight", Suites: suites}
	if doc.Suites == nil {
		doc.Suites = []JUnitSuite{}
	}
	for _, s := range suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	b.WriteString("\n")
	_, err := w.Write(b.Bytes())
	return err
}

// xmlText replaces what XML 1.0 cannot hold (control characters but tab
// and line breaks, invalid UTF-8, U+FFFE/U+FFFF) with U+FFFD: CDATA
// sections are written unescaped.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == utf8.RuneError, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return utf8.RuneError
		}
		return r
	}, s)
}

func seconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
