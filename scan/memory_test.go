package scan

import "testing"

func TestMemoryCost(t *testing.T) {
	const budget = 1 << 30
	if got := memoryCost(1000, MemoryFactor, budget); got != 1000*MemoryFactor+baseCost {
		t.Errorf("small history costs %d", got)
	}
	if got := memoryCost(budget, MemoryFactor, budget); got != budget {
		t.Errorf("history bigger than the budget costs %d, want the whole budget", got)
	}
	if got := memoryCost(1<<62, MemoryFactorHTML, budget); got != budget {
		t.Errorf("huge history costs %d", got)
	}
}

func TestDefaultMemoryBudget(t *testing.T) {
	b := DefaultMemoryBudget()
	if b < 64<<20 {
		t.Errorf("DefaultMemoryBudget = %d: implausibly small", b)
	}
	if total := meminfoTotal(); total > 0 && b > total/4 {
		t.Errorf("budget %d is more than a quarter of MemTotal %d", b, total)
	}
}
