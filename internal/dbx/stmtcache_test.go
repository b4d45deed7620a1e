package dbx_test

import (
	"context"
	"testing"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestStatementCache: a parameterised query runs through one prepared statement per connection,
// every execution is planned for its values, and the results are those of the unprepared query.
func TestStatementCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := dbx.Open(ctx, testkit.DSN(t, testkit.EmptyDB(t)), dbx.PoolOptions{MaxOpenConns: 1, MaxIdleConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.GetContext(ctx, &mode, `SHOW plan_cache_mode`); err != nil || mode != "force_custom_plan" {
		t.Fatalf("plan_cache_mode = %q (%v)", mode, err)
	}
	const q = `SELECT $1::int + $2::int`
	for i := 0; i < 20; i++ {
		var n int
		if err := db.GetContext(ctx, &n, q, i, 1); err != nil || n != i+1 {
			t.Fatalf("run %d: %d %v", i, n, err)
		}
	}
	var prepared int
	if err := db.GetContext(ctx, &prepared, `SELECT count(*) FROM pg_prepared_statements WHERE statement = $1`, q); err != nil {
		t.Fatal(err)
	}
	if prepared != 1 {
		t.Fatalf("%d prepared statements for the query, want 1", prepared)
	}
	// A schema change under a cached statement is survived: the statement is prepared again.
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (a int)`); err != nil {
		t.Fatal(err)
	}
	sel := `SELECT * FROM t WHERE a > $1`
	first, err := db.QueryContext(ctx, sel, 0)
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	if _, err := db.ExecContext(ctx, `ALTER TABLE t ADD COLUMN b int`); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryxContext(ctx, sel, 0)
	if err != nil {
		t.Fatalf("query after the schema changed: %v", err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if len(cols) != 2 {
		t.Fatalf("columns %v after adding one", cols)
	}
}
