package lockmodel

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testSchema has every form of key and foreign key that Parse reads.
const testSchema = `
CREATE TABLE customers (id bigint PRIMARY KEY, email text UNIQUE, name text);
CREATE TABLE orders (
	id bigint,
	customer_id bigint REFERENCES customers,
	code text,
	note text,
	PRIMARY KEY (id)
);
CREATE TABLE order_items (
	order_id bigint,
	line int,
	qty int,
	PRIMARY KEY (order_id, line),
	FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE TABLE shipments (id bigint PRIMARY KEY, order_id bigint, state text);
ALTER TABLE shipments ADD CONSTRAINT shipments_order_fk FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE SET NULL;
CREATE TABLE parcels (id bigint PRIMARY KEY, order_item_order bigint, order_item_line int,
	FOREIGN KEY (order_item_order, order_item_line) REFERENCES order_items ON DELETE CASCADE);
CREATE UNIQUE INDEX orders_code ON orders (code);
CREATE UNIQUE INDEX orders_note_open ON orders (note) WHERE note IS NOT NULL;
CREATE UNIQUE INDEX customers_lower_name ON customers (lower(name));
`

func loadTestSchema(t *testing.T) *Schema {
	t.Helper()
	s := NewSchema()
	if err := s.Parse(testSchema); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemaKeys(t *testing.T) {
	s := loadTestSchema(t)
	for _, tc := range []struct {
		table string
		cols  []string
		want  bool
	}{
		{"customers", []string{"id"}, true},
		{"customers", []string{"email"}, true},
		{"customers", []string{"name"}, false}, // only an expression index
		{"orders", []string{"id", "note"}, true},
		{"orders", []string{"code"}, true},  // unique index
		{"orders", []string{"note"}, false}, // partial unique index
		{"orders", []string{"customer_id"}, false},
		{"order_items", []string{"order_id"}, false},
		{"order_items", []string{"line", "order_id"}, true},
		{"nosuch", []string{"id"}, false},
	} {
		if got := s.IsSingleRow(tc.table, tc.cols); got != tc.want {
			t.Errorf("IsSingleRow(%s, %v) = %t, want %t", tc.table, tc.cols, got, tc.want)
		}
	}
	for _, tc := range []struct {
		table, col string
		want       bool
	}{
		{"orders", "id", true}, {"orders", "code", true}, {"orders", "note", false},
		{"order_items", "line", true}, {"shipments", "order_id", false},
	} {
		if got := s.IsKeyColumn(tc.table, tc.col); got != tc.want {
			t.Errorf("IsKeyColumn(%s, %s) = %t, want %t", tc.table, tc.col, got, tc.want)
		}
	}
	refs, by := s.ForeignKeys("orders")
	if len(refs) != 1 || refs[0].Parent != "customers" || !slices.Equal(refs[0].ChildCols, []string{"customer_id"}) || refs[0].OnDelete != NoAction {
		t.Errorf("orders references %+v", refs)
	}
	var children []string
	for _, fk := range by {
		children = append(children, fk.Child+":"+string(fk.OnDelete)+string(fk.OnUpdate))
	}
	if want := []string{"order_items:cc", "shipments:na"}; !slices.Equal(children, want) {
		t.Errorf("orders is referenced by %v, want %v", children, want)
	}
}

// TestSchemaEffects checks the locks a schema adds (pg-lock-facts §4, §5).
func TestSchemaEffects(t *testing.T) {
	schema := loadTestSchema(t)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"INSERT INTO orders (id, customer_id) VALUES ($1, $2)",
			[]string{"table orders ROW EXCLUSIVE", "table customers ROW SHARE", "row customers FOR KEY SHARE"}},
		{"INSERT INTO orders (id, note) VALUES ($1, $2)", // no foreign-key column
			[]string{"table orders ROW EXCLUSIVE"}},
		{"INSERT INTO orders VALUES ($1, $2)", // every column
			[]string{"table orders ROW EXCLUSIVE", "table customers ROW SHARE", "row customers FOR KEY SHARE"}},
		{"UPDATE orders SET note = 'x' WHERE id = $1",
			[]string{"table orders ROW EXCLUSIVE", "row orders FOR NO KEY UPDATE"}},
		{"UPDATE orders SET customer_id = $2 WHERE id = $1",
			[]string{"table orders ROW EXCLUSIVE", "row orders FOR NO KEY UPDATE", "table customers ROW SHARE", "row customers FOR KEY SHARE"}},
		{"UPDATE orders SET code = $2 WHERE id = $1", // unique index column
			[]string{"table orders ROW EXCLUSIVE", "row orders FOR UPDATE"}},
		{"UPDATE orders SET id = $2 WHERE id = $1", // ON UPDATE CASCADE to order_items
			[]string{"table orders ROW EXCLUSIVE", "row orders FOR UPDATE", "table order_items ROW EXCLUSIVE", "row order_items FOR UPDATE"}},
		{"DELETE FROM orders WHERE id = $1", // cascade, set null, and the grandchildren
			[]string{"table orders ROW EXCLUSIVE", "row orders FOR UPDATE",
				"table order_items ROW EXCLUSIVE", "row order_items FOR UPDATE",
				"table parcels ROW EXCLUSIVE", "row parcels FOR UPDATE",
				"table shipments ROW EXCLUSIVE", "row shipments FOR NO KEY UPDATE"}},
		{"DELETE FROM customers WHERE id = $1", // NO ACTION: no child row changes
			[]string{"table customers ROW EXCLUSIVE", "row customers FOR UPDATE"}},
		{"WITH gone AS (DELETE FROM order_items WHERE order_id = $1 RETURNING line) SELECT count(*) FROM gone",
			[]string{"table order_items ROW EXCLUSIVE", "row order_items FOR UPDATE", "table parcels ROW EXCLUSIVE", "row parcels FOR UPDATE"}},
	} {
		var got []string
		for _, e := range schema.Analyze(tc.sql).Effects {
			got = append(got, render(e))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.sql, strings.Join(got, "; "), strings.Join(tc.want, "; "))
		}
	}
	// Without the schema, nothing is added.
	if got := len(Analyze("INSERT INTO orders (id, customer_id) VALUES ($1, $2)").Effects); got != 1 {
		t.Errorf("without a schema: %d effects, want 1", got)
	}
}

