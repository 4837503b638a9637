package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hindsight-dev/hindsight/internal/testpaths"
)

// TestEChartsVersion reads the embedded ECharts' version from the script
// and compares it with the npm package it was copied from.
func TestEChartsVersion(t *testing.T) {
	if AssetsAvailable() != nil {
		t.Skip("ECharts is not embedded in this build (run scripts/assets.sh)")
	}
	raw, err := os.ReadFile(filepath.Join(testpaths.Root(), "node_modules", "echarts", "package.json"))
	if err != nil {
		t.Fatalf("ECharts is embedded but node_modules/echarts is missing: %v", err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if got := EChartsVersion(); got != pkg.Version {
		t.Fatalf("embedded ECharts says %q, node_modules has %q", got, pkg.Version)
	}
}
