// Package store is the persistence interface of a service with one
// implementation per database, as temporal's SQL persistence has.
package store

import "context"

// Store moves credit between an account and its ledger.
type Store interface {
	Credit(ctx context.Context, id int64) error
	Debit(ctx context.Context, id int64) error
}
