package executors

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// statement is one sql_query's statement and its bounds.
type statement struct {
	query   string
	args    []any
	limit   int
	timeout time.Duration
}

// run prepares the statement on one connection and runs it. On a confined target it runs inside a
// READ ONLY transaction with SET LOCAL statement_timeout first, and the transaction is rolled back
// whatever happens; elsewhere it runs on its own (in autocommit), since the organization's own
// databases may be written to.
func run(ctx context.Context, target SQLTarget, st statement) (map[string]any, error) {
	conn, err := target.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	type preparer interface {
		PrepareContext(context.Context, string) (*sql.Stmt, error)
	}
	var on preparer = conn
	if target.Confined {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, err
		}
		defer tx.Rollback() //nolint:errcheck // rolled back always: nothing the statement did may stay
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SET LOCAL statement_timeout = %d`, st.timeout.Milliseconds())); err != nil {
			return nil, err
		}
		on = tx
	}
	stmt, err := on.PrepareContext(ctx, st.query)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	if reads(st.query) {
		return queryRows(ctx, stmt, st.args, st.limit)
	}
	res, err := stmt.ExecContext(ctx, st.args...)
	if err != nil {
		return nil, err
	}
	n, _ := res.RowsAffected()
	return map[string]any{"rows": []any{}, "row_count": n}, nil
}

func queryRows(ctx context.Context, stmt *sql.Stmt, args []any, limit int) (map[string]any, error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	out := []any{}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for len(out) < limit && rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make(map[string]any, len(cols))
		for i, c := range cols {
			row[c] = jsonValue(vals[i])
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return map[string]any{"rows": out, "row_count": len(out)}, nil
}
