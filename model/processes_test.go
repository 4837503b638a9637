package model

import (
	"slices"
	"testing"
)

// TestByProcess: a process's value is new until written and then kept,
// whether its number is small, large or negative; a deleted one is gone
// and new again; Len and Processes count and list what is there.
func TestByProcess(t *testing.T) {
	var m ByProcess[int32]
	procs := []int32{0, 5, smallProcesses - 1, smallProcesses, 1 << 30, -3}
	for i, p := range procs {
		if _, ok := m.Get(p); ok {
			t.Fatalf("process %d: a value before any", p)
		}
		v, isNew := m.Ref(p)
		if !isNew || *v != 0 {
			t.Fatalf("process %d: new %v, value %d", p, isNew, *v)
		}
		*v = int32(i + 1)
	}
	for i, p := range procs {
		if v, isNew := m.Ref(p); isNew || *v != int32(i+1) {
			t.Errorf("process %d: new %v, value %d, want %d", p, isNew, *v, i+1)
		}
		if v, ok := m.Get(p); !ok || *v != int32(i+1) {
			t.Errorf("process %d: Get %v", p, ok)
		}
	}
	if len(m.small) != smallProcesses || len(m.other) != 3 || m.Len() != len(procs) {
		t.Errorf("%d small, %d other slots, Len %d", len(m.small), len(m.other), m.Len())
	}
	want := slices.Sorted(slices.Values(procs))
	if got := m.Processes(); !slices.Equal(got, want) {
		t.Errorf("Processes %v, want %v", got, want)
	}
	for _, p := range []int32{5, 1 << 30, 7} { // 7 never had one
		m.Delete(p)
		if _, ok := m.Get(p); ok {
			t.Errorf("process %d: a value after Delete", p)
		}
		if v, isNew := m.Ref(p); !isNew || *v != 0 {
			t.Errorf("process %d after Delete: new %v, value %d", p, isNew, *v)
		}
		m.Delete(p)
	}
	if m.Len() != len(procs)-2 {
		t.Errorf("Len %d after two deletes, want %d", m.Len(), len(procs)-2)
	}
}
