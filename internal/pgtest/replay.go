package pgtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pglockorder/pglockorder/internal/repro"
)

// Replay settings. deadlock_timeout is short so that a detected deadlock
// shows quickly; lock_timeout is ten times longer, so that a wait the
// detector could see is always reported as 40P01 before lock_timeout ends it:
// a 55P03 then proves that the server could not see the cycle.
const (
	replayDeadlockTimeout = "100ms"
	replayLockTimeout     = "1s"
)

// Outcome is what happened when a reproducer ran.
type Outcome struct {
	// Errors holds the error of each session's waiting step, by session
	// name; a step that succeeded has no entry.
	Errors map[string]*pgconn.PgError
	// NotBlocked lists the sessions whose waiting step returned without
	// having waited for a lock (before the last turn).
	NotBlocked []string
	// SessionLocks counts the advisory locks the sessions still held
	// after each had rolled back: session-level locks that outlived
	// their transaction.
	SessionLocks int
	// PIDs are the sessions' backend process IDs, in the order of the
	// script's sessions: what the server's log names them by, and all
	// that tells this replay's reports from those of other tests that
	// share the server.
	PIDs []uint32
}

// Deadlocks counts the sessions that failed with 40P01.
func (o *Outcome) Deadlocks() int {
	return o.count(func(e *pgconn.PgError) bool { return e.Code == "40P01" })
}

// LockTimeouts counts the sessions whose wait lock_timeout ended (55P03
// "canceling statement due to lock timeout", not NOWAIT's "could not obtain
// lock").
func (o *Outcome) LockTimeouts() int {
	return o.count(func(e *pgconn.PgError) bool { return e.Code == "55P03" && strings.Contains(e.Message, "lock timeout") })
}

func (o *Outcome) count(f func(*pgconn.PgError) bool) int {
	n := 0
	for _, e := range o.Errors {
		if f(e) {
			n++
		}
	}
	return n
}

// String summarises the outcome for test messages.
func (o *Outcome) String() string {
	var parts []string
	for name, e := range o.Errors {
		parts = append(parts, fmt.Sprintf("%s: %s %s", name, e.Code, e.Message))
	}
	if len(parts) == 0 {
		parts = append(parts, "no errors")
	}
	if len(o.NotBlocked) > 0 {
		parts = append(parts, "did not block: "+strings.Join(o.NotBlocked, ", "))
	}
	parts = append(parts, fmt.Sprintf("%d session advisory locks left", o.SessionLocks))
	return strings.Join(parts, "; ")
}

// Replay runs a reproducer on the database of dsn, one connection per
// session, with the placeholders bound to values: every session takes its
// held locks, then the sessions of sc.WaitOrder request theirs one after the
// other, each only once the one before waits for a lock. It returns what
// happened; err is for a reproducer that could not run (a held lock that
// failed, a connection error).
func Replay(ctx context.Context, dsn string, sc *repro.Script, values map[string]string) (*Outcome, error) {
	if len(sc.Missing) > 0 {
		return nil, fmt.Errorf("incomplete reproducer: missing %s", strings.Join(sc.Missing, "; "))
	}
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = admin.Close(context.Background()) }()
	for _, def := range sc.Setup {
		// The schema's functions and triggers the sessions rely on.
		if err := exec(ctx, admin, def); err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
	}
	conns := make([]*pgx.Conn, len(sc.Sessions))
	defer func() {
		for _, c := range conns {
			if c != nil {
				_ = c.Close(context.Background())
			}
		}
	}()
	for i, s := range sc.Sessions {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("connecting %s: %w", s.Name, err)
		}
		conns[i] = c
		setup := fmt.Sprintf("SET application_name = '%s'; SET deadlock_timeout = '%s'; SET lock_timeout = '%s'",
			s.Name, replayDeadlockTimeout, replayLockTimeout)
		if s.Tx {
			setup += "; BEGIN"
		}
		if err := exec(ctx, c, setup); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	for i, s := range sc.Sessions {
		for _, st := range s.Hold {
			if err := exec(ctx, conns[i], repro.Bind(st.SQL, values)); err != nil {
				return nil, fmt.Errorf("%s: taking %s at %s: %w", s.Name, st.Lock, st.Pos, err)
			}
		}
	}

	out := &Outcome{Errors: map[string]*pgconn.PgError{}}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for k, i := range sc.WaitOrder {
		s, c := sc.Sessions[i], conns[i]
		done := make(chan struct{})
		wg.Go(func() {
			defer close(done)
			err := exec(ctx, c, repro.Bind(s.Wait.SQL, values))
			// The path would go on and end its transaction: release
			// its locks now, as the victim's are at the error.
			rerr := exec(ctx, c, "ROLLBACK")
			mu.Lock()
			defer mu.Unlock()
			var pgErr *pgconn.PgError
			switch {
			case errors.As(err, &pgErr):
				out.Errors[s.Name] = pgErr
			case err != nil:
				out.Errors[s.Name] = &pgconn.PgError{Code: "client", Message: err.Error()}
			case rerr != nil:
				out.Errors[s.Name] = &pgconn.PgError{Code: "client", Message: "rollback: " + rerr.Error()}
			}
		})
		if k == len(sc.WaitOrder)-1 {
			break
		}
		blocked, err := waitBlocked(ctx, admin, c.PgConn().PID(), done)
		if err != nil {
			return nil, err
		}
		if !blocked {
			out.NotBlocked = append(out.NotBlocked, s.Name)
		}
	}
	wg.Wait()
	out.PIDs = make([]uint32, len(conns))
	for i, s := range sc.Sessions {
		out.PIDs[i] = conns[i].PgConn().PID()
		if s.Wait == nil && s.Tx {
			if err := exec(ctx, conns[i], "ROLLBACK"); err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name, err)
			}
		}
	}
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = ANY($1)", out.PIDs).Scan(&out.SessionLocks); err != nil {
		return nil, fmt.Errorf("reading pg_locks: %w", err)
	}
	return out, nil
}

// waitBlocked polls pg_stat_activity until the backend pid waits for a lock
// (true) or its statement has returned (false).
func waitBlocked(ctx context.Context, admin *pgx.Conn, pid uint32, done <-chan struct{}) (bool, error) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false, nil
		default:
		}
		var waiting bool
		err := admin.QueryRow(ctx, "SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&waiting)
		if err != nil {
			return false, fmt.Errorf("reading pg_stat_activity: %w", err)
		}
		if waiting {
			return true, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false, errors.New("a waiting step neither blocked nor returned within 10s")
}

func exec(ctx context.Context, c *pgx.Conn, sql string) error {
	if err := c.PgConn().Exec(ctx, sql).Close(); err != nil {
		return fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}
