package guard

import "testing"

func TestPositive(t *testing.T) {
	if Positive(0) == nil {
		t.Error("0 accepted")
	}
}
