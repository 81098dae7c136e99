package rowlocks

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/rowlocks/links"
)

// Regression cases from a blind test: each was a false negative or a false
// positive of the row-order rules.

// touchAllInClosure: a slice the transaction's closure captures.
func touchAllInClosure(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, id := range ids {
			if _, err := tx.Exec(ctx, "UPDATE gadgets SET seen = true WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of gadgets \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice ids in the order the caller passes it`
				return err
			}
		}
		return nil
	})
}

// moveInClosure: two keys the closure captures.
func moveInClosure(ctx context.Context, pool *pgxpool.Pool, from, to int64) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE purses SET n = n - 1 WHERE id = $1", from); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE purses SET n = n + 1 WHERE id = $1", to) // want `row order chosen by the caller: rowlocks.moveInClosure.func1 locks two rows of purses, first the one keyed by from, then the one keyed by to`
		return err
	})
}

// batchRequest is decoded from JSON and passed by value.
type batchRequest struct{ IDs []int64 }

func touchRequested(ctx context.Context, pool *pgxpool.Pool, req batchRequest) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for _, id := range req.IDs {
		if _, err := tx.Exec(ctx, "UPDATE gadgets SET seen = true WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of gadgets \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice req.IDs`
			return err
		}
	}
	return tx.Commit(ctx)
}

type orderLine struct{ ItemID, Qty int64 }

// reserveLines keys each lock by a field of the caller's structs.
func reserveLines(ctx context.Context, tx pgx.Tx, lines []orderLine) error {
	for _, l := range lines {
		if _, err := tx.Exec(ctx, "UPDATE stock SET qty = qty - $2 WHERE id = $1", l.ItemID, l.Qty); err != nil { // want `lock order set by a loop: rows of stock \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice lines`
			return err
		}
	}
	return nil
}

// touchIndexed uses a three-clause loop.
func touchIndexed(ctx context.Context, tx pgx.Tx, ids []int64) error {
	for i := 0; i < len(ids); i++ {
		if _, err := tx.Exec(ctx, "UPDATE gadgets SET seen = true WHERE id = $1", ids[i]); err != nil { // want `lock order set by a loop: rows of gadgets \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice ids`
			return err
		}
	}
	return nil
}

// bumpAll upserts one row per array element: unnest in the select list.
func bumpAll(ctx context.Context, tx pgx.Tx, ids []int64) error {
	_, err := tx.Exec(ctx, "INSERT INTO hits (id, n) SELECT unnest($1::bigint[]), 1 ON CONFLICT (id) DO UPDATE SET n = hits.n + 1", ids) // want `unordered multi-row lock: INSERT ... ON CONFLICT DO UPDATE takes rows of hits \(FOR UPDATE\), several of them \(the rows of a SELECT\)`
	return err
}

// dbtx and queries are what sqlc generates, with a params struct.
type dbtx interface {
	Exec(context.Context, string, ...interface{}) (pgconn.CommandTag, error)
}

type queries struct{ db dbtx }

type addPointsParams struct {
	ID    int64
	Delta int64
}

func (q *queries) addPoints(ctx context.Context, arg addPointsParams) error { // want addPoints:`locks\(table:points ROW EXCLUSIVE@p0.db, row:points FOR NO KEY UPDATE@p0.db\)`
	_, err := q.db.Exec(ctx, "UPDATE points SET n = n + $2 WHERE id = $1", arg.ID, arg.Delta)
	return err
}

func giftPoints(ctx context.Context, tx pgx.Tx, from, to int64) error {
	q := &queries{db: tx}
	if err := q.addPoints(ctx, addPointsParams{ID: from, Delta: -1}); err != nil {
		return err
	}
	return q.addPoints(ctx, addPointsParams{ID: to, Delta: 1}) // want `row order chosen by the caller: rowlocks.giftPoints locks two rows of points, first the one keyed by from, then the one keyed by to`
}

// giftSafe locks both rows in key order first: the UPDATEs wait for nothing.
func giftSafe(ctx context.Context, tx pgx.Tx, from, to int64) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM points WHERE id = $1 FOR UPDATE", min(from, to)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM points WHERE id = $1 FOR UPDATE", max(from, to)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE points SET n = n - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE points SET n = n + 1 WHERE id = $1", to)
	return err
}

