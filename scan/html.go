package scan

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"html/template"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report"
)

// reportName is the file name of the HTML report of the history at path:
// its last three path elements made safe for a file name, and a hash of
// the whole path so different histories never share a report.
func reportName(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	if len(parts) > 3 {
		parts = parts[len(parts)-3:]
	}
	var sb strings.Builder
	for _, r := range strings.Join(parts, "_") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	name := strings.TrimLeft(sb.String(), "._")
	if len(name) > 100 {
		name = name[len(name)-100:]
	}
	h := fnv.New32a()
	h.Write([]byte(filepath.ToSlash(path)))
	return fmt.Sprintf("%s-%08x.html", name, h.Sum32())
}

// reportClock is when a report is made, for its header; tests fix it.
var reportClock = time.Now

// writeReport writes the HTML report of one history (package report) to
// path; its header names the hindsight check --html command that makes the
// same report of that history.
func writeReport(path string, res *analysis.Result, h *model.History) (err error) {
	defer func() {
		if p := recover(); p != nil { // a bug: the row stands, with a warning
			err = fmt.Errorf("internal error: %v (a bug in hindsight: please report it, with the history if you can)", p)
		}
	}()
	opts := report.ViewOptions{Command: report.CheckCommand(res, res.Source, filepath.Base(path)), Made: reportClock()}
	return report.WriteHTMLFile(path, report.BuildView(res, h, opts))
}

// indexRow is one history listed in index.html.
type indexRow struct {
	Path, Verdict, Report, Error string
	BadTypes                     []string
	Types                        []string // "type ×count"
	Ops, Size                    string
}

// indexPage is what the index template gets.
type indexPage struct {
	Title   string
	Summary *Summary
	Rows    []indexRow
	Types   []TypeSummary
}

// writeIndex writes index.html (index-i-of-n.html for a shard) into
// HTMLDir: the verdict counts and anomaly types of the scan, then every
// invalid, unknown and unreadable history, each invalid or unknown one
// linked to its report by a relative link. Returns the file's path.
func (s *scanner) writeIndex(results []*result, sum *Summary) (string, error) {
	p := indexPage{Title: "hindsight scan", Summary: sum, Types: sum.Types}
	if sum.Shard.Sharded() {
		p.Title += " (shard " + sum.Shard.String() + ")"
	}
	for _, order := range []string{VerdictInvalid, VerdictUnknown, VerdictError} {
		for _, r := range results {
			if r == nil || r.row.Verdict != order {
				continue
			}
			ir := indexRow{Path: r.row.Path, Verdict: r.row.Verdict, Report: r.report, Error: r.row.Error,
				BadTypes: r.row.BadTypes, Size: sizeString(r.row.SizeBytes)}
			if r.row.checked() {
				ir.Ops = fmt.Sprint(r.row.Ops)
				for _, t := range r.row.AnomalyTypes {
					ir.Types = append(ir.Types, fmt.Sprintf("%s ×%d", t, r.row.Counts[t]))
				}
				if r.row.Verdict == VerdictUnknown && len(r.row.UnknownReasons) > 0 {
					ir.Error = strings.Join(r.row.UnknownReasons, "; ")
				}
			}
			p.Rows = append(p.Rows, ir)
		}
	}
	var buf bytes.Buffer
	if err := indexTemplate().Execute(&buf, p); err != nil {
		return "", err
	}
	path := filepath.Join(s.opts.HTMLDir, "index"+s.opts.Shard.suffix()+".html")
	return path, writeFileAtomic(path, buf.Bytes(), true)
}

// indexTemplate is self-contained: inline style, no script, nothing
// fetched (the Content-Security-Policy forbids it), every string escaped
// by html/template. Parsed when the first index is written.
var indexTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("index").Parse(indexText)) })

// indexText is indexTemplate's text.
const indexText = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.invalid { color: #b00020; font-weight: 600; } .unknown { color: #a66300; font-weight: 600; } .error { color: #555; font-weight: 600; }
code, pre { font: 12px/1.4 ui-monospace, monospace; } pre { white-space: pre-wrap; margin: 0; max-width: 60em; }
ul { margin: 0; padding-left: 1.2em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{with .Summary}}<p>{{.Histories}} histories{{if .Shard.Sharded}} of {{.Found}}{{end}}:
{{.Valid}} valid, {{.Invalid}} invalid, {{.Unknown}} unknown, {{.Errors}} unreadable.</p>{{end}}
{{if .Types}}<h2>Anomaly types</h2>
<table>
<tr><th>type</th><th>histories</th><th>invalidating</th><th>instances</th></tr>
{{range .Types}}<tr><td><code>{{.Type}}</code></td><td class="n">{{.Histories}}</td><td class="n">{{.Invalidating}}</td><td class="n">{{.Instances}}</td></tr>
{{end}}</table>{{end}}
<h2>Invalid, unknown and unreadable histories</h2>
{{if .Rows}}<table>
<tr><th>history</th><th>verdict</th><th>bad types</th><th>anomalies</th><th>ops</th><th>size</th><th>error or reason</th></tr>
{{range .Rows}}<tr>
<td>{{if .Report}}<a href="{{.Report}}"><code>{{.Path}}</code></a>{{else}}<code>{{.Path}}</code>{{end}}</td>
<td class="{{.Verdict}}">{{.Verdict}}</td>
<td>{{range $i, $t := .BadTypes}}{{if $i}}, {{end}}<code>{{$t}}</code>{{end}}</td>
<td>{{if .Types}}<ul>{{range .Types}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}</td>
<td class="n">{{.Ops}}</td>
<td class="n">{{.Size}}</td>
<td>{{if .Error}}<pre>{{.Error}}</pre>{{end}}</td>
</tr>
{{end}}</table>{{else}}<p>None: every history is valid.</p>{{end}}
</body>
</html>
`
