module github.com/pglockorder/pglockorder

go 1.26.8

require (
	github.com/jinzhu/inflection v1.0.0
	github.com/pganalyze/pg_query_go/v5 v5.1.0
	golang.org/x/tools v0.52.0
	google.golang.org/protobuf v1.31.0
)

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
