package memwatch

import (
	"math"
	"testing"
	"time"
)

func TestWatchReportsOnce(t *testing.T) {
	got := make(chan int64, 2)
	stop := Watch(0, time.Millisecond, func(used int64) { got <- used })
	used := <-got
	stop()
	if used <= 0 {
		t.Errorf("over got %d, want the memory in use", used)
	}
	if len(got) != 0 {
		t.Error("over was called twice")
	}
}

func TestWatchStops(t *testing.T) {
	stop := Watch(math.MaxInt64, time.Millisecond, func(used int64) { t.Errorf("over called with %d", used) })
	stop()
}
