package outside // want package:"sql=true edges=350"

// outside calls gateflow.MoveCrates without the gate that every call of it
// in its own package takes, on a transaction its own caller lends it: it
// adds no gate, so MoveCrates' own edge stands for it, and the inversion
// against gateflow.Unseal is reported in gateflow, at MoveCrates.
import (
	"context"

	"github.com/jackc/pgx/v5"

	"corpus/gateflow"
)

// Restock moves crates with no gate first.
func Restock(ctx context.Context, tx pgx.Tx) error { // want Restock:`^locks\(table:gf_lids ROW EXCLUSIVE@p1, `
	return gateflow.MoveCrates(ctx, tx)
}