// lockOrderedPair ranges over keys the code ordered.
func lockOrderedPair(ctx context.Context, tx pgx.Tx, from, to int64) error {
	for _, id := range []int64{min(from, to), max(from, to)} {
		if _, err := tx.Exec(ctx, "SELECT id FROM points WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
	}
	return nil
}

// maintain locks a constant list of tables in a closure: one order.
func maintain(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, q := range []string{
			"LOCK TABLE audit_log IN SHARE ROW EXCLUSIVE MODE",
			"LOCK TABLE audit_archive IN SHARE ROW EXCLUSIVE MODE",
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

func sortIDs(ids []int64) { slices.Sort(ids) }

// touchSortedByHelper sorts through a helper first.
func touchSortedByHelper(ctx context.Context, tx pgx.Tx, ids []int64) error {
	sortIDs(ids)
	for _, id := range ids {
		if _, err := tx.Exec(ctx, "UPDATE gadgets SET seen = true WHERE id = $1", id); err != nil {
			return err
		}
	}
	return nil
}

// lockThenWrite locks from then to (reported once, there), then writes
// both rows, which it holds already.
func lockThenWrite(ctx context.Context, tx pgx.Tx, from, to int64) error {
	if _, err := tx.Exec(ctx, "SELECT id FROM purses WHERE id = $1 FOR UPDATE", from); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT id FROM purses WHERE id = $1 FOR UPDATE", to); err != nil { // want `row order chosen by the caller: rowlocks.lockThenWrite locks two rows of purses, first the one keyed by from, then the one keyed by to`
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE purses SET n = n - 1 WHERE id = $1", from); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE purses SET n = n + 1 WHERE id = $1", to)
	return err
}

// linkSwapped orders the keys before the closure captures them.
func linkSwapped(ctx context.Context, pool *pgxpool.Pool, a, b int64) error {
	if a > b {
		a, b = b, a
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE purses SET linked = true WHERE id = $1", a); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE purses SET linked = true WHERE id = $1", b)
		return err
	})
}

// linkMinMax computes the order outside the closure.
func linkMinMax(ctx context.Context, pool *pgxpool.Pool, a, b int64) error {
	lo, hi := min(a, b), max(a, b)
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE purses SET linked = true WHERE id = $1", lo); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE purses SET linked = true WHERE id = $1", hi)
		return err
	})
}

// reserveSorted sorts with sort.Slice before the closure.
func reserveSorted(ctx context.Context, pool *pgxpool.Pool, lines []orderLine) error {
	sort.Slice(lines, func(i, j int) bool { return lines[i].ItemID < lines[j].ItemID })
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, l := range lines {
			if _, err := tx.Exec(ctx, "UPDATE stock SET qty = qty - $2 WHERE id = $1", l.ItemID, l.Qty); err != nil {
				return err
			}
		}
		return nil
	})
}

type tagRequest struct {
	TagIDs         []int64 `json:"tag_ids"`
	From, To, Gift int64
}

// tagHandler locks rows in the order a client's JSON lists them.
func tagHandler(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req tagRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			return
		}
		ctx := r.Context()
		tx, err := pool.Begin(ctx)
		if err != nil {
			return
		}
		defer tx.Rollback(ctx)
		for _, id := range req.TagIDs {
			if _, err := tx.Exec(ctx, "UPDATE tags SET uses = uses + 1 WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of tags \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice req.TagIDs`
				return
			}
		}
		_ = tx.Commit(ctx)
	}
}

// giftHandler moves points between two accounts a client names.
func giftHandler(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req tagRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			return
		}
		ctx := r.Context()
		_ = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "UPDATE points SET n = n - $2 WHERE id = $1", req.From, req.Gift); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "UPDATE points SET n = n + $2 WHERE id = $1", req.To, req.Gift) // want `row order chosen by the caller: rowlocks.giftHandler.func1.func1 locks two rows of points, first the one keyed by req.From, then the one keyed by req.To`
			return err
		})
	}
}

// createWorker opens and ends its own transaction (through the commit
// function a helper returns, which the analysis does not follow).
func createWorker(ctx context.Context, pool *pgxpool.Pool, id int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	commit := func() error { return tx.Commit(ctx) }
	if _, err := tx.Exec(ctx, "UPDATE operators SET worker = $1 WHERE id = $1", id); err != nil {
		return err
	}
	return commit()
}

// createWorkers calls it per element: one transaction per call.
func createWorkers(ctx context.Context, pool *pgxpool.Pool, ids []int64) {
	for _, id := range ids {
		_ = createWorker(ctx, pool, id)
	}
}

