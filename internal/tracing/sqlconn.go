package tracing

import (
	"context"
	"database/sql/driver"

	"go.opentelemetry.io/otel/trace"
)

// conn is a pool connection whose statements get spans. It offers what the connection it wraps offers
// (the statement cache's, which offers lib/pq's): database/sql looks for these interfaces on the
// connection, and one it did not find would change how the pool runs queries.
type conn struct {
	driver.Conn
	tracer trace.Tracer
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip // database/sql prepares the statement instead
	}
	ctx, span := statement(ctx, c.tracer, query)
	rows, err := q.QueryContext(ctx, query, args)
	done(span, err)
	return rows, err
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	x, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	ctx, span := statement(ctx, c.tracer, query)
	res, err := x.ExecContext(ctx, query, args)
	done(span, err)
	return res, err
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = c.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{Stmt: st, query: query, tracer: c.tracer}, nil
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.Conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip // database/sql's default conversion
}

// stmt is a statement prepared explicitly; each execution gets a span like an unprepared one. The
// statements it wraps are lib/pq's, which take contexts.
type stmt struct {
	driver.Stmt
	query  string
	tracer trace.Tracer
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ctx, span := statement(ctx, s.tracer, s.query)
	res, err := s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	done(span, err)
	return res, err
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	ctx, span := statement(ctx, s.tracer, s.query)
	rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	done(span, err)
	return rows, err
}

var (
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.StmtExecContext    = (*stmt)(nil)
	_ driver.StmtQueryContext   = (*stmt)(nil)
)
