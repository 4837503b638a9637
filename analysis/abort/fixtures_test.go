package abort

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// TestFixtures checks every history under testdata/abort: the verdict its
// name ends with, and the contract, anomaly types and bad types of its
// NAME.expect.json. Under the other contract only abort-advance may change
// its verdict.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob(testpaths.Testdata("abort", "*-*"))
	n := 0
	for _, f := range files {
		ext := filepath.Ext(f)
		if strings.HasSuffix(f, ".expect.json") || ext != ".edn" && ext != ".json" {
			continue
		}
		n++
		base := strings.TrimSuffix(f, ext)
		t.Run(filepath.Base(base), func(t *testing.T) {
			var exp struct {
				Options struct {
					AbortContract string `json:"abort_contract"`
				} `json:"options"`
				Types []string `json:"anomaly_types"`
				Bad   []string `json:"bad_anomaly_types"`
			}
			raw, err := os.ReadFile(base + ".expect.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &exp); err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseContract(exp.Options.AbortContract)
			if err != nil {
				t.Fatal(err)
			}
			res := check(t, string(src), c)
			var want analysis.Verdict
			switch {
			case strings.HasSuffix(base, "-invalid"):
				want = analysis.Invalid
			case strings.HasSuffix(base, "-unknown"):
				want = analysis.Unknown
			}
			if res.Verdict != want || !slices.Equal(res.AnomalyTypes, nonNil(exp.Types)) || !slices.Equal(res.BadTypes, nonNil(exp.Bad)) {
				t.Errorf("%v, types %v, bad %v; want %v, %v, %v", res.Verdict, res.AnomalyTypes, res.BadTypes, want, exp.Types, exp.Bad)
			}
			other := check(t, string(src), 1-c)
			if !slices.Equal(other.AnomalyTypes, res.AnomalyTypes) ||
				slices.Contains(res.AnomalyTypes, AbortAdvance) == slices.Equal(other.BadTypes, res.BadTypes) {
				t.Errorf("under %v: types %v, bad %v", 1-c, other.AnomalyTypes, other.BadTypes)
			}
		})
	}
	if n < 8 {
		t.Errorf("only %d fixtures under testdata/abort", n)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
