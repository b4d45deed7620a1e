// Package dbx opens the PostgreSQL pool and owns the two things every store shares: the transaction
// boundary and the translation of PostgreSQL errors into the service's error kinds.
package dbx

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	neturl "net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // registers the "postgres" database/sql driver
)

// DBTX is what store methods take: the pool or a transaction, so a service decides the boundary.
type DBTX interface {
	sqlx.ExtContext
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

var (
	_ DBTX = (*sqlx.DB)(nil)
	_ DBTX = (*sqlx.Tx)(nil)
)

// PoolOptions sizes the connection pool.
type PoolOptions struct {
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
	// Wrap, when set, wraps the driver's connector; tracing records the pool's statements through it.
	Wrap func(driver.Connector) driver.Connector
}

// Open connects and pings, so a wrong URL fails at start-up rather than on the first request.
func Open(ctx context.Context, url string, opts PoolOptions) (*sqlx.DB, error) {
	connector, err := newCachingConnector(WithConnectionDefaults(url))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if opts.Wrap != nil {
		connector = opts.Wrap(connector)
	}
	db := sqlx.NewDb(sql.OpenDB(connector), "postgres")
	if opts.MaxOpenConns > 0 {
		db.SetMaxOpenConns(opts.MaxOpenConns)
	}
	db.SetMaxIdleConns(opts.MaxIdleConns)
	db.SetConnMaxLifetime(opts.ConnMaxLifetime)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return db, nil
}

// WithTx runs fn in a transaction: committed when fn returns nil, rolled back otherwise (and on panic).
// The commit error is always returned, so a failed commit is never mistaken for success.
func WithTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) (err error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// IsNoRows reports whether err means a single-row query found nothing.
func IsNoRows(err error) bool { return err == sql.ErrNoRows }

// Placeholder is the n-th query argument ($n), for queries assembled from parts.
func Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// WithConnectionDefaults sets what the code base is built for, unless the connection string decides
// otherwise: lib/pq's binary_parameters (a parameterised query in one round trip instead of two; JSON
// parameters therefore always travel as strings and []byte only goes to bytea columns). Plans are
// left to PostgreSQL's default plan_cache_mode: see CustomPlan for the queries that must not share one.
func WithConnectionDefaults(dsn string) string {
	defaults := [][2]string{{"binary_parameters", "yes"}}
	if u, err := neturl.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		for _, d := range defaults {
			if !q.Has(d[0]) {
				q.Set(d[0], d[1])
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, d := range defaults {
		if !strings.Contains(dsn, d[0]+"=") {
			dsn += " " + d[0] + "=" + d[1]
		}
	}
	return dsn
}
