package sqlsite

import (
	"go/token"
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestDefaultTableName checks the default names against those GORM
// v1.31.2's NamingStrategy.TableName gives (printed by a program that
// called it on each name).
func TestDefaultTableName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Job", "jobs"},
		{"Account", "accounts"},
		{"BillingAccount", "billing_accounts"},
		{"Category", "categories"},
		{"Day", "days"},
		{"Box", "boxes"},
		{"Batch", "batches"},
		{"Address", "addresses"},
		{"Person", "people"},
		{"UserStatus", "user_statuses"},
		{"HTTPRequest", "http_requests"},
		{"OAuth2Token", "o_auth2_tokens"},
		{"WorkQueueItem", "work_queue_items"},
		{"APIKey", "api_keys"},
		{"UserID", "user_ids"},
		{"V2Job", "v2_jobs"},
		{"Child", "children"},
		{"Info", "infos"},
		{"Mouse", "mice"},
		{"Quiz", "quizzes"},
		{"Index", "indices"},
		{"Matrix", "matrices"},
	}
	for _, tt := range tests {
		if got := defaultTableName(tt.in); got != tt.want {
			t.Errorf("defaultTableName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Job", "job"},
		{"WorkQueueItem", "work_queue_item"},
		{"APIKey", "api_key"},
		{"UserID", "user_id"},
		{"V2Job", "v2_job"},
	}
	for _, tt := range tests {
		if got := snakeCase(tt.in); got != tt.want {
			t.Errorf("snakeCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestStatementSQL checks the canonical statements that builder chains
// become: what the lock model is given in place of the library's own SQL.
func TestStatementSQL(t *testing.T) {
	tests := []struct {
		name string
		st   statement
		want string
		ok   bool
	}{
		{"select for update", statement{verb: "SELECT", table: "jobs", where: []string{"id = ?"}, suffix: []string{"FOR UPDATE"}},
			"SELECT * FROM jobs WHERE (id = ?) FOR UPDATE", true},
		{"conditions joined", statement{verb: "SELECT", table: "jobs", where: []string{"a = ?", "b = ?"}},
			"SELECT * FROM jobs WHERE (a = ?) AND (b = ?)", true},
		{"unparsable condition stands as an unrendered filter", statement{verb: "DELETE", table: "jobs", where: []string{"?TableAlias.id = ?"}},
			"DELETE FROM jobs WHERE " + unknownFilter, true},
		{"unrendered conditions", statement{verb: "SELECT", table: "jobs", where: []string{"id = ?"}, unknown: true, suffix: []string{"FOR UPDATE"}},
			"SELECT * FROM jobs WHERE (id = ?) AND (" + unknownFilter + ") FOR UPDATE", true},
		{"order and limit", statement{verb: "SELECT", table: "jobs", order: []string{"id"}, limit1: true, suffix: []string{"FOR UPDATE"}},
			"SELECT * FROM jobs ORDER BY id LIMIT 1 FOR UPDATE", true},
		{"a dialect's order is dropped, the lock kept", statement{verb: "SELECT", table: "jobs", order: []string{"id ASCENDING"}, suffix: []string{"FOR UPDATE"}},
			"SELECT * FROM jobs FOR UPDATE", true},
		{"update with its column", statement{verb: "UPDATE", table: "accounts", set: "balance"},
			"UPDATE accounts SET balance = balance", true},
		{"update without a column", statement{verb: "UPDATE", table: "accounts"},
			"UPDATE accounts SET updated_at = updated_at", true},
		{"insert", statement{verb: "INSERT", table: "jobs", where: []string{"ignored"}},
			"INSERT INTO jobs DEFAULT VALUES", true},
		{"insert of one row", statement{verb: "INSERT", table: "saga_log", columns: []string{"trip_id", "step"}, values: make([]ssa.Value, 2), rows: 1},
			"INSERT INTO saga_log (trip_id, step) VALUES (?, ?)", true},
		{"insert of several rows", statement{verb: "INSERT", table: "saga_log", columns: []string{"trip_id", "step"}, values: make([]ssa.Value, 2), rows: 2},
			"INSERT INTO saga_log DEFAULT VALUES", true},
		{"insert whose values the chain does not say", statement{verb: "INSERT", table: "saga_log", columns: []string{"trip_id", "step"}, rows: 1},
			"INSERT INTO saga_log DEFAULT VALUES", true},
		{"raw text wins", statement{verb: "SELECT", raw: "SELECT 1 FROM t FOR SHARE"},
			"SELECT 1 FROM t FOR SHARE", true},
		{"a prefix (squirrel's Prefix: a CTE)", statement{verb: "SELECT", table: "jobs", prefix: []string{"WITH r AS (SELECT 1 FROM runs FOR UPDATE)"}},
			"WITH r AS (SELECT 1 FROM runs FOR UPDATE) SELECT * FROM jobs", true},
		{"a prefix that does not parse is dropped", statement{verb: "SELECT", table: "jobs", prefix: []string{"/*+ hint"}, suffix: []string{"FOR UPDATE"}},
			"SELECT * FROM jobs FOR UPDATE", true},
		{"no table", statement{verb: "SELECT"}, "", false},
		{"unknown verb", statement{verb: "MERGE", table: "t"}, "", false},
	}
	for _, tt := range tests {
		got, ok := tt.st.sql()
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: sql() = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestIsLibraryPackage(t *testing.T) {
	for path, want := range map[string]bool{
		"gorm.io/gorm":                         true,
		"gorm.io/gorm/clause":                  true,
		"gorm.io/driver/postgres":              true,
		"github.com/uptrace/bun":               true,
		"github.com/uptrace/bun/pgdialect":     true,
		"github.com/uptrace/bunny":             false,
		"github.com/jmoiron/sqlx":              true,
		"github.com/Masterminds/squirrel":      true,
		"xorm.io/xorm":                         true,
		"entgo.io/ent/dialect/sql":             true,
		"example.com/app/ent":                  false,
		"github.com/beego/beego/v2/client/orm": true,
		"github.com/beego/beego/v2/server/web": false,
		"github.com/astaxie/beego/orm":         true,
	} {
		if got := isLibraryPackage(path); got != want {
			t.Errorf("isLibraryPackage(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestXormSnake(t *testing.T) {
	for in, want := range map[string]string{"Job": "job", "WalletEntry": "wallet_entry", "HTTPRequest": "h_t_t_p_request"} {
		if got := xormSnake(in); got != want {
			t.Errorf("xormSnake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBeegoKind(t *testing.T) {
	for _, tc := range []struct {
		pkg, name string
		want      HandleKind
	}{
		{pkgBeego, "Ormer", Pool},
		{pkgBeego, "TxOrmer", Tx},
		{pkgBeego, "QueryExecutor", Maybe},
		{pkgBeego, "RawSeter", NotHandle},
		{pkgBeegoV1, "Ormer", Maybe},
		{pkgBeegoV1, "TxOrmer", NotHandle},
	} {
		if got := beegoKind(tc.pkg, tc.name); got != tc.want {
			t.Errorf("beegoKind(%s, %s) = %v, want %v", tc.pkg, tc.name, got, tc.want)
		}
	}
}

// TestXormColumn checks the column a condition bean's field filters on.
func TestXormColumn(t *testing.T) {
	field := func(name string, embedded bool) *types.Var {
		return types.NewField(token.NoPos, nil, name, types.Typ[types.Int64], embedded)
	}
	tests := []struct {
		name     string
		embedded bool
		tag      string
		want     string
	}{
		{"Inode", false, "", "inode"},
		{"JobID", false, `json:"job"`, "job_i_d"},
		{"Owner", false, `xorm:"'holder' notnull index"`, "holder"},
		{"Parent", false, `xorm:"notnull unique(edge)"`, "parent"},
		{"Cache", false, `xorm:"-"`, ""},
		{"Base", true, `xorm:"extends"`, ""},
		{"Base", true, "", ""},
	}
	for _, tt := range tests {
		if got := xormColumn(field(tt.name, tt.embedded), tt.tag); got != tt.want {
			t.Errorf("xormColumn(%s, %q) = %q, want %q", tt.name, tt.tag, got, tt.want)
		}
	}
}
