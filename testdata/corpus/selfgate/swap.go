package selfgate // want package:"sql=true edges=6"

// One multi-statement string runs as one implicit transaction: the locks
// its first statement takes are held until the last one ends. When that
// first lock excludes itself (ACCESS EXCLUSIVE on the table a RENAME swap
// starts with), two executions of the string run one after the other: the
// later locks cannot deadlock them, even where, by name, the string seems
// to lock a table again after others (the name now is the renamed table).

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// swapSQL renames the partitioned table away, detaches its default
// partition and renames that partition into its place.
const swapSQL = `ALTER TABLE sg_deliveries RENAME TO sg_deliveries_partitioned;
ALTER TABLE sg_deliveries_partitioned DETACH PARTITION sg_deliveries_default;
ALTER TABLE sg_deliveries_default RENAME TO sg_deliveries;
ALTER TABLE sg_deliveries DROP CONSTRAINT IF EXISTS sg_deliveries_default_bounds`

// SwapPartition runs the swap: by names, it locks sg_deliveries again after
// sg_deliveries_default, but two runs of it are serialised by its first
// lock.
func SwapPartition(ctx context.Context, pool *pgxpool.Pool) error { // want SwapPartition:`^locks\(table:sg_deliveries ACCESS EXCLUSIVE@p1, `
	_, err := pool.Exec(ctx, swapSQL) // want `(?s)lock-order inversion: table sg_deliveries and table sg_deliveries_default.*path 2: selfgate\.AddNoteColumn holds`
	return err
}

// AddNoteColumn alters the default partition, then the partitioned table,
// in one string: the other order from SwapPartition's, and its first lock
// is not SwapPartition's. The two deadlock.
func AddNoteColumn(ctx context.Context, pool *pgxpool.Pool) error { // want AddNoteColumn:`^locks\(table:sg_deliveries_default ACCESS EXCLUSIVE@p1, table:sg_deliveries ACCESS EXCLUSIVE@p1\)$`
	_, err := pool.Exec(ctx, `ALTER TABLE sg_deliveries_default ADD COLUMN IF NOT EXISTS note text;
ALTER TABLE sg_deliveries ADD COLUMN IF NOT EXISTS note text`)
	return err
}
