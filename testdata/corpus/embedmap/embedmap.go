package embedmap // want package:"sql=true edges=[0-9]+"

import (
	"context"
	"embed"
	"os"
	"path"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"corpus/embedmap/queries"
)

//go:embed q
var local embed.FS

// stmts is filled in init from q/, keyed by file name without extension.
var stmts = map[string]string{}

// fromDisk is filled from files read at run time: not known.
var fromDisk = map[string]string{}

func init() {
	entries, err := local.ReadDir("q")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		b, err := local.ReadFile("q/" + e.Name())
		if err != nil {
			panic(err)
		}
		stmts[strings.TrimSuffix(e.Name(), path.Ext(e.Name()))] = string(b)
	}
	if b, err := os.ReadFile("/etc/extra.sql"); err == nil {
		fromDisk["extra"] = string(b)
	}
}

// Scheduler hands builds to runners.
type Scheduler struct {
	pool *pgxpool.Pool
}

// Drain locks the runner, then requeues its builds (statements of another
// package's loader).
func (s *Scheduler) Drain(ctx context.Context, runnerID int64) error { // want Drain:`locks\(.*row:em_runners FOR UPDATE@L0.*row:em_builds FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, queries.Get("lock_runner"), runnerID); err != nil {
		return err
	}
	if err := queries.Exec(ctx, tx, "requeue", runnerID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Cancel locks the build, then frees its runner (statements of this
// package's loader): the opposite order.
func (s *Scheduler) Cancel(ctx context.Context, buildID int64) error { // want Cancel:`locks\(.*row:em_builds FOR UPDATE@L0.*row:em_runners FOR NO KEY UPDATE@L0`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, queries.Get("lock_build"), buildID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, stmts["cancel_build"], buildID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, stmts["free_runner"], buildID); err != nil { // want `lock-order inversion: rows of em_builds and rows of em_runners are locked in opposite orders`
		return err
	}
	return tx.Commit(ctx)
}

// Extra runs a statement read from disk at run time: not analysed.
func (s *Scheduler) Extra(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, fromDisk["extra"])
	return err
}
