package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/trace"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// taskWorker runs the attempts of tasks. River delivers each job at least once; the attempt's status
// makes a repeated delivery harmless: only a queued attempt is claimed, and only a running one finished.
type taskWorker struct {
	river.WorkerDefaults[taskArgs]
	e *Engine
}

// claimed is an attempt this process took, with what running it needs.
type claimed struct {
	org, flow uuid.UUID
	version   int
	input     []byte
	vars      json.RawMessage // nil: the task reads no variables
}

// Work runs the attempt at once when its organization may take an executor now. Otherwise the attempt
// waits in this process's fair queue (see local) rather than in River's worker, whose slots are few and
// shared by every organization: a flood of one organization's waiting attempts would keep another's
// jobs from even being fetched. When the organization already holds its share of those local places,
// the job is snoozed and fetched again later, by this replica or another.
func (w *taskWorker) Work(ctx context.Context, job *river.Job[taskArgs]) error {
	e, a := w.e, job.Args
	if a.Resume {
		return e.finish(ctx, job, a, outcome{output: a.Output})
	}
	org, err := e.orgOf(ctx, a)
	if err != nil {
		return err
	}
	if e.running.TryAcquire(org) {
		c, ok, err := e.claim(ctx, a)
		if err != nil || !ok {
			e.running.Release(org)
			return err
		}
		return e.execute(ctx, job, a, c, true)
	}
	if !e.local.take(org) {
		return river.JobSnooze(snoozeFor(job))
	}
	c, ok, err := e.claim(ctx, a)
	if err != nil || !ok {
		e.local.release(org)
		return err
	}
	// The claimed attempt is durable under this process's lease: should the process die while it
	// waits, SweepLost queues it again. The job itself is done.
	e.runLocal(localRun{args: a, claimed: c, parent: trace.SpanContextFromContext(ctx)}, false)
	return nil
}

// orgOf is the organization of the attempt's execution: named in the job, or read for a job queued
// before jobs named it (uuid.Nil when the execution is gone; the claim then finds nothing to run).
func (e *Engine) orgOf(ctx context.Context, a taskArgs) (uuid.UUID, error) {
	if a.Org != uuid.Nil {
		return a.Org, nil
	}
	var org uuid.UUID
	err := e.db.GetContext(ctx, &org, `SELECT organization_id FROM flow_executions WHERE id = $1`, a.Execution)
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, nil
	}
	return org, err
}

// snoozeFor is how long a job of an organization that has its share of waiting attempts here already
// waits before it is fetched again: half a second, doubling with each snooze up to eight, with some
// jitter so that a backlog does not come back all at once.
func snoozeFor(job *river.Job[taskArgs]) time.Duration {
	var meta struct {
		Snoozes int `json:"snoozes"`
	}
	_ = json.Unmarshal(job.Metadata, &meta)
	d := 500 * time.Millisecond << min(max(meta.Snoozes, 0), 4)
	return d + rand.N(d/4)
}

// execute runs a claimed attempt and finishes it; job is the River job that delivered it (nil when
// this process claimed it itself, see local). held says the caller already holds the organization's
// executor slot; otherwise execute waits for one, in turn with the other organizations' attempts.
func (e *Engine) execute(ctx context.Context, job *river.Job[taskArgs], a taskArgs, c claimed, held bool) (err error) {
	if held {
		// Released here on every path but the one that runs the executor, which releases it itself.
		defer func() {
			if held {
				e.running.Release(c.org)
			}
		}()
	}
	p, err := e.plan(ctx, e.db, c.flow, c.version)
	if err != nil {
		return err
	}
	task := p.tasks[a.Task]
	if task == nil {
		return fmt.Errorf("task %q is not in version %d of flow %s", a.Task, c.version, c.flow)
	}
	ctx, span := e.startAttempt(ctx, a, task, c)
	o := outcome{task: task, plan: p, vars: c.vars}
	defer func() { endAttempt(span, o, err) }()
	timeout := DefaultTimeout
	if task.TimeoutSeconds != nil {
		timeout = time.Duration(*task.TimeoutSeconds) * time.Second
	}
	stop := e.heartbeat(ctx, a)
	defer stop()
	ex := e.execs[task.Type]
	if ex == nil {
		ex = executors.Unavailable(task.Type, "no executor is registered for it")
	}
	var data any
	var raw json.RawMessage
	if len(c.input) > 0 {
		if err := json.Unmarshal(c.input, &data); err != nil {
			return err
		}
		raw = c.input
	}
	if s, ok := e.takeBeside(a.Execution, a.Task, c.input, p.key); ok && len(c.vars) == 0 {
		o.result = s.o.result // it ran beside the transaction that claimed it (runBeside)
		return e.finish(ctx, job, a, o)
	}
	// The lease is renewed while the attempt waits for its turn, so waiting does not make it look lost.
	if !held {
		if err := e.running.Acquire(ctx, c.org); err != nil {
			return err
		}
	}
	held = false
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	var res executors.Result
	runErr := varsError(c.vars, e.maxVars)
	if runErr == nil {
		res, runErr = ex.Run(runCtx, executors.Input{Org: c.org, Execution: a.Execution, Task: *task, Idx: a.Idx, Data: data,
			Raw: raw, Key: fmt.Sprintf("%s/%s/%d", a.Execution, a.Task, a.Idx), Vars: c.vars, Flow: c.flow, Version: c.version,
			Preds: p.preds[a.Task]})
	}
	cancel()
	e.running.Release(c.org)
	if runErr != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		runErr = timeoutError{timeout}
	}
	o.result, o.err = res, runErr
	return e.finish(ctx, job, a, o)
}

