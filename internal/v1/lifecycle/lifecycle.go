// Package lifecycle moves /v1 jobs of apps bound to a flow through the states no request moves them
// through: PENDING jobs are admitted (their execution started) as their app has room, highest priority
// first, and jobs past their deadline or time to live expire with their executions. Both are River jobs,
// so they survive restarts; both work set-based, a batch per transaction.
package lifecycle

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/v1/bulk"
)

// sweepEvery is how often the leader looks, while there is work about, for jobs to admit or expire that
// no event announced (a job finished through /api, a deadline passed), and for bulk operations whose
// worker was lost.
const sweepEvery = 2 * time.Second

// sweepIdle is the longest the sweep waits when it finds nothing (see queue.Sweep). It reads the
// earliest deadline of an unfinished job and when the earliest unfinished bulk operation would fall
// silent, and runs then; a job stored here with a deadline wakes it (Sweep().Wake, from the
// submission). So sweepIdle bounds only how late it sees a deadline set on another replica, and PENDING
// jobs whose admission no event asked for: a minute, against a look every 2 s that an idle server
// paid for (three statements and a River job each time).
const sweepIdle = time.Minute

// batchSize is how many jobs one transaction admits or expires.
const batchSize = 500

// Service admits and expires jobs.
type Service struct {
	// silence is how long an unfinished bulk operation may go without a batch before it gets a new run.
	silence time.Duration
	db      *sqlx.DB
	engine  *run.Engine
	queue   *queue.Client
	log     *slog.Logger
	sweep   *queue.Sweep
}

// New returns the service; give it the queue with SetQueue once built. A bulk operation whose worker
// has been silent for twice the task lease (at least 10 s) is taken for lost, as task attempts are.
func New(db *sqlx.DB, engine *run.Engine, log *slog.Logger, lease time.Duration) *Service {
	s := &Service{db: db, engine: engine, log: log, silence: max(2*lease, 10*time.Second)}
	s.sweep = &queue.Sweep{Name: "jobs_sweep", Every: sweepEvery, Idle: sweepIdle, Run: s.sweepDue}
	return s
}

// SetQueue gives the service the queue its jobs go to.
func (s *Service) SetQueue(q *queue.Client) { s.queue = q }

// Register adds the workers.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, &admitWorker{s: s})
	river.AddWorker(w, &sweepWorker{s: s})
}

// Sweep is the sweep, for the leader replica; jobs wakes it when it stores a job with a deadline.
func (s *Service) Sweep() *queue.Sweep { return s.sweep }

// admitArgs asks for the PENDING jobs of an app to be admitted; the admission that runs goes on until
// the app has no room or no PENDING job left.
type admitArgs struct {
	App uuid.UUID `json:"app"`
}

func (admitArgs) Kind() string { return "admit_jobs" }

