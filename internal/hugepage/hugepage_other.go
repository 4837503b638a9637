//go:build !linux

package hugepage

import (
	"errors"
	"time"
)

const supported = false

func advise(span, uintptr) bool { return false }

func probe() (huge, small time.Duration, err error) { return 0, 0, errors.ErrUnsupported }
