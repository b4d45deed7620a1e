package dbx

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"strings"

	"github.com/lib/pq"
)

// lib/pq parses and plans every parameterised query anew. Requests here issue a handful of small
// queries whose texts repeat endlessly, so the time PostgreSQL spends parsing and planning them is a
// large share of its work (measured with pgbench on the job submission: 2,340 tx/s unprepared, 4,570
// prepared). This connector keeps, per connection, the prepared statements of the most recently used
// query texts and runs parameterised queries through them.
//
// Planning, not parsing, is the larger share: a three-table lookup by key takes 0.3 ms to plan and
// 0.05 ms to run. PostgreSQL's default plan_cache_mode lets a prepared statement settle on a generic
// plan after five executions when that plan costs no more than the custom ones, which is right for
// lookups by key. It is wrong for a query over jobs whose best plan depends on its values: a generic
// plan could serve a million-job app's list with a ten-job app's plan. Such query texts carry
// CustomPlan and bypass the cache: they run as unnamed statements, which PostgreSQL plans for their
// values every time, still in one round trip.

// CustomPlan marks a query text (anywhere in it; it is an SQL comment) as one that must be planned for
// its values on every execution. The job filter compiler puts it in every condition it builds.
const CustomPlan = "/* custom plan */"

// stmtCacheSize bounds the statements kept per connection. Query texts are built from fixed parts
// (filters add conditions, never values), so the working set is small.
const stmtCacheSize = 256

type cachingConnector struct {
	pq *pq.Connector
}

// newCachingConnector wraps lib/pq's connector.
func newCachingConnector(dsn string) (driver.Connector, error) {
	c, err := pq.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return &cachingConnector{pq: c}, nil
}

func (c *cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.pq.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cachingConn{Conn: conn, stmts: map[string]*list.Element{}, order: list.New()}, nil
}

func (c *cachingConnector) Driver() driver.Driver { return c.pq.Driver() }

type cachedStmt struct {
	query string
	stmt  driver.Stmt
}

// cachingConn is a lib/pq connection with a statement cache. database/sql uses a connection from
// one goroutine at a time, so the cache needs no lock.
type cachingConn struct {
	driver.Conn
	stmts map[string]*list.Element // query -> element of order holding a *cachedStmt
	order *list.List               // most recently used first
}

// prepared returns the cached statement of query, preparing it on first use.
func (c *cachingConn) prepared(ctx context.Context, query string) (driver.Stmt, error) {
	if e, ok := c.stmts[query]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cachedStmt).stmt, nil
	}
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = c.order.PushFront(&cachedStmt{query: query, stmt: st})
	if c.order.Len() > stmtCacheSize {
		c.evict(c.order.Back())
	}
	return st, nil
}

func (c *cachingConn) evict(e *list.Element) {
	cs := e.Value.(*cachedStmt)
	c.order.Remove(e)
	delete(c.stmts, cs.query)
	_ = cs.stmt.Close()
}

// stale reports errors after which a cached statement must not be used again: a schema change made
// its plan's result type obsolete, or the statement no longer exists on the server.
func stale(err error) bool {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return pqErr.Code == "0A000" && strings.Contains(pqErr.Message, "cached plan") || pqErr.Code == "26000"
	}
	return false
}

// uncached reports the queries lib/pq runs best itself: statements without parameters go through the
// simple protocol in one round trip already, and CustomPlan queries must be planned every time.
func uncached(query string, args []driver.NamedValue) bool {
	return len(args) == 0 || strings.Contains(query, CustomPlan)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if uncached(query, args) {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	st, err := c.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil && stale(err) {
		c.evict(c.stmts[query])
		return nil, driver.ErrBadConn // database/sql retries on a fresh statement
	}
	return rows, err
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if uncached(query, args) {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	st, err := c.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	res, err := st.(driver.StmtExecContext).ExecContext(ctx, args)
	if err != nil && stale(err) {
		c.evict(c.stmts[query])
		return nil, driver.ErrBadConn
	}
	return res, err
}

func (c *cachingConn) Close() error {
	for c.order.Len() > 0 {
		c.evict(c.order.Front())
	}
	return c.Conn.Close()
}

// The rest forwards to lib/pq's connection, which implements each of these.

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *cachingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *cachingConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

func (c *cachingConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

var (
	_ driver.QueryerContext     = (*cachingConn)(nil)
	_ driver.ExecerContext      = (*cachingConn)(nil)
	_ driver.ConnPrepareContext = (*cachingConn)(nil)
	_ driver.ConnBeginTx        = (*cachingConn)(nil)
	_ driver.Pinger             = (*cachingConn)(nil)
	_ driver.SessionResetter    = (*cachingConn)(nil)
	_ driver.Validator          = (*cachingConn)(nil)
	_ driver.NamedValueChecker  = (*cachingConn)(nil)
)
