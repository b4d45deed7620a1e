// Package testkit is the test harness: a real PostgreSQL database per test, the real HTTP stack, and
// generated clients whose every response is checked against the contract.
package testkit

import (
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/testkit/testdb"
)

// The databases come from testdb; these names keep the harness's own.

// ServerURL is the PostgreSQL server the tests create their databases on. `make test` sets it.
func ServerURL(t testing.TB) string { return testdb.ServerURL(t) }

// DB returns a migrated database of the test's own, cloned from the template, dropped when the test ends.
func DB(t testing.TB) *sqlx.DB { return testdb.DB(t) }

// EmptyDB returns an empty database of the test's own (no migrations applied).
func EmptyDB(t testing.TB) *sqlx.DB { return testdb.EmptyDB(t) }

// DSN returns the connection string of a database created by DB or EmptyDB.
func DSN(t testing.TB, db *sqlx.DB) string { return testdb.DSN(t, db) }

// DropDB drops a database created by DB or EmptyDB while connections to it are open.
func DropDB(t testing.TB, db *sqlx.DB) { testdb.DropDB(t, db) }
