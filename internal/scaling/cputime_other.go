//go:build !unix

package scaling

import "time"

// cpuTime is not measured here: BenchmarkAdversarialRatio reports no
// cpu-ratio.
func cpuTime() time.Duration { return 0 }
