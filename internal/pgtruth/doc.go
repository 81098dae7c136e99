// Package pgtruth holds the tests that check pglockorder against a real
// PostgreSQL server: the lock model's conflict matrices, cell by cell, and
// the reproducer of every deadlock the analyzer reports in the test corpus.
//
// The package has no code of its own: its tests need a server and skip
// without one (see internal/pgtest). .ci/run starts a throwaway cluster on
// 127.0.0.1 and runs them.
package pgtruth
