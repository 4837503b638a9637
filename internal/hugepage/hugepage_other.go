//go:build !linux

package hugepage

import "time"

const supported = false

func advise(span, uintptr) bool { return false }

func probe() (huge, small time.Duration, ok bool) { return 0, 0, false }
