// Command app runs the data layer of the module it replaces locally.
package main

import (
	"context"
	"database/sql"
	"os"

	"example.com/dbmod/store"
)

func main() {
	db, err := sql.Open("postgres", os.Getenv("DATABASE_URL"))
	if err != nil {
		os.Exit(1)
	}
	_ = store.Transfer(context.Background(), db, 1)
	_ = store.Audit(context.Background(), db, 1)
}
