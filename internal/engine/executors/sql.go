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
type SQLConnector func(ctx context.Context, org, database uuid.UUID) (SQLTarget, error)

// SQLTarget is a database a sql_query task runs on.
type SQLTarget struct {
	DB *sql.DB
	// Confined marks the organization's own document database: there the statement runs in a READ ONLY
	// transaction that is always rolled back, with the statement timeout set inside it, so nothing a
	// statement does (set_config, ALTER ROLE … SET, large objects, NOTIFY) outlives it; the handle holds
	// one connection, closed with it, so no session state (advisory locks) does either.
	Confined bool
}

// ErrNoDatabase is what an SQLConnector answers for a database the organization does not have.
var ErrNoDatabase = errors.New("no such SQL database")

// Spill stores a large result of a task as an object of the organization and answers its storage URI.
type Spill func(ctx context.Context, org uuid.UUID, name string, data []byte) (string, error)

// SpillBytes is the size of the rows (as JSON) past which a sql_query task's rows are stored as a file
// and its output names the file (rows_uri) instead of holding them: execution histories stay small.
const SpillBytes = 256 << 10

// SQLLimits are the server's bounds on every sql_query task.
type SQLLimits struct {
	// MaxRows is the most rows a task returns, whatever its max_rows asks.
	MaxRows int
	// StatementTimeout bounds the statement (a shorter task timeout wins).
	StatementTimeout time.Duration
}

const defaultSQLRows = 1000

// errOneStatement fails a task whose query holds more than one statement.
var errOneStatement = errors.New("query: a sql_query task runs exactly one SQL statement; put each further statement in a task of its own")

// SQLQuery runs the statement of a sql_query task on the organization's registered database, with its
// parameters bound to the placeholders (never spliced into the text), within the task's timeout and
// the server's statement timeout. The statement is prepared first (PostgreSQL's extended protocol), which
// refuses a text of several statements. A statement that reads (SELECT, WITH, VALUES, SHOW, TABLE)
// answers its rows, at most max_rows (and at most the server's ceiling), each an object by column name;
// any other answers the rows it affected. A retried attempt runs the statement again, so statements that
// write should be idempotent. Errors of the statement itself fail the task at once; a connection that
// fails is retried per the task's retry policy.
func SQLQuery(connect SQLConnector, spill Spill, limits SQLLimits) Executor {
	if limits.MaxRows < 1 {
		limits.MaxRows = 10000
	}
	if limits.StatementTimeout <= 0 {
		limits.StatementTimeout = 30 * time.Second
	}
	return Func(func(ctx context.Context, in Input) (Result, error) {
		p := in.Task.Parameters
		id, err := uuid.Parse(fmt.Sprint(p["database_id"]))
		if err != nil {
			return Result{}, Permanent(errors.New("database_id: not a UUID"))
		}
		query, _ := p["query"].(string)
		if strings.Trim(query, " \t\r\n;") == "" {
			return Result{}, Permanent(errors.New("query: the statement is empty"))
		}
		args, _ := p["parameters"].([]any)
		limit := defaultSQLRows
		if n, ok := p["max_rows"].(float64); ok && n >= 1 {
			limit = int(min(n, float64(limits.MaxRows)))
		}
		limit = min(limit, limits.MaxRows)
		timeout := limits.StatementTimeout
		if in.Task.TimeoutSeconds != nil && *in.Task.TimeoutSeconds > 0 {
			timeout = min(timeout, time.Duration(*in.Task.TimeoutSeconds)*time.Second)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout+time.Second)
		defer cancel()
		target, err := connect(ctx, in.Org, id)
		if errors.Is(err, ErrNoDatabase) {
			return Result{}, Permanent(fmt.Errorf("database_id: %w", err))
		}
		if err != nil {
			return Result{}, err
		}
		defer target.DB.Close()
		out, err := run(ctx, target, statement{query: query, args: args, limit: limit, timeout: timeout})
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
// for a host the guard refuses; other errors (the network, a timeout) are retried. A text of several
// statements fails with a message that says only one is allowed.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "42601" && strings.Contains(pqErr.Message, "multiple commands") {
		return Permanent(errOneStatement)
	}
	if errors.As(err, &pqErr) && pqErr.Code == "57014" {
		return Permanent(errors.New("query: the statement ran past its time limit and was canceled"))
	}
	if errors.As(err, &pqErr) || errors.Is(err, netguard.ErrBlocked) {
		return Permanent(err)
	}
	return err
}
