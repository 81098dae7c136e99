module github.com/pglockorder/pglockorder

go 1.26.8

require (
	github.com/golangci/plugin-module-register v0.1.2
	github.com/jackc/pgx/v5 v5.12.0
	github.com/jinzhu/inflection v1.0.0
	github.com/pganalyze/pg_query_go/v5 v5.1.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/mod v0.42.0
	golang.org/x/tools v0.52.0
	google.golang.org/protobuf v1.31.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
