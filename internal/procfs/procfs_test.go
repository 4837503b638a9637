package procfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "status")
	text := "Name:\thindsight\nVmPeak:\t  2048 kB\nVmSize:\t  1024 kB\nThreads:\t7\nEmpty:\nBad:\tx kB\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want int64
	}{
		{"VmSize", 1024 << 10},
		{"VmPeak", 2048 << 10},
		{"Threads", 7},
		{"Empty", 0},
		{"Bad", 0},
		{"Missing", 0},
		{"Vm", 0},
	} {
		if got := Bytes(p, c.name); got != c.want {
			t.Errorf("Bytes(%s) = %d, want %d", c.name, got, c.want)
		}
	}
	if got := Bytes(filepath.Join(t.TempDir(), "none"), "VmSize"); got != 0 {
		t.Errorf("Bytes of a missing file = %d, want 0", got)
	}
}

func TestBytesOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if v := Bytes("/proc/self/status", "VmSize"); v <= 0 || v%1024 != 0 {
		t.Errorf("VmSize = %d, want a positive number of kB", v)
	}
	if v := Bytes("/proc/meminfo", "MemTotal"); v <= 0 {
		t.Errorf("MemTotal = %d, want > 0", v)
	}
}
