// Package guard checks amounts. Its external test imports billing, which
// imports guard: go builds a variant of billing for guard's test binary,
// "billing [guard.test]", which no pattern names, so the command reads it
// from export data, and that export data names the types of accounts,
// which the command checks from source.
package guard

import "errors"

// Positive reports an error for an amount below one.
func Positive(amount int64) error {
	if amount < 1 {
		return errors.New("amount must be positive")
	}
	return nil
}
