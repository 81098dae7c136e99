package analyzer

import "testing"

func TestCheckSettings(t *testing.T) {
	defer func(m int, d string) { maxCycle, disable = m, d }(maxCycle, disable)
	tests := []struct {
		maxCycle int
		disable  string
		ok       bool
	}{
		{4, "", true},
		{2, "lock-order, unordered-row-lock", true},
		{12, "ignore-directive", true},
		{1, "", false},
		{13, "", false},
		{4, "lock-ordr", false},
	}
	for _, tt := range tests {
		maxCycle, disable = tt.maxCycle, tt.disable
		if err := CheckSettings(); (err == nil) != tt.ok {
			t.Errorf("CheckSettings(maxcycle=%d, disable=%q) = %v, want ok=%v", tt.maxCycle, tt.disable, err, tt.ok)
		}
	}
}
