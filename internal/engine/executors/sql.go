package executors

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/netguard"
)

// SQLConnector opens one of an organization's registered SQL databases; ErrNoDatabase when it has no
// such database. The caller closes the handle.
type SQLConnector func(ctx context.Context, org, database uuid.UUID) (*sql.DB, error)

// ErrNoDatabase is what an SQLConnector answers for a database the organization does not have.
var ErrNoDatabase = errors.New("no such SQL database")

// Spill stores a large result of a task as an object of the organization and answers its storage URI.
type Spill func(ctx context.Context, org uuid.UUID, name string, data []byte) (string, error)

// SpillBytes is the size of the rows (as JSON) past which a sql_query task's rows are stored as a file
// and its output names the file (rows_uri) instead of holding them: execution histories stay small.
const SpillBytes = 256 << 10

const (
	defaultSQLRows    = 1000
	defaultSQLTimeout = 30 * time.Second
)

// SQLQuery runs the statement of a sql_query task on the organization's registered database, with its
// parameters bound to the placeholders (never spliced into the text), within the task's timeout (30 s by
// default). A statement that reads (SELECT, WITH, VALUES, SHOW, TABLE) answers its rows, at most
// max_rows, each an object by column name; any other answers the rows it affected. A retried attempt
// runs the statement again, so statements that write should be idempotent. Errors of the statement
// itself fail the task at once; a connection that fails is retried per the task's retry policy.
func SQLQuery(connect SQLConnector, spill Spill) Executor {
	return Func(func(ctx context.Context, in Input) (Result, error) {
		p := in.Task.Parameters
		id, err := uuid.Parse(fmt.Sprint(p["database_id"]))
		if err != nil {
			return Result{}, Permanent(errors.New("database_id: not a UUID"))
		}
		query, _ := p["query"].(string)
		args, _ := p["parameters"].([]any)
		limit := defaultSQLRows
		if n, ok := p["max_rows"].(float64); ok && n >= 1 {
			limit = int(n)
		}
		timeout := defaultSQLTimeout
		if in.Task.TimeoutSeconds != nil && *in.Task.TimeoutSeconds > 0 {
			timeout = time.Duration(*in.Task.TimeoutSeconds) * time.Second
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		db, err := connect(ctx, in.Org, id)
		if errors.Is(err, ErrNoDatabase) {
			return Result{}, Permanent(fmt.Errorf("database_id: %w", err))
		}
		if err != nil {
			return Result{}, err
		}
		defer db.Close()
		var out map[string]any
		if reads(query) {
			out, err = queryRows(ctx, db, query, args, limit)
		} else {
			out, err = execute(ctx, db, query, args)
		}
		if err != nil {
			return Result{}, classify(err)
		}
		if b, _ := json.Marshal(out["rows"]); len(b) > SpillBytes && spill != nil {
			uri, err := spill(ctx, in.Org, fmt.Sprintf("task-outputs/%s/%s-%d.json", in.Execution, in.Task.Name, in.Idx), b)
			if err != nil {
				return Result{}, err
			}
			out["rows"], out["rows_uri"] = []any{}, uri
		}
		return Result{Output: out}, nil
	})
}

// reads tells statements that answer rows by their first word.
func reads(query string) bool {
	f := strings.Fields(strings.TrimLeft(query, "( \t\r\n"))
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "SELECT", "WITH", "VALUES", "SHOW", "TABLE":
		return true
	}
	return false
}

func queryRows(ctx context.Context, db *sql.DB, query string, args []any, limit int) (map[string]any, error) {
	rows, err := db.QueryContext(ctx, query, args...)
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

func execute(ctx context.Context, db *sql.DB, query string, args []any) (map[string]any, error) {
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	n, _ := res.RowsAffected()
	return map[string]any{"rows": []any{}, "row_count": n}, nil
}

// jsonValue turns a driver value into JSON: text and numerics as strings, times in RFC 3339.
func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return v
}

// classify fails the task at once for errors of the statement (a retry would meet them again) and
// for a host the guard refuses; other errors (the network, a timeout) are retried.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) || errors.Is(err, netguard.ErrBlocked) {
		return Permanent(err)
	}
	return err
}
