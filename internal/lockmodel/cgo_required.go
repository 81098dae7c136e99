//go:build !cgo

package lockmodel

// pglockorder parses SQL with pg_query_go, which compiles PostgreSQL's own
// parser from C: without cgo its package is empty and the build would stop
// at "undefined: pg_query.Parse". This file is compiled only then, and
// stops the build first with a name that says what to do.
var _ = pglockorder_needs_cgo_and_a_C_compiler__set_CGO_ENABLED_1_and_install_gcc_or_clang
