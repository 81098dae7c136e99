// want package:"sql=true edges=0"

// Command server serves the PostgreSQL store.
package main

import (
	"dialect/store"
	"dialect/store/postgres"
)

var _ store.Store = (*postgres.Store)(nil)

func main() {}