type timeoutError struct{ d time.Duration }

func (t timeoutError) Error() string { return fmt.Sprintf("the attempt took longer than %s", t.d) }

// claim marks a queued attempt running under a lease, and the execution running if it was queued. It reports false when the attempt is not queued any more (another delivery has it, or the
// execution stopped).
func (e *Engine) claim(ctx context.Context, a taskArgs) (claimed, bool, error) {
	var c claimed
	// One statement, locking the attempt and then (only while it is queued) the execution, in the order
	// of every engine transaction.
	err := e.db.QueryRowxContext(ctx, `
		WITH att AS (
			UPDATE task_executions t SET status = 'running', started_at = now(), updated_at = now(),
				timeout_at = now() + make_interval(secs => $4)
			FROM flow_executions x
			WHERE t.flow_execution_id = $1 AND t.task_name = $2 AND t.task_execution_idx = $3 AND t.status = 'queued'
			  AND x.id = t.flow_execution_id AND x.status IN `+state.List(state.ExecActive)+`
			RETURNING t.input, t.vars, x.organization_id, x.flow_id, x.flow_version, x.status),
		exec AS (
			UPDATE flow_executions SET status = 'running', started_at = now(), updated_at = now()
			WHERE id = $1 AND status = 'queued' AND EXISTS (SELECT 1 FROM att WHERE att.status = 'queued'))
		SELECT coalesce(input::text, '{}'), coalesce(vars::text, ''), organization_id, flow_id, flow_version FROM att`,
		a.Execution, a.Task, a.Idx, e.lease.Seconds()).Scan(&c.input, (*[]byte)(&c.vars), &c.org, &c.flow, &c.version)
	if errors.Is(err, sql.ErrNoRows) {
		// Not queued any more (another delivery has it), or its execution stopped: an attempt queued by a
		// sibling's outcome while the execution was being stopped never runs.
		_, err = e.db.ExecContext(ctx, `UPDATE task_executions t SET status = 'cancelled', completed_at = now(), updated_at = now()
			FROM flow_executions x WHERE t.flow_execution_id = $1 AND t.task_name = $2 AND t.task_execution_idx = $3
			AND t.status = 'queued' AND x.id = t.flow_execution_id
			AND x.status NOT IN `+state.List(state.ExecActive), a.Execution, a.Task, a.Idx)
		return c, false, err
	}
	return c, err == nil, err
}

// heartbeat renews the attempt's lease while its executor runs, so that only an attempt whose process
// died lets its lease run out (and is run again by the sweep). It returns the function that stops it.
func (e *Engine) heartbeat(ctx context.Context, a taskArgs) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(e.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := e.db.ExecContext(ctx, `UPDATE task_executions SET timeout_at = now() + make_interval(secs => $4)
					WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3 AND status = 'running'`,
					a.Execution, a.Task, a.Idx, e.lease.Seconds()); err != nil && ctx.Err() == nil && e.log != nil {
					e.log.Warn("renewing a task lease failed", "execution", a.Execution, "task", a.Task, "error", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}
