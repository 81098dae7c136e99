// Package port declares what the service needs from its storage: a store
// that runs SQL and a runner of transactions. The project declares both
// to pglockorder (-sinks port.Store.Exec:1, -txrunners
// port.TxRunner.InTx:1), since their implementation runs SQL through a
// backend the analysis cannot see into.
package port

import "context"

// Store runs SQL.
type Store interface {
	Exec(ctx context.Context, sql string, args ...any) error
}

// TxRunner runs fn in a transaction that the context it passes carries.
type TxRunner interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}
