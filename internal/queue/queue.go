// Package queue runs loopwork's durable background work on River, in the same PostgreSQL as the data.
//
// Work is enqueued with InsertTx inside the transaction of the change that causes it, so a change and
// its consequences commit together or not at all; River delivers each job at least once, to any
// replica, and rescues jobs of a replica that died. Workers therefore make every step idempotent.
package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"
)

// Client is River's client over database/sql, so jobs can be inserted in the stores' *sql.Tx.
type Client = river.Client[*sql.Tx]

// Options tune the worker side.
type Options struct {
	// MaxWorkers per replica for the default queue (default 32: flow tasks are short and mostly wait on
	// PostgreSQL, so more of them in flight than cores keeps both busy; 10 ran a fan-out 25% slower).
	MaxWorkers int
	// PollInterval is how often a replica looks for new jobs without being told of any (default
	// pollInterval).
	PollInterval time.Duration
	Logger       *slog.Logger
	// Periodic jobs run on the leader replica at their intervals.
	Periodic []*river.PeriodicJob
	// Sweeps run on the leader replica, pacing themselves (see Sweep).
	Sweeps *Sweeps
	// Middleware wraps the insertion and the working of every job, outermost first (tracing's spans,
	// metrics' counts).
	Middleware []rivertype.Middleware
}

// pollInterval is River's poll for new jobs. Every insert notifies (River's pg_notify, heard by the
// listener), the listener wakes the queues itself while inserts are being heard and after it
// reconnected, and the leader's scheduler notifies for jobs whose time came; so the poll only covers a
// notification lost without the listener noticing, and each one is a transaction on an idle server.
// It was 250 ms (240 transactions a minute of an idle server's 630).
const pollInterval = 30 * time.Second

// New returns a client that can insert jobs and, once started, works the ones registered in workers.
// dsn is the database's connection string, for the connection that listens for new jobs.
func New(db *sql.DB, dsn string, workers *river.Workers, o Options) (*Client, error) {
	if o.MaxWorkers <= 0 {
		o.MaxWorkers = 32
	}
	if o.PollInterval <= 0 {
		o.PollInterval = pollInterval
	}
	var hooks []rivertype.Hook
	if o.Sweeps != nil {
		hooks = append(hooks, o.Sweeps)
	}
	driver := &listeningDriver{Driver: riverdatabasesql.New(db), db: db, dsn: dsn, queues: []string{river.QueueDefault},
		heard: o.Sweeps.activity}
	return river.NewClient[*sql.Tx](driver, &river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.MaxWorkers}},
		Workers:           workers,
		PeriodicJobs:      o.Periodic,
		Hooks:             hooks,
		Middleware:        o.Middleware,
		Logger:            quiet(o.Logger),
		FetchPollInterval: o.PollInterval,
		// New jobs are announced by the listener, so a short cooldown lets a worker take a job
		// moments after it was committed; polling is only the backstop.
		FetchCooldown:        2 * time.Millisecond,
		JobTimeout:           10 * time.Minute,
		RescueStuckJobsAfter: 15 * time.Minute,
	})
}

// quiet passes on River's warnings and errors only: at info it reports its job counts every few
// seconds, which the periodic sweeps keep non-zero, and a log of that says nothing to an operator.
func quiet(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(atLeast{l.Handler(), slog.LevelWarn})
}

type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(a []slog.Attr) slog.Handler { return atLeast{h.Handler.WithAttrs(a), h.min} }

func (h atLeast) WithGroup(n string) slog.Handler { return atLeast{h.Handler.WithGroup(n), h.min} }

// Stop lets running jobs finish for up to grace, then cancels them; River retries what was cut off.
func Stop(c *Client, grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := c.Stop(ctx); err != nil {
		return c.StopAndCancel(context.Background())
	}
	return nil
}

// Announce wakes the workers of every replica as a job insert does: for a change that makes a job
// available without one, such as an operator's retry through River's UI (River's retry sends no
// notification, and the poll is rare).
func Announce(ctx context.Context, db *sql.DB) error {
	b, err := json.Marshal(insertPayload{Queue: river.QueueDefault})
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `SELECT pg_notify(coalesce(current_schema(), '') || '.' || $1, $2)`, insertTopic, string(b))
	return err
}