func TestLoadSchemaDir(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"001_tables.sql": "CREATE TABLE a (id int PRIMARY KEY); CREATE TABLE b (id int PRIMARY KEY, a_id int);",
		"002_fk.sql":     "ALTER TABLE b ADD CONSTRAINT b_a FOREIGN KEY (a_id) REFERENCES a (id) ON DELETE CASCADE;",
		"README.md":      "not SQL",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadSchema(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, by := s.ForeignKeys("a"); len(by) != 1 || by[0].OnDelete != Cascade {
		t.Errorf("a is referenced by %+v", by)
	}
	if err := os.WriteFile(filepath.Join(dir, "003_bad.sql"), []byte("CREATE TABEL x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSchema(dir); err == nil || !strings.Contains(err.Error(), "003_bad.sql") {
		t.Errorf("a migration that does not parse: err = %v", err)
	}
	if _, err := LoadSchema(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing path: no error")
	}
}

func FuzzSchemaParse(f *testing.F) {
	f.Add(testSchema)
	f.Add("ALTER TABLE x ADD FOREIGN KEY (a) REFERENCES y")
	f.Add("CREATE UNIQUE INDEX ON t (a, lower(b))")
	f.Fuzz(func(t *testing.T, sql string) {
		s := NewSchema()
		if err := s.Parse(sql); err != nil {
			return
		}
		for name := range s.tables {
			s.IsSingleRow(name, []string{"id"})
			s.cascades(0, name, []string{"id"}, true, 0, map[string]bool{name: true})
		}
	})
}