// lockMatchesQ and deleteMatchesQ are sqlc-style helpers on a DBTX: the
// first locks the rows in id order, the second deletes a set of them.
func lockMatchesQ(ctx context.Context, db dbtx, ids []int64) error {
	_, err := db.Exec(ctx, "SELECT id FROM matches WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids)
	return err
}

func deleteMatchesQ(ctx context.Context, db dbtx, ids []int64) error {
	_, err := db.Exec(ctx, "DELETE FROM matches WHERE id = ANY($1)", ids)
	return err
}

// settleMatches runs both through one helper: the DELETE's rows are
// locked in order already.
func settleMatches(ctx context.Context, db dbtx, ids []int64) error {
	if err := lockMatchesQ(ctx, db, ids); err != nil {
		return err
	}
	return deleteMatchesQ(ctx, db, ids)
}

func settleMatchesTx(ctx context.Context, tx pgx.Tx, ids []int64) error {
	return settleMatches(ctx, tx, ids)
}

// purgeMatches deletes without locking first.
func purgeMatches(ctx context.Context, tx pgx.Tx, ids []int64) error {
	return deleteMatchesQ(ctx, tx, ids) // want `unordered multi-row lock: DELETE takes rows of matches \(FOR UPDATE\), several of them \(= ANY\(...\)\)`
}

// relinkAll orders chain_links the other way from links.Prune, in another
// package: the mismatch is found through the package fact (go vet mode too).
func relinkAll(ctx context.Context, tx pgx.Tx, height int64) error {
	if err := links.Prune(ctx, tx, height); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "SELECT hash FROM chain_links WHERE height > $1 ORDER BY hash DESC FOR UPDATE", height) // want `row order mismatch on chain_links: rowlocks.relinkAll locks its rows ORDER BY hash DESC, links.Prune locks them ORDER BY hash`
	return err
}

type byItem []orderLine

func (s byItem) Len() int           { return len(s) }
func (s byItem) Less(i, j int) bool { return s[i].ItemID < s[j].ItemID }
func (s byItem) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

// reserveDescending sorts in reverse: still one order.
func reserveDescending(ctx context.Context, tx pgx.Tx, lines []orderLine) error {
	sort.Sort(sort.Reverse(byItem(lines)))
	for _, l := range lines {
		if _, err := tx.Exec(ctx, "UPDATE stock SET qty = qty - $2 WHERE id = $1", l.ItemID, l.Qty); err != nil {
			return err
		}
	}
	return nil
}

// touchBatch queues one UPDATE per caller id: the batch runs as one
// implicit transaction, taking the rows in the caller's order.
func touchBatch(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	b := &pgx.Batch{}
	for _, id := range ids {
		b.Queue("UPDATE gadgets SET seen = true WHERE id = $1", id) // want `lock order set by a loop: rows of gadgets \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over the slice ids`
	}
	return pool.SendBatch(ctx, b).Close()
}

// touchBatchSorted sorts first.
func touchBatchSorted(ctx context.Context, pool *pgxpool.Pool, ids []int64) error {
	slices.Sort(ids)
	b := &pgx.Batch{}
	for _, id := range ids {
		b.Queue("UPDATE gadgets SET seen = true WHERE id = $1", id)
	}
	return pool.SendBatch(ctx, b).Close()
}

// addToTotal updates one constant row per map entry: the order of the map
// does not matter.
func addToTotal(ctx context.Context, tx pgx.Tx, amounts map[string]int64) error {
	for _, v := range amounts {
		if _, err := tx.Exec(ctx, "UPDATE grand_totals SET total = total + $1 WHERE id = 1", v); err != nil {
			return err
		}
	}
	return nil
}

// guardWallets takes two advisory locks keyed by an expression of the
// caller's values, in a transaction closure.
func guardWallets(ctx context.Context, pool *pgxpool.Pool, from, to string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('wallet:' || $1))", from); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('wallet:' || $1))", to) // want `row order chosen by the caller: rowlocks.guardWallets.func1 takes two advisory locks, first the one keyed by from, then the one keyed by to`
		return err
	})
}

// touchCollected locks rows read by a query without ORDER BY, collected
// with pgx.CollectRows.
func touchCollected(ctx context.Context, tx pgx.Tx, org int64) error {
	rows, err := tx.Query(ctx, "SELECT id FROM gadgets WHERE org_id = $1", org)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := tx.Exec(ctx, "UPDATE gadgets SET seen = true WHERE id = $1", id); err != nil { // want `lock order set by a loop: rows of gadgets \(FOR NO KEY UPDATE\) are taken once per iteration of a loop over a slice of query results that have no ORDER BY`
			return err
		}
	}
	return nil
}

// bumpPair locks a sorted pair in a loop, then updates both: the UPDATE's
// rows are held already.
func bumpPair(ctx context.Context, tx pgx.Tx, a, b int64) error {
	if b < a {
		a, b = b, a
	}
	for _, id := range []int64{a, b} {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM pairs WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, "UPDATE pairs SET n = n + 1 WHERE id IN ($1, $2)", a, b)
	return err
}
