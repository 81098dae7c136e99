package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Config sizes the generated module.
type Config struct {
	// Packages is the total number of packages.
	Packages int
	// Funcs is the number of functions (and methods) per package.
	Funcs int
	// SQLShare is the percentage of packages that run SQL: they come in
	// domains of three packages (sqlc-like queries, a database/sql
	// repository, a service running transactions over both).
	SQLShare int
	// Planted is the number of lock-order inversions planted, each between
	// two services of neighbouring domains; each is one finding.
	Planted int
	// Seed seeds the choices of tables, statements and code shapes.
	Seed uint64
	// GoSum is a go.sum file to copy into the module, or "".
	GoSum string
}

// Stats describes the generated module.
type Stats struct {
	Packages, SQLPackages, Functions, Lines, Planted int
}

// errConfig marks errors in the configuration, as opposed to I/O errors.
var errConfig = errors.New("bad configuration")

// modulePath is the path of the generated module.
const modulePath = "benchcorpus"

// goMod requires the pgx version of testdata/corpus, so that its go.sum
// (and module cache) serves the generated module too.
const goMod = `module benchcorpus

go 1.25.0

require github.com/jackc/pgx/v5 v5.12.0

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/crypto v0.20.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
`

// nouns name the tables; a domain's tables get its number as suffix.
var nouns = []string{
	"accounts", "orders", "invoices", "payments", "customers", "shipments", "products", "inventory",
	"carts", "coupons", "refunds", "ledger", "users", "sessions", "teams", "projects",
	"tasks", "comments", "webhooks", "jobs", "subscriptions", "plans", "audits", "vendors",
}

// gen holds the state of one generation.
type gen struct {
	cfg     Config
	dir     string
	rng     *rand.Rand
	domains int
	libs    int
	stats   Stats
	// forward[d] lists the planted inversions whose first half domain d's
	// queries or repository runs; backward[d] those whose second half its
	// service runs.
	forward, backward map[int][]int
}