// AdmitTx asks, in tx, for the app's PENDING jobs to be admitted once tx commits. Requests coalesce
// with one that waits to run, never with one running: that one may have looked already, and a job it
// did not see must not wait for the sweep.
func (s *Service) AdmitTx(ctx context.Context, tx *sql.Tx, app uuid.UUID) error {
	var waiting bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM river_job WHERE state = 'available'
		AND kind = 'admit_jobs' AND args @> jsonb_build_object('app', $1::text))`, app).Scan(&waiting); err != nil || waiting {
		return err
	}
	_, err := s.queue.InsertTx(ctx, tx, admitArgs{App: app}, nil)
	return err
}

type admitWorker struct {
	river.WorkerDefaults[admitArgs]
	s *Service
}

func (w *admitWorker) Work(ctx context.Context, job *river.Job[admitArgs]) error {
	return w.s.Admit(ctx, job.Args.App)
}

// sweepArgs is a job that runs the sweep once. The leader no longer enqueues it periodically (see
// Sweep); the worker stays for jobs an older version left queued and for an operator's retry.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return "jobs_sweep" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	s *Service
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	if _, err := w.s.Expire(ctx); err != nil {
		return err
	}
	if _, err := w.s.rescue(ctx); err != nil {
		return err
	}
	_, err := w.s.admitPending(ctx)
	return err
}

// sweepDue does what is due of the sweep's three parts, each only when the probe saw something for it
// (one statement when nothing is due), and reports the earliest deadline it saw.
func (s *Service) sweepDue(ctx context.Context) (queue.Outcome, error) {
	var probe struct {
		Expired   bool       `db:"expired"`
		ExpiresAt *time.Time `db:"expires_at"`
		Pending   bool       `db:"pending"`
		BulkLost  bool       `db:"bulk_lost"`
		BulkAt    *time.Time `db:"bulk_at"`
	}
	if err := s.db.GetContext(ctx, &probe, `SELECT
		EXISTS (SELECT 1 FROM jobs WHERE expires_at < now() AND status IN ('PENDING', 'SCHEDULED', 'IN_PROGRESS', 'SUSPENDED')) AS expired,
		(SELECT min(expires_at) FROM jobs WHERE expires_at >= now() AND status IN ('PENDING', 'SCHEDULED', 'IN_PROGRESS', 'SUSPENDED')) AS expires_at,
		EXISTS (SELECT 1 FROM jobs WHERE status = 'PENDING') AS pending,
		`+bulk.Heartbeat.Probe("bulk", "$1"), s.silence.Seconds()); err != nil {
		return queue.Outcome{}, err
	}
	o := queue.Due(probe.ExpiresAt, probe.BulkAt)
	for _, part := range []struct {
		due bool
		run func(context.Context) (int64, error)
	}{{probe.Expired, s.Expire}, {probe.BulkLost, s.rescue}, {probe.Pending, s.admitPending}} {
		if !part.due {
			continue
		}
		n, err := part.run(ctx)
		if err != nil {
			return o, err
		}
		o.Found = o.Found || n > 0
	}
	return o, nil
}

// rescue gives a new run to bulk operations whose worker was lost, and returns how many.
func (s *Service) rescue(ctx context.Context) (int64, error) {
	n, err := bulk.Rescue(ctx, s.db, s.silence, func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error {
		_, err := s.queue.InsertTx(ctx, tx, bulk.OperationArgs{ID: id}, nil)
		return err
	})
	return int64(n), err
}

// admitPending admits the PENDING jobs of every app that has room, and returns how many it admitted.
func (s *Service) admitPending(ctx context.Context) (int64, error) {
	// The apps with PENDING jobs, one index probe each (a loose scan of jobs_pending_idx).
	var apps []uuid.UUID
	if err := s.db.SelectContext(ctx, &apps, `WITH RECURSIVE a (id) AS (
			(SELECT app_id FROM jobs WHERE status = 'PENDING' ORDER BY app_id LIMIT 1)
			UNION ALL
			SELECT (SELECT app_id FROM jobs WHERE status = 'PENDING' AND app_id > a.id ORDER BY app_id LIMIT 1)
			FROM a WHERE a.id IS NOT NULL)
		SELECT id FROM a WHERE id IS NOT NULL LIMIT 1000`); err != nil {
		return 0, err
	}
	var total int64
	for _, app := range apps {
		n, err := s.admit(ctx, app)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// ExecutionEnded is the engine's hook for an execution that ends (in the transaction that ends it):
// when it ran a job of an app with a limit of running jobs, the app's next PENDING jobs are admitted.
func (s *Service) ExecutionEnded(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID) error {
	var apps []uuid.UUID
	if err := tx.SelectContext(ctx, &apps, `SELECT a.id FROM flow_executions x JOIN apps a ON a.id = x.job_app_id
		WHERE x.id = $1 AND x.job_app_id IS NOT NULL AND jsonb_typeof(a.settings -> 'max_running_jobs') = 'number'`, exec); err != nil {
		return err
	}
	for _, app := range apps {
		if err := s.AdmitTx(ctx, tx.Tx, app); err != nil {
			return err
		}
	}
	return nil
}
