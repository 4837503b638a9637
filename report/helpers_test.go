package report

import (
	"bytes"
	"flag"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/check"
	"github.com/hindsight-dev/hindsight/ingest"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
	"github.com/hindsight-dev/hindsight/report/page"
	"github.com/hindsight-dev/hindsight/samples"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtures are the queue specification fixtures (testdata/queue at the
// repository root).
var fixtures = testpaths.Testdata("queue")

// mustCheck checks the history at path ("sample:" for the embedded demo
// history).
func mustCheck(t testing.TB, path string, opts check.Options) (*analysis.Result, *model.History) {
	t.Helper()
	if path == samples.QueueName {
		h, err := ingest.Read(samples.QueueReader(), samples.QueueName, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := check.History(h, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, h
	}
	res, h, err := check.File(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, h
}

// thousands formats n as the page does (page.Thousands).
var thousands = page.Thousands

// checkLines checks the history l holds with the report's options.
func checkLines(t testing.TB, l *testhist.Lines) (*analysis.Result, *model.History) {
	t.Helper()
	h, _ := testhist.Read(t, bytes.NewReader(l.Bytes()), "lines.edn")
	res, err := check.History(h, checkOpts(false))
	if err != nil {
		t.Fatal(err)
	}
	return res, h
}
