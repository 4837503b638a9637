// Package docs embeds hindsight's documentation pages (the *.md files of
// this directory), so the HTML report can carry the section on each anomaly
// type it shows (package report) and a page attached to a bug ticket needs
// no checkout of the repository to be read.
package docs

import "embed"

// FS holds every Markdown page of docs/, by its file name (queue.md,
// list-append.md, ...).
//
//go:embed *.md
var FS embed.FS
