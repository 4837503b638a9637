package report

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/hindsight-dev/hindsight/internal/atomicfile"
	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/workload"
)

// assets holds the page template, its script and style, and ECharts
// (echarts.min.js, copied there by scripts/assets.sh and not committed).
// The committed assets/README.md keeps the directory, so the package
// builds without npm; WriteHTML then fails with ErrNoAssets.
//
//go:embed assets
var assets embed.FS

// assetFS is where WriteHTML reads ECharts, the script and the style; a
// test swaps it to see a build without ECharts.
var assetFS fs.FS = assets

// EChartsAsset is the path of ECharts inside the embedded assets.
const EChartsAsset = "assets/echarts.min.js"

// ErrNoAssets is returned when this build of hindsight was made without
// ECharts embedded.
var ErrNoAssets = errors.New("the HTML report needs ECharts, which is not in this build: " +
	"run scripts/assets.sh (npm ci, then it copies echarts.min.js into report/assets/) and rebuild hindsight")

// AssetsAvailable returns ErrNoAssets when ECharts is not embedded, nil
// otherwise.
func AssetsAvailable() error {
	if st, err := fs.Stat(assetFS, EChartsAsset); err != nil || st.Size() == 0 {
		return ErrNoAssets
	}
	return nil
}

var funcs = template.FuncMap{
	"upper":     strings.ToUpper,
	"inc":       func(n int) int { return n + 1 },
	"thousands": func(n int) string { return page.Thousands(int64(n)) },
	"relClass":  func(rel string) string { return page.Slug(strings.Split(rel, "+")[0]) },
	"verdictLine": func(v *View) string {
		bad := 0
		for _, t := range v.Types {
			if t.Bad {
				bad++
			}
		}
		switch {
		case len(v.Types) == 0 && v.Verdict == "unknown":
			return "no anomalies, but the history could not be judged"
		case len(v.Types) == 0:
			return "no anomalies found"
		}
		return fmt.Sprintf("%d anomaly %s found, %d of them bad",
			len(v.Types), plural(int64(len(v.Types)), "type", "types"), bad)
	},
}

// pageTmpls are the page templates of the registered workloads, by name:
// the page every workload has (assets/report.html.tmpl) with the
// definitions of the parts its layout adds (page.Layout.Templates).
// Parsed on the first page written, not at start-up: a check that writes
// no page does not pay for them.
var pageTmpls = sync.OnceValue(func() map[string]*template.Template {
	base := template.Must(template.New("report.html.tmpl").Funcs(funcs).ParseFS(assets, "assets/report.html.tmpl"))
	ts := map[string]*template.Template{}
	for _, w := range workload.All() {
		ts[w.Name] = template.Must(template.Must(base.Clone()).Parse(w.Layout.Templates()))
	}
	return ts
})

// pageData is what the page script reads: the chart options, and the
// data the workload's layout adds for it (page.Parts.Script: a
// transactional history's timeline lanes and marks), under the key
// "layout".
type pageData struct {
	Timeline page.Timeline `json:"timeline"`
	Charts   []page.Chart  `json:"charts"`
	Layout   any           `json:"layout,omitempty"`
}

// pageVars are the template's inputs: the view, the page's own assets,
// and the workload's parts of the page rendered (HeadHTML in the header,
// BodyHTML after the summary).
type pageVars struct {
	*View
	CSP      string
	Style    template.CSS
	ECharts  template.JS
	Script   template.JS
	Data     pageData
	HeadHTML []template.HTML
	BodyHTML []template.HTML
}

// WriteHTML writes v as one self-contained HTML page: ECharts, the page
// script and the style inline, the chart data as JSON in a script element
// of type application/json. Every string of the view goes through
// html/template's contextual escaping; the page script puts history text
// into the page with textContent only, and a Content-Security-Policy lets
// only the page's own two scripts run (by hash) and forbids every request.
// The page is rendered into memory and written with one Write, so w never
// gets half a page. Deterministic: the same view gives the same bytes.
func WriteHTML(w io.Writer, v *View) error {
	if err := AssetsAvailable(); err != nil {
		return err
	}
	read := func(name string) (string, error) {
		b, err := fs.ReadFile(assetFS, "assets/"+name)
		return string(b), err
	}
	echartsJS, err := read("echarts.min.js")
	if err != nil {
		return ErrNoAssets
	}
	script, err := read("report.js")
	if err != nil {
		return err
	}
	style, err := read("report.css")
	if err != nil {
		return err
	}
	pv := pageVars{
		View:    v,
		CSP:     csp(echartsJS, script),
		Style:   template.CSS(style),
		ECharts: template.JS(echartsJS),
		Script:  template.JS(script),
		Data:    pageData{Timeline: v.Timeline, Charts: v.Charts, Layout: v.Parts.Script},
	}
	t := pageTmpls()[entryOf(v.Workload).Name]
	if pv.HeadHTML, err = renderParts(t, v.Parts.Head); err != nil {
		return err
	}
	if pv.BodyHTML, err = renderParts(t, v.Parts.Body); err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Grow(len(echartsJS) + 1<<20)
	if err := t.Execute(&buf, pv); err != nil {
		return fmt.Errorf("rendering the report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// renderParts renders each of a workload's parts of the page with the
// template it names in t: html/template escapes each in the context of
// HTML text, where the page puts it.
func renderParts(t *template.Template, parts []page.Part) ([]template.HTML, error) {
	out := make([]template.HTML, 0, len(parts))
	for _, p := range parts {
		var sb strings.Builder
		if err := t.ExecuteTemplate(&sb, p.Template, p.Data); err != nil {
			return nil, fmt.Errorf("rendering the report's %s: %w", p.Template, err)
		}
		out = append(out, template.HTML(sb.String()))
	}
	return out, nil
}

// csp is the page's Content-Security-Policy: nothing may be fetched, and
// only the inline scripts with these texts may run.
func csp(scripts ...string) string {
	var sb strings.Builder
	sb.WriteString("default-src 'none'; script-src")
	for _, s := range scripts {
		sum := sha256.Sum256([]byte(s))
		sb.WriteString(" 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'")
	}
	sb.WriteString("; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'")
	return sb.String()
}

// WriteHTMLFile writes the page of v to path without ever leaving half a
// file there: it writes a temporary file in the same directory, syncs and
// closes it, and renames it over path. "-" writes to standard output.
func WriteHTMLFile(path string, v *View) error {
	if path == "-" {
		return WriteHTML(os.Stdout, v)
	}
	if err := AssetsAvailable(); err != nil {
		return err
	}
	return atomicfile.Write(path, atomicfile.Options{Sync: true}, func(w io.Writer) error {
		return WriteHTML(w, v)
	})
}
