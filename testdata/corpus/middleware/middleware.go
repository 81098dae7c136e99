package middleware // want package:"sql=true edges=[0-9]+"

// middleware serves HTTP requests in one transaction each: a middleware
// factory (API.inRequestTx) returns a handler that begins the transaction,
// stores it in the request's context and calls the handler it wraps, a
// method value; the store's methods run on the context's transaction, or on
// the pool when there is none. The wrapped handlers run only where the
// router calls them, which the analysis does not see: the closure the
// factory returns is analysed where it is made, with the handler it wraps.

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
)

type txKey struct{}

// querier is what the store runs its statements on.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Store keeps rooms, guests and the rest; its methods join the
// transaction the context carries, if any.
type Store struct{ db *sql.DB }

func (s *Store) q(ctx context.Context) querier { // want q:`^returns\(0=p1\.ctx\$tx\(handle\)\)$`
	if tx, ok := ctx.Value(txKey{}).(*sql.Tx); ok {
		return tx
	}
	return s.db
}

func (s *Store) exec(ctx context.Context, query string, id int64) error { // want exec:`^sinks\(2@p1\.ctx\$tx\)$`
	_, err := s.q(ctx).ExecContext(ctx, query, id)
	return err
}

// API serves the requests.
type API struct {
	db    *sql.DB
	store *Store
}

// inRequestTx wraps next in a transaction of its own, committed when next
// is done.
func (a *API) inRequestTx(next http.HandlerFunc) http.HandlerFunc { // want inRequestTx:`^closures\(0=middleware\.API\.inRequestTx\.func1\{invokes\(p3\(1\.ctx\.ctx\$tx=L0\(transaction\)\)\)\}\)$`
	return func(w http.ResponseWriter, r *http.Request) {
		tx, err := a.db.BeginTx(r.Context(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		defer func() { _ = tx.Rollback() }()
		next(w, r.WithContext(context.WithValue(r.Context(), txKey{}, tx)))
		_ = tx.Commit()
	}
}

// inTxHandler is inRequestTx for an http.Handler.
func (a *API) inTxHandler(next http.Handler) http.Handler { // want inTxHandler:`^closures\(0=middleware\.API\.inTxHandler\.func1\{invokes\(p3\(1\.ctx\.ctx\$tx=L0\(transaction\)\)\)\}\)$`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tx, err := a.db.BeginTx(r.Context(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		defer func() { _ = tx.Rollback() }()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), txKey{}, tx)))
		_ = tx.Commit()
	})
}

// logged wraps next without a transaction: its handler runs each statement
// on its own.
func (a *API) logged(next http.HandlerFunc) http.HandlerFunc { // want logged:`^closures\(0=middleware\.API\.logged\.func1\{invokes\(p2\(1\.ctx\.ctx\$tx=p1\.ctx\.ctx\$tx\(handle\)\)\)\}\)$`
	return func(w http.ResponseWriter, r *http.Request) {
		next(w, r)
	}
}

// Routes registers the handlers.
func (a *API) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /reserve", a.inRequestTx(a.reserve))
	mux.HandleFunc("POST /pack", a.inRequestTx(a.pack))
	mux.Handle("POST /assign", a.inTxHandler(http.HandlerFunc(a.assign)))
	// Not in a request transaction: the statements of note and tag hold
	// nothing from one to the next.
	mux.HandleFunc("POST /note", a.note)
	mux.HandleFunc("POST /tag", a.logged(a.tag))
}

func id(r *http.Request) int64 {
	v, _ := strconv.ParseInt(r.URL.Query().Get("id"), 10, 64)
	return v
}

// reserve locks the room, then updates the guest, in the request's
// transaction: the opposite order of CheckOut.
func (a *API) reserve(w http.ResponseWriter, r *http.Request) { // want reserve:`^locks\(table:mw_rooms ROW SHARE@p2\.ctx\.ctx\$tx, row:mw_rooms FOR UPDATE@p2\.ctx\.ctx\$tx, table:mw_guests ROW EXCLUSIVE@p2\.ctx\.ctx\$tx, row:mw_guests FOR NO KEY UPDATE@p2\.ctx\.ctx\$tx\) holds\[0 1 2 3\]$`
	ctx := r.Context()
	if err := a.store.exec(ctx, "SELECT 1 FROM mw_rooms WHERE id = $1 FOR UPDATE", id(r)); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	if err := a.store.exec(ctx, "UPDATE mw_guests SET stays = stays + 1 WHERE id = $1", id(r)); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
	}
}

