// want package:"sql=true edges=0"

// Command legacytool registers the MySQL driver and runs the legacy store.
package main

import (
	"context"
	"database/sql"

	_ "github.com/go-sql-driver/mysql"

	"dialect/store/legacy"
)

func main() {
	db, err := sql.Open("mysql", "user@/db")
	if err != nil {
		return
	}
	_ = legacy.Credit(context.Background(), db, 1)
}
