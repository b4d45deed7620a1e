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

// sweepEvery is how often the leader looks for jobs to admit or expire that no event announced (a job
// finished through /api, a deadline passed), and for bulk operations whose worker was lost.
const sweepEvery = 2 * time.Second

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
}

// New returns the service; give it the queue with SetQueue once built. A bulk operation whose worker
// has been silent for twice the task lease (at least 10 s) is taken for lost, as task attempts are.
func New(db *sqlx.DB, engine *run.Engine, log *slog.Logger, lease time.Duration) *Service {
	return &Service{db: db, engine: engine, log: log, silence: max(2*lease, 10*time.Second)}
}

// SetQueue gives the service the queue its jobs go to.
func (s *Service) SetQueue(q *queue.Client) { s.queue = q }

// Register adds the workers.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, &admitWorker{s: s})
	river.AddWorker(w, &sweepWorker{s: s})
}

// PeriodicJobs are the sweep, for the queue's configuration.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
}

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
	if err := bulk.Rescue(ctx, w.s.db, w.s.silence, func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error {
		_, err := w.s.queue.InsertTx(ctx, tx, bulk.OperationArgs{ID: id}, nil)
		return err
	}); err != nil {
		return err
	}
	// The apps with PENDING jobs, one index probe each (a loose scan of jobs_pending_idx).
	var apps []uuid.UUID
	if err := w.s.db.SelectContext(ctx, &apps, `WITH RECURSIVE a (id) AS (
			(SELECT app_id FROM jobs WHERE status = 'PENDING' ORDER BY app_id LIMIT 1)
			UNION ALL
			SELECT (SELECT app_id FROM jobs WHERE status = 'PENDING' AND app_id > a.id ORDER BY app_id LIMIT 1)
			FROM a WHERE a.id IS NOT NULL)
		SELECT id FROM a WHERE id IS NOT NULL LIMIT 1000`); err != nil {
		return err
	}
	for _, app := range apps {
		if err := w.s.Admit(ctx, app); err != nil {
			return err
		}
	}
	return nil
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