// CheckOut updates the guest, then frees the room, in a transaction of its
// own (a worker's).
func (a *API) CheckOut(ctx context.Context, guest int64) error { // want CheckOut:`^locks\(table:mw_guests ROW EXCLUSIVE@L0, row:mw_guests FOR NO KEY UPDATE@L0, table:mw_rooms ROW EXCLUSIVE@L0, row:mw_rooms FOR NO KEY UPDATE@L0\)$`
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "UPDATE mw_guests SET stays = stays - 1 WHERE id = $1", guest); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE mw_rooms SET free = true WHERE id = $1", guest); err != nil { // want `lock-order inversion: rows of mw_guests and rows of mw_rooms are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// pack locks the order, then its parcel, in the request's transaction: the
// order Ship keeps too.
func (a *API) pack(w http.ResponseWriter, r *http.Request) { // want pack:`^locks\(table:mw_orders ROW SHARE@p2\.ctx\.ctx\$tx, row:mw_orders FOR UPDATE@p2\.ctx\.ctx\$tx, table:mw_parcels ROW EXCLUSIVE@p2\.ctx\.ctx\$tx, row:mw_parcels FOR NO KEY UPDATE@p2\.ctx\.ctx\$tx\) holds\[0 1 2 3\]$`
	ctx := r.Context()
	if err := a.store.exec(ctx, "SELECT 1 FROM mw_orders WHERE id = $1 FOR UPDATE", id(r)); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	_ = a.store.exec(ctx, "UPDATE mw_parcels SET packed = true WHERE id = $1", id(r))
}

// Ship updates the order, then its parcel: pack's order.
func (a *API) Ship(ctx context.Context, order int64) error { // want Ship:`^locks\(table:mw_orders ROW EXCLUSIVE@L0, row:mw_orders FOR NO KEY UPDATE@L0, table:mw_parcels ROW EXCLUSIVE@L0, row:mw_parcels FOR NO KEY UPDATE@L0\)$`
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "UPDATE mw_orders SET shipped = true WHERE id = $1", order); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE mw_parcels SET shipped = true WHERE id = $1", order); err != nil {
		return err
	}
	return tx.Commit()
}

// note and tag lock a label, then a tag, each statement on its own (the
// pool): nothing is held from one to the next, whatever Relabel does.
func (a *API) note(w http.ResponseWriter, r *http.Request) { // want note:`^locks\(table:mw_labels ROW SHARE@p2\.ctx\.ctx\$tx, row:mw_labels FOR UPDATE@p2\.ctx\.ctx\$tx, table:mw_tags ROW EXCLUSIVE@p2\.ctx\.ctx\$tx, row:mw_tags FOR NO KEY UPDATE@p2\.ctx\.ctx\$tx\) holds\[0 1 2 3\]$`
	ctx := r.Context()
	_ = a.store.exec(ctx, "SELECT 1 FROM mw_labels WHERE id = $1 FOR UPDATE", id(r))
	_ = a.store.exec(ctx, "UPDATE mw_tags SET used = used + 1 WHERE id = $1", id(r))
}

func (a *API) tag(w http.ResponseWriter, r *http.Request) { // want tag:`^locks\(table:mw_labels ROW SHARE@p2\.ctx\.ctx\$tx, row:mw_labels FOR UPDATE@p2\.ctx\.ctx\$tx, table:mw_tags ROW EXCLUSIVE@p2\.ctx\.ctx\$tx, row:mw_tags FOR NO KEY UPDATE@p2\.ctx\.ctx\$tx\) holds\[0 1 2 3\]$`
	ctx := r.Context()
	_ = a.store.exec(ctx, "SELECT 1 FROM mw_labels WHERE id = $1 FOR UPDATE", id(r))
	_ = a.store.exec(ctx, "UPDATE mw_tags SET used = used + 1 WHERE id = $1", id(r))
}

