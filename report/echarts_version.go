package report

import (
	"io/fs"
	"regexp"
	"sync"
)

// echartsVersionRE finds ECharts' own version in its minified build: the
// `version` it exports next to zrUtil (zrender's own version is exported
// apart, as zrender.version).
var echartsVersionRE = regexp.MustCompile(`\.version="([0-9]+\.[0-9]+\.[0-9]+[^"]*)",[A-Za-z_$]+\.zrUtil`)

var (
	echartsOnce    sync.Once
	echartsVersion string
)

// EChartsVersion returns the version of the ECharts embedded in this build
// (read from the script itself), or "" when none is embedded.
func EChartsVersion() string {
	echartsOnce.Do(func() {
		js, err := fs.ReadFile(assetFS, EChartsAsset)
		if err != nil {
			return
		}
		if m := echartsVersionRE.FindSubmatch(js); m != nil {
			echartsVersion = string(m[1])
		} else if len(js) > 0 {
			echartsVersion = "unknown version"
		}
	})
	return echartsVersion
}