// Generate writes the module into dir.
func Generate(dir string, cfg Config) (Stats, error) {
	if cfg.Packages <= 0 || cfg.Funcs < 16 || cfg.SQLShare < 0 || cfg.SQLShare > 100 || cfg.Planted < 0 {
		return Stats{}, fmt.Errorf("%w: need packages > 0, funcs >= 16, 0 <= sqlshare <= 100, planted >= 0", errConfig)
	}
	g := &gen{cfg: cfg, dir: dir, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)),
		forward: map[int][]int{}, backward: map[int][]int{}}
	g.domains = max(2, cfg.Packages*cfg.SQLShare/100/3)
	g.libs = cfg.Packages - 3*g.domains - 2 // txutil and cmd/app
	if g.libs < 1 {
		return Stats{}, fmt.Errorf("%w: %d packages leave no room for ordinary code next to %d SQL domains of 3 packages; raise -packages or lower -sqlshare",
			errConfig, cfg.Packages, g.domains)
	}
	for j := range cfg.Planted {
		a := j % (g.domains - 1)
		g.forward[a] = append(g.forward[a], j)
		g.backward[a+1] = append(g.backward[a+1], j)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return Stats{}, fmt.Errorf("%w: %s is not empty", errConfig, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Stats{}, fmt.Errorf("creating the module directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		return Stats{}, fmt.Errorf("writing go.mod: %w", err)
	}
	if cfg.GoSum != "" {
		sum, err := os.ReadFile(cfg.GoSum)
		if err != nil {
			return Stats{}, fmt.Errorf("reading go.sum: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
			return Stats{}, fmt.Errorf("writing go.sum: %w", err)
		}
	}
	steps := []func() error{g.txutil}
	for m := range g.libs {
		steps = append(steps, func() error { return g.lib(m) })
	}
	for d := range g.domains {
		steps = append(steps,
			func() error { return g.queries(d) },
			func() error { return g.repo(d) },
			func() error { return g.service(d) })
	}
	steps = append(steps, g.app)
	for _, step := range steps {
		if err := step(); err != nil {
			return Stats{}, err
		}
	}
	g.stats.Planted = cfg.Planted
	return g.stats, nil
}

// file is a Go source file being written.
type file struct {
	bytes.Buffer
}

func (f *file) p(format string, args ...any) {
	fmt.Fprintf(f, format, args...)
	f.WriteByte('\n')
}

// write formats f and writes it as rel, counting its lines.
func (g *gen) write(rel string, f *file) error {
	src, err := format.Source(f.Bytes())
	if err != nil {
		return fmt.Errorf("generated %s does not parse: %w", rel, err)
	}
	path := filepath.Join(g.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", rel, err)
	}
	g.stats.Lines += bytes.Count(src, []byte{'\n'})
	return nil
}

// table is a table of a domain.
type table struct {
	name  string // SQL name, e.g. orders_7
	ident string // Go identifier part, e.g. Orders7
	rank  int    // global lock order: ordinary code locks in increasing rank
}

func (g *gen) tables(d int) []table {
	out := make([]table, 3)
	for i := range out {
		n := nouns[(3*d+i)%len(nouns)]
		out[i] = table{
			name:  fmt.Sprintf("%s_%d", n, d),
			ident: fmt.Sprintf("%s%s%d", strings.ToUpper(n[:1]), n[1:], d),
			rank:  3*d + i,
		}
	}
	return out
}

func plantTables(j int) (x, y table) {
	return table{name: fmt.Sprintf("plant_x_%d", j), ident: fmt.Sprintf("PlantX%d", j)},
		table{name: fmt.Sprintf("plant_y_%d", j), ident: fmt.Sprintf("PlantY%d", j)}
}

func domainDir(d int) string { return fmt.Sprintf("dom/d%03d", d) }

func libPath(m int) string { return fmt.Sprintf("%s/lib/l%03d", modulePath, m) }

// txutil writes the shared transaction helpers.
func (g *gen) txutil() error {
	f := &file{}
	f.p(`// Package txutil runs functions in transactions.
package txutil

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// InTx runs fn in a transaction on pool and commits unless fn fails.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %%w", err)
	}
	defer tx.Rollback(ctx)
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// InSQLTx runs fn in a database/sql transaction and commits unless fn fails.
func InSQLTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %%w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Exec runs one statement in tx, adding the statement to its error.
func Exec(ctx context.Context, tx pgx.Tx, query string, args ...any) error {
	if _, err := tx.Exec(ctx, query, args...); err != nil {
		return fmt.Errorf("%%s: %%w", query, err)
	}
	return nil
}`)
	g.stats.Packages++
	g.stats.SQLPackages++
	g.stats.Functions += 3
	return g.write("internal/txutil/txutil.go", f)
}

// lib writes ordinary package m, which uses the two before it.
func (g *gen) lib(m int) error {
	f := &file{}
	f.p("// Package l%03d is ordinary code with no database access.", m)
	f.p("package l%03d\n", m)
	f.p("import (\n\"sort\"\n\"strconv\"\n\"strings\"")
	var deps []int
	for _, dm := range []int{m - 1, m - 7} {
		if dm >= 0 {
			deps = append(deps, dm)
			f.p("%q", libPath(dm))
		}
	}
	f.p(")\n")
	for _, dm := range deps {
		f.p("var _ = l%03d.F0", dm)
	}
	f.p(`// Cache counts keys.
type Cache struct {
	hits map[string]int
	keys []string
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{hits: map[string]int{}} }`)
	n := g.cfg.Funcs - 1
	for i := range n {
		call := ""
		if len(deps) > 0 {
			dm := deps[g.rng.IntN(len(deps))]
			call = fmt.Sprintf("l%03d.F%d", dm, g.rng.IntN(n))
		}
		switch i % 4 {
		case 0:
			f.p(`
// F%[1]d folds xs into a total and a label.
func F%[1]d(xs []int, s string) (int, string) {
	total := 0
	for i, x := range xs {
		if x%%3 == i%%3 {
			total += x * %[2]d
		} else {
			total -= x
		}
	}
	var b strings.Builder
	b.WriteString(s)
	b.WriteString(strconv.Itoa(total))`, i, g.rng.IntN(17)+2)
			if call != "" {
				f.p("if total > %d {\nreturn %s(xs[:len(xs)/2], b.String())\n}", g.rng.IntN(1000), call)
			}
			f.p("return total, b.String()\n}")
		case 1:
			f.p(`
// F%[1]d counts the words of s and returns the most frequent.
func F%[1]d(xs []int, s string) (int, string) {
	counts := map[string]int{}
	for _, w := range strings.Fields(s) {
		counts[strings.ToLower(w)]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, n := "", len(xs)
	for _, k := range keys {
		if counts[k] > n {
			best, n = k, counts[k]
		}
	}
	return n, best
}`, i)
		case 2:
			f.p(`
// F%[1]d records s in c and returns how often it was seen.
func (c *Cache) F%[1]d(xs []int, s string) (int, string) {
	c.hits[s] += len(xs) + %[2]d
	if c.hits[s] == 1 {
		c.keys = append(c.keys, s)
	}
	if len(c.keys) > %[3]d {
		c.keys = c.keys[1:]
	}
	return c.hits[s], strings.Join(c.keys, ",")
}

// F%[1]d calls the method of the same name on a fresh cache.
func F%[1]d(xs []int, s string) (int, string) {
	return NewCache().F%[1]d(xs, s)
}`, i, g.rng.IntN(5), 16+g.rng.IntN(64))
			g.stats.Functions++
		default:
			f.p(`
// F%[1]d classifies the length of s.
func F%[1]d(xs []int, s string) (int, string) {
	switch n := len(s) + len(xs); {
	case n == 0:
		return 0, "empty"
	case n < %[2]d:
		return n, "short:" + s
	case n < %[3]d:`, i, 4+g.rng.IntN(8), 40+g.rng.IntN(40))
			if call != "" {
				f.p("return %s(xs, strings.TrimSpace(s))", call)
			} else {
				f.p(`return n, "medium"`)
			}
			f.p(`default:
		return n, strconv.Quote(s[:8])
	}
}`)
		}
	}
	g.stats.Packages++
	g.stats.Functions += n + 1
	return g.write(fmt.Sprintf("lib/l%03d/lib.go", m), f)
}

// queries writes domain d's sqlc-like query package on pgx v5.
func (g *gen) queries(d int) error {
	f := &file{}
	pool := ""
	for _, j := range g.forward[d] {
		if j%2 == 0 {
			pool = "\n\"github.com/jackc/pgx/v5/pgxpool\""
		}
	}
	f.p(`// Package queries is laid out like sqlc's pgx/v5 output.
package queries

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"%s
)

// DBTX is what the queries run on: a pool, a connection or a transaction.
type DBTX interface {
	Exec(context.Context, string, ...interface{}) (pgconn.CommandTag, error)
	Query(context.Context, string, ...interface{}) (pgx.Rows, error)
	QueryRow(context.Context, string, ...interface{}) pgx.Row
}

// New returns the queries on db.
func New(db DBTX) *Queries { return &Queries{db: db} }

// Queries runs the domain's statements.
type Queries struct {
	db DBTX
}

// WithTx returns the queries bound to tx.
func (q *Queries) WithTx(tx pgx.Tx) *Queries { return &Queries{db: tx} }

// Row is a row of any of the domain's tables.
type Row struct {
	ID     int64
	Name   string
	Amount int64
}`, pool)
	funcs := 3
	lockers := g.tables(d)
	for _, j := range g.forward[d] {
		if j%2 == 0 {
			x, y := plantTables(j)
			lockers = append(lockers, x, y)
			// The first half of the inversion: a hand-written
			// transaction next to the generated queries.
			f.p(`
// PlantForward%[1]d locks a row of plant_x_%[1]d, then updates one of plant_y_%[1]d.
func PlantForward%[1]d(ctx context.Context, pool *pgxpool.Pool, id, amount int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	q := New(tx)
	if _, err := q.LockPlantX%[1]d(ctx, id); err != nil {
		return err
	}
	if err := q.UpdatePlantY%[1]d(ctx, id, amount); err != nil {
		return err
	}
	return tx.Commit(ctx)
}`, j)
			funcs++
		}
	}
	for _, t := range lockers {
		f.p(`
const lock%[1]s = "SELECT id, name, amount FROM %[2]s WHERE id = $1 FOR UPDATE"

// Lock%[1]s locks one row of %[2]s.
func (q *Queries) Lock%[1]s(ctx context.Context, id int64) (Row, error) {
	var r Row
	err := q.db.QueryRow(ctx, lock%[1]s, id).Scan(&r.ID, &r.Name, &r.Amount)
	return r, err
}

const update%[1]s = "UPDATE %[2]s SET amount = amount + $2 WHERE id = $1"

// Update%[1]s adds to the amount of one row of %[2]s.
func (q *Queries) Update%[1]s(ctx context.Context, id, amount int64) error {
	_, err := q.db.Exec(ctx, update%[1]s, id, amount)
	return err
}

const insert%[1]s = "INSERT INTO %[2]s (name, amount) VALUES ($1, $2) RETURNING id"

// Insert%[1]s adds a row to %[2]s.
func (q *Queries) Insert%[1]s(ctx context.Context, name string, amount int64) (int64, error) {
	var id int64
	err := q.db.QueryRow(ctx, insert%[1]s, name, amount).Scan(&id)
	return id, err
}`, t.ident, t.name)
		funcs += 3
	}
	tables := g.tables(d)
	for i := 0; funcs < g.cfg.Funcs || i < len(tables); i++ {
		t := tables[i%len(tables)]
		f.p(`
const list%[1]sBy%[3]d = "SELECT id, name, amount FROM %[2]s WHERE amount > $1 ORDER BY id LIMIT %[4]d"

// List%[1]sBy%[3]d lists rows of %[2]s above an amount.
func (q *Queries) List%[1]sBy%[3]d(ctx context.Context, above int64) ([]Row, error) {
	rows, err := q.db.Query(ctx, list%[1]sBy%[3]d, above)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		if err := rows.Scan(&r.ID, &r.Name, &r.Amount); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}`, t.ident, t.name, i, 10+g.rng.IntN(990))
		funcs++
	}
	g.stats.Packages++
	g.stats.SQLPackages++
	g.stats.Functions += funcs
	return g.write(domainDir(d)+"/queries/queries.go", f)
}

// repo writes domain d's database/sql repository.
func (g *gen) repo(d int) error {
	f := &file{}
	f.p(`// Package repo stores the domain's rows through database/sql.
package repo

import (
	"context"
	"database/sql"
	"fmt"
)

// Repo is the database/sql repository of the domain.
type Repo struct {
	db *sql.DB
}

// New returns a repository on db.
func New(db *sql.DB) *Repo { return &Repo{db: db} }`)
	funcs := 1
	lockers := g.tables(d)
	for _, j := range g.forward[d] {
		if j%2 == 1 {
			x, y := plantTables(j)
			lockers = append(lockers, x, y)
			f.p(`
// PlantForward%[1]d locks a row of plant_x_%[1]d, then touches one of plant_y_%[1]d.
func (r *Repo) PlantForward%[1]d(ctx context.Context, id int64) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := r.LockPlantX%[1]d(ctx, tx, id); err != nil {
		return err
	}
	if err := r.TouchPlantY%[1]d(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit()
}`, j)
			funcs++
		}
	}
	for _, t := range lockers {
		f.p(`
// Touch%[1]s marks one row of %[2]s as changed.
func (r *Repo) Touch%[1]s(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, "UPDATE %[2]s SET touched_at = now() WHERE id = $1", id); err != nil {
		return fmt.Errorf("touch %[2]s %%d: %%w", id, err)
	}
	return nil
}

// Lock%[1]s locks one row of %[2]s and returns its name.
func (r *Repo) Lock%[1]s(ctx context.Context, tx *sql.Tx, id int64) (string, error) {
	var name string
	err := tx.QueryRowContext(ctx, "SELECT name FROM %[2]s WHERE id = $1 FOR UPDATE", id).Scan(&name)
	return name, err
}`, t.ident, t.name)
		funcs += 2
	}
	tables := g.tables(d)
	for i := 0; funcs < g.cfg.Funcs; i++ {
		t := tables[i%len(tables)]
		f.p(`
// Count%[1]s%[3]d counts the rows of %[2]s named like a pattern.
func (r *Repo) Count%[1]s%[3]d(ctx context.Context, pattern string) (int64, error) {
	var n int64
	if err := r.db.QueryRowContext(ctx, "SELECT count(*) FROM %[2]s WHERE name LIKE $1 AND amount > %[4]d", pattern).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %[2]s: %%w", err)
	}
	return n, nil
}`, t.ident, t.name, i, g.rng.IntN(1000))
		funcs++
	}
	g.stats.Packages++
	g.stats.SQLPackages++
	g.stats.Functions += funcs
	return g.write(domainDir(d)+"/repo/repo.go", f)
}

// step is one lock request of a generated transaction.
type step struct {
	t    table
	prev bool // the table belongs to the previous domain
}

// service writes domain d's service, whose transactions lock rows of its
// own and the previous domain's tables in increasing rank, plus the second
// halves of planted inversions.
func (g *gen) service(d int) error {
	f := &file{}
	hasPrev := d > 0
	f.p("// Package service runs the domain's business transactions.\npackage service\n")
	f.p(`import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
`)
	f.p("%q", modulePath+"/internal/txutil")
	f.p("%q\n%q", modulePath+"/"+domainDir(d)+"/queries", modulePath+"/"+domainDir(d)+"/repo")
	if hasPrev {
		f.p("prevq %q\nprevr %q", modulePath+"/"+domainDir(d-1)+"/queries", modulePath+"/"+domainDir(d-1)+"/repo")
	}
	lib := g.rng.IntN(g.libs)
	f.p("%q\n)\n", libPath(lib))
	f.p(`// Service runs the domain's transactions.
type Service struct {
	pool *pgxpool.Pool
	db   *sql.DB
	q    *queries.Queries
	repo *repo.Repo`)
	if hasPrev {
		f.p("prevQ *prevq.Queries\nprevRepo *prevr.Repo")
	}
	f.p("}\n\n// New returns the service on a pool and a database/sql handle.\nfunc New(pool *pgxpool.Pool, db *sql.DB) *Service {")
	if hasPrev {
		f.p("return &Service{pool: pool, db: db, q: queries.New(pool), repo: repo.New(db), prevQ: prevq.New(pool), prevRepo: prevr.New(db)}")
	} else {
		f.p("return &Service{pool: pool, db: db, q: queries.New(pool), repo: repo.New(db)}")
	}
	f.p("}")
	f.p("\n// The helpers are used by some shapes of transaction only.\nvar (\n_ = txutil.InTx\n_ pgx.Tx\n_ = l%03d.F0\n)", lib)
	funcs := 1
	var avail []step
	if hasPrev {
		for _, t := range g.tables(d - 1) {
			avail = append(avail, step{t: t, prev: true})
		}
	}
	for _, t := range g.tables(d) {
		avail = append(avail, step{t: t})
	}
	// The second halves of planted inversions, whose first halves are
	// transactions in the previous domain's queries and repository.
	for _, j := range g.backward[d] {
		x, y := plantTables(j)
		g.plant(f, fmt.Sprintf("PlantBackward%d", j), j%2 == 1, []step{{t: y, prev: true}, {t: x, prev: true}})
		funcs++
	}
	for i := 0; funcs < g.cfg.Funcs; i++ {
		// Two or three tables, locked in increasing rank.
		n := 2 + g.rng.IntN(2)
		perm := g.rng.Perm(len(avail))[:n]
		slices.Sort(perm)
		steps := make([]step, n)
		for k, p := range perm {
			steps[k] = avail[p]
		}
		name := fmt.Sprintf("Op%d", i)
		advisory := ""
		if g.rng.IntN(5) == 0 {
			advisory = fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", 1000+d)
		}
		switch g.rng.IntN(5) {
		case 0, 1:
			g.pgxClosure(f, name, steps, advisory)
		case 2:
			g.pgxExplicit(f, name, steps, advisory)
		case 3:
			g.sqlTx(f, name, steps, advisory)
		default:
			t := avail[g.rng.IntN(len(avail))]
			recv := "s.q"
			if t.prev {
				recv = "s.prevQ"
			}
			f.p(`
// %[1]s reads rows outside any transaction and summarises them.
func (s *Service) %[1]s(ctx context.Context, above int64) (int, string, error) {
	rows, err := %[2]s.List%[3]sBy%[5]d(ctx, above)
	if err != nil {
		return 0, "", err
	}
	xs := make([]int, len(rows))
	for i, r := range rows {
		xs[i] = int(r.Amount)
	}
	n, label := l%03[4]d.F0(xs, "%[1]s")
	return n, label, nil
}`, name, recv, t.t.ident, lib, t.t.rank%3)
		}
		funcs++
	}
	g.stats.Packages++
	g.stats.SQLPackages++
	g.stats.Functions += funcs
	return g.write(domainDir(d)+"/service/service.go", f)
}

// plant writes one half of a planted inversion: it locks the first table's row, then updates the second's.
func (g *gen) plant(f *file, name string, dbsql bool, steps []step) {
	steps[0].t.ident = "Lock:" + steps[0].t.ident
	if dbsql {
		steps[1].t.ident = "Touch:" + steps[1].t.ident
		g.sqlTx(f, name, steps, "")
	} else {
		steps[1].t.ident = "Update:" + steps[1].t.ident
		g.pgxClosure(f, name, steps, "")
	}
}

// verb splits a step's identifier into the method verb, picking one when
// the step has none.
func (g *gen) verb(s step, verbs ...string) (string, string) {
	if v, id, ok := strings.Cut(s.t.ident, ":"); ok {
		return v, id
	}
	return verbs[g.rng.IntN(len(verbs))], s.t.ident
}

func (g *gen) pgxCalls(f *file, steps []step) {
	for _, s := range steps {
		q := "q"
		if s.prev {
			q = "pq"
		}
		verb, id := g.verb(s, "Lock", "Update")
		if verb == "Lock" {
			f.p("if _, err := %s.Lock%s(ctx, id); err != nil {\nreturn err\n}", q, id)
		} else {
			f.p("if err := %s.Update%s(ctx, id, amount); err != nil {\nreturn err\n}", q, id)
		}
	}
}

func usesPrev(steps []step) (own, prev bool) {
	for _, s := range steps {
		if s.prev {
			prev = true
		} else {
			own = true
		}
	}
	return own, prev
}

// pgxClosure writes a transaction run through txutil.InTx.
func (g *gen) pgxClosure(f *file, name string, steps []step, advisory string) {
	f.p("\n// %s changes rows in one transaction.\nfunc (s *Service) %s(ctx context.Context, id, amount int64) error {", name, name)
	f.p("return txutil.InTx(ctx, s.pool, func(tx pgx.Tx) error {")
	if advisory != "" {
		f.p("if err := txutil.Exec(ctx, tx, %q); err != nil {\nreturn err\n}", advisory)
	}
	own, prev := usesPrev(steps)
	if own {
		f.p("q := s.q.WithTx(tx)")
	}
	if prev {
		f.p("pq := s.prevQ.WithTx(tx)")
	}
	g.pgxCalls(f, steps)
	f.p("return nil\n})\n}")
}

// pgxExplicit writes a transaction begun and committed in the function.
func (g *gen) pgxExplicit(f *file, name string, steps []step, advisory string) {
	f.p(`
// %s changes rows in one transaction.
func (s *Service) %s(ctx context.Context, id, amount int64) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)`, name, name)
	if advisory != "" {
		f.p("if _, err := tx.Exec(ctx, %q); err != nil {\nreturn err\n}", advisory)
	}
	own, prev := usesPrev(steps)
	if own {
		f.p("q := queries.New(tx)")
	}
	if prev {
		f.p("pq := prevq.New(tx)")
	}
	g.pgxCalls(f, steps)
	f.p("return tx.Commit(ctx)\n}")
}

// sqlTx writes a database/sql transaction over the repositories.
func (g *gen) sqlTx(f *file, name string, steps []step, advisory string) {
	f.p(`
// %s changes rows in one database/sql transaction.
func (s *Service) %s(ctx context.Context, id int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()`, name, name)
	if advisory != "" {
		f.p("if _, err := tx.ExecContext(ctx, %q); err != nil {\nreturn err\n}", advisory)
	}
	for _, s := range steps {
		r := "s.repo"
		if s.prev {
			r = "s.prevRepo"
		}
		verb, id := g.verb(s, "Lock", "Touch")
		if verb == "Lock" {
			f.p("if _, err := %s.Lock%s(ctx, tx, id); err != nil {\nreturn err\n}", r, id)
		} else {
			f.p("if err := %s.Touch%s(ctx, tx, id); err != nil {\nreturn err\n}", r, id)
		}
	}
	f.p("return tx.Commit()\n}")
}

// app writes the program that links every service.
func (g *gen) app() error {
	f := &file{}
	f.p("// Command app links every service of the corpus.\npackage main\n\nimport (\n\"fmt\"\n")
	for d := range g.domains {
		f.p("s%03d %q", d, modulePath+"/"+domainDir(d)+"/service")
	}
	f.p(")\n\nfunc main() {")
	for d := range g.domains {
		f.p("fmt.Println(s%03d.New(nil, nil) != nil)", d)
	}
	f.p("}")
	g.stats.Packages++
	g.stats.Functions++
	return g.write("cmd/app/main.go", f)
}
