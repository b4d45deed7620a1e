package dbx_test

import (
	"context"
	"testing"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestStatementCache: a parameterised query runs through one prepared statement per connection, which
// settles on a generic plan; a CustomPlan query is never prepared, so it is planned for its values
// every time; results are those of the unprepared query.
func TestStatementCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := dbx.Open(ctx, testkit.DSN(t, testkit.EmptyDB(t)), dbx.PoolOptions{MaxOpenConns: 1, MaxIdleConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE k (id int PRIMARY KEY, v text)`); err != nil {
		t.Fatal(err)
	}
	const q = `SELECT count(*) FROM k WHERE id = $1 OR v = $2`
	custom := dbx.CustomPlan + q
	for i := 0; i < 20; i++ {
		for _, text := range []string{q, custom} {
			var n int
			if err := db.GetContext(ctx, &n, text, i, "x"); err != nil || n != 0 {
				t.Fatalf("run %d: %d %v", i, n, err)
			}
		}
	}
	var plans []struct {
		Statement string `db:"statement"`
		Generic   int64  `db:"generic_plans"`
		Custom    int64  `db:"custom_plans"`
	}
	if err := db.SelectContext(ctx, &plans, `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '%FROM k WHERE%'`); err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 || plans[0].Statement != q {
		t.Fatalf("prepared statements %+v, want only the query without CustomPlan", plans)
	}
	if plans[0].Generic == 0 {
		t.Fatalf("the cached statement never used a generic plan: %+v", plans[0])
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