// Relabel updates the tag, then the label, in a transaction.
func (a *API) Relabel(ctx context.Context, tag int64) error { // want Relabel:`^locks\(table:mw_tags ROW EXCLUSIVE@L0, row:mw_tags FOR NO KEY UPDATE@L0, table:mw_labels ROW EXCLUSIVE@L0, row:mw_labels FOR NO KEY UPDATE@L0\)$`
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "UPDATE mw_tags SET used = 0 WHERE id = $1", tag); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE mw_labels SET name = '' WHERE id = $1", tag); err != nil {
		return err
	}
	return tx.Commit()
}

// assign locks the desk, then updates its clerk, in the request's
// transaction: the opposite order of Reassign.
func (a *API) assign(w http.ResponseWriter, r *http.Request) { // want assign:`^locks\(table:mw_desks ROW SHARE@p2\.ctx\.ctx\$tx, row:mw_desks FOR UPDATE@p2\.ctx\.ctx\$tx, table:mw_clerks ROW EXCLUSIVE@p2\.ctx\.ctx\$tx, row:mw_clerks FOR NO KEY UPDATE@p2\.ctx\.ctx\$tx\) holds\[0 1 2 3\]$`
	ctx := r.Context()
	if err := a.store.exec(ctx, "SELECT 1 FROM mw_desks WHERE id = $1 FOR UPDATE", id(r)); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	_ = a.store.exec(ctx, "UPDATE mw_clerks SET desk_id = $1 WHERE id = $1", id(r))
}

// Reassign updates the clerk, then the desk, in a transaction.
func (a *API) Reassign(ctx context.Context, clerk int64) error { // want Reassign:`^locks\(table:mw_clerks ROW EXCLUSIVE@L0, row:mw_clerks FOR NO KEY UPDATE@L0, table:mw_desks ROW EXCLUSIVE@L0, row:mw_desks FOR NO KEY UPDATE@L0\)$`
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "UPDATE mw_clerks SET desk_id = NULL WHERE id = $1", clerk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE mw_desks SET free = true WHERE id = $1", clerk); err != nil { // want `lock-order inversion: rows of mw_clerks and rows of mw_desks are locked in opposite orders`
		return err
	}
	return tx.Commit()
}

// Lend serves a loan at once in a request transaction: the handler the
// factory returns is called right here.
func (a *API) Lend(w http.ResponseWriter, r *http.Request) { // want Lend:`^locks\(table:mw_books ROW SHARE@C0/L0, row:mw_books FOR UPDATE@C0/L0, table:mw_readers ROW EXCLUSIVE@C0/L0, row:mw_readers FOR NO KEY UPDATE@C0/L0\)$`
	a.inRequestTx(a.lend)(w, r) // want `lock-order inversion: rows of mw_books and rows of mw_readers are locked in opposite orders`
}

// lend locks the book, then updates its reader: the opposite order of
// GiveBack.
func (a *API) lend(w http.ResponseWriter, r *http.Request) { // want lend:`^locks\(table:mw_books ROW SHARE@p2\.ctx\.ctx\$tx, row:mw_books FOR UPDATE@p2\.ctx\.ctx\$tx, table:mw_readers ROW EXCLUSIVE@p2\.ctx\.ctx\$tx, row:mw_readers FOR NO KEY UPDATE@p2\.ctx\.ctx\$tx\) holds\[0 1 2 3\]$`
	ctx := r.Context()
	if err := a.store.exec(ctx, "SELECT 1 FROM mw_books WHERE id = $1 FOR UPDATE", id(r)); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	_ = a.store.exec(ctx, "UPDATE mw_readers SET loans = loans + 1 WHERE id = $1", id(r))
}

// GiveBack updates the reader, then the book, in a transaction.
func (a *API) GiveBack(ctx context.Context, reader int64) error { // want GiveBack:`^locks\(table:mw_readers ROW EXCLUSIVE@L0, row:mw_readers FOR NO KEY UPDATE@L0, table:mw_books ROW EXCLUSIVE@L0, row:mw_books FOR NO KEY UPDATE@L0\)$`
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "UPDATE mw_readers SET loans = loans - 1 WHERE id = $1", reader); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE mw_books SET lent = false WHERE id = $1", reader); err != nil {
		return err
	}
	return tx.Commit()
}
