// Package version says which hindsight produced a result: the module
// version and the VCS revision the binary was built from (Go's build
// information), so that a report attached to a ticket can be reproduced
// months later with the same build.
package version

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Info describes a build of hindsight.
type Info struct {
	// Version is the module version ("v1.2.3", or "(devel)" for a build
	// from a checkout).
	Version string `json:"version"`
	// Revision is the VCS revision (a git commit) and Time its commit time;
	// Modified says the tree had uncommitted changes. Empty when the build
	// carries no VCS information (go test, go run outside a checkout).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Go is the Go release that built it.
	Go string `json:"go"`
}

// String renders the build for people: "hindsight (devel), revision
// 1a2b3c4d5e6f (2026-11-30T12:00:00Z, modified), go1.26.8".
func (i Info) String() string {
	var b strings.Builder
	b.WriteString("hindsight " + i.Version)
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		b.WriteString(", revision " + rev)
		var extra []string
		if i.Time != "" {
			extra = append(extra, i.Time)
		}
		if i.Modified {
			extra = append(extra, "modified")
		}
		if len(extra) > 0 {
			b.WriteString(" (" + strings.Join(extra, ", ") + ")")
		}
	}
	if i.Go != "" {
		b.WriteString(", " + i.Go)
	}
	return b.String()
}

var (
	once    sync.Once
	current Info
)

// Current returns the build information of the running binary.
func Current() Info {
	once.Do(func() {
		current = Info{Version: "(unknown)"}
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		current.Version, current.Go = bi.Main.Version, bi.GoVersion
		if current.Version == "" {
			current.Version = "(devel)"
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				current.Revision = s.Value
			case "vcs.time":
				current.Time = s.Value
			case "vcs.modified":
				current.Modified = s.Value == "true"
			}
		}
	})
	return current
}
