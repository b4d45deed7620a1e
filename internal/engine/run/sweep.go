package run

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/queue"
)

// sweepInterval is how often the sweeps run while there is work about (on the leader replica only): a
// few times per lease, so a lost attempt runs again soon after its lease ends.
func (e *Engine) sweepInterval() time.Duration {
	return min(max(e.lease/3, time.Second), 15*time.Second)
}

// ttlIdle is the longest the sweep of executions past their time to live waits when it finds none: a
// time to live is a retention policy, and an execution deleted a few minutes after it became due is
// deleted in time. It was a part of the lost attempts' sweep, every sweepInterval.
const ttlIdle = 5 * time.Minute

// sweepArgs is a job that runs the sweeps once. The leader no longer enqueues it periodically (see
// Sweeps); the worker stays for jobs an older version left queued and for an operator's retry.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return "engine_sweep" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	e *Engine
}

// Sweeps are the engine's sweeps, for the leader replica (see queue.Sweep).
//
// Lost attempts: the sweep reads when the earliest lease of a running attempt ends and runs then, so
// an attempt whose process died runs again as soon as its lease has ended. It waits at most a lease
// when no attempt runs: an attempt started after a run (here or on another replica, where no event
// tells this process) ends its lease no earlier than a lease after it, and the next run sees that
// deadline. An idle server therefore looks twice a minute with the default lease (30 s), where it
// used to look every lease/3, and a lost attempt is found no later than before.
func (e *Engine) Sweeps() []*queue.Sweep {
	return []*queue.Sweep{
		{Name: "engine_lost", Every: e.sweepInterval(), Idle: e.lease, Run: e.sweepDue},
		e.ttl,
	}
}

// ttlSweep is the sweep of executions past their time to live (see SweepExpired).
func (e *Engine) ttlSweep() *queue.Sweep {
	return &queue.Sweep{Name: "engine_ttl", Every: e.sweepInterval(), Idle: ttlIdle, Run: func(ctx context.Context) (queue.Outcome, error) {
		n, err := e.SweepExpired(ctx)
		return queue.Outcome{Found: n > 0}, err
	}}
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	if err := w.e.SweepLost(ctx); err != nil {
		return err
	}
	_, err := w.e.SweepExpired(ctx)
	return err
}

// sweepDue runs SweepLost's two parts when something is due for them, and reports when the next will
// be: the end of the earliest lease still running, and the moment the earliest flow_task job River
// holds as running becomes stuck. One statement when nothing is due, on partial indexes.
func (e *Engine) sweepDue(ctx context.Context) (queue.Outcome, error) {
	var probe struct {
		Lost     bool       `db:"lost"`
		LeaseEnd *time.Time `db:"lease_end"`
		Stuck    bool       `db:"stuck"`
		StuckAt  *time.Time `db:"stuck_at"`
	}
	stuckAfter := e.stuckAfter().Seconds()
	if err := e.db.GetContext(ctx, &probe, `SELECT
		EXISTS (SELECT 1 FROM task_executions WHERE status = 'running' AND timeout_at < now()) AS lost,
		(SELECT min(timeout_at) FROM task_executions WHERE status = 'running' AND timeout_at >= now()) AS lease_end,
		EXISTS (SELECT 1 FROM river_job WHERE state = 'running' AND kind = 'flow_task'
			AND attempted_at < now() - make_interval(secs => $1)) AS stuck,
		(SELECT min(attempted_at) + make_interval(secs => $1) FROM river_job WHERE state = 'running'
			AND kind = 'flow_task' AND attempted_at >= now() - make_interval(secs => $1)) AS stuck_at`, stuckAfter); err != nil {
		return queue.Outcome{}, err
	}
	o := queue.Due(probe.LeaseEnd, probe.StuckAt)
	if probe.Lost {
		n, err := e.sweepLost(ctx)
		if err != nil {
			return o, err
		}
		o.Found = n > 0
	}
	if probe.Stuck {
		n, err := e.sweepStuckJobs(ctx)
		if err != nil {
			return o, err
		}
		o.Found = o.Found || n > 0
	}
	return o, nil
}

// stuckAfter is how long River may hold a flow_task job as running before sweepStuckJobs stands in for it.
func (e *Engine) stuckAfter() time.Duration { return 3 * e.lease }

