// Package ledger keeps account entries.
package ledger
