package run

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
)

// SweepInterval is how often the sweeps run (on the leader replica only).
const SweepInterval = 15 * time.Second

// sweepArgs is the periodic job that finds attempts whose worker vanished and executions whose time to
// live has passed.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return "engine_sweep" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	e *Engine
}

// PeriodicJobs are the engine's periodic jobs, for the queue's configuration.
func (e *Engine) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(SweepInterval),
		func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	if err := w.e.SweepOverdue(ctx); err != nil {
		return err
	}
	_, err := w.e.SweepExpired(ctx)
	return err
}

// SweepOverdue fails the running attempts whose deadline passed: their process died or lost them.
// Each fails like a timeout, so the task's retry applies. Attempts of external tasks are left to
// their leases: an expired lease makes the attempt claimable again instead.
func (e *Engine) SweepOverdue(ctx context.Context) error {
	var overdue []struct {
		Execution string `db:"flow_execution_id"`
		Task      string `db:"task_name"`
		Idx       int    `db:"task_execution_idx"`
		Timeout   string `db:"timeout"`
	}
	if err := e.db.SelectContext(ctx, &overdue, `SELECT flow_execution_id, task_name, task_execution_idx,
		(now() - coalesce(started_at, created_at))::text AS timeout FROM task_executions
		WHERE status = 'running' AND timeout_at < now() ORDER BY timeout_at LIMIT 500`); err != nil {
		return err
	}
	for _, o := range overdue {
		var a taskArgs
		if err := a.Execution.Scan(o.Execution); err != nil {
			return err
		}
		a.Task, a.Idx = o.Task, o.Idx
		err := dbx.WithTx(ctx, e.db, func(tx *sqlx.Tx) error {
			return e.record(ctx, tx, a, outcome{err: lostError{o.Timeout}, skipExternal: true})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

type lostError struct{ after string }

func (l lostError) Error() string {
	return "the attempt's worker stopped answering; it was running for " + l.after + " past its deadline"
}

// SweepExpired soft-deletes the executions whose flow's time to live (settings.ttl of the latest
// version) has passed since their last change, a thousand at a time, and returns how many.
func (e *Engine) SweepExpired(ctx context.Context) (int64, error) {
	res, err := e.db.ExecContext(ctx, `
		WITH due AS (
			SELECT x.id FROM flow_executions x
			JOIN flows f ON f.id = x.flow_id
			JOIN flow_versions v ON v.flow_id = f.id AND v.version = f.latest_version
			WHERE x.deleted_at IS NULL AND v.settings -> 'ttl' IS NOT NULL AND (
				(x.status IN ('completed', 'stale') AND x.updated_at < now() - make_interval(secs =>
					(v.settings -> 'ttl' ->> 'completed_after_seconds')::double precision))
				OR (x.status = 'failed' AND x.updated_at < now() - make_interval(secs =>
					(v.settings -> 'ttl' ->> 'failed_after_seconds')::double precision)))
			LIMIT 1000 FOR UPDATE OF x SKIP LOCKED)
		UPDATE flow_executions SET status = 'deleted', deleted_at = now(), updated_at = now(), modified_by = 'system'
		WHERE id IN (SELECT id FROM due)`)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