// SweepLost runs again the attempts whose lease ran out: their worker's process died (a live worker
// renews its lease). The attempt keeps its index and idempotency key — it is the same attempt delivered
// again, not a retry. Attempts of external tasks are left alone: an expired lease makes them claimable
// by outside workers instead.
func (e *Engine) SweepLost(ctx context.Context) error {
	if _, err := e.sweepLost(ctx); err != nil {
		return err
	}
	_, err := e.sweepStuckJobs(ctx)
	return err
}

// sweepLost queues again the lost attempts of SweepLost, and returns how many.
func (e *Engine) sweepLost(ctx context.Context) (int, error) {
	var lost []struct {
		Execution uuid.UUID `db:"flow_execution_id"`
		Task      string    `db:"task_name"`
		Idx       int       `db:"task_execution_idx"`
		Org       uuid.UUID `db:"organization_id"`
		Flow      uuid.UUID `db:"flow_id"`
		Version   int       `db:"flow_version"`
	}
	if err := e.db.SelectContext(ctx, &lost, `SELECT t.flow_execution_id, t.task_name, t.task_execution_idx,
		x.organization_id, x.flow_id, x.flow_version FROM task_executions t JOIN flow_executions x ON x.id = t.flow_execution_id
		WHERE t.status = 'running' AND t.timeout_at < now() ORDER BY t.timeout_at LIMIT 1000`); err != nil {
		return 0, err
	}
	queued := 0
	for _, l := range lost {
		p, err := e.plan(ctx, e.db, l.Flow, l.Version)
		if err != nil {
			return queued, err
		}
		if t := p.tasks[l.Task]; t == nil || t.Type == External {
			continue
		}
		err = dbx.WithTx(ctx, e.db, func(tx *sqlx.Tx) error {
			res, err := tx.ExecContext(ctx, `UPDATE task_executions SET status = 'queued', started_at = NULL, timeout_at = NULL,
				updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3
				AND status = 'running' AND timeout_at < now()`, l.Execution, l.Task, l.Idx)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil
			}
			queued++
			_, err = e.queue.InsertTx(ctx, tx.Tx, taskArgs{Execution: l.Execution, Task: l.Task, Idx: l.Idx, Org: l.Org}, nil)
			return err
		})
		if err != nil {
			return queued, err
		}
	}
	return queued, nil
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

// sweepStuckJobs stands in for flow_task jobs that River still counts as running long after a live
// worker would have finished them: their process died after River handed them over and before the
// attempt was claimed, or while a wait was being ended. River rescues such jobs only after
// RescueStuckJobsAfter (minutes); a stand-in job for the same attempt is inserted at once instead,
// unique per stuck job, and the stuck one does nothing when River finally retries it. It returns how
// many stand-ins it inserted.
func (e *Engine) sweepStuckJobs(ctx context.Context) (int, error) {
	var stuck []struct {
		ID   int64           `db:"id"`
		Args json.RawMessage `db:"args"`
	}
	if err := e.db.SelectContext(ctx, &stuck, `SELECT id, args FROM river_job WHERE kind = 'flow_task' AND state = 'running'
		AND attempted_at < now() - make_interval(secs => $1) ORDER BY id LIMIT 500`, e.stuckAfter().Seconds()); err != nil {
		return 0, err
	}
	inserted := 0
	for _, j := range stuck {
		var a taskArgs
		if err := json.Unmarshal(j.Args, &a); err != nil {
			return inserted, err
		}
		var waiting bool
		if err := e.db.GetContext(ctx, &waiting, `SELECT EXISTS (SELECT 1 FROM task_executions
			WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3
			AND (status = 'queued' OR (status = 'running' AND $4 AND timeout_at IS NULL)))`,
			a.Execution, a.Task, a.Idx, a.Resume); err != nil {
			return inserted, err
		}
		if !waiting {
			continue
		}
		a.Stuck = j.ID
		res, err := e.queue.Insert(ctx, a, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}})
		if err != nil {
			return inserted, err
		}
		if !res.UniqueSkippedAsDuplicate {
			inserted++
		}
	}
	return inserted, nil
}
