// Package ratelimit counts attempts per key in fixed windows stored in PostgreSQL, so a limit holds
// across every replica (sign-in attempts, invitation e-mails).
package ratelimit

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jmoiron/sqlx"
)

// Limiter is safe for concurrent use.
type Limiter struct{ db *sqlx.DB }

// New returns a limiter over db.
func New(db *sqlx.DB) *Limiter { return &Limiter{db: db} }

// Allow counts one attempt for key and reports whether it is within limit per window; when it is not,
// retryAfter says when the window ends.
func (l *Limiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (ok bool, retryAfter time.Duration, err error) {
	var row struct {
		Count int       `db:"count"`
		Start time.Time `db:"window_start"`
		Now   time.Time `db:"now"`
	}
	err = l.db.GetContext(ctx, &row, `
		INSERT INTO rate_limit_counters (key, window_start, count)
		VALUES ($1, date_bin($2 * interval '1 second', now(), timestamptz 'epoch'), 1)
		ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
		RETURNING count, window_start, now() AS now`, key, window.Seconds())
	if err != nil {
		return false, 0, err
	}
	// Old windows are swept now and then by whoever passes, instead of by a scheduled job.
	if rand.IntN(100) == 0 {
		_, _ = l.db.ExecContext(ctx, `DELETE FROM rate_limit_counters WHERE window_start < now() - interval '1 day'`)
	}
	if row.Count <= limit {
		return true, 0, nil
	}
	retry := row.Start.Add(window).Sub(row.Now)
	if retry < time.Second {
		retry = time.Second
	}
	return false, retry, nil
}
