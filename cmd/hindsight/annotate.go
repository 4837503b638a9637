package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/workload"
)

// annotate prints, when running in GitHub Actions (GITHUB_ACTIONS=true),
// one ::error workflow command per bad anomaly type of res on w, so the
// anomaly shows on the run's summary page (docs/ci.md). The annotation
// points at the history line of the type's first witness op when the
// history is a plain file inside GITHUB_WORKSPACE; an archive member, a
// compressed file, a store folder outside the workspace or standard input
// gets an annotation without a file. Outside GitHub Actions it prints
// nothing. The lines go to standard error: standard output carries
// results only, and the runner reads workflow commands from both.
func annotate(res *analysis.Result, h *model.History, getenv func(string) string, w io.Writer) {
	if getenv("GITHUB_ACTIONS") != "true" || res == nil {
		return
	}
	file := workspaceFile(res.Source, getenv("GITHUB_WORKSPACE"))
	var index *model.IndexMap
	for _, typ := range res.BadTypes {
		ins := res.Anomalies[typ]
		var props []string
		if file != "" && h != nil && len(ins) > 0 && len(ins[0].InstanceEvidence().Witness) > 0 {
			if index == nil {
				index = model.NewIndexMap(h)
			}
			if p := index.Pos(ins[0].InstanceEvidence().Witness[0]); p >= 0 && h.Line(p) > 0 {
				props = append(props, "file="+escapeProperty(file), fmt.Sprintf("line=%d", h.Line(p)))
			}
		}
		props = append(props, "title="+escapeProperty(fmt.Sprintf("hindsight: %s (%d)", typ, len(ins))))
		msg := fmt.Sprintf("%s: %s, %d found", res.Source, typ, len(ins))
		if d, ok := workload.Describe(res.Workload, typ); ok {
			msg += ": " + d.Meaning + " See " + d.Doc + "."
		}
		fmt.Fprintf(w, "::error %s::%s\n", strings.Join(props, ","), escapeData(msg))
	}
}

// workspaceFile returns source relative to the workspace when it is a
// plain (not compressed) regular file inside it, else "".
func workspaceFile(source, workspace string) string {
	if workspace == "" || source == "-" || source == "" {
		return ""
	}
	fi, err := os.Stat(source)
	if err != nil || !fi.Mode().IsRegular() || compressedFile(source) {
		return ""
	}
	abs, err1 := filepath.Abs(source)
	ws, err2 := filepath.Abs(workspace)
	if err1 != nil || err2 != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// compressedFile reports whether the file starts with gzip's or zstd's
// magic bytes (its lines are not the history's).
func compressedFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	var b [4]byte
	n, _ := io.ReadFull(f, b[:])
	return ingest.Compressed(b[:n])
}

// escapeData escapes a workflow command's message (%, CR, LF), as the
// runner's toolkit does (@actions/core escapeData).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value (and : and ,).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
