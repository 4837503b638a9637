package report

import (
	"bytes"
	"html/template"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/hindsight-dev/hindsight/analysis/catalog"
	"github.com/hindsight-dev/hindsight/docs"
	"github.com/hindsight-dev/hindsight/report/page"
)

// docFS is where docSection reads the documentation pages (package docs
// embeds docs/*.md); a test may swap it.
var docFS fs.FS = docs.FS

// DocSection is one anomaly type's section of its documentation page
// (package page).
type DocSection = page.DocSection

var (
	docCacheMu sync.Mutex
	docCache   = map[string]*DocSection{}
)

// docSection returns the section a catalogue Doc path names
// ("docs/queue.md#lost-write": the page, and the anchor of its "## "
// heading, catalog.Anchor of the type's name), rendered, or nil when the
// page or the heading is not there. Sections are rendered once per
// process.
func docSection(doc string) *DocSection {
	docCacheMu.Lock()
	defer docCacheMu.Unlock()
	if s, ok := docCache[doc]; ok {
		return s
	}
	s := renderDocSection(doc)
	docCache[doc] = s
	return s
}

func renderDocSection(doc string) *DocSection {
	page, anchor, ok := strings.Cut(doc, "#")
	if !ok || anchor == "" {
		return nil
	}
	src, err := fs.ReadFile(docFS, path.Base(page))
	if err != nil {
		return nil
	}
	heading, body, ok := findSection(string(src), anchor)
	if !ok {
		return nil
	}
	var buf bytes.Buffer
	if err := docMarkdown().Convert([]byte(body), &buf); err != nil {
		return nil
	}
	return &DocSection{Heading: heading, Page: page, HTML: template.HTML(buf.String())}
}

// findSection finds in a Markdown page the "## " heading whose anchor is
// anchor and returns its text and the lines up to the next "# " or "## "
// heading; headings inside fenced code blocks do not count. A heading
// with a placeholder in angle brackets ("`<model>-cycle-exists`") stands
// for every type its pattern matches (strong-pl-2-cycle-exists) and is
// taken when no heading is exactly the anchor.
func findSection(src, anchor string) (heading, body string, ok bool) {
	type section struct {
		heading string
		lines   []string
	}
	var (
		fence           bool
		cur             *section
		exact, patterns []*section
	)
	for line := range strings.Lines(src) {
		trimmed := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(strings.TrimLeft(trimmed, " "), "```") {
			fence = !fence
		}
		if !fence && (strings.HasPrefix(trimmed, "## ") || strings.HasPrefix(trimmed, "# ")) {
			cur = nil
			h, isH2 := strings.CutPrefix(trimmed, "## ")
			if !isH2 {
				continue
			}
			if catalog.Anchor(h) == anchor {
				cur = &section{heading: h}
				exact = append(exact, cur)
			} else if placeholderRE(h).MatchString(anchor) {
				cur = &section{heading: h}
				patterns = append(patterns, cur)
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, line)
		}
	}
	found := append(exact, patterns...)
	if len(found) == 0 {
		return "", "", false
	}
	s := found[0]
	return strings.TrimSpace(strings.ReplaceAll(s.heading, "`", "")), strings.Join(s.lines, ""), true
}

var placeholder = regexp.MustCompile(`<[^<>]+>`)

// placeholderRE matches the anchors a heading with placeholders stands
// for; one without any matches nothing.
func placeholderRE(heading string) *regexp.Regexp {
	parts := placeholder.Split(heading, -1)
	if len(parts) < 2 {
		return regexp.MustCompile(`^\b$`)
	}
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(catalog.Anchor(p))
	}
	return regexp.MustCompile("^" + strings.Join(parts, "[a-z0-9_-]+") + "$")
}

// docMarkdown renders documentation sections: GitHub tables, raw HTML
// omitted (goldmark's default without html.WithUnsafe), links made text.
// Made on the first section rendered.
var docMarkdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(unlink{}, 100))),
	)
})

// unlink replaces every link and image of a document by its text (an
// autolink by its label): a report attached to a ticket opens offline,
// and a link to another page of the repository would lead nowhere. It
// also moves headings two levels down (### becomes h5), below the page's
// own h3 of the type and h4 of its instances.
type unlink struct{}

// Transform implements parser.ASTTransformer.
func (unlink) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var nodes []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(h.Level+2, 6)
		}
		if entering {
			switch n.Kind() {
			case ast.KindLink, ast.KindImage, ast.KindAutoLink:
				nodes = append(nodes, n)
			}
		}
		return ast.WalkContinue, nil
	})
	src := reader.Source()
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		parent := n.Parent()
		if parent == nil {
			continue
		}
		if al, ok := n.(*ast.AutoLink); ok {
			parent.ReplaceChild(parent, n, ast.NewString(al.Label(src)))
			continue
		}
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
}
