module libs

go 1.25.0

require github.com/jmoiron/sqlx v1.4.0

require github.com/mattn/go-sqlite3 v1.14.32 // indirect
